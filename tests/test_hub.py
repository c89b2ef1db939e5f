"""The course on a JupyterHub, end to end (issue 22): one instructor, two students, the
exchange, grading, the formgrader, feedback and the permissions between them.

``autograder/hub/try_hub.sh start`` (as root) builds the hub's environment (once; reused
while its inputs do not change), creates the Linux users ``tokhub-instructor``,
``tokhub-alice`` and ``tokhub-bob``, the exchange (mode 1777), the instructor's private copy
of the course with ``chars`` and ``capstone`` generated, and starts JupyterHub 6.1.1 on
127.0.0.1 (PAM login, LocalProcessSpawner). ``try_hub.sh stop`` ends it and removes the
users, also when a test fails.

What goes over HTTP, as in the browser (``requests``): logging in through the hub's login
form, a token from the hub's API, starting each user's server; the students' *Assignments*
panel (its server extension: alice fetches, submits and fetches feedback; the notebooks
are saved through the contents API, as the editor saves them); the instructor's formgrader
(its REST API: releasing ``capstone``, autograding one submission, manual grades,
generating and releasing feedback); ``/formgrader`` on the students' servers.

What runs on the command line, as a user in a terminal (``runuser -u <user> -- <venv>/bin/...``):
the instructor's ``nbgrader release_assignment chars``, ``autograder/grade.py --collect
exchange`` and ``nbgrader release_feedback chars``; bob's ``nbgrader fetch_assignment`` and
``nbgrader submit``; ``jupyter labextension list``; bob's attempts on other people's files.

alice submits the instructor's solutions (full marks; her capstone answers then wait for a
manual grade), bob a ``chars`` whose Part 4 is wrong and which, when graded, writes a marker
into its home directory and tries to read the course's source, and ``capstone`` as
released. Skipped when not root or without ``useradd``; needs Node.js and npm (the proxy)
and bubblewrap (grading). About 1.5 to 2 minutes on 2 cores once the environment exists; its
first build adds about a minute. With ``TOKHUB_SCREENSHOTS=<dir>`` it also saves
screenshots of the formgrader in its own browser tab (headless Chromium).
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "autograder" / "hub" / "try_hub.sh"
PREFIX = Path("/opt/tokhub")  # try_hub.sh's default
VENV = PREFIX / "venv"
RUN = PREFIX / "run"
EXCHANGE = RUN / "exchange"
CONFIG = RUN / "etc" / "jupyter"
INSTRUCTOR, ALICE, BOB = "tokhub-instructor", "tokhub-alice", "tokhub-bob"
COURSE = Path(f"/home/{INSTRUCTOR}/tokenization")
COURSE_ID = "tokenization"
MARKER = "tokhub-sandbox-marker"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="creates Linux users and runs a hub: needs root"),
    pytest.mark.skipif(shutil.which("useradd") is None, reason="needs useradd to create the hub's users"),
]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_grading_e2e import solutions, submission  # noqa: E402

# bob's chars: Parts 1-3 right, Part 4 wrong; the cell also tries to leave a trace outside
# its sandbox and to read the course's source (the grader runs it as the instructor).
BOB_UNK_RATE = f'''
import os
for _path in [os.path.expanduser("~/{MARKER}"), "/home/{INSTRUCTOR}/{MARKER}", "/home/{BOB}/{MARKER}",
              "/tmp/{MARKER}"]:
    try:
        with open(_path, "w") as _f:
            _f.write("written while being graded")
        print("wrote", _path)
    except OSError as _e:
        print("could not write", _path, type(_e).__name__)
try:
    print(open("{COURSE}/source/chars/chars.ipynb").read()[:80])
except OSError as _e:
    print("could not read the course's source:", type(_e).__name__)

def unk_rate(text, vocab):
    return 0.0  # wrong
'''

ANSWER = ("**Your answer:** measured on my tokenizer: with the special token 5 ids, without it 15; "
          "the pattern would split it, so it must be cut out before training.")


# ---------------------------------------------------------------------------------------
# The hub and its users
# ---------------------------------------------------------------------------------------


def free_port() -> int:
    """A port p with p, p+1 and p+2 free (the proxy, the hub's API, the proxy's API)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port > 65000:
            continue
        try:
            for p in (port + 1, port + 2):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no three free ports in a row")


