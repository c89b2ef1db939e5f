"""Grade a class with nbgrader's own commands, in parallel and sandboxed, then say what
happened to each submission.

    python autograder/grade.py                         # every assignment of source/
    python autograder/grade.py chars --jobs 4          # 4 workers (default: one per core)
    python autograder/grade.py chars --student alice   # regrade one submission
    python autograder/grade.py words --collect exchange --exchange-root /srv/nbgrader/exchange
    python autograder/grade.py words --collect zip     # LMS download in downloaded/words/archive/
    python autograder/grade.py --shard 2/8             # machine 2 of 8 (a Slurm array task)
    python autograder/grade.py --merge 8               # then, once: combine the 8 shards

For each assignment, in the course root:

1. ``nbgrader collect`` (``--collect exchange``) or ``nbgrader zip_collect`` (``--collect
   zip``) copies the submissions to ``submitted/<student>/<assignment>/``; by default they
   are there already.
2. Each submission is autograded (``nbgrader autograde <a> --student <s> --force``, in the
   sandbox that ``nbgrader_config.py`` configures) and gets feedback (``nbgrader
   generate_feedback``) in one of ``--jobs`` worker processes. Each worker writes its own
   copy of the gradebook; this process alone then copies the grades into
   ``gradebook.db`` (``gradebooks.py``): SQLite never sees two writers.
3. ``nbgrader export`` writes ``grades.csv``, and ``report.py`` writes, beside it,
   ``grading-report.csv`` and ``grading-report.md`` from the gradebook and from
   ``grading-events.jsonl``, the JSON-lines record of what happened (statuses and flags:
   see report.py).

``--shard K/N`` grades the K-th of N deterministic slices of the submissions (every N-th
of the sorted (assignment, student) pairs, from the K-th) into ``gradebook.shard-K-of-N.db``
and ``grading-events.shard-K-of-N.jsonl``, for N machines sharing the course directory;
``--merge N`` then combines the shards into ``gradebook.db`` and writes the report.

Without a usable bubblewrap, grading refuses to start and says what to install;
``--unsafe`` grades without the sandbox, and the report says so on every row.

Run it as the user who owns the course directory. Run by root in a course that belongs to
someone else, it refuses (``--allow-root`` overrides): the files it would leave in
``autograded/``, ``feedback/`` and the gradebook would belong to root, and the owner's
next run would fail on them. After ``--collect``, the collected submissions are made
unwritable by group and others (nbgrader's exchange hands them over writable by all).

The exit status is 1 when a row is failed, missing from gradebook or not autograded
(those need the instructor), else 0.
"""

from __future__ import annotations

import argparse
import grp
import json
import os
import pwd
import secrets
import shlex
import stat
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

if not __package__:  # `python autograder/grade.py`: run as autograder.grade (PEP 366, _load.py)
    import runpy
    runpy.run_path(str(Path(__file__).resolve().with_name("_load.py")))
    __package__ = "autograder"

from . import report
from .events import (AUTOGRADED, FAILED, MISSING, NOT_GRADED, UNSAFE, GradingEvent, read_events,
                    replace_events)
from .gradebooks import copy_gradebook, db_url, merge
from .release import release, source_assignments
from .runner import ROOT, run_nbgrader
from .doctor import not_owned
from .plainfiles import NotPlain, kind, scan
from .sandbox import SandboxUnavailable, check_bwrap, python_dirs

EVENTS = "grading-events.jsonl"


# ---------------------------------------------------------------------------------------
# Workers: each autogrades into its own gradebook and events file
# ---------------------------------------------------------------------------------------

_worker: dict = {}


def _init_worker(root: str, gradebook: str, tmp: str, extra: list[str]) -> None:
    db = copy_gradebook(Path(gradebook), Path(tmp) / f"gradebook.worker-{os.getpid()}.db")
    _worker.update(root=Path(root), db=db, events=Path(tmp) / f"events.worker-{os.getpid()}.jsonl",
                   extra=extra)


