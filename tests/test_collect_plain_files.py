"""Collecting takes plain files only, and one student's folder never stops the class
(issue 34; autograder/plainfiles.py, exchange_plugins.py, grade.py).

A submission in the exchange, a folder of submitted/ or an LMS archive is the student's
data, read with the instructor's rights. Here bob (the system user ``daemon``) tries each
way of making collect follow a link, read a FIFO or ``/dev/zero``, or stop on a bad name,
while alice (``nobody``) submits honestly; every hostile submission must be set aside and
flagged, alice's and bob's own honest one collected, and the instructor's secret never
appear in submitted/. One ``nbgrader collect`` serves the exchange tests (about 6 s), one
``nbgrader zip_collect`` the archive tests.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
from autograder.events import NOT_GRADED, NOT_PLAIN, GradingEvent, read_events  # noqa: E402
from autograder.plainfiles import NotPlain, copy_checked, scan  # noqa: E402
from test_collect_checks import ALICE, BOB, NB, course, marker, submit  # noqa: E402,F401

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="gives files to other users: needs root")
SECRET = "SECRET-instructor-token-7f3a"


def chown(path: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)


def secret_file(where: Path) -> Path:
    """A file only root (the instructor here) may read: what bob's links point at."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / "secret.txt"
    path.write_text(SECRET)
    path.chmod(0o600)
    return path


def leaked(folder: Path) -> list[str]:
    """The files under ``folder`` holding the secret, or that are not plain."""
    found = []
    for d, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(d, name)
            mode = p.lstat().st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)) or (
                    stat.S_ISREG(mode) and SECRET.encode() in p.read_bytes()):
                found.append(str(p))
    return found


def run_collect(course: Path, exchange: Path, *options: str) -> subprocess.CompletedProcess:
    bin_dir = Path(sys.executable).parent  # nbgrader runs alembic from its environment
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(bin_dir / "nbgrader"), "collect", "chars", "--update",
                           f"--Exchange.root={exchange}", *options],
                          cwd=course, capture_output=True, text=True, timeout=120, env=env)


# ---------------------------------------------------------------------------------------
# The exchange: one collect with every kind of hostile submission beside honest ones
# ---------------------------------------------------------------------------------------

HOSTILE = {  # marker of bob's submission -> what the report must say about it
    "fifo": "chars.ipynb is a FIFO",
    "dangling": "missing.txt is a symbolic link",
    "zero": "chars.ipynb is a symbolic link",
    "dirlink": "srcdir is a symbolic link",
    "outside": "env.txt is a symbolic link",
    "late": "chars.ipynb is a symbolic link",
    "big": "holds more than 200000 bytes",
}