def run_as(user: str, *cmd: str, cwd: Path | None = None, check: bool = True,
           timeout: float = 300) -> subprocess.CompletedProcess:
    """``cmd`` as ``user``, with the environment the hub gives the user's server."""
    home = pwd.getpwnam(user).pw_dir
    env = ["env", "-i", f"HOME={home}", f"USER={user}", f"LOGNAME={user}", "LANG=C.UTF-8",
           f"PATH={VENV}/bin:/usr/local/bin:/usr/bin:/bin", f"JUPYTER_CONFIG_PATH={CONFIG}"]
    proc = subprocess.run(["runuser", "-u", user, "--", *env, *cmd], cwd=cwd or home,
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} as {user} exited {proc.returncode}:\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


PROBE = r'''
import errno, json, os, sys
out = {}
for name, op, args in json.loads(sys.argv[1]):
    try:
        if op == "list":
            os.listdir(args[0])
        elif op == "read":
            open(args[0], "rb").close()
        elif op == "write":
            open(args[0], "ab").close()
        elif op == "create":
            open(args[0], "xb").close()
        elif op == "rename":
            os.rename(args[0], args[1])
        elif op == "replace_dir":  # a directory of one's own, moved over the target
            os.makedirs(args[0], exist_ok=True)
            os.rename(args[0], args[1])
        out[name] = "allowed"
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))
print(json.dumps(out))
'''


def probe(user: str, attempts: list[tuple[str, str, list[str]]]) -> dict[str, str]:
    """What ``user`` may do: for each (name, operation, paths), "allowed" or the errno's name."""
    proc = run_as(user, f"{VENV}/bin/python", "-c", PROBE, json.dumps(attempts))
    return json.loads(proc.stdout)


class User:
    """A user of the hub: logged in through the login form, with a token from the hub's API."""

    def __init__(self, url: str, name: str, password: str) -> None:
        import requests

        self.url, self.name = url, name
        self.web = requests.Session()
        self.web.get(f"{url}/hub/login", timeout=30)
        r = self.web.post(f"{url}/hub/login", timeout=60, allow_redirects=False,
                          data={"username": name, "password": password, "_xsrf": self._xsrf()})
        assert r.status_code == 302, f"login of {name}: {r.status_code} {r.text[:300]}"
        r = self.web.post(f"{url}/hub/api/users/{name}/tokens", timeout=30,
                          headers={"X-XSRFToken": self._xsrf()},
                          json={"note": "tests/test_hub.py", "expires_in": 3600})
        assert r.status_code == 201, f"token of {name}: {r.status_code} {r.text[:300]}"
        self.api = requests.Session()
        self.api.headers["Authorization"] = f"token {r.json()['token']}"

    def _xsrf(self) -> str:
        return next(c.value for c in self.web.cookies if c.name == "_xsrf")

    def spawn(self) -> None:
        r = self.api.post(f"{self.url}/hub/api/users/{self.name}/server", timeout=60)
        assert r.status_code in (201, 202), f"spawn {self.name}: {r.status_code} {r.text[:300]}"

    def wait_ready(self, timeout: float = 150) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            servers = self.api.get(f"{self.url}/hub/api/users/{self.name}", timeout=30).json()["servers"]
            if servers.get("", {}).get("ready"):
                return
            time.sleep(0.5)
        raise AssertionError(f"the server of {self.name} did not start in {timeout} s")

    def server(self, method: str, path: str, **kw):
        """A request to the user's own server, /user/<name>/<path>."""
        kw.setdefault("timeout", 300)
        return self.api.request(method, f"{self.url}/user/{self.name}/{path}", **kw)


