"""A cap on a whole submission, not only on each of its processes (autograder/cgroups.py).

The submission of the issue forks 40 children that each fill 0.7 GB: every one is within
the per-process limits, together they ask for 28 GB. ``grade.py`` grades it beside two
honest submissions, inside a control group this test makes (so that whatever happens, the
machine running the test keeps its memory): the sandbox's own group must stop it at
``submission_memory_mb`` and say so, the honest submissions keep full marks, and the
test's group must never reach its own limit. Where no cgroup can be made (not root), the
per-process fallback is checked instead: fewer tasks, and the bound in the events.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from grading_helpers import solutions, submission

from autograder import cgroups  # noqa: E402
from autograder import events  # noqa: E402
from autograder import sandbox  # noqa: E402

FORK_AND_ALLOCATE = '''
import os, time
children = []
for i in range(40):
    pid = os.fork()
    if pid == 0:
        block = b"x" * (700 * 2**20)   # 0.7 GB, every page written
        time.sleep(2)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
'''
SUBMISSION_MB = 2048
TEST_GROUP_MB = 6144


def _mechanism() -> cgroups.Mechanism:
    return cgroups.find_mechanism()


def test_find_mechanism_reads_v1_and_v2_mounts(tmp_path):
    mounts = tmp_path / "mounts"
    own = tmp_path / "cgroup"
    own.write_text("4:memory:/grader\n8:pids:/\n0::/\n")
    (tmp_path / "memory/grader").mkdir(parents=True)
    (tmp_path / "pids").mkdir()
    mounts.write_text(f"cgroup {tmp_path}/memory cgroup rw,memory 0 0\ncgroup {tmp_path}/pids cgroup rw,pids 0 0\n")
    found = cgroups.find_mechanism(mounts_file=str(mounts), cgroup_file=str(own))
    assert found.name == "cgroup1"
    assert found.parents == (f"{tmp_path}/memory/grader", f"{tmp_path}/pids/")
    mounts.write_text("proc /proc proc rw 0 0\n")
    none = cgroups.find_mechanism(mounts_file=str(mounts), cgroup_file=str(own))
    assert none.name in ("none", "systemd")
    if none.name == "none":
        assert "no cgroup file system is mounted" in none.detail and "docker run --memory" in none.detail


def test_wrap_enters_every_group_before_the_command(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
    cap = cgroups.Cap(cgroups.Mechanism("cgroup1", "test"), 100, 10, [str(tmp_path / "a"), str(tmp_path / "b")])
    out = subprocess.run(cap.wrap(["sh", "-c", "echo $$"]), capture_output=True, text=True, check=True)
    pid = out.stdout.strip()
    assert (tmp_path / "a/cgroup.procs").read_text().strip() == pid == (tmp_path / "b/cgroup.procs").read_text().strip()
    blocked = cgroups.Cap(cgroups.Mechanism("cgroup1", "test"), 100, 10, [str(tmp_path / "missing")])
    assert subprocess.run(blocked.wrap(["true"]), capture_output=True).returncode == cgroups.ENTER_FAILED
    systemd = cgroups.Cap(cgroups.Mechanism("systemd", "test"), 100, 10).wrap(["true"])
    assert systemd[:3] == ["systemd-run", "--user", "--scope"] and "MemoryMax=100M" in systemd


def _run_kernel(km: sandbox.SandboxedKernelManager, code: str) -> str:
    async def main() -> str:
        await km.start_kernel()
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=60)
        msg_id, out = kc.execute(code), []
        while True:
            msg = await kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
        return "".join(out)
    return asyncio.run(main())


def test_without_a_cgroup_the_per_process_limits_bound_the_submission(monkeypatch):
    none = cgroups.Mechanism("none", "no cgroup file system is mounted (test)")
    monkeypatch.setattr(sandbox, "cap_mechanism", lambda: none)
    km = sandbox.SandboxedKernelManager(python=sandbox.kernel_python(ROOT))
    out = _run_kernel(km, "import resource; print(resource.getrlimit(resource.RLIMIT_NPROC)[0])")
    assert out.strip() == str(km.fallback_processes) == "16"
    cap = [f for f in km.findings if f["event"] == events.SUBMISSION_CAP]
    assert cap and cap[0]["detail"].startswith("per process only") and "at most 32768 MiB" in cap[0]["detail"]


def _test_group(name: str) -> list[str]:
    """A group for the whole test run, under this process's own (v1 or v2)."""
    mech = _mechanism()
    if mech.name not in ("cgroup1", "cgroup2"):
        pytest.skip(f"no writable cgroup here ({mech.detail})")
    cap = cgroups.open_cap(mech, memory_mb=TEST_GROUP_MB, tasks=2048, name=name)
    return cap.dirs


@pytest.mark.slow
def test_fork_and_allocate_is_capped_and_the_others_graded_in_full(tmp_path):
    course = copy_course(tmp_path / "course")
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"\nc.SandboxedKernelManager.submission_memory_mb = {SUBMISSION_MB}\n")
    subprocess.run([sys.executable, "autograder/release.py", "chars"], cwd=course, check=True, capture_output=True)
    student = json.loads((course / "exercises/chars/chars.ipynb").read_text())
    code = solutions(json.loads((ROOT / "source/chars/chars.ipynb").read_text()))
    greedy = dict(code)
    first = next(iter(greedy))
    greedy[first] = FORK_AND_ALLOCATE + greedy[first]
    for who, answers in (("alice", code), ("bob", code), ("mallory", greedy)):
        folder = course / "submitted" / who / "chars"
        folder.mkdir(parents=True)
        (folder / "chars.ipynb").write_text(json.dumps(submission(student, answers)))
    dirs = _test_group(f"tokcap-test-{os.getpid()}")
    try:
        enter = cgroups.Cap(_mechanism(), TEST_GROUP_MB, 2048, dirs).wrap(
            [sys.executable, "autograder/grade.py", "chars", "--jobs", "2", "--quiet"])
        proc = subprocess.run(enter, cwd=course, capture_output=True, text=True, timeout=600)
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        memory_dir = next(d for d in dirs if "memory" in d or Path(d, "memory.max").exists())
        failed = cgroups._counter(memory_dir, "memory.events", "max") or int(
            Path(memory_dir, "memory.failcnt").read_text() if Path(memory_dir, "memory.failcnt").exists() else 0)
    finally:
        for d in dirs:
            cgroups._remove(d)
    seen = events.read_events(course / "grading-events.jsonl")
    of = lambda who, name: [e.detail for e in seen if e.student == who and e.event == name]  # noqa: E731
    for who in ("alice", "bob", "mallory"):
        assert of(who, events.SUBMISSION_CAP)[0].startswith(f"cgroup v{_mechanism().name[-1]}: {SUBMISSION_MB} MiB")
    hit = of("mallory", events.HIT_CAP)
    assert hit and "killed at the memory cap of 2048 MiB" in hit[0], seen
    assert not of("alice", events.HIT_CAP) and not of("bob", events.HIT_CAP)
    with open(course / "grading-report.csv", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    for who in ("alice", "bob"):
        assert (rows[who]["status"], rows[who]["score"], rows[who]["max_score"]) == ("graded", "10", "10"), rows[who]
    assert "killed at the memory cap" in rows["mallory"]["details"]
    assert failed == 0, "the test's own group reached its limit: the submission's cap did not hold"
