"""The course on a JupyterHub, end to end (issues 22 and 27): one instructor, two students,
the exchange, grading, the formgrader, feedback, and what a student can and cannot do.

``autograder/hub/try_hub.sh start`` (as root) builds the hub's environment (once; reused
while its inputs do not change; no tokref in it), creates the Linux users
``tokhub-instructor``, ``tokhub-alice`` and ``tokhub-bob`` (each student's home on a disk
image of its own), the exchange (mode 1777, with the course's folder made), the
instructor's private copy of the course with ``chars`` and ``capstone`` generated, and
starts JupyterHub 6.1.1 on 127.0.0.1 (PAM login, ``CappedSpawner``: each server in a cgroup
of its own, the instructor's delegated to them, and a mount namespace of its own).
``try_hub.sh stop`` ends it and removes the users, also when a test fails.

What goes over HTTP, as in the browser (``requests``, and tornado's websocket client for
the terminals): logging in through the hub's login form, a token from the hub's API,
starting each user's server; the guide's commands typed into JupyterLab terminals (a
login shell, ``bash -l``: the test sets no PATH) of the instructor (release, the doctor,
``grade.py --collect exchange``, release_feedback) and of bob (fetch, submit, a 3 GiB
allocation, ``import tokref``); the students' *Assignments* panel (alice fetches, submits
and fetches feedback; notebooks saved through the contents API); the instructor's
formgrader (its REST API: releasing ``capstone``, collecting, autograding one submission,
manual grades, feedback); ``/formgrader`` on the students' servers.

What runs as a user outside the hub (``runuser``): bob's login shell (``runuser -l``), his
attempts on other people's files, a scan of every file he can read for a line of any
solution, and the edit of his own submission's ``timestamp.txt`` after submitting.

alice submits the instructor's solutions (full marks; her capstone answers then wait for a
manual grade), bob a ``chars`` whose Part 4 is wrong and which, when graded, writes a marker
into its home directory and tries to read the course's source, the same ``chars`` again in
alice's name (set aside when collected: alice keeps 10/10), and ``capstone`` as released.
What a student's server cannot take from the others (issue 34): twenty ``setsid`` busy
loops in bob's terminal leave alice's computation within twice its time (each server an
equal CPU share, a student at most 1 CPU); 600 MB written to bob's home, /tmp and inbound
stop at their caps (his 256 MiB disk image, his server's own 256 MiB tmpfs); his /dev/shm
is his server's own and goes with it when it restarts; exchange/tokenization is the
instructor's before the first release and read-only in bob's server but for his inbound,
which is on his own disk (the instructor's collect reads it: ``extra_inbound``).
Skipped when not root or without ``useradd``; needs Node.js and npm (the proxy), bubblewrap
(grading) and cgroup v1 or v2 with memory and pids (the servers' caps). About 3 minutes on
2 cores once the environment exists; its first build adds about a minute. With
``TOKHUB_SCREENSHOTS=<dir>`` it also saves screenshots of the formgrader in its own
browser tab (headless Chromium).
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import os
import pwd
import re
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
USERS = RUN / "users"  # <student>/: the student's own disk (home/, inbound/)
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

from grading_helpers import solutions, submission  # noqa: E402
from test_grading_robust import POLLER  # noqa: E402
from test_inert_content import N_PAYLOADS, js as inert_js  # noqa: E402

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

    def type(self, line: str, timeout: float = 600) -> tuple[int, str]:
        """``line`` typed into a new JupyterLab terminal of the user's server (its REST API
        and the terminals websocket, as the browser does: a login shell, ``bash -l``, with
        nothing set by this test), then Enter; its exit status and what the terminal showed."""
        r = self.server("POST", "api/terminals")
        assert r.status_code == 200, f"new terminal of {self.name}: {r.status_code} {r.text[:300]}"
        term = r.json()["name"]
        try:
            return asyncio.run(self._type(term, line, timeout))
        finally:
            self.server("DELETE", f"api/terminals/{term}")

    async def _type(self, term: str, line: str, timeout: float) -> tuple[int, str]:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = f"{self.url.replace('http', 'ws', 1)}/user/{self.name}/terminals/websocket/{term}"
        ws = await websocket_connect(HTTPRequest(url, headers=dict(self.api.headers)))
        # The end marker is printed by printf, so the echo of the typed line never matches it.
        ws.write_message(json.dumps(["stdin", f"{line}; printf '%s=%s\\n' @@end \"$?\"\r"]))
        shown, end = "", time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = await asyncio.wait_for(ws.read_message(), timeout=max(1, end - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if msg is None:
                break
            kind, *rest = json.loads(msg)
            if kind == "stdout":
                shown += rest[0]
                found = re.search(r"@@end=(\d+)", shown)
                if found:
                    ws.close()
                    return int(found.group(1)), re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r", "", shown)
        ws.close()
        raise AssertionError(f"{line!r} in {self.name}'s terminal did not finish in {timeout} s:\n{shown[-3000:]}")


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
    """chars typed in the instructor's terminal, capstone with the formgrader's Release
    button (its API)."""
    status, shown = instructor.type(f"cd ~/{COURSE_ID} && nbgrader release_assignment chars")
    assert status == 0, shown
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


def hostile_cells() -> list[dict]:
    """A markdown cell with four payloads (<script>, <svg onload>, <img onerror>, a
    javascript: link) and a code cell whose outputs carry three more (an HTML <script>, a
    Javascript output, an image whose width attribute is a handler): each sets
    ``window.__xss_N`` when it runs (tests/test_inert_content.py has the same seven)."""
    code = (
        "from IPython.display import HTML, Javascript, display\n"
        f"display(HTML(\"<script>{inert_js(4)}</script><p id='legit-html'>html output</p>\"))\n"
        f"display(Javascript(\"{inert_js(5)}\"))\n"
        f"display({{'image/png': 'bm90IGEgcG5n'}}, raw=True, metadata={{'image/png': {{'width': '1 onerror={inert_js(7)}'}}}})\n")
    markdown = ("## Notes\n\nThe cost grows like $x^2$.\n\n"
                f"<script>{inert_js(1)}</script>\n\n<svg onload=\"{inert_js(2)}\"></svg>\n\n"
                f"<img src=\"x\" onerror=\"{inert_js(3)}\">\n\n[see my proof](javascript:{inert_js(6)})\n")
    return [{"cell_type": "markdown", "metadata": {}, "id": "bobs-notes", "source": markdown},
            {"cell_type": "code", "metadata": {}, "id": "bobs-outputs", "execution_count": None,
             "outputs": [], "source": code}]


def test_bob_fetches_and_submits_in_a_terminal(bob):
    """The guide's commands typed into bob's terminal; then bob cheats twice: he submits
    his chars in alice's name (after her own submission, so nbgrader would take his as her
    latest), and sets his own submission's timestamp.txt back a day after submitting."""
    home = Path(pwd.getpwnam(BOB).pw_dir)
    for a in ("chars", "capstone"):
        status, shown = bob.type(f"nbgrader fetch_assignment {a} --course {COURSE_ID}")
        assert status == 0, shown
    path = home / "chars" / "chars.ipynb"
    code = solutions(read_nb(ROOT / "source" / "chars" / "chars.ipynb"))
    code["chars-unk-rate"] = BOB_UNK_RATE
    path.write_text(json.dumps(submission(read_nb(path), code)), encoding="utf-8")
    os.chown(path, pwd.getpwnam(BOB).pw_uid, pwd.getpwnam(BOB).pw_gid)
    # capstone as released, plus the reviewer's payloads for the instructor's eyes (F5)
    path = home / "capstone" / "capstone.ipynb"
    nb = read_nb(path)
    nb["cells"][1:1] = hostile_cells()
    path.write_text(json.dumps(nb), encoding="utf-8")
    for a in ("chars", "capstone"):
        status, shown = bob.type(f"nbgrader submit {a} --course {COURSE_ID}")
        assert status == 0, shown
    status, shown = bob.type(f"nbgrader submit chars --course {COURSE_ID} --student {ALICE}")
    assert status == 0, shown  # nbgrader's submit lets him (nbgrader issue 1097)
    inbound = USERS / BOB / "inbound"  # what his server sees as the exchange's inbound
    forged = [p for p in inbound.iterdir() if p.name.startswith(f"{ALICE}+chars+")
              and p.stat().st_uid == pwd.getpwnam(BOB).pw_uid]
    assert len(forged) == 1, sorted(p.name for p in inbound.iterdir())
    [own] = [p for p in inbound.iterdir() if p.name.startswith(f"{BOB}+chars+")]
    run_as(BOB, "sh", "-c", f"echo '2020-01-01 00:00:00.000000 UTC' > '{own}/timestamp.txt'")