@pytest.fixture(scope="module")
def hub():
    for cmd in ("runuser", "chpasswd", "npm", "bwrap"):
        assert shutil.which(cmd), f"{cmd} is missing (README: the system packages of the tests)"
    port = free_port()
    env = {**os.environ, "TOKHUB_PORT": str(port), "TOKHUB_ASSIGNMENTS": "chars capstone"}
    start = time.monotonic()
    try:
        proc = subprocess.run(["bash", str(SCRIPT), "start"], env=env, capture_output=True,
                              text=True, timeout=900)
        assert proc.returncode == 0, f"try_hub.sh start failed:\n{proc.stdout}\n{proc.stderr[-5000:]}"
        print(f"try_hub.sh start: {time.monotonic() - start:.0f} s", file=sys.stderr)
        passwords = dict(line.split() for line in (RUN / "state" / "passwords").read_text().splitlines())
        url = f"http://127.0.0.1:{port}"
        users = {name: User(url, name, passwords[name]) for name in (INSTRUCTOR, ALICE, BOB)}
        for u in users.values():
            u.spawn()
        yield users
    finally:
        stop = subprocess.run(["bash", str(SCRIPT), "stop"], env=env, capture_output=True, text=True,
                              timeout=300)
        print(f"the hub's test took {time.monotonic() - start:.0f} s in all", file=sys.stderr)
        assert stop.returncode == 0, stop.stderr


@pytest.fixture(scope="module")
def instructor(hub):
    hub[INSTRUCTOR].wait_ready()
    return hub[INSTRUCTOR]


@pytest.fixture(scope="module")
def alice(hub):
    hub[ALICE].wait_ready()
    return hub[ALICE]


@pytest.fixture(scope="module")
def bob(hub):
    hub[BOB].wait_ready()
    return hub[BOB]


def read_nb(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def instructors_solutions(assignment: str, released: dict) -> dict:
    """The released notebook with the instructor's code in every solution cell."""
    code = solutions(read_nb(ROOT / "source" / assignment / f"{assignment}.ipynb"))
    nb = submission(released, code)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and cell["metadata"].get("nbgrader", {}).get("solution"):
            cell["source"] = ANSWER
    return nb


def events(student: str, assignment: str) -> list[dict]:
    lines = (COURSE / "grading-events.jsonl").read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e["student"] == student and e["assignment"] == assignment]


# ---------------------------------------------------------------------------------------
# The tests, in the order of a course: release, work, submit, grade, feedback
# ---------------------------------------------------------------------------------------


def test_setup_is_private(hub):
    """The course directory is the instructor's alone; the exchange is sticky."""
    st = COURSE.stat()
    assert pwd.getpwuid(st.st_uid).pw_name == INSTRUCTOR
    assert stat.S_IMODE(st.st_mode) == 0o700
    assert stat.S_IMODE(EXCHANGE.stat().st_mode) == 0o1777
    for user in (INSTRUCTOR, ALICE, BOB):
        assert stat.S_IMODE(Path(pwd.getpwnam(user).pw_dir).stat().st_mode) == 0o700


def test_release(instructor):
    """chars from the command line, capstone with the formgrader's Release button (its API)."""
    run_as(INSTRUCTOR, "nbgrader", "release_assignment", "chars", cwd=COURSE)
    r = instructor.server("POST", "formgrader/api/assignment/capstone/release")
    assert r.status_code == 200 and r.json()["success"], r.text[:2000]
    outbound = EXCHANGE / COURSE_ID / "outbound"
    assert sorted(p.name for p in outbound.iterdir()) == ["capstone", "chars"]
    assert pwd.getpwuid((EXCHANGE / COURSE_ID).stat().st_uid).pw_name == INSTRUCTOR


