# nbgrader configuration of the course (nbgrader 0.9.6). nbgrader reads this file when a
# command runs in this directory; autograder/README.md has the instructor workflow.
#
#   source/<assignment>/       instructor notebooks, with solutions and hidden tests
#   exercises/<assignment>/    student notebooks, generated (`make exercises`), committed
#   submitted/<student>/<assignment>/, autograded/, feedback/   grading work, not committed
import os
import runpy

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)

_HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------
# Course directory
# ---------------------------------------------------------------------------------------
c.CourseDirectory.root = _HERE
c.CourseDirectory.course_id = "tokenization"
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "exercises"
# The gradebook is CourseDirectory.db_url's default, sqlite:///<root>/gradebook.db (gitignored).

# ---------------------------------------------------------------------------------------
# Student version (`nbgrader generate_assignment`)
# ---------------------------------------------------------------------------------------
c.ClearSolutions.code_stub = {
    "python": '# YOUR CODE HERE\nraise NotImplementedError("replace this line with your code")'
}

# ---------------------------------------------------------------------------------------
# Autograding (`nbgrader autograde`)
# ---------------------------------------------------------------------------------------
# Every submission runs in an OS sandbox (autograder/sandbox.py: bubblewrap): no network,
# no view of this directory or of other students' work, a read-only Python with only
# the grading runtime (tokgrade, none of the reference), and the limits below. The hidden tests' answers are
# computed and compared outside it (autograder/hidden_tests.py). Without bubblewrap
# grading refuses to start; `--SandboxedKernelManager.unsafe=True` (grade.py --unsafe)
# grades without it, and the report says so.
c.SandboxedKernelManager.python = os.path.join(_HERE, ".venv", "kernel", "bin", "python")  # `make setup`
c.SandboxedKernelManager.memory_mb = 2048    # address space of each process
c.SandboxedKernelManager.cpu_seconds = 600   # CPU time of each process
c.SandboxedKernelManager.processes = 64      # processes and threads of the whole sandbox
# The whole submission, all its processes together (autograder/cgroups.py): a cgroup where
# the grader may make one (root, or systemd-run --user); the report says which held. With
# none, the sandbox allows fallback_processes (16) tasks, so that 16 x memory_mb = 32 GiB
# bounds a submission's address space.
c.SandboxedKernelManager.submission_memory_mb = 4096
c.SandboxedKernelManager.file_mb = 64        # largest file written
c.SandboxedKernelManager.tmp_mb = 256        # size of each of /tmp and /home/student

# Seconds per cell. A cell that runs longer is interrupted and shown as CellTimeoutError
# (the test cell scores 0), then grading goes on with the next cell. The hidden tests of
# one part take well under a second; `--Execute.timeout=N` overrides this.
c.Execute.timeout = 60
# Seconds per notebook: the cells left when it is used up are not run and score 0.
c.ExecuteAndReport.notebook_timeout = 600
# Keep at most this much of what a cell prints; the rest is cut with "... Output truncated ...".
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100
c.LimitOutputAndReport.max_chars = 100_000  # also cuts one huge line

# The pipeline of autograder/nbgrader_plugins.py: nbgrader's own, with the sandboxed
# ExecuteAndReport, LimitOutputAndReport, and CheckHiddenTests before SaveAutoGrades.
# A kernel that dies or a notebook out of time costs only the cells it did not run.
# What happened to each submission is appended to grading-events.jsonl (JSON lines).
#
# Fail closed: traitlets logs an exception raised here and goes on with nbgrader's
# defaults, which run a submission unsandboxed, with this directory in view. So nothing
# here may raise: if the pipeline cannot be loaded (nbgrader run from an environment
# without the reference's dependencies, a broken file), autograding is given a pipeline
# that refuses every submission and says why. tokref itself comes from solutions/, so an
# environment without it installed still grades when regex and numpy are there.


def _refuse(error: BaseException) -> None:
    from nbgrader.preprocessors import NbGraderPreprocessor

    class RefuseToGrade(NbGraderPreprocessor):
        """Stands in for the whole autograde pipeline when the sandboxed one cannot load."""

        reason = f"{type(error).__name__}: {error}"

        def preprocess(self, nb, resources):
            raise RuntimeError(
                f"grading refused: this course's sandboxed pipeline did not load ({self.reason}), "
                "and without it nbgrader would run the submission in the open. Run nbgrader "
                f"from the course's environment ({os.path.join(_HERE, '.venv', 'bin', 'nbgrader')}; "
                "`make setup` makes it), or install what is missing there "
                f"(`pip install -r {os.path.join(_HERE, 'requirements.txt')}`), then grade again; "
                f"`python {os.path.join(_HERE, 'autograder', 'doctor.py')}` checks the set-up.")

    c.Autograde.autograde_preprocessors = [RefuseToGrade]

    from nbgrader.exchange.default.collect import ExchangeCollect

    class RefuseToCollect(ExchangeCollect):
        """Stands in for collecting: nbgrader's own would take submissions in another
        student's name (autograder/exchange_plugins.py)."""

        def start(self):
            self.fail(f"collecting refused: this course's checked collect did not load "
                      f"({RefuseToGrade.reason}); run nbgrader from the course's environment "
                      "or `make setup`, then collect again.")

    c.ExchangeFactory.collect = RefuseToCollect

    from nbgrader.plugins.zipcollect import ExtractorPlugin

    class RefuseToExtract(ExtractorPlugin):
        """Stands in for unpacking: nbgrader's own follows links and trusts archives."""

        def extract(self, archive_path, extracted_path):
            raise RuntimeError(f"zip_collect refused: this course's checked extractor did not load "
                               f"({RefuseToGrade.reason}); run nbgrader from the course's "
                               "environment or `make setup`, then collect again.")

    c.ZipCollectApp.extractor_plugin = RefuseToExtract

    from nbgrader.plugins.zipcollect import FileNameCollectorPlugin

    class RefuseToCollectFiles(FileNameCollectorPlugin):
        """Stands in for naming files: nbgrader's own takes the student id from inside a
        student's zip (alice's zip holding bob_chars.ipynb lands in bob's folder)."""

        def collect(self, submitted_file):
            raise RuntimeError(f"zip_collect refused: this course's checked collector did not load "
                               f"({RefuseToGrade.reason}); run nbgrader from the course's "
                               "environment or `make setup`, then collect again.")

    c.ZipCollectApp.collector_plugin = RefuseToCollectFiles


