"""nbgrader run from the wrong environment must never run a submission in the open.

The reproduction (issue 22): ``nbgrader_config.py`` imported ``tokref`` through the
autograde plugins; nbgrader run from an environment without it (an instructor's server on
a hub) logged the import error, went on with nbgrader's defaults and ran the student's
code unsandboxed, with the course's ``source/`` in view. Here, on a copy of the course:

* **no tokref installed** (a virtualenv that sees the course's packages but not tokref's
  editable install): the config finds the reference in ``solutions/`` and grades,
  sandboxed;
* **the pipeline does not load** (``regex``, which tokref needs, fails to import): every
  submission is refused with the reason and the fix, by ``nbgrader autograde`` and by the
  formgrader's autograde API alike.

In every case the submission tries to write a file into the course directory, which it
could only do in the open: the file must never appear.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from grading_helpers import solutions, submission

pytestmark = pytest.mark.slow

MARKER = "RAN-IN-THE-OPEN"


def _venv_without_tokref(where: Path) -> Path:
    """A virtualenv whose only packages are .venv's, added as a plain directory: its
    ``.pth`` files (tokref's editable install among them) are not processed."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = subprocess.run([str(where / "bin/python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "course_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    python = where / "bin/python"
    probe = subprocess.run([str(python), "-c", "import nbgrader, regex\ntry:\n import tokref\nexcept ImportError: print('no tokref')"],
                           capture_output=True, text=True, cwd="/")
    assert probe.stdout.strip() == "no tokref", probe.stderr
    return python


@pytest.fixture(scope="module")
def setting(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("failclosed")
    course = copy_course(tmp / "course")
    (course / "solutions").symlink_to(ROOT / "solutions", target_is_directory=True)
    subprocess.run([sys.executable, "autograder/release.py", "chars"], cwd=course, check=True,
                   capture_output=True)
    src = json.loads((ROOT / "source/chars/chars.ipynb").read_text())
    student = json.loads((course / "exercises/chars/chars.ipynb").read_text())
    code = solutions(src)
    first = next(iter(code))
    attempt = (f"try:\n    open({str(course / MARKER)!r}, 'w').write('x')\n"
               "except OSError:\n    pass\n")
    code[first] = attempt + code[first]
    for who in ("mallory", "trudy"):
        folder = course / "submitted" / who / "chars"
        folder.mkdir(parents=True)
        (folder / "chars.ipynb").write_text(json.dumps(submission(student, code)))
    # A module named regex that fails to import, ahead of the real one on the path.
    broken = tmp / "broken"
    broken.mkdir()
    (broken / "regex.py").write_text("raise ImportError('regex is broken in this environment (test)')\n")
    return {"course": course, "python": _venv_without_tokref(tmp / "venv"), "broken": broken}


def _nbgrader(setting, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(setting["python"]), "-m", "nbgrader", *args], cwd=setting["course"],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)


def _score(course: Path, student: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return gb.find_submission("chars", student).score


def test_without_tokref_installed_the_course_grades_sandboxed(setting):
    proc = _nbgrader(setting, "autograde", "chars", "--student", "mallory", "--force")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Exception while loading config" not in proc.stderr
    assert not (setting["course"] / MARKER).exists(), "the submission ran outside the sandbox"
    assert _score(setting["course"], "mallory") == 10
    events = (setting["course"] / "grading-events.jsonl").read_text()
    assert "submission cap" in events  # written by the sandbox, so it ran there


def test_a_pipeline_that_does_not_load_refuses_every_submission(setting):
    env = {"PYTHONPATH": str(setting["broken"])}
    proc = _nbgrader(setting, "autograde", "chars", "--student", "trudy", "--force", env=env)
    assert proc.returncode != 0
    assert "grading refused" in proc.stderr and "regex is broken" in proc.stderr, proc.stderr[-3000:]
    assert "make setup" in proc.stderr
    assert not (setting["course"] / MARKER).exists(), "the submission ran in the open"
    assert not (setting["course"] / "autograded/trudy").exists() or not any(
        (setting["course"] / "autograded/trudy").rglob("*.ipynb"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _formgrader_autograde(setting, student: str, env: dict) -> dict:
    """Start a Jupyter server with the formgrader from the course's parent directory, in
    ``env``, and press the formgrader's Autograde button through its API."""
    port, token = _free_port(), "failclosedtoken"
    cmd = [str(setting["python"]), "-m", "jupyter_server", f"--port={port}", "--ip=127.0.0.1",
           f"--IdentityProvider.token={token}", "--ServerApp.open_browser=False",
           f"--ServerApp.root_dir={setting['course'].parent}", "--allow-root",
           "--ServerApp.jpserver_extensions={'nbgrader.server_extensions.formgrader': True}"]
    home = setting["course"].parent / "home"
    (home / ".jupyter").mkdir(parents=True, exist_ok=True)
    (home / ".jupyter/nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(setting['course'])!r}\n")
    server = subprocess.Popen(cmd, cwd=setting["course"].parent, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **env, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
                                   # nbconvert's templates, which the formgrader renders with
                                   "JUPYTER_PATH": sysconfig.get_paths()["data"] + "/share/jupyter"})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        request = urllib.request.Request(
            f"{base}/formgrader/api/submission/chars/{student}/autograde",
            method="POST", data=b"{}", headers={"Authorization": f"token {token}"})
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_formgraders_autograde_refuses_too(setting):
    result = _formgrader_autograde(setting, "trudy", {"PYTHONPATH": str(setting["broken"])})
    assert result["success"] is False
    assert "grading refused" in result.get("error", "") + result.get("log", ""), result
    assert not (setting["course"] / MARKER).exists()


def test_the_formgraders_autograde_is_sandboxed(setting):
    result = _formgrader_autograde(setting, "trudy", {})
    assert result["success"] is True, result
    assert not (setting["course"] / MARKER).exists()
    assert _score(setting["course"], "trudy") == 10
    shutil.rmtree(setting["course"] / "autograded", ignore_errors=True)