def test_alice_fetches_and_submits_in_the_assignments_panel(alice):
    """Over HTTP, what the Assignments panel does: fetch, save (contents API), submit."""
    for a in ("chars", "capstone"):
        r = alice.server("POST", "assignments/fetch", data={"assignment_id": a, "course_id": COURSE_ID})
        assert r.status_code == 200, r.text[:1000]
        r = alice.server("GET", f"api/contents/{a}/{a}.ipynb")
        assert r.status_code == 200, r.text[:300]
        nb = instructors_solutions(a, r.json()["content"])
        r = alice.server("PUT", f"api/contents/{a}/{a}.ipynb",
                         json={"type": "notebook", "format": "json", "content": nb})
        assert r.status_code == 200, r.text[:300]
        r = alice.server("POST", "assignments/submit", data={"assignment_id": a, "course_id": COURSE_ID})
        assert r.status_code == 200 and r.json()["success"], r.text[:2000]
    listing = alice.server("GET", "assignments", params={"course_id": COURSE_ID}).json()["value"]
    assert {x["assignment_id"] for x in listing if x["status"] == "submitted"} == {"chars", "capstone"}


def test_bob_fetches_and_submits_on_the_command_line(bob):
    home = Path(pwd.getpwnam(BOB).pw_dir)
    for a in ("chars", "capstone"):
        run_as(BOB, "nbgrader", "fetch_assignment", a, "--course", COURSE_ID)
    path = home / "chars" / "chars.ipynb"
    code = solutions(read_nb(ROOT / "source" / "chars" / "chars.ipynb"))
    code["chars-unk-rate"] = BOB_UNK_RATE
    path.write_text(json.dumps(submission(read_nb(path), code)), encoding="utf-8")
    os.chown(path, pwd.getpwnam(BOB).pw_uid, pwd.getpwnam(BOB).pw_gid)
    for a in ("chars", "capstone"):  # capstone as released
        run_as(BOB, "nbgrader", "submit", a, "--course", COURSE_ID)


def test_bob_cannot_reach_the_course_or_tamper_with_the_exchange(hub):
    course = EXCHANGE / COURSE_ID
    inode = course.stat().st_ino
    [alice_inbound] = [p for p in (course / "inbound").iterdir() if p.name.startswith(f"{ALICE}+chars+")]
    seen = probe(BOB, [
        ("list the course", "list", [str(COURSE)]),
        ("read the course's source", "read", [str(COURSE / "source" / "chars" / "chars.ipynb")]),
        ("read alice's home", "list", [f"/home/{ALICE}"]),
        ("rename exchange/tokenization", "rename", [str(course), str(EXCHANGE / "stolen")]),
        ("replace exchange/tokenization", "replace_dir", [str(EXCHANGE / "bobs"), str(course)]),
        ("write a released notebook", "write", [str(course / "outbound" / "chars" / "chars.ipynb")]),
        ("add to the release", "create", [str(course / "outbound" / "chars" / "extra.py")]),
        ("list the submissions", "list", [str(course / "inbound")]),
        ("write alice's submission", "write", [str(alice_inbound / "chars.ipynb")]),
    ])
    assert {k: v for k, v in seen.items() if v == "allowed"} == {}, seen
    assert course.stat().st_ino == inode and not (EXCHANGE / "stolen").exists()
    # Why the sticky bit: with nbgrader's own 0777 the same rename succeeds.
    EXCHANGE.chmod(0o777)
    try:
        seen = probe(BOB, [("rename", "rename", [str(course), str(EXCHANGE / "stolen")])])
        assert seen == {"rename": "allowed"}
    finally:
        if (EXCHANGE / "stolen").exists():
            os.rename(EXCHANGE / "stolen", course)
        EXCHANGE.chmod(0o1777)