def _grade_one(assignment: str, student: str) -> dict:
    """Autograde and generate feedback for one submission, in a worker."""
    w = _worker
    common = ["--student", student, "--force", f"--db={db_url(w['db'])}",
              f"--GradingEvents.path={w['events']}", *w["extra"]]
    start = time.perf_counter()
    result = run_nbgrader(["autograde", assignment, *common], root=w["root"])
    seconds = time.perf_counter() - start
    ok = result.status == 0
    if ok:
        feedback = run_nbgrader(["generate_feedback", assignment, *common], root=w["root"])
        ok = feedback.status == 0
        result.errors += feedback.errors
    event = GradingEvent(assignment, student, None, "", AUTOGRADED if ok else FAILED,
                         "" if ok else _first_error(result.errors), seconds=round(seconds, 3))
    return {"assignment": assignment, "student": student, "db": str(w["db"]),
            "events": str(w["events"]), "event": event}


def _first_error(errors: list[str]) -> str:
    """The exception nbgrader gave up with, from the errors it logged."""
    for e in errors:
        if e.startswith("Traceback"):
            return e.strip().splitlines()[-1][:300]
    generic = ("There was an error processing", "Please see the")
    useful = [e for e in errors if not e.startswith(generic)] or errors or ["see nbgrader's log"]
    return useful[0].strip().splitlines()[-1][:300]


# ---------------------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------------------