# bob's hostile capstone submissions (issue 34, F1-F4, F6), each newer than his honest one
# and made in his own terminal, in the exchange's inbound as his server sees it. The course
# must set every one aside, collect none of what they point to, and go on with the class.
PLANT = r'''
import json, os, secrets, shutil, sys, time
inbound, released, server_pid, course = sys.argv[1:5]
made = {}

def submission(name, i):
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + 60 + i)) + ".000000 UTC"
    folder = os.path.join(inbound, f"tokhub-bob+capstone+{stamp}+{secrets.token_hex(16)}")
    if name == "a folder whose time is not a date":
        folder = os.path.join(inbound, "tokhub-bob+capstone+not-a-date+x")
    os.mkdir(folder)
    shutil.copyfile(released, os.path.join(folder, "capstone.ipynb"))
    with open(os.path.join(folder, "timestamp.txt"), "w") as f:
        f.write(stamp)
    made[name] = os.path.basename(folder)
    return folder

def swap_notebook(folder, target):
    os.unlink(os.path.join(folder, "capstone.ipynb"))
    os.symlink(target, os.path.join(folder, "capstone.ipynb"))

late = os.path.expanduser("~/late.ipynb")
shutil.copyfile(released, late)
plants = {
    "the instructor's server environment": lambda f: os.symlink(f"/proc/{server_pid}/environ", f"{f}/env.txt"),
    "the course's source notebook": lambda f: swap_notebook(f, f"{course}/source/capstone/capstone.ipynb"),
    "the course's source/": lambda f: os.symlink(f"{course}/source", f"{f}/srcdir"),
    "the gradebook": lambda f: os.symlink(f"{course}/gradebook.db", f"{f}/gb.dat"),
    "/dev/zero": lambda f: os.symlink("/dev/zero", f"{f}/zero.bin"),
    "a directory of 400 MB": lambda f: os.symlink("/usr/lib", f"{f}/lib"),
    "a notebook swapped for a link after submitting": lambda f: swap_notebook(f, late),
    "a FIFO": lambda f: os.mkfifo(f"{f}/pipe"),
    "a dangling link": lambda f: os.symlink("/nonexistent/gone", f"{f}/gone"),
    "a file over the cap": lambda f: os.truncate(open(f"{f}/big.bin", "wb").name, 150 * 10**6),
    "a folder whose time is not a date": lambda f: None,
}
for i, (name, plant) in enumerate(plants.items()):
    plant(submission(name, i))
with open(late, "a") as f:  # edited after the deadline, through the link
    f.write(" ")
print("PLANTED=" + json.dumps(made))
'''


