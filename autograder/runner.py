"""The one way the course's scripts run nbgrader: its own application, in this process.

``run_nbgrader(["autograde", "chars", "--student", "alice", "--force"], root=...)`` does
what ``nbgrader autograde chars --student alice --force`` does in ``root`` (it reads the
course's ``nbgrader_config.py`` there), without paying nbgrader's import time again for
every command (about 3.5 s), and returns the exit status with the error messages nbgrader
logged. This is how nbgrader's own test suite runs its commands.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    status: int
    errors: list[str] = field(default_factory=list)  # what nbgrader logged as errors
    log: str = ""  # everything it logged


class _Collect(logging.Handler):
    def __init__(self, echo: bool) -> None:
        super().__init__(logging.INFO)
        self.errors: list[str] = []
        self.lines: list[str] = []
        self.echo = echo

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        line = f"[{record.levelname}] {text}"
        self.lines.append(line)
        if record.levelno >= logging.ERROR:
            self.errors.append(text)
        if self.echo:
            print(line, file=sys.stderr, flush=True)


def nbgrader_env() -> None:
    """nbgrader's gradebook runs ``alembic`` from PATH: put this interpreter's bin/ first."""
    bin_dir = str(Path(sys.executable).parent)
    if not os.environ.get("PATH", "").startswith(bin_dir + os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def run_nbgrader(args: list[str], *, root: Path = ROOT, echo: bool = False) -> Result:
    """Run one nbgrader command in ``root``, in this process (see the module docstring)."""
    from nbgrader.apps import NbGraderApp
    from jupyter_core.application import NoStart

    nbgrader_env()
    # nbgrader 0.9.6's gradebook API trips SQLAlchemy 2's autoflush warnings: not ours to fix.
    warnings.filterwarnings("ignore", message=".*not in session.*")
    os.chdir(root)
    collect = _Collect(echo)
    app = NbGraderApp.instance()
    try:
        app.initialize(args)
        for a in (app, app.subapp):  # nbgrader's own stderr handler: replaced by ours
            for handler in list(getattr(a, "log", logging.getLogger()).handlers):
                a.log.removeHandler(handler)
        app.init_logging(lambda: collect, [], color=False, subapps=True)
        app.start()
        status = 0
    except NoStart:
        status = 0
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 1
    except Exception:  # nbgrader raised instead of logging: still a result, with where
        collect.errors.append(traceback.format_exc())
        status = 1
    finally:
        app.reset()
    return Result(status, collect.errors, "\n".join(collect.lines))