def submissions(root: Path, assignments: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(to grade, without any notebook): (assignment, student) pairs of submitted/, sorted."""
    todo, empty = [], []
    for a in assignments:
        for folder in sorted((root / "submitted").glob(f"*/{a}")):
            if folder.is_dir():
                (todo if any(folder.glob("*.ipynb")) else empty).append((a, folder.parent.name))
    return todo, empty


def plain_only(root: Path, tasks: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[GradingEvent]]:
    """(the ``tasks`` whose folder holds only directories and regular files, a flag for
    each other one). nbgrader reads the notebooks of submitted/ with the instructor's
    rights: a link there (``chars.ipynb -> source/chars/chars.ipynb``) would grade, and
    hand back in the feedback, whatever it points to. Such a folder is not graded."""
    keep, refused = [], []
    for a, s in tasks:
        folder = root / "submitted" / s / a
        try:
            mode = folder.parent.lstat().st_mode
            if not stat.S_ISDIR(mode):
                raise NotPlain(f"submitted/{s} is {kind(mode)}")
            scan(str(folder))
            keep.append((a, s))
        except (NotPlain, OSError) as e:
            print(f"grade.py: not graded: submitted/{s}/{a}/: {e}. Replace it by plain files "
                  "(or collect again), then grade again.", file=sys.stderr)
            refused.append(GradingEvent(a, s, None, "", NOT_GRADED,
                                        f"submitted/{s}/{a}/: {e}; not graded", flag=True))
    return keep, refused


def grade_all(tasks: list[tuple[str, str]], *, root: Path, gradebook: Path, jobs: int,
              extra: list[str], quiet: bool) -> tuple[list[dict], list[GradingEvent]]:
    """Grade ``tasks`` on ``jobs`` workers; merge into ``gradebook``; return (results, events)."""
    from tqdm import tqdm

    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tokgrade-run-") as tmp:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"),
                                 initializer=_init_worker,
                                 initargs=(str(root), str(gradebook), tmp, extra)) as pool:
            futures = [pool.submit(_grade_one, a, s) for a, s in tasks]
            with tqdm(total=len(futures), unit="notebook", disable=quiet or not tasks,
                      file=sys.stderr, desc="grading") as bar:
                for future in as_completed(futures):  # in the order they finish
                    results.append(future.result())
                    bar.update()
        by_db: dict[Path, list[tuple[str, str]]] = {}
        for r in results:
            by_db.setdefault(Path(r["db"]), []).append((r["assignment"], r["student"]))
        merge(gradebook, by_db)
        events = [e for f in sorted({r["events"] for r in results}) for e in read_events(f)]
    results.sort(key=lambda r: (r["assignment"], r["student"]))
    return results, events + [r["event"] for r in results]


def check_can_grade(root: Path, unsafe: bool) -> None:
    from .sandbox import kernel_python

    python = kernel_python(root)
    try:
        python_dirs(python)
        if not unsafe:
            check_bwrap()
    except SandboxUnavailable as e:
        raise SystemExit(f"grade.py: {e}") from None


def collect(assignment: str, how: str, exchange_root: str | None, root: Path, quiet: bool) -> None:
    args = None
    if how == "exchange":
        args = ["collect", assignment, "--update"]
        if exchange_root:
            args.append(f"--Exchange.root={exchange_root}")
    elif how == "zip" and (root / "downloaded" / assignment / "archive").is_dir():
        args = ["zip_collect", assignment, "--force"]
    if not args:
        return
    result = run_nbgrader(args, root=root, echo=not quiet)
    if result.status != 0:  # what nbgrader said, also when quiet (nothing was echoed then)
        said = result.errors or result.log.splitlines()[-20:] or ["(nbgrader logged nothing)"]
        raise SystemExit(f"grade.py: nbgrader {' '.join(args)} failed:\n" + "\n".join(said).rstrip())
    close_submissions(root, assignment)


def close_submissions(root: Path, assignment: str) -> None:
    """Take group and others' write permission off ``submitted/*/<assignment>/`` and all in
    it: nbgrader's collect copied the exchange's submission folder with its mode, 0777, so
    any user who can reach the course could write into any student's submission (the
    course's checked collect writes 0700/0600 already; zip_collect still needs it). Only
    what this user owns is changed; symbolic links are left alone."""
    me = os.geteuid()
    for folder in sorted((root / "submitted").glob(f"*/{assignment}")):
        if folder.is_symlink() or not folder.is_dir():
            continue
        paths = [folder.parent, folder]
        for d, dirs, files in os.walk(folder):
            paths += [Path(d, name) for name in dirs + files]
        for path in paths:
            st = path.lstat()
            if not stat.S_ISLNK(st.st_mode) and st.st_uid == me and st.st_mode & 0o022:
                path.chmod(stat.S_IMODE(st.st_mode) & ~0o022)


def exported_assignments(root: Path) -> list[str]:
    """The assignments of grades.csv: those of the gradebook that someone submitted.
    ``make exercises`` puts every assignment in the gradebook (and in exercises/), handed
    out or not; nbgrader's export alone would give everyone a 0 for each."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url(root / "gradebook.db")) as gb:
        return [a.name for a in gb.assignments if a.submissions]


def made_line(argv: list[str]) -> str:
    """The report's line that says when it was made and by which run, e.g.
    ``Made 2026-12-07 20:11:03 UTC by `grade.py chars --quiet` (run 3f9a1c2e).``: a report
    left from an earlier run cannot pass for this one's."""
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    return f"Made {when} by `{shlex.join(['grade.py', *argv])}` (run {secrets.token_hex(4)})."


def export_grades(root: Path, quiet: bool) -> str:
    """Write grades.csv whole (nbgrader's export to a temporary file, then a rename), or
    remove it: an old grades.csv must not pass for this run's. The problem, or ""."""
    grades, partial = root / "grades.csv", root / ".grades.csv.partial"
    partial.unlink(missing_ok=True)
    try:
        # An empty list would mean "every assignment" to nbgrader: [""] matches none.
        names = exported_assignments(root) or [""]
        result = run_nbgrader(["export", f"--to={partial}",
                               f"--ExportPlugin.assignment={json.dumps(names)}"], root=root, echo=not quiet)
        why = "" if result.status == 0 and partial.exists() else _first_error(result.errors)
    except Exception as e:  # noqa: BLE001  the report must still be written, saying so
        why = f"{type(e).__name__}: {e}"
    if why:
        partial.unlink(missing_ok=True)
        grades.unlink(missing_ok=True)
        return f"grades.csv could not be exported ({why}); the scores are in gradebook.db"
    os.replace(partial, grades)
    return ""


def finish(root: Path, everything: list[str], *, unsafe: bool, quiet: bool,
           made: str = "", problems: list[str] | None = None) -> int:
    """Export grades.csv and write the report, whatever went wrong before (each is
    written whole, or grades.csv removed; the report says when it was made, by which run,
    and what this run could not do); the exit status."""
    problems = list(problems or [])
    if problem := export_grades(root, quiet):
        problems.append(problem)
    events = read_events(root / EVENTS)
    try:
        rows = report.report_rows(root, db_url(root / "gradebook.db"), everything, events)
    except Exception as e:  # noqa: BLE001  a report that says so beats a stale one
        rows = []
        problems.append(f"the report's rows could not be read from gradebook.db ({type(e).__name__}: {e})")
    csv_path, md_path = report.write_report(rows, root, unsafe=unsafe, events=events, made=made,
                                            problems=problems)
    if not quiet:
        print(md_path.read_text(encoding="utf-8"))
    for problem in problems:
        print(f"grade.py: {problem}", file=sys.stderr)
    print(f"written: {root / 'grades.csv'}, {csv_path}, {md_path}", file=sys.stderr)
    return 1 if problems or any(r["status"] in (FAILED, MISSING, report.NOT_AUTOGRADED)
                                for r in rows) else 0


def merge_shards(root: Path, n: int) -> list[GradingEvent]:
    """Combine ``gradebook.shard-K-of-N.db`` (K = 1..N) into gradebook.db; their events."""
    events, sources = [], {}
    for k in range(1, n + 1):
        db, ev = root / f"gradebook.shard-{k}-of-{n}.db", root / f"grading-events.shard-{k}-of-{n}.jsonl"
        if not db.exists() or not ev.exists():
            raise SystemExit(f"grade.py --merge {n}: shard {k} is missing ({db.name}, {ev.name})")
        shard_events = read_events(ev)
        sources[db] = sorted({(e.assignment, e.student) for e in shard_events
                              if e.event in (AUTOGRADED, FAILED)})
        events += shard_events
    merge(root / "gradebook.db", sources)
    return events


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("assignments", nargs="*", help="default: every assignment of source/")
    parser.add_argument("--collect", choices=["none", "exchange", "zip"], default="none",
                        help="where the submissions come from (default: already in submitted/)")
    parser.add_argument("--exchange-root", help="nbgrader's exchange directory (Exchange.root)")
    parser.add_argument("--timeout", type=int, help="seconds per cell (default: Execute.timeout)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per core)")
    parser.add_argument("--student", action="append", metavar="ID",
                        help="grade only this student (repeat for several): a regrade")
    parser.add_argument("--shard", help="K/N: grade only the K-th of N slices (see above)")
    parser.add_argument("--merge", type=int, metavar="N", help="combine N shards and report")
    parser.add_argument("--unsafe", action="store_true",
                        help="grade WITHOUT the sandbox (your own test submissions only)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no report on stdout")
    parser.add_argument("--allow-root", action="store_true",
                        help="grade as root in a course directory that belongs to another user")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.shard:
        try:
            k, n = map(int, args.shard.split("/"))
            assert 1 <= k <= n
        except (ValueError, AssertionError):
            parser.error(f"--shard wants K/N with 1 <= K <= N, not {args.shard!r}")
        args.shard = (k, n)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    made = made_line(sys.argv[1:] if argv is None else argv)
    root = ROOT
    if not args.allow_root:
        check_not_root(root, sys.argv[1:] if argv is None else argv)
    everything = source_assignments(root)
    if args.merge:
        replace_events(root / EVENTS, events := merge_shards(root, args.merge),
                       {(e.assignment, e.student) for e in events})
        return finish(root, everything, unsafe=any(e.event == UNSAFE for e in events),
                      quiet=args.quiet, made=made)
    for a in args.assignments:
        if a not in everything:
            raise SystemExit(f"grade.py: no assignment {a!r} in source/ (there are: {', '.join(everything)})")
    assignments = args.assignments or everything
    check_can_grade(root, args.unsafe)
    missing = [a for a in assignments if not (root / "gradebook.db").exists()
               or a not in gradebook_assignments(root)]
    if missing:  # the gradebook learns an assignment's cells from generate_assignment
        release(missing, root=root)
    for a in assignments:
        collect(a, args.collect, args.exchange_root, root, args.quiet)
    tasks, empty = submissions(root, assignments)
    if args.student:
        unknown = set(args.student) - {s for _, s in tasks + empty}
        if unknown:
            raise SystemExit(f"grade.py: nothing submitted by {', '.join(sorted(unknown))} in submitted/")
        tasks = [t for t in tasks if t[1] in args.student]
        empty = [t for t in empty if t[1] in args.student]
    if args.shard:
        k, n = args.shard
        tasks = tasks[k - 1::n]
        empty = empty[k - 1::n]
        target = copy_gradebook(root / "gradebook.db", root / f"gradebook.shard-{k}-of-{n}.db")
        events_path = root / f"grading-events.shard-{k}-of-{n}.jsonl"
        events_path.unlink(missing_ok=True)
    else:
        target, events_path = root / "gradebook.db", root / EVENTS
    tasks, refused = plain_only(root, tasks)  # after sharding: each flag in one shard
    extra = ([f"--Execute.timeout={args.timeout}"] if args.timeout else []) + (
        ["--SandboxedKernelManager.unsafe=True"] if args.unsafe else [])
    start = time.perf_counter()
    workers = min(args.jobs, max(1, len(tasks)))  # no more workers than submissions
    results, events = grade_all(tasks, root=root, gradebook=target, jobs=workers,
                                extra=extra, quiet=args.quiet)
    print(f"graded {len(results)} notebooks in {time.perf_counter() - start:.1f} s "
          f"with {workers} worker(s)", file=sys.stderr)
    events += [GradingEvent(a, s, None, "", MISSING) for a, s in empty] + refused
    if args.unsafe:
        events += [GradingEvent(a, s, None, "", UNSAFE, "student code ran without the sandbox", flag=True)
                   for a, s in tasks]
    problems, graded = [], set(tasks)
    for a in sorted({a for a, _ in tasks}):
        try:
            events += [e for e in report.identical_solutions(root, a) if (a, e.student) in graded]
        except Exception as e:  # noqa: BLE001  one check must not cost the class its report
            problems.append(f"the identical-solutions check of {a} failed ({type(e).__name__}: {e})")
    replace_events(events_path, events, graded | set(empty) | {(e.assignment, e.student) for e in refused})
    if args.shard:
        print(f"shard {args.shard[0]}/{args.shard[1]} done: {target.name}, {events_path.name}; "
              f"when every shard is done, run grade.py --merge {args.shard[1]}", file=sys.stderr)
        for problem in problems:
            print(f"grade.py: {problem}", file=sys.stderr)
        return 1 if problems else 0
    return finish(root, everything, unsafe=args.unsafe, quiet=args.quiet, made=made, problems=problems)


def _name(db, key: int) -> str | None:
    try:
        return db(key)[0]
    except KeyError:
        return None


def check_not_root(root: Path, argv: list[str]) -> None:
    """Refuse to run as root in a course directory that belongs to someone else."""
    if os.geteuid() != 0:
        return
    st = root.stat()
    if st.st_uid == 0:
        return
    user = _name(pwd.getpwuid, st.st_uid)
    group = _name(grp.getgrgid, st.st_gid)
    who = user or f"uid {st.st_uid}"
    owner = f"{user or st.st_uid}:{group or st.st_gid}"
    lines = [
        f"grade.py: {root} belongs to {who}, and this is root. Graded as root, autograded/, "
        f"feedback/, gradebook.db and the events would belong to root, and {who}'s next run "
        "would fail on them with PermissionError. Run it as the owner:",
        "",
        f"    cd {shlex.quote(str(root))} && sudo -u {shlex.quote(user or f'#{st.st_uid}')} "
        f".venv/bin/python autograder/grade.py {shlex.join(argv)}".rstrip(),
        "",
        "or pass --allow-root to grade as root all the same.",
    ]
    others = not_owned(root, st.st_uid)
    if others:
        lines += ["", f"These hold files that {who} does not own, from an earlier run as root? "
                  "Give them back first:", "",
                  f"    cd {shlex.quote(str(root))} && sudo chown -R {owner} {shlex.join(others)}"]
    raise SystemExit("\n".join(lines))


def gradebook_assignments(root: Path) -> set[str]:
    from nbgrader.api import Gradebook

    with Gradebook(db_url(root / "gradebook.db")) as gb:
        return {a.name for a in gb.assignments}


if __name__ == "__main__":
    sys.exit(main())