def server_pid(user: str) -> int:
    """The pid of ``user``'s ``jupyterhub-singleuser``."""
    uid = pwd.getpwnam(user).pw_uid
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and proc.stat().st_uid == uid and \
                    b"jupyterhub-singleuser" in (proc / "cmdline").read_bytes():
                return int(proc.name)
        except OSError:
            continue
    raise AssertionError(f"no jupyterhub-singleuser of {user}")


@pytest.fixture(scope="module")
def planted(bob, instructor) -> dict[str, str]:
    """bob's eleven hostile submissions of capstone: what each is -> its folder's name."""
    home = Path(pwd.getpwnam(BOB).pw_dir)
    script = home / "plant.py"
    script.write_text(PLANT, encoding="utf-8")
    os.chown(script, pwd.getpwnam(BOB).pw_uid, pwd.getpwnam(BOB).pw_gid)
    status, shown = bob.type(f"python ~/plant.py {EXCHANGE}/{COURSE_ID}/inbound ~/capstone/capstone.ipynb "
                             f"{server_pid(INSTRUCTOR)} {COURSE}")
    found = re.search(r"PLANTED=(\{.*\})", shown.replace("\n", ""))
    assert status == 0 and found, shown[-3000:]
    return json.loads(found.group(1))


def test_bob_plants_links_and_special_files(planted):
    """They are in bob's inbound, his own; the honest one is still there, older."""
    names = {p.name for p in (USERS / BOB / "inbound").iterdir()}
    assert set(planted.values()) <= names, (planted, names)
    assert len(planted) == 11