@pytest.fixture(scope="module")
def collected(tmp_path_factory) -> dict:
    """One ``nbgrader collect`` over bob's hostile submissions (all newer than his honest
    one), a folder whose name is no date, alice's honest one in an extra inbound."""
    tmp = tmp_path_factory.mktemp("plain")
    course = tmp / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    for name in ("autograder", "solutions"):
        (course / name).symlink_to(ROOT / name)
    exchange = tmp / "exchange"
    inbound = exchange / "tokenization" / "inbound"
    inbound.mkdir(parents=True)
    secret = secret_file(course / "source")
    submit(exchange, BOB, BOB, 600, "bobs-honest")
    folders = {m: submit(exchange, BOB, BOB, 500 - 10 * i, m) for i, m in enumerate(HOSTILE)}
    for m in ("fifo", "zero", "late"):
        (folders[m] / "chars.ipynb").unlink()
    os.mkfifo(folders["fifo"] / "chars.ipynb")
    (folders["dangling"] / "missing.txt").symlink_to(tmp / "nothing-here")
    (folders["zero"] / "chars.ipynb").symlink_to("/dev/zero")
    (folders["dirlink"] / "srcdir").symlink_to(course / "source")
    (folders["outside"] / "env.txt").symlink_to(secret)
    # F4: the notebook is a link to bob's own file in /tmp, which he edits after the deadline.
    late = tmp / "bobs-tmp.ipynb"
    late.write_text(json.dumps({**NB, "metadata": {"marker": "late-on-time"}}))
    (folders["late"] / "chars.ipynb").symlink_to(late)
    (folders["big"] / "big.bin").write_bytes(b"x" * 300_000)  # over max_dir_size=200 (kB)
    for folder in folders.values():
        for p in (folder, *folder.iterdir()):
            chown(p, BOB)
    chown(late, BOB)
    late.write_text(json.dumps({**NB, "metadata": {"marker": "late-edited"}}))
    not_a_date = inbound / f"{BOB}+chars+not-a-date+x"
    not_a_date.mkdir()
    chown(not_a_date, BOB)
    extra = tmp / "run" / "inbound" / "node1"
    extra.mkdir(parents=True)
    honest = submit(exchange, ALICE, ALICE, 5, "alices-extra")
    honest.rename(extra / honest.name)  # alice's newest lives in the extra inbound only
    submit(exchange, ALICE, ALICE, 700, "alices-old")
    start = time.monotonic()
    proc = run_collect(course, exchange, "--CourseDirectory.max_dir_size=200",
                       f"--CheckedExchangeCollect.extra_inbound={tmp / 'run' / 'inbound' / '*'}")
    return {"proc": proc, "course": course, "seconds": time.monotonic() - start,
            "folders": folders, "not_a_date": not_a_date,
            "events": read_events(course / "grading-events.jsonl")}


def test_hostile_submissions_do_not_stop_the_class(collected: dict) -> None:
    """F6: bob's folder named with no date, his FIFO, dangling link, over-cap folder: set
    aside; alice's newest (from the extra inbound) and bob's honest one are collected."""
    proc, course = collected["proc"], collected["course"]
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert marker(course, ALICE) == "alices-extra"
    assert marker(course, BOB) == "bobs-honest"
    details = [e.detail for e in collected["events"] if e.event == NOT_PLAIN]
    assert all(e.student == BOB and e.flag for e in collected["events"]), collected["events"]
    assert any("not-a-date" in d and "could not be read as a submission" in d for d in details), details
    for m, why in HOSTILE.items():
        assert any(collected["folders"][m].name in d and why in d for d in details), (m, details)
    assert collected["not_a_date"].exists() and all(f.exists() for f in collected["folders"].values())


def test_links_never_hand_over_the_instructors_files(collected: dict) -> None:
    """F1/F3: a link to a secret file or to the source directory is not followed."""
    assert collected["proc"].returncode == 0 and marker(collected["course"], BOB) == "bobs-honest"
    assert leaked(collected["course"] / "submitted") == []
    assert not (collected["course"] / "submitted" / BOB / "chars" / "srcdir").exists()


def test_a_link_to_dev_zero_is_never_read(collected: dict) -> None:
    """F2: the collect is quick and submitted/ stays small (the link is not opened)."""
    assert collected["proc"].returncode == 0 and marker(collected["course"], BOB) == "bobs-honest"
    assert collected["seconds"] < 60
    size = sum(p.stat().st_size for p in (collected["course"] / "submitted").rglob("*") if p.is_file())
    assert size < 10_000, size


def test_a_notebook_edited_after_the_deadline_through_a_link_is_not_collected(collected: dict) -> None:
    """F4: the link's own ctime says nothing of its target's edits: links are refused."""
    assert marker(collected["course"], BOB) != "late-edited"
    assert any(collected["folders"]["late"].name in e.detail for e in collected["events"])


def test_collected_files_are_the_instructors_alone(collected: dict) -> None:
    folder = collected["course"] / "submitted" / ALICE / "chars"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "chars.ipynb").stat().st_mode) == 0o600


# ---------------------------------------------------------------------------------------
# The race: a file swapped for a link between the check and the copy
# ---------------------------------------------------------------------------------------


