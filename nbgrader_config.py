# nbgrader configuration of the course (nbgrader 0.9.6). nbgrader reads this file when a
# command runs in this directory; autograder/README.md has the instructor workflow.
#
#   source/<assignment>/       instructor notebooks, with solutions and hidden tests
#   exercises/<assignment>/    student notebooks, generated (`make exercises`), committed
#   submitted/<student>/<assignment>/, autograded/, feedback/   grading work, not committed
import os
import sys

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
# Seconds per cell. A cell that runs longer is interrupted and shown as CellTimeoutError
# (the test cell scores 0), then grading goes on with the next cell. The hidden tests of
# one part take well under a second; `--Execute.timeout=N` overrides this.
c.Execute.timeout = 60
# Keep at most this much of what a cell prints; the rest is cut with "... Output truncated ...".
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 100
c.LimitOutputAndReport.max_chars = 100_000  # autograder/nbgrader_plugins.py: also cuts one huge line

# Two drop-in replacements for nbgrader's own preprocessors (autograder/nbgrader_plugins.py):
# the same behaviour, plus (1) a kernel that dies (os._exit, a segfault, out of memory)
# costs the points of the cells it did not run, instead of the whole submission vanishing
# from autograded/ and feedback/, and (2) every timeout, truncation and dead kernel is
# written to the log as a GRADING-EVENT line that autograder/grade.py turns into its report.
if os.path.join(_HERE, "autograder") not in sys.path:
    sys.path.insert(0, os.path.join(_HERE, "autograder"))
import nbgrader_plugins  # noqa: E402

c.Autograde.autograde_preprocessors = nbgrader_plugins.autograde_preprocessors()

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
# for example alice_chars.ipynb. Adapt the pattern to what your LMS writes.
c.FileNameCollectorPlugin.named_regexp = r".*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+)$"