def test_login_shells_find_the_hub(hub):
    """A student's login shell outside the hub (su -, ssh) finds nbgrader and the exchange."""
    proc = subprocess.run(["runuser", "-l", BOB, "-c", f"nbgrader list --course {COURSE_ID}"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "chars" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def solution_lines() -> set[str]:
    """Distinctive lines of every solution: the instructor's code between the solution
    markers of source/, and tokref's own source (it implements every assignment). A line
    counts when it is long and names something tokref defines (``build_char_vocab``,
    ``merge_order``, ...): a line any library could hold too (``data = json.loads(...)``)
    proves nothing. Lines of what is released to students (the notebooks, and check.py with
    its self-check) are left out: students have them anyway."""
    import ast

    tokref = ROOT / "solutions" / "tokref"
    names = {node.name for py in tokref.rglob("*.py")
             for node in ast.walk(ast.parse(py.read_text(encoding="utf-8")))
             if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and len(node.name) >= 12
             and not node.name.startswith("__") and ("_" in node.name or node.name[0].isupper())}
    lines = set()
    for nb_path in (ROOT / "source").glob("*/*.ipynb"):
        for cell in read_nb(nb_path)["cells"]:
            for part in "".join(cell["source"]).split("### BEGIN SOLUTION")[1:]:
                lines |= {ln.strip() for ln in part.split("### END SOLUTION")[0].splitlines()}
    for py in tokref.rglob("*.py"):  # the grading runtime students get is tokgrade, not in tokref
        lines |= {ln.strip() for ln in py.read_text(encoding="utf-8").splitlines()}
    released = set()  # what students get anyway: the notebooks and check.py (its self-check)
    for path in (ROOT / "exercises").rglob("*"):
        if path.suffix == ".ipynb":
            released |= {ln.strip() for cell in read_nb(path)["cells"]
                         for ln in "".join(cell["source"]).splitlines()}
        elif path.suffix == ".py":
            released |= {ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()}
    word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    return {ln for ln in lines - released
            if len(ln) >= 30 and not ln.startswith("#") and names & set(word.findall(ln))}


SCAN = r'''
import json, os, sys
lines, skip, tops = json.load(sys.stdin)
lines = set(lines)
found, files = [], 0
for top, owners in tops:  # owners: only files of these uids (None: every file)
    for d, dirs, names in os.walk(top, onerror=lambda e: None):
        if any(d == s or d.startswith(s + "/") for s in skip):
            dirs[:] = []
            continue
        for n in names:
            path = os.path.join(d, n)
            try:
                st = os.lstat(path)
                if os.path.islink(path) or st.st_size > 20_000_000 or (owners and st.st_uid not in owners):
                    continue
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", "replace")
            except OSError:
                continue
            files += 1
            hits = {ln.strip() for ln in text.splitlines()} & lines
            if hits:
                found.append([path, sorted(hits)[:3]])
print(json.dumps({"files": files, "found": found}))
'''


def server_group(user: str, controller: str) -> Path:
    [group] = Path(f"/sys/fs/cgroup/{controller}").rglob(f"jupyterhub-user-{user}")
    return group


def test_a_students_memory_hog_dies_alone(alice, bob):
    """bob's terminal allocates past his server's 2 GiB: the kernel kills it in bob's group
    (no swap beyond the cap); bob's server and alice's go on answering."""
    if not Path("/sys/fs/cgroup/memory").is_dir():
        pytest.skip("the hog's group is checked on cgroup v1 here (this machine's)")
    group = server_group(BOB, "memory")
    assert int((group / "memory.limit_in_bytes").read_text()) == 2 * 2**30
    at_rest = {u: int((server_group(u, "memory") / "memory.usage_in_bytes").read_text()) for u in (ALICE, BOB)}
    print("a student's server at rest (memory.usage_in_bytes): "  # the guide's "class of 100"
          + ", ".join(f"{u} {b / 2**20:.0f} MiB" for u, b in at_rest.items()), file=sys.stderr)
    assert (server_group(BOB, "pids") / "pids.max").read_text().strip() == "512"
    status, shown = bob.type("python -c \"b = b'x' * (3 * 2**30); print('allocated', len(b))\"")
    assert status == 137 and f"allocated {3 * 2**30}" not in shown, (status, shown)  # SIGKILL
    oom = dict(line.split() for line in (group / "memory.oom_control").read_text().splitlines())
    assert int(oom.get("oom_kill", "1")) >= 1, oom
    for user in (alice, bob):
        r = user.server("GET", "api/status", timeout=30)
        assert r.status_code == 200, (user.name, r.status_code)


# --- Issue 34: CPU, /dev/shm, disk and the exchange, per server -----------------------

BUSY_PIDS = "busy.pids"  # in bob's home: the pid of each of his busy loops
TIMED = ("python -c 'import time; t = time.perf_counter(); sum(i * i for i in range(8_000_000)); "
         "print(\"took=%.3f\" % (time.perf_counter() - t))'")


def timed_run(user: User) -> float:
    """Seconds of a fixed pure-Python computation (about 0.5 s alone) in ``user``'s terminal."""
    status, shown = user.type(TIMED)
    found = re.search(r"took=(\d+\.\d+)", shown)
    assert status == 0 and found, shown
    return float(found.group(1))


def cpu_ticks(pids: list[int]) -> int:
    """User and system clock ticks the processes used so far (those still alive)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def wait_for(check, what: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"{what}: not in {timeout} s"
        time.sleep(0.1)


def test_a_students_busy_loops_leave_others_their_cpu(alice, bob):
    """F9: twenty busy loops in bob's terminal, each in a session of its own (`setsid`),
    against a fixed computation in alice's: her median time with bob's loops running is at
    most twice her median time with them stopped (SIGSTOP), measured in turns. Each
    server has the same CPU weight and a student at most 1 CPU: without it, the kernel's
    autogroups give each of bob's sessions as much as alice's."""
    pid_file = Path(pwd.getpwnam(BOB).pw_dir) / BUSY_PIDS
    pids: list[int] = []
    try:
        status, shown = bob.type(f"rm -f ~/{BUSY_PIDS}; for i in $(seq 20); do setsid sh -c "
                                 f"'echo $$ >> ~/{BUSY_PIDS}; while :; do :; done' </dev/null >/dev/null 2>&1 & done; "
                                 # the terminal goes when this line ends: not before each loop is its own
                                 f"until [ \"$(cat ~/{BUSY_PIDS} 2>/dev/null | wc -l)\" -ge 20 ]; do sleep 0.1; done")
        assert status == 0, shown
        wait_for(lambda: pid_file.exists() and len(pid_file.read_text().split()) == 20, "bob's 20 loops")
        pids = [int(x) for x in pid_file.read_text().split()]
        tick = os.sysconf("SC_CLK_TCK")
        idle, busy, used = [], [], []
        for _ in range(3):
            signal_all(pids, 19)  # SIGSTOP
            wait_for(lambda: all(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"
                                 for p in pids), "bob's loops stopped")
            idle.append(timed_run(alice))
            signal_all(pids, 18)  # SIGCONT
            start = cpu_ticks(pids)
            wait_for(lambda: cpu_ticks(pids) - start >= tick // 5, "bob's loops running again")
            start, t0 = cpu_ticks(pids), time.monotonic()
            busy.append(timed_run(alice))
            used.append((cpu_ticks(pids) - start) / tick / (time.monotonic() - t0))
        ratio = sorted(busy)[1] / sorted(idle)[1]
        print(f"alice idle {idle} s, busy {busy} s (bob's loops used {used} CPUs): "
              f"median ratio {ratio:.2f}", file=sys.stderr)
        # 1 CPU when the machine is idle; less when other work shares it (0.5 seen)
        assert sorted(used)[1] >= 0.3, f"bob's loops hardly ran while alice was timed: {used} CPUs"
        assert ratio <= 2, f"alice's computation took {ratio:.1f} times as long: idle {idle}, busy {busy}"
        for user in (ALICE, BOB):
            group = server_group(user, "cpu")
            assert (group / "cpu.cfs_quota_us").read_text().strip() == "100000", user  # 1 CPU
            assert (group / "cpu.shares").read_text().strip() == "1024", user  # an equal share
    finally:
        if pid_file.exists():
            pids = sorted(set(pids) | {int(x) for x in pid_file.read_text().split()})
        signal_all(pids, 9)
        signal_all(pids, 18)
        pid_file.unlink(missing_ok=True)


NO_SPACE = "No space left on device"
DISK = 256 * 2**20  # TOKHUB_STUDENT_DISK: bob's home and inbound together
TMPFS = 256 * 2**20  # TOKHUB_STUDENT_TMPFS: each of his /tmp, /var/tmp, /dev/shm


def test_a_students_writes_stop_at_their_caps(bob):
    """F11: bob writes 600 MB to his home, his /tmp and the exchange's inbound in his
    terminal: each write fails at its cap (the disk image of his home and inbound, the
    tmpfs of his /tmp), and the machine's / grew by no more than his disk's size."""
    used = shutil.disk_usage("/").used
    grown = 0
    for path, cap in (("~/fill", DISK), ("/tmp/fill", TMPFS), (f"{EXCHANGE}/{COURSE_ID}/inbound/fill", DISK)):
        status, shown = bob.type(f"head -c 600M /dev/zero > {path}; s=$?; du -b {path}; rm -f {path}; (exit $s)")
        grown = max(grown, shutil.disk_usage("/").used - used)
        assert status != 0 and NO_SPACE in shown, (path, status, shown[-1000:])
        written = int(re.findall(rf"^(\d+)\s+\S*fill", shown, re.M)[-1])
        print(f"{path}: {NO_SPACE} after {written / 2**20:.0f} MiB (cap {cap // 2**20} MiB)", file=sys.stderr)
        assert written <= cap, (path, written)
    # bob's image holds at most DISK on / (tmpfs is memory); other tests may write meanwhile
    assert grown <= DISK + 128 * 2**20, f"/ grew by {grown / 2**20:.0f} MiB"
    assert not any((USERS / BOB / d / "fill").exists() for d in ("home", "inbound"))


def test_bob_cannot_squat_or_write_in_the_exchange(bob):
    """The recipe made exchange/tokenization for the instructor before any student could,
    with inbound 3733 (nbgrader's release kept the mode); in bob's server the exchange is
    read-only, but for the inbound, which is his own directory on his own disk."""
    course = EXCHANGE / COURSE_ID
    assert pwd.getpwuid(course.stat().st_uid).pw_name == INSTRUCTOR
    assert stat.S_IMODE((course / "inbound").stat().st_mode) == 0o3733
    seen = probe(BOB, [("make the course", "replace_dir", [str(EXCHANGE / "bobs"), str(course)])])
    shutil.rmtree(EXCHANGE / "bobs", ignore_errors=True)
    assert seen["make the course"] != "allowed", seen
    for line in (f"touch {course}/outbound/chars/extra.py", f"mkdir {course}/another-inbound",
                 f"mkdir {course}/feedback/mine", f"mv {course}/inbound {course}/old-inbound"):
        status, shown = bob.type(line)
        assert status != 0 and ("Read-only file system" in shown or "busy" in shown), (line, shown[-600:])
    # The exchange's root is writable for nbgrader's check, but his server's own (a tmpfs)
    bob.type(f"mkdir {EXCHANGE}/another-course")
    status, shown = bob.type(f"touch {course}/inbound/probe && ls {course}/inbound")
    assert status == 0 and "probe" in shown, shown
    assert (USERS / BOB / "inbound" / "probe").exists()
    (USERS / BOB / "inbound" / "probe").unlink()
    assert not (EXCHANGE / "another-course").exists()


def shmem() -> int:
    """The machine's shared memory (tmpfs and /dev/shm pages), bytes."""
    info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    return int(info["Shmem"].split()[0]) * 1024


def restart(user: User) -> None:
    """Stop the user's server and start it again through the hub's API."""
    r = user.api.delete(f"{user.url}/hub/api/users/{user.name}/server", timeout=120)
    assert r.status_code in (202, 204), r.text[:300]
    wait_for(lambda: not user.api.get(f"{user.url}/hub/api/users/{user.name}", timeout=30).json()["servers"],
             f"{user.name}'s server stopped", timeout=120)
    user.spawn()
    user.wait_ready()


def test_dev_shm_goes_with_the_server(bob):
    """F10: bob fills his /dev/shm to its cap (ENOSPC), restarts his server: his /dev/shm is
    empty again and the machine's Shmem is back to what it was."""
    before = shmem()
    status, shown = bob.type("head -c 600M /dev/zero > /dev/shm/fill")
    during = shmem()
    try:
        assert status != 0 and NO_SPACE in shown, shown[-1000:]
        restart(bob)
        status, shown = bob.type("echo files=$(ls -A /dev/shm | wc -l)")
        assert status == 0 and "files=0" in shown, shown
        after = shmem()
        print(f"Shmem: before {before / 2**20:.0f} MiB, full {during / 2**20:.0f} MiB, "
              f"after the restart {after / 2**20:.0f} MiB", file=sys.stderr)
        assert during - before >= TMPFS // 2, (before, during)  # other tests may change it a little
        assert after - before <= 64 * 2**20, (before, during, after)
    finally:
        bob.type("rm -f /dev/shm/fill")


def test_bob_cannot_reach_the_course_or_tamper_with_the_exchange(hub):
    course = EXCHANGE / COURSE_ID
    inode = course.stat().st_ino
    [alice_inbound] = [p for p in (USERS / ALICE / "inbound").iterdir() if p.name.startswith(f"{ALICE}+chars+")
                       and p.stat().st_uid == pwd.getpwnam(ALICE).pw_uid]
    seen = probe(BOB, [
        ("list the course", "list", [str(COURSE)]),
        ("read the course's source", "read", [str(COURSE / "source" / "chars" / "chars.ipynb")]),
        ("read alice's home", "list", [f"/home/{ALICE}"]),
        ("rename exchange/tokenization", "rename", [str(course), str(EXCHANGE / "stolen")]),
        ("replace exchange/tokenization", "replace_dir", [str(EXCHANGE / "bobs"), str(course)]),
        ("write a released notebook", "write", [str(course / "outbound" / "chars" / "chars.ipynb")]),
        ("add to the release", "create", [str(course / "outbound" / "chars" / "extra.py")]),
        ("list the submissions", "list", [str(course / "inbound")]),
        ("list alice's submissions", "list", [str(USERS / ALICE / "inbound")]),
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
    """The guide's commands in the instructor's terminal: the doctor (the hub's exchange,
    the course private), then collect and grade with grade.py (the instructor, never root).
    bob's submission in alice's name is not collected, alice keeps her grade, the report
    names bob; bob's set-back timestamp is flagged; each submission had a cgroup of its own
    inside the instructor's server (delegated to them)."""
    status, shown = instructor.type(f"cd ~/{COURSE_ID} && python autograder/doctor.py")
    assert f"{EXCHANGE} is 0o1777" in shown and "private" in shown, shown
    # While it grades, bob polls /tmp for the sandboxes' folders and tries to read them (the
    # instructor's server has a /tmp of its own here, so he should not even see their names).
    signals = Path(tempfile.mkdtemp(prefix="tokhub-poll-", dir="/tmp"))
    signals.chmod(0o755)
    poller = subprocess.Popen(["runuser", "-u", BOB, "--", f"{VENV}/bin/python", "-c", POLLER, "900",
                               str(signals / "stop"), "/tmp"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        status, shown = instructor.type(f"cd ~/{COURSE_ID} && python autograder/grade.py chars capstone "
                                        "--collect exchange --quiet")
    finally:
        (signals / "stop").touch()
        out, err = poller.communicate(timeout=120)
        shutil.rmtree(signals)
    print(shown[-2000:], file=sys.stderr)
    assert status == 0, shown[-3000:]
    assert out.strip(), err[-2000:]
    polled = json.loads(out)
    assert polled["read"] == [] and polled["listed"] == [], polled
    with (COURSE / "grading-report.csv").open(encoding="utf-8") as f:
        rows = {(r["assignment"], r["student"]): r for r in csv.DictReader(f)}
    score = {k: float(r["score"]) for k, r in rows.items()}
    assert score == {("chars", ALICE): 10.0, ("chars", BOB): 8.0,
                     ("capstone", ALICE): 14.0, ("capstone", BOB): 0.0}, rows
    assert rows[("capstone", ALICE)]["needs_manual_grade"] == "yes"
    assert f"owned by {BOB}, was not collected" in rows[("chars", ALICE)]["flags"], rows[("chars", ALICE)]
    assert "submitted in another student's name" in rows[("chars", BOB)]["flags"]
    assert "submission changed after its time" in rows[("chars", BOB)]["flags"]
    assert "2020-01-01" in rows[("chars", BOB)]["flags"]
    assert "2020" not in (COURSE / "submitted" / BOB / "chars" / "timestamp.txt").read_text()
    report = (COURSE / "grading-report.md").read_text(encoding="utf-8")
    assert "## Not collected" in report and f"owned by {BOB}" in report, report
    assert re.search(r"Whole-submission cap: cgroup v[12]: 4096 MiB", report), report[:1500]
    for path in (COURSE / "submitted").rglob("*"):
        assert pwd.getpwuid(path.stat().st_uid).pw_name == INSTRUCTOR, path
        assert not path.stat().st_mode & stat.S_IWOTH, path


def test_bobs_hostile_submissions_were_set_aside(planted, instructor):
    """F1-F4, F6: each of bob's eleven is in the report's *Not collected*, with its reason;
    nothing they point to reached the course (the instructor's API token, the source's
    solutions, the gradebook, /dev/zero, /usr/lib), bob's honest older capstone was
    collected and graded instead, and grading went on for everyone."""
    report = (COURSE / "grading-report.md").read_text(encoding="utf-8")
    aside = report.split("## Not collected")[1]
    for what, folder in planted.items():
        [line] = [ln for ln in aside.splitlines() if folder in ln]
        assert line.startswith(f"- **{BOB}**, capstone: submission not collected:"), (what, line)
        assert "link or special file" in line or "over the cap" in line or "could not be read" in line \
            or "more than" in line, (what, line)
    environ = Path(f"/proc/{server_pid(INSTRUCTOR)}/environ").read_bytes().split(b"\0")
    [token] = [v.split(b"=", 1)[1] for v in environ if v.startswith(b"JUPYTERHUB_API_TOKEN=")]
    secrets = {"the instructor's token": token, "the gradebook": b"SQLite format 3"}
    released_lines = {ln.strip() for cell in read_nb(ROOT / "exercises" / "capstone" / "capstone.ipynb")["cells"]
                      for ln in "".join(cell["source"]).splitlines()}
    solution = {ln.strip() for cell in read_nb(ROOT / "source" / "capstone" / "capstone.ipynb")["cells"]
                for part in "".join(cell["source"]).split("### BEGIN SOLUTION")[1:]
                for ln in part.split("### END SOLUTION")[0].splitlines()}
    secrets |= {f"capstone's solution line {line[:40]!r}": line.encode()
                for line in solution - released_lines if len(line) >= 30}
    assert len(secrets) > 20, secrets
    collected = COURSE / "submitted" / BOB / "capstone"
    released = {p.name for p in (ROOT / "exercises" / "capstone").iterdir()}  # what bob fetched
    assert {p.name for p in collected.iterdir()} <= released | {"timestamp.txt", "submission_secret.txt"}
    assert (collected / "timestamp.txt").read_text() < min(  # his honest one, older than all
        f.split("+")[2] for f in planted.values() if "not-a-date" not in f)
    for top in ("submitted", "autograded", "feedback"):
        for path in (COURSE / top / BOB).rglob("*"):
            assert not path.is_symlink(), path
            if path.is_file():
                data = path.read_bytes()
                assert len(data) < 5 * 2**20, (path, len(data))
                # autograded/ and feedback/ hold the hidden tests, whose code may share a
                # line with a solution: there, only the token and the gradebook are leaks.
                leaked = [name for name, secret in secrets.items() if secret in data
                          and (top == "submitted" or not name.startswith("capstone's solution"))]
                assert leaked == [], (path, leaked)
    # The sets aside were left where bob put them: his to see, nobody's to grade.
    assert set(planted.values()) <= {p.name for p in (USERS / BOB / "inbound").iterdir()}


def test_bob_cannot_write_alices_collected_submission(hub):
    target = COURSE / "submitted" / ALICE / "chars" / "chars.ipynb"
    assert target.exists()
    assert probe(BOB, [("write", "write", [str(target)])]) == {"write": "EACCES"}


def test_formgrader_autograde_is_sandboxed(instructor):
    """The formgrader's Autograde button (its API) grades bob's chars with the course's
    pipeline, in the sandbox: the marker stays inside, the course's source is not there,
    and the audit hook's flags reach grading-events.jsonl."""
    # The formgrader's Collect takes the same checked collect: alice's stays hers.
    r = instructor.server("POST", "formgrader/api/assignment/chars/collect")
    assert r.status_code == 200 and r.json()["success"], r.text[-2000:]
    assert MARKER not in (COURSE / "submitted" / ALICE / "chars" / "chars.ipynb").read_text()
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


@contextlib.contextmanager
def instructors_browser(instructor: User):
    """Headless Chromium at 1280 px, logged in to the hub as the instructor (its login form)."""
    from selenium.webdriver.common.by import By
    from test_browser import chromium

    passwords = dict(line.split() for line in (RUN / "state" / "passwords").read_text().splitlines())
    profile = tempfile.mkdtemp(prefix="tokhub-chrome-")
    drv = chromium(profile, "--window-size=1280,1000")
    try:
        drv.get(f"{instructor.url}/hub/login")
        drv.find_element(By.ID, "username_input").send_keys(INSTRUCTOR)
        drv.find_element(By.ID, "password_input").send_keys(passwords[INSTRUCTOR])
        drv.find_element(By.ID, "login_submit").click()
        wait_for(lambda: "/hub/login" not in drv.current_url, "the instructor's login")
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_a_students_html_is_inert_where_the_instructor_reads_it(instructor, hub):
    """F5: the instructor opens bob's capstone in the formgrader (the manual-grading page)
    and his feedback in a browser, logged in as themself: none of the seven payloads runs
    (and none wrote a file into the instructor's home), the page carries the course's
    Content-Security-Policy beside the hub's, and nbgrader's own grading widgets work."""
    from selenium.webdriver.common.by import By

    [nb] = [n for n in instructor.server("GET", "formgrader/api/submitted_notebooks/capstone/capstone").json()
            if n["student"] == BOB]
    page = f"formgrader/submissions/{nb['id']}/"
    r = instructor.server("GET", page)
    policy = r.headers.get("Content-Security-Policy", "")
    assert r.status_code == 200 and "frame-ancestors 'none'" in policy and "script-src" in policy, policy
    assert "object-src 'none'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    home = Path(pwd.getpwnam(INSTRUCTOR).pw_dir)
    with instructors_browser(instructor) as drv:
        base = instructor.url
        ran = f"return Array.from({{length: {N_PAYLOADS}}}, (_, i) => i + 1).filter(n => window['__xss_' + n]);"
        for url in (f"{base}/user/{INSTRUCTOR}/{page}",
                    f"{base}/user/{INSTRUCTOR}/files/{COURSE_ID}/feedback/{BOB}/capstone/capstone.html"):
            drv.get(url)
            wait_for(lambda: drv.execute_script("return document.readyState") == "complete", url)
            wait_for(lambda: drv.find_elements(By.ID, "bobs-notes") or "Notes" in drv.page_source, url)
            for a in drv.find_elements(By.PARTIAL_LINK_TEXT, "see my proof"):
                drv.execute_script("arguments[0].scrollIntoView({block: 'center'});", a)
                a.click()
            time.sleep(1.5)  # a handler, an onload, a fetch: long enough for any of them to run
            assert drv.execute_script(ran) == [], url
            if "formgrader" in url:  # nbgrader's own JavaScript ran: its score inputs are filled
                wait_for(lambda: any(i.get_attribute("placeholder") for i in
                                     drv.find_elements(By.CSS_SELECTOR, "input.score")), "nbgrader's score inputs")
    assert not list(home.rglob("pwned-*.txt"))


def test_feedback_reaches_alice(instructor, alice):
    """Feedback: capstone from the formgrader, chars from the command line; alice fetches both."""
    for step in ("generate_feedback", "release_feedback"):
        r = instructor.server("POST", f"formgrader/api/assignment/capstone/{ALICE}/{step}")
        assert r.status_code == 200 and r.json()["success"], r.text[-2000:]
    status, shown = instructor.type(f"cd ~/{COURSE_ID} && nbgrader release_feedback chars")
    assert status == 0, shown
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


def test_no_student_can_read_the_reference(bob):
    """As bob: tokref does not import in his server, and no file he can read holds a line
    of any solution: everything readable under /opt, /home, /srv, /etc, /usr/local, and what
    the hub's users left in /tmp and /var/tmp (this test machine's own checkout of the course
    is left out: it is the admin's, not the hub's)."""
    status, shown = bob.type("python -c 'import tokref'")
    assert status != 0 and "ModuleNotFoundError" in shown, shown
    lines = sorted(solution_lines())
    assert len(lines) > 500, len(lines)
    # The scan finds them where they are: in the course's own solutions/ (read as root).
    control = subprocess.run([f"{VENV}/bin/python", "-c", SCAN], capture_output=True, text=True,
                             input=json.dumps([lines, [], [[str(ROOT / "solutions"), None]]]), timeout=120)
    assert len(json.loads(control.stdout)["found"]) > 20, control.stdout[-2000:] + control.stderr
    # The hub's paths, whole: its environment and exchange, the homes, Jupyter's and nbgrader's
    # system places. /tmp and /var/tmp: what the hub's users wrote there (the machine's other
    # temporary files, a build of this book say, are not the hub's).
    users = [pwd.getpwnam(u).pw_uid for u in (INSTRUCTOR, ALICE, BOB)]
    tops = [[p, None] for p in ("/opt", "/home", "/srv", "/etc", "/usr/local", "/root")]
    tops += [["/tmp", users], ["/var/tmp", users]]
    proc = subprocess.run(["runuser", "-u", BOB, "--", f"{VENV}/bin/python", "-c", SCAN],
                          input=json.dumps([lines, [str(ROOT)], tops]), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout)
    print(f"bob read {seen['files']} files; {len(lines)} solution lines", file=sys.stderr)
    assert seen["files"] > 1000 and seen["found"] == [], seen["found"][:5]


def test_screenshots(instructor, hub):
    """With TOKHUB_SCREENSHOTS=<dir>: the formgrader in a browser tab of its own, at 1280 px."""
    out = os.environ.get("TOKHUB_SCREENSHOTS")
    if not out:
        pytest.skip("set TOKHUB_SCREENSHOTS=<dir> to save screenshots of the formgrader")
    Path(out).mkdir(parents=True, exist_ok=True)
    [nb] = [n for n in instructor.server("GET", "formgrader/api/submitted_notebooks/capstone/capstone").json()
            if n["student"] == ALICE]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with instructors_browser(instructor) as drv:
        base = instructor.url
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