def test_a_file_swapped_for_a_link_while_copying_is_never_followed(tmp_path: Path) -> None:
    """A thread swaps chars.ipynb between a file and a link to the secret as fast as it
    can while the submission is checked and copied 300 times: never a byte of the secret."""
    secret = secret_file(tmp_path / "source")
    src = tmp_path / "inbound" / "sub"
    src.mkdir(parents=True)
    honest = json.dumps(NB)
    (src / "chars.ipynb").write_text(honest)
    stop = threading.Event()

    def swap() -> None:
        link, plain = src / "link.tmp", src / "plain.tmp"
        while not stop.is_set():
            link.symlink_to(secret)
            os.replace(link, src / "chars.ipynb")
            plain.write_text(honest)
            os.replace(plain, src / "chars.ipynb")

    swapper = threading.Thread(target=swap)
    swapper.start()
    copied = refused = 0
    try:
        for i in range(300):
            dest = tmp_path / "submitted" / str(i)
            try:
                copy_checked(str(src), str(dest), [e for e in scan(str(src)) if not e.path.endswith(".tmp")])
                copied += 1
            except (NotPlain, FileNotFoundError):
                refused += 1
    finally:
        stop.set()
        swapper.join()
    assert leaked(tmp_path / "submitted") == []
    assert copied + refused == 300


def test_scan_refuses_hard_links_and_sizes_over_the_caps(tmp_path: Path) -> None:
    """A second name of a file (with check_owner off, ownership would not catch one of
    another user's files), and a file or a folder over nbgrader's caps (kB)."""
    (tmp_path / "a.ipynb").write_bytes(b"x" * 1500)
    with pytest.raises(NotPlain, match="max_file_size"):
        scan(str(tmp_path), max_file_kb=1)
    (tmp_path / "b.ipynb").write_bytes(b"x" * 1500)
    with pytest.raises(NotPlain, match="max_dir_size"):
        scan(str(tmp_path), max_file_kb=2, max_dir_kb=2)
    os.link(tmp_path / "a.ipynb", tmp_path / "c.ipynb")
    with pytest.raises(NotPlain, match="hard link"):
        scan(str(tmp_path))


def test_a_swapping_student_during_nbgrader_collect_gets_nothing(course: Path) -> None:
    """The same race through ``nbgrader collect``, the swapper running as bob himself (in
    an exchange he can reach: pytest's own temporary directories are root's alone)."""
    exchange = Path(tempfile.mkdtemp(prefix="tokcollect-"))
    exchange.chmod(0o711)
    secret = secret_file(course / "source")
    folder = submit(exchange, BOB, BOB, 30, "bobs")
    submit(exchange, ALICE, ALICE, 10, "alices")
    code = ("import os,sys,json\nd,s=sys.argv[1],sys.argv[2]\n"
            "while True:\n os.symlink(s,d+'/l.tmp'); os.replace(d+'/l.tmp',d+'/chars.ipynb')\n"
            " open(d+'/p.tmp','w').write(json.dumps({'cells':[],'metadata':{'marker':'bobs'},"
            "'nbformat':4,'nbformat_minor':5})); os.replace(d+'/p.tmp',d+'/chars.ipynb')\n")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable  # bob's
    swapper = subprocess.Popen([python, "-c", code, str(folder), str(secret)], user=BOB)
    try:
        time.sleep(0.3)
        proc = run_collect(course, exchange)
        swapping = swapper.poll() is None  # still at it: it did not die on a permission
    finally:
        swapper.kill()
        swapper.wait()
        shutil.rmtree(exchange)
    assert swapping
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert marker(course, ALICE) == "alices"
    assert leaked(course / "submitted") == []


# ---------------------------------------------------------------------------------------
# grade.py: a failed collect says why; submitted/ folders with links are not graded
# ---------------------------------------------------------------------------------------