def test_grade_py_as_the_instructor(instructor):
    """Collect and grade with grade.py, run by the instructor (never root)."""
    proc = run_as(INSTRUCTOR, "python", "autograder/grade.py", "chars", "capstone", "--collect",
                  "exchange", "--exchange-root", str(EXCHANGE), "--quiet", cwd=COURSE, timeout=600)
    print(proc.stderr[-2000:], file=sys.stderr)
    with (COURSE / "grading-report.csv").open(encoding="utf-8") as f:
        rows = {(r["assignment"], r["student"]): r for r in csv.DictReader(f)}
    score = {k: float(r["score"]) for k, r in rows.items()}
    assert score == {("chars", ALICE): 10.0, ("chars", BOB): 8.0,
                     ("capstone", ALICE): 14.0, ("capstone", BOB): 0.0}, rows
    assert rows[("capstone", ALICE)]["needs_manual_grade"] == "yes"
    for path in (COURSE / "submitted").rglob("*"):
        assert pwd.getpwuid(path.stat().st_uid).pw_name == INSTRUCTOR, path
        assert not path.stat().st_mode & stat.S_IWOTH, path


def test_bob_cannot_write_alices_collected_submission(hub):
    target = COURSE / "submitted" / ALICE / "chars" / "chars.ipynb"
    assert target.exists()
    assert probe(BOB, [("write", "write", [str(target)])]) == {"write": "EACCES"}


def test_formgrader_autograde_is_sandboxed(instructor):
    """The formgrader's Autograde button (its API) grades bob's chars with the course's
    pipeline, in the sandbox: the marker stays inside, the course's source is not there,
    and the audit hook's flags reach grading-events.jsonl."""
    before = len(events(BOB, "chars"))
    r = instructor.server("POST", f"formgrader/api/submission/chars/{BOB}/autograde")
    assert r.status_code == 200 and r.json()["success"], r.text[-3000:]
    new = events(BOB, "chars")[before:]
    flags = [e["detail"] for e in new if e["event"] == "touched files outside its directory"]
    assert any(f"{COURSE}/source/chars/chars.ipynb" in d for d in flags), new
    nb = read_nb(COURSE / "autograded" / BOB / "chars" / "chars.ipynb")
    [cell] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "chars-unk-rate"]
    out = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    # Each "wrote" went to the sandbox's own file systems (its home and /tmp are tmpfs, and
    # /home/tokhub-instructor/ holds only the mount point of the kernel's venv): the host has
    # no marker anywhere, and the course's source was not there to read.
    assert f"wrote /home/student/{MARKER}" in out, out
    assert "could not read the course's source: FileNotFoundError" in out, out
    found = subprocess.run(["find", "/home", "/tmp", "/var/tmp", str(PREFIX), "-name", MARKER],
                           capture_output=True, text=True).stdout
    assert found == ""
    owner = pwd.getpwuid((COURSE / "autograded" / BOB / "chars" / "chars.ipynb").stat().st_uid).pw_name
    assert owner == INSTRUCTOR  # graded by the instructor's server, not by root
    r = instructor.server("GET", f"formgrader/api/submission/chars/{BOB}")
    assert r.json()["score"] == 8.0


def test_manual_grade_in_the_formgrader(instructor):
    """alice's three written answers get 2 points each through the formgrader's API."""
    sub = instructor.server("GET", f"formgrader/api/submission/capstone/{ALICE}").json()
    assert sub["score"] == 14.0 and sub["needs_manual_grade"]
    [nb] = [n for n in instructor.server("GET", "formgrader/api/submitted_notebooks/capstone/capstone").json()
            if n["student"] == ALICE]
    grades = instructor.server("GET", "formgrader/api/grades", params={"submission_id": nb["id"]}).json()
    written = [g for g in grades if g["name"] in ("capstone-qa", "capstone-qb", "capstone-qc")]
    assert len(written) == 3 and all(g["needs_manual_grade"] for g in written)
    for g in written:
        r = instructor.server("PUT", f"formgrader/api/grade/{g['id']}", json={"manual_score": 2})
        assert r.status_code == 200 and r.json()["manual_score"] == 2, r.text[:300]
    sub = instructor.server("GET", f"formgrader/api/submission/capstone/{ALICE}").json()
    assert sub["score"] == 20.0 and not sub["needs_manual_grade"]