try:
    # The course's autograder package, by location (autograder/_load.py): no sys.path edit.
    runpy.run_path(os.path.join(_HERE, "autograder", "_load.py"))
    from autograder import load_solutions  # noqa: E402

    # the hidden tests compute the reference's answers here, with the grading runtime
    load_solutions()
    from autograder import exchange_plugins, nbgrader_plugins  # noqa: E402

    # Collect only what each student made, and flag a submission edited after its time.
    c.ExchangeFactory.collect = exchange_plugins.CheckedExchangeCollect
    # Unpack LMS downloads as plain files only: no links, no `..`, no zip bombs.
    c.ZipCollectApp.extractor_plugin = exchange_plugins.PlainExtractor
    # A file is a student's only if the LMS's name of it (or of its archive) says so.
    c.ZipCollectApp.collector_plugin = exchange_plugins.CheckedFileNameCollector
    c.Autograde.autograde_preprocessors = nbgrader_plugins.autograde_preprocessors()
    # A test cell as released (hidden tests cut) is not "changed": no checksum warning.
    c.Autograde.sanitize_preprocessors = nbgrader_plugins.sanitize_preprocessors()
    c.GradingEvents.path = os.path.join(_HERE, "grading-events.jsonl")
except (Exception, SystemExit) as _error:  # noqa: BLE001  any failure must refuse, not run
    _refuse(_error)

# ---------------------------------------------------------------------------------------
# Student content is inert where the instructor reads it (issue 34)
# ---------------------------------------------------------------------------------------
# A submission's markdown and saved outputs are the student's HTML. The formgrader's
# submission page and the feedback HTML (both nbconvert's HTMLExporter, which reads this
# file) sanitise it: no script, event handler or javascript: URL; JavaScript and widget
# outputs dropped; markdown, math, images and tables still shown. Both pages also carry a
# Content-Security-Policy without inline scripts (a <meta> in the document; a header on the
# formgrader's page). autograder/inert.py has the details, autograder/README.md the summary.
#
# Fail closed here too: if inert.py cannot load, nbconvert's own sanitiser stands in (a
# smaller allowlist: some markdown shows its tags as text), never nothing.
c.HTMLExporter.sanitize_html = True
try:
    from autograder import inert  # noqa: E402  (loaded above, by location)

    inert.configure(c)
except (Exception, SystemExit):  # noqa: BLE001
    try:
        from nbconvert.filters.strings import clean_html as _clean_html
        from nbconvert.filters.strings import strip_files_prefix as _strip_files_prefix
        from nbconvert.preprocessors import Preprocessor as _Preprocessor

        class _NoOutputMetadata(_Preprocessor):
            """nbconvert writes an image's width and height unquoted: drop them all."""

            def preprocess_cell(self, cell, resources, index):
                for output in cell.get("outputs", []):
                    if "metadata" in output:
                        output["metadata"] = {}
                return cell, resources

        # nbgrader's templates render markdown as `markdown2html | strip_files_prefix`.
        c.HTMLExporter.filters = {"strip_files_prefix": lambda html: _clean_html(_strip_files_prefix(html))}
        c.HTMLExporter.preprocessors = [_NoOutputMetadata]
    except (Exception, SystemExit):  # noqa: BLE001  no nbconvert: nothing renders anyway
        pass

# ---------------------------------------------------------------------------------------
# Feedback (`nbgrader generate_feedback`)
# ---------------------------------------------------------------------------------------
# nbgrader shows the hidden tests in the feedback, by design: students see which input
# failed and why (the messages of the hidden tests name the input and the expected
# result). To hide their code instead (say, to reuse the tests next year), uncomment:
#
# from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
# from nbgrader.preprocessors import ClearHiddenTests, GetGrades
# c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, ClearHiddenTests]
#
# (a traceback still shows the line of a hidden test that failed, and its message).

# ---------------------------------------------------------------------------------------
# Submissions downloaded from an LMS (`nbgrader zip_collect <assignment>`)
# ---------------------------------------------------------------------------------------
# Files (or zips of files) in downloaded/<assignment>/archive/ named <student>_<notebook>,
# for example alice_chars.ipynb or j_smith_chars.ipynb (student j_smith): the student id is
# everything before the last underscore, so ids may hold underscores and notebook names
# may not (none of this course's do). Adapt the pattern to what your LMS writes. A file
# inside a zip is collected only for the student the zip's own name gives, and only with
# an id matching CheckedFileNameCollector.student_id_regexp (autograder/exchange_plugins.py).
c.FileNameCollectorPlugin.named_regexp = r".*/(?P<student_id>[^/]+)_(?P<file_id>[^/_]+)$"