def test_a_failed_collect_says_nbgraders_error(course: Path) -> None:
    code = ("from pathlib import Path; from autograder import grade\n"
            "grade.collect('chars', 'exchange', '/nonexistent-exchange', Path.cwd(), quiet=True)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=course, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    assert "Unwritable directory" in proc.stderr and "its log is above" not in proc.stderr, proc.stderr[-2000:]


def test_folders_of_submitted_with_links_are_not_graded(tmp_path: Path) -> None:
    from autograder import grade
    from autograder import report

    secret = secret_file(tmp_path / "source")
    for student in ("alice", "bob", "carol"):
        (tmp_path / "submitted" / student / "chars").mkdir(parents=True)
    (tmp_path / "submitted" / "alice" / "chars" / "chars.ipynb").write_text(json.dumps(NB))
    (tmp_path / "submitted" / "bob" / "chars" / "chars.ipynb").symlink_to(secret)
    os.mkfifo(tmp_path / "submitted" / "carol" / "chars" / "chars.ipynb")
    tasks = [("chars", s) for s in ("alice", "bob", "carol")]
    keep, refused = grade.plain_only(tmp_path, tasks)
    assert keep == [("chars", "alice")]
    assert [(e.student, e.event, e.flag) for e in refused] == [("bob", NOT_GRADED, True), ("carol", NOT_GRADED, True)]
    assert "chars.ipynb is a symbolic link" in refused[0].detail
    _, md = report.write_report([], tmp_path, events=refused)
    text = md.read_text()
    assert "## Not collected" in text and "**bob**, chars: submission not graded" in text


# ---------------------------------------------------------------------------------------
# zip_collect: hostile archives
# ---------------------------------------------------------------------------------------


def _zip(path: Path, entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in entries:
            z.writestr(info, data)


def _link_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def test_zip_collect_refuses_links_escapes_and_bombs(course: Path) -> None:
    secret = secret_file(course / "source")
    archive = course / "downloaded" / "chars" / "archive"
    archive.mkdir(parents=True)
    notebook = json.dumps({**NB, "metadata": {"marker": "alices"}}).encode()
    _zip(archive / "alice_chars.zip", [("alice_chars.ipynb", notebook)])
    _zip(archive / "bob_chars.zip", [(_link_info("bob_chars.ipynb"), str(secret).encode()),
                                     (zipfile.ZipInfo("/tmp/abs_chars.ipynb"), b"{}"),
                                     ("../../escape_chars.ipynb", b"{}")])
    _zip(archive / "bomb_chars.zip", [("bomb_chars.ipynb", b"\0" * 30_000_000)])
    with tarfile.open(archive / "dave_chars.tar.gz", "w:gz") as t:
        info = tarfile.TarInfo("dave_chars.ipynb")
        info.type, info.linkname = tarfile.SYMTYPE, str(secret)
        t.addfile(info)
    (archive / "eve_chars.ipynb").symlink_to(secret)
    (archive / "carol_chars.ipynb").write_text(json.dumps({**NB, "metadata": {"marker": "carols"}}))
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run([str(bin_dir / "nbgrader"), "zip_collect", "chars", "--force"], cwd=course,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert marker(course, "alice") == "alices" and marker(course, "carol") == "carols"
    assert leaked(course / "submitted") == [] and leaked(course / "downloaded" / "chars" / "extracted") == []
    assert not (course.parent / "escape_chars.ipynb").exists() and not Path("/tmp/abs_chars.ipynb").exists()
    extracted = sum(p.stat().st_size for p in (course / "downloaded").rglob("*") if p.is_file())
    assert extracted < 1_000_000, extracted
    events = {(e.student, e.detail) for e in read_events(course / "grading-events.jsonl")}
    # bob's own zip names "abs" and "escape": the flags are bob's, never theirs
    for student, why in [("bob", "symbolic link"), ("bob", "absolute path"), ("bob", "absolute path or one with .."),
                         ("bomb", "zip bomb"), ("dave", "symbolic link"), ("eve", "symbolic link")]:
        assert any(s == student and why in d for s, d in events), (student, why, events)


def test_the_helpers_examples_hold() -> None:
    """The worked examples in plainfiles.py's docstrings (pytest.ini collects no doctests
    outside tests/ and the reference)."""
    import doctest

    from autograder import plainfiles

    assert doctest.testmod(plainfiles).failed == 0

    from autograder import exchange_plugins

    assert doctest.testmod(exchange_plugins).failed == 0


def _notebook(marker: str, padding: int = 0) -> bytes:
    """A notebook marked ``marker``; ``padding`` random bytes (base64: barely compressible)."""
    import base64

    pad = base64.b64encode(os.urandom(padding)).decode() if padding else ""
    return json.dumps({**NB, "metadata": {"marker": marker, "pad": pad}}).encode()


def _zip_collect(course: Path, *options: str) -> subprocess.CompletedProcess:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(bin_dir / "nbgrader"), "zip_collect", "chars", "--force", *options],
                          cwd=course, capture_output=True, text=True, timeout=120, env=env)


def _flags(course: Path) -> list[tuple[str, str]]:
    return [(e.student, e.detail) for e in read_events(course / "grading-events.jsonl") if e.flag]


def test_zip_collect_takes_a_file_only_for_the_student_its_archive_names(course: Path) -> None:
    """The LMS names archive/'s files; inside alice's zip every name is alice's to choose.
    Her zip holding bob's notebook, ``..``'s, or an id with HTML gives nothing to anyone and
    flags alice; a name of archive/ with no valid id is refused; the honest ones (zips, a
    notebook, a .tar.gz) are all collected."""
    archive = course / "downloaded" / "chars" / "archive"
    archive.mkdir(parents=True)
    html = 'x"><meta http-equiv=refresh content=0>'
    _zip(archive / "alice_chars.zip", [("bob_chars.ipynb", _notebook("alice-as-bob")),
                                       ("sub/.._chars.ipynb", _notebook("alice-as-dotdot")),
                                       (f"{html}_chars.ipynb", _notebook("alice-as-html"))])
    _zip(archive / "carol_chars.zip", [("carol_chars.ipynb", _notebook("carols"))])
    (archive / ".._words.ipynb").write_bytes(_notebook("dotdot"))  # no duplicate of alice's
    (archive / f"{html}_words.ipynb").write_bytes(_notebook("html"))
    (archive / "frank_chars.ipynb").write_bytes(_notebook("franks"))
    with tarfile.open(archive / "grace_chars.tar.gz", "w:gz") as t:
        data = _notebook("graces")
        info = tarfile.TarInfo("grace_chars.ipynb")
        info.size = len(data)
        t.addfile(info, __import__("io").BytesIO(data))
    proc = _zip_collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["carol", "frank", "grace"]
    for student, mark in [("carol", "carols"), ("frank", "franks"), ("grace", "graces")]:
        assert marker(course, student) == mark
    assert not (course / "chars").exists()  # where student ".." would have written
    flags = _flags(course)
    for student, why in [("alice", "names student 'bob', but the archive is alice's"),
                         ("alice", "names student '..'"), ("alice", "names student 'x\"><meta"),
                         ("..", "gives no valid student id"),
                         (html, "gives no valid student id")]:
        assert any(s == student and why in d for s, d in flags), (student, why, flags)
    assert not any(s in ("carol", "frank", "grace") for s, _ in flags), flags


def test_a_duplicate_in_one_zip_does_not_stop_the_class(course: Path) -> None:
    """erin's zip holds chars.ipynb twice: nbgrader would stop the whole class ("Duplicate
    submission file"); the first is collected, the second flagged, carol's collected."""
    archive = course / "downloaded" / "chars" / "archive"
    archive.mkdir(parents=True)
    _zip(archive / "erin_chars.zip", [("erin_chars.ipynb", _notebook("erins-first")),
                                      ("sub/erin_chars.ipynb", _notebook("erins-second"))])
    _zip(archive / "carol_chars.zip", [("carol_chars.ipynb", _notebook("carols"))])
    proc = _zip_collect(course)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert marker(course, "erin") == "erins-first" and marker(course, "carol") == "carols"
    flags = _flags(course)
    assert len(flags) == 1 and flags[0][0] == "erin" and "a second chars.ipynb of erin's" in flags[0][1], flags


def test_a_tar_bomb_is_refused_before_it_is_decompressed(tmp_path: Path) -> None:
    """A 20 kB bzip2 tar (named .tar.gz: tarfile goes by content) whose one header claims
    4 GB, and a 60 kB one of two million empty headers: tarfile's own listing decompresses
    them whole (seconds per GB); the streamed listing stops at the first header over the
    cap, or after the bytes the cap allows."""
    import bz2

    from autograder.plainfiles import archive_members, extract_members

    big = tarfile.TarInfo("bomb_chars.ipynb")
    big.size = 4 * 10**9
    claim = tmp_path / "claim_chars.tar.gz"
    claim.write_bytes(bz2.compress(big.tobuf(format=tarfile.GNU_FORMAT)) + bz2.compress(b"\0" * 10**7) * 400)
    heads = tmp_path / "heads_chars.tar.gz"
    heads.write_bytes(bz2.compress(tarfile.TarInfo("x").tobuf(format=tarfile.GNU_FORMAT) * 20_000) * 100)
    for bomb, why in [(claim, "the cap"), (heads, "a zip bomb?")]:
        start = time.perf_counter()
        with pytest.raises(NotPlain, match="unpacks to") as refused:
            archive_members(str(bomb), max_bytes=10**9)
        assert time.perf_counter() - start < 2, (bomb.name, time.perf_counter() - start)
        assert why in str(refused.value)
    honest = tmp_path / "honest_chars.tar.xz"
    with tarfile.open(honest, "w:xz") as t:
        info = tarfile.TarInfo("honest_chars.ipynb")
        info.size = 3
        t.addfile(info, __import__("io").BytesIO(b"abc"))
    members, refused = archive_members(str(honest), max_bytes=10**6)
    assert refused == [] and extract_members(str(honest), str(tmp_path / "out"), members)
    assert (tmp_path / "out" / "honest_chars.ipynb").read_bytes() == b"abc"


def test_one_big_archive_does_not_use_up_the_others_budget(course: Path) -> None:
    """aaron's 2 MB zip (barely compressed) is over one submission's cap (1.5 MB here): it
    alone is refused, saying so; bob's 1.2 MB fits; dora's 1.4 MB would take the class past
    its 2.5 MB: she is refused, told that bob's archive used the most; the small ones after
    are collected."""
    archive = course / "downloaded" / "chars" / "archive"
    archive.mkdir(parents=True)
    for student, size in [("aaron", 1_500_000), ("bob", 900_000), ("carol", 10_000),
                          ("dora", 1_050_000), ("erin", 10_000)]:
        _zip(archive / f"{student}_chars.zip", [(f"{student}_chars.ipynb", _notebook(student, size))])
    proc = _zip_collect(course, "--CourseDirectory.max_dir_size=1500", "--PlainExtractor.max_archive_size=2500")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(p.name for p in (course / "submitted").iterdir()) == ["bob", "carol", "erin"]
    flags = _flags(course)
    assert [s for s, _ in flags] == ["aaron", "dora"], flags
    assert "the cap of one submission (CourseDirectory.max_dir_size" in flags[0][1]
    assert "PlainExtractor.max_archive_size" in flags[1][1] and "bob_chars.zip" in flags[1][1]


def test_the_stand_in_collector_refuses_when_the_course_plugins_do_not_load() -> None:
    """nbgrader_config.py's fail-closed branch replaces the file-name collector too."""
    from traitlets.config import Config

    config = Config()
    scope = {"get_config": lambda: config, "__file__": str(ROOT / "nbgrader_config.py")}
    exec(compile((ROOT / "nbgrader_config.py").read_text(), "nbgrader_config.py", "exec"), scope)
    scope["_refuse"](ImportError("no regex"))
    with pytest.raises(RuntimeError, match="zip_collect refused.*no regex"):
        config.ZipCollectApp.collector_plugin().collect("/x/extracted/bob_chars.ipynb")