def test_feedback_reaches_alice(instructor, alice):
    """Feedback: capstone from the formgrader, chars from the command line; alice fetches both."""
    for step in ("generate_feedback", "release_feedback"):
        r = instructor.server("POST", f"formgrader/api/assignment/capstone/{ALICE}/{step}")
        assert r.status_code == 200 and r.json()["success"], r.text[-2000:]
    run_as(INSTRUCTOR, "nbgrader", "release_feedback", "chars", cwd=COURSE)
    home = Path(pwd.getpwnam(ALICE).pw_dir)
    for a, score in (("capstone", "20.0 / 20.0"), ("chars", "10.0 / 10.0")):
        r = alice.server("POST", "assignments/fetch_feedback", data={"assignment_id": a, "course_id": COURSE_ID})
        assert r.status_code == 200, r.text[:1000]
        [html] = (home / a / "feedback").glob(f"*/{a}.html")
        assert f"(Score: {score})" in html.read_text(encoding="utf-8")
        assert pwd.getpwuid(html.stat().st_uid).pw_name == ALICE


def test_students_have_no_formgrader(instructor, alice, bob):
    # The formgrader's page carries JupyterHub's CSP: it cannot show inside JupyterLab's
    # iframe, only in a browser tab of its own (autograder/README.md).
    r = instructor.server("GET", "formgrader/manage_assignments")
    assert r.status_code == 200 and "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    for student in (alice, bob):
        for path in ("formgrader", "formgrader/api/assignments"):
            r = student.server("GET", path, allow_redirects=False)
            assert r.status_code == 404, (student.name, path, r.status_code)
        proc = run_as(student.name, "jupyter", "labextension", "list")
        listing = proc.stdout + proc.stderr
        disabled = listing.split("Disabled extensions:")[1]
        assert "@jupyter/nbgrader:formgrader" in disabled and "@jupyter/nbgrader:create-assignment" in disabled


def test_screenshots(instructor, hub):
    """With TOKHUB_SCREENSHOTS=<dir>: the formgrader in a browser tab of its own, at 1280 px."""
    out = os.environ.get("TOKHUB_SCREENSHOTS")
    if not out:
        pytest.skip("set TOKHUB_SCREENSHOTS=<dir> to save screenshots of the formgrader")
    from test_browser import chromium

    Path(out).mkdir(parents=True, exist_ok=True)
    passwords = dict(line.split() for line in (RUN / "state" / "passwords").read_text().splitlines())
    [nb] = [n for n in instructor.server("GET", "formgrader/api/submitted_notebooks/capstone/capstone").json()
            if n["student"] == ALICE]
    profile = tempfile.mkdtemp(prefix="tokhub-chrome-")
    drv = chromium(profile, "--window-size=1280,1000")
    try:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        base = instructor.url
        drv.get(f"{base}/hub/login")
        drv.find_element(By.ID, "username_input").send_keys(INSTRUCTOR)
        drv.find_element(By.ID, "password_input").send_keys(passwords[INSTRUCTOR])
        drv.find_element(By.ID, "login_submit").click()
        time.sleep(2)
        drv.get(f"{base}/user/{INSTRUCTOR}/formgrader")
        time.sleep(3)
        drv.save_screenshot(f"{out}/formgrader-manage-assignments.png")
        drv.get(f"{base}/user/{INSTRUCTOR}/formgrader/gradebook/capstone/capstone")
        time.sleep(3)
        drv.save_screenshot(f"{out}/formgrader-capstone-submissions.png")
        drv.get(f"{base}/user/{INSTRUCTOR}/formgrader/submissions/{nb['id']}/")
        try:  # the notebook is rendered on the server: seconds
            WebDriverWait(drv, 90).until(lambda d: d.find_elements(By.ID, "capstone-qa"))
            time.sleep(2)
            drv.execute_script("document.getElementById('capstone-qa').closest('.nbgrader_cell')"
                               ".scrollIntoView({block: 'center'})")
            time.sleep(1)
        finally:
            drv.save_screenshot(f"{out}/formgrader-capstone-manual-grading.png")
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
