"""Student content is inert where the instructor reads it (issue 34, F5): the formgrader's
submission page and the feedback HTML run no script, event handler or ``javascript:`` URL
that a student wrote, and still show the math, the plots, the tables and the markdown.

A submission of ``chars`` carries seven payloads: in markdown cells a <script>, an
<svg onload>, an <img onerror> and a ``[link](javascript:...)``; as outputs of its code
``display(HTML("<script>..."))``, ``display(Javascript(...))`` and a PNG whose width
metadata is ``1 onerror=...`` (nbconvert writes it unquoted). Each payload sets
``window.__xss_N`` and PUTs ``pwned-N.txt`` through the Jupyter server's contents API. It
is autograded as the other end-to-end tests do (grade.py, sandboxed), then:

- the fast tests render the autograded notebook with the exporters the formgrader and
  generate_feedback build from the course's config (no browser);
- the browser test opens the feedback from file:// and over HTTP, and the formgrader's
  page of a real ``jupyter server`` (logged in with its token), clicks the javascript:
  link, and checks that no payload ran, that the legit content is there, that nbgrader's
  own JavaScript ran under the CSP (the score inputs are filled in) with no CSP violation
  for it, and saves a screenshot to /tmp/inert-formgrader.png.

About 60 s on 2 busy cores (a release and one grading of ``chars``, one server). Offline,
MathJax (from its CDN) does not load: ``TOKREF_MATHJAX2`` (below) checks the math too.
"""

from __future__ import annotations

import base64
import functools
import html
import html.parser
import http.server
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, copy_course
from grading_helpers import run, solutions, submission, write_nb

slow = pytest.mark.slow

STUDENT = "mallory"
N_PAYLOADS = 7
# A 2x2 red PNG: the plot a student legitimately shows.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==")


def payload(n: int) -> str:
    """JavaScript that shows it ran: a window flag, and a file written as the instructor."""
    return ("window.__xss_%d=1;fetch('/api/contents/pwned-%d.txt',{method:'PUT',headers:"
            "{'X-XSRFToken':(document.cookie.match(/_xsrf=([^;]+)/)||[])[1]||''},"
            "body:JSON.stringify({type:'file',format:'text',content:'pwned'})})" % (n, n))


def js(n: int) -> str:
    """``payload(n)`` without quotes or spaces, to fit in an attribute or a markdown link."""
    return "eval(atob('%s'))" % base64.b64encode(payload(n).encode()).decode()


def hostile_submission(course: Path) -> dict:
    """The full solution of chars, with the payloads and the legit content added."""
    student_nb = json.loads((course / "exercises/chars/chars.ipynb").read_text(encoding="utf-8"))
    full = solutions(json.loads((course / "source/chars/chars.ipynb").read_text(encoding="utf-8")))
    # Outputs come from running the code: autograde runs the notebook again.
    full["chars-encode"] += f'''

from IPython.display import HTML, Javascript, display
display(HTML("<script>{js(4)}</script><p id='legit-html'>html output</p>"))
display(Javascript("{js(5)}"))
display({{"image/png": "bm90IGEgcG5n"}}, raw=True, metadata={{"image/png": {{"width": "1 onerror={js(7)}"}}}})
display(HTML("<table id='legit-table'><tr><th>token</th><th>id</th></tr><tr><td>a</td><td>42</td></tr></table>"))
display({{"image/png": "{PNG}"}}, raw=True)
'''
    nb = submission(student_nb, full)
    markdown = {
        "cell_type": "markdown", "metadata": {}, "id": "hostile-markdown",
        "source": (
            "## My notes\n\nThe cost grows like $x^2 + y$, **bold** and *italic*.\n\n"
            f"<script>{js(1)}</script>\n\n"
            f'<svg onload="{js(2)}"></svg>\n\n'
            f'<img src="x" onerror="{js(3)}">\n\n'
            f"[see my proof](javascript:{js(6)})\n"),
    }
    nb["cells"].insert(3, markdown)
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """A course with mallory's submission of chars autograded and its feedback generated."""
    course = copy_course(tmp_path_factory.mktemp("inert") / "course")
    python = sys.executable
    assert run([python, "autograder/release.py", "chars"], course).returncode == 0
    write_nb(course / f"submitted/{STUDENT}/chars/chars.ipynb", hostile_submission(course))
    proc = run([python, "autograder/grade.py", "chars", "--quiet"], course)
    assert (course / f"feedback/{STUDENT}/chars/chars.html").exists(), proc.stdout + proc.stderr
    return course


FORMGRADE_RESOURCES = {
    "assignment_id": "chars", "notebook_id": "chars", "submission_id": "x", "index": 0,
    "total": 1, "base_url": "", "student": STUDENT, "last_name": "", "first_name": "",
    "notebook_path": "x"}


def exporters(course: Path, home: Path, *, feedback: bool = True) -> dict:
    """The HTMLExporters the formgrader and generate_feedback build, from the config they
    read: the formgrader's as load_jupyter_server_extension makes it (the course found
    through the user's ~/.jupyter/nbgrader_config.py, as on the hub), generate_feedback's
    as nbgrader's app makes it in the course."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.apps import GenerateFeedbackApp
    from nbgrader.converters import GenerateFeedback
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension

    cwd = os.getcwd()
    env = dict(os.environ)
    try:
        os.environ["JUPYTER_CONFIG_DIR"] = str(home / ".jupyter")
        os.chdir(home)
        formgrader = FormgradeExtension()
        formgrader.root_dir = str(course.parent)
        formgrader.initialize([])
        formgrade = HTMLExporter(config=formgrader.config)
        if not feedback:
            return {"formgrade": formgrade}
        os.chdir(course)
        app = GenerateFeedbackApp()
        app.initialize([])
        converter = GenerateFeedback(coursedir=app.coursedir, parent=app)
        converter.exporter = converter.exporter_class(parent=converter, config=converter.config)
        for pp in converter.preprocessors:
            converter.exporter.register_preprocessor(pp)
        return {"formgrade": formgrade, "feedback": converter.exporter}
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)


def jupyter_home(tmp: Path, course: Path) -> Path:
    """A HOME whose ~/.jupyter/nbgrader_config.py names the course, as try_hub.sh writes it."""
    home = tmp / "home"
    (home / ".jupyter").mkdir(parents=True, exist_ok=True)
    (home / ".jupyter/nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.root = {str(course)!r}\n", encoding="utf-8")
    return home


class Active(html.parser.HTMLParser):
    """What in a document could run: script elements, event-handler attributes, URLs with
    a scheme that runs script, and the elements that embed another document."""

    def __init__(self, start: str):
        super().__init__(convert_charrefs=True)
        self.found, self.start, self.in_body = [], start, False

    def handle_starttag(self, tag, attrs):
        self.in_body = self.in_body or tag == self.start or ("id", self.start) in attrs
        if not self.in_body:
            return  # before it, nbgrader's template (the head, the navigation bar)
        if tag in ("script", "iframe", "object", "embed", "svg", "math", "base", "form", "frame"):
            self.found.append((tag, attrs))
        for name, value in attrs:
            url = re.sub(r"[\x00-\x20]", "", value or "").lower()
            if (name.startswith("on") and value not in ("toggle_name(true);", "toggle_name(false);")
                    or url.startswith(("javascript:", "vbscript:", "data:text", "data:image/svg"))):
                self.found.append((tag, name, value))


def body(html: str) -> str:
    return html.split("<body", 1)[1]


def check_inert_html(html: str, *, meta: bool = True) -> None:
    """The page as the server or nbconvert writes it: nothing of the student's that runs;
    a <meta> CSP (not in the formgrader's page, whose CSP is a header)."""
    parser = Active("notebook" if 'id="notebook"' in html else "body")
    parser.feed(html)
    assert parser.in_body and parser.found == [], parser.found
    b = body(html)
    # What must still render.
    assert "$x^2 + y$" in b and "<strong>bold</strong>" in b and "<h2" in b
    assert 'id="legit-table"' in b and "<th>token</th>" in b
    assert f"data:image/png;base64,{PNG}" in b
    head = html.split("<body", 1)[0]
    assert bool(re.search(r'<meta[^>]* http-equiv="Content-Security-Policy"', head)) == meta


# ---------------------------------------------------------------------------------------
# Fast: inert.py's doctests, and the formgrader's exporter on a notebook made here
# ---------------------------------------------------------------------------------------


def test_inert_doctests():
    import doctest

    from autograder import inert

    result = doctest.testmod(inert, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10 and result.failed == 0


def hostile_notebook():
    """The payloads as a student's saved notebook (no grading): a markdown answer of an
    nbgrader cell, a markdown cell of the student's, and the outputs of a code cell."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    answer = new_markdown_cell(f"Answer: $x^2 + y$ <img src=x onerror=\"{js(3)}\">", metadata={
        "nbgrader": {"grade_id": "essay", "solution": True, "grade": True, "points": 1,
                     "locked": False, "schema_version": 3}})
    notes = new_markdown_cell(
        f"## My notes\n\nThe cost grows like $x^2 + y$, **bold** and *italic*.\n\n"
        f"<script>{js(1)}</script>\n\n<svg onload=\"{js(2)}\"></svg>\n\n"
        f"[see my proof](javascript:{js(6)})\n")
    outputs = [
        new_output("display_data", {"text/html": f"<script>{js(4)}</script>", "text/plain": ""}),
        new_output("display_data", {"application/javascript": js(5), "text/plain": ""}),
        new_output("display_data", {"image/png": "bm90IGEgcG5n"},
                   metadata={"image/png": {"width": f"1 onerror={js(7)}"}}),
        new_output("display_data", {"image/jpeg": "bm90IGEganBn"},  # where nbconvert looks next
                   metadata={"height": f"1 onerror={js(7)}"}),
        new_output("display_data", {"text/html": "<style>th {}</style><table id='legit-table'>"
                                    "<tr><th>token</th><th>id</th></tr><tr><td>a</td><td>42</td></tr></table>"}),
        new_output("display_data", {"image/png": PNG}),
    ]
    return new_notebook(cells=[notes, answer, new_code_cell("plots()", outputs=outputs)])


def test_the_formgraders_exporter_sanitises_what_a_student_saved(tmp_path):
    """The exporter as the formgrader builds it from the course's config renders none of
    the payloads as code, and all of the legit content."""
    course = copy_course(tmp_path / "course")
    exporter = exporters(course, jupyter_home(tmp_path, course), feedback=False)["formgrade"]
    html_, _ = exporter.from_notebook_node(hostile_notebook(), resources=FORMGRADE_RESOURCES)
    check_inert_html(html_)
    assert "application/javascript" not in html_ and "atob" in html_  # shown as text, not code
    assert 'class="score tabbable"' in html_ and 'id="essay-comment"' in html_  # grading widgets


def test_without_inert_py_nbconverts_sanitiser_stands_in(tmp_path, monkeypatch):
    """Fail closed: a course whose autograder/inert.py does not load still sanitises
    (nbconvert's smaller allowlist: some markdown shows its tags as text)."""
    course = copy_course(tmp_path / "course")
    (course / "autograder/inert.py").unlink()
    # The course's nbgrader_config.py loads the course's own autograder package (by
    # location): forget the one this process imported, and put it back afterwards.
    for name in [n for n in sys.modules if n == "autograder" or n.startswith("autograder.")]:
        monkeypatch.delitem(sys.modules, name)
    exporter = exporters(course, jupyter_home(tmp_path, course), feedback=False)["formgrade"]
    html_, _ = exporter.from_notebook_node(hostile_notebook(), resources=FORMGRADE_RESOURCES)
    parser = Active("notebook")
    parser.feed(html_)
    assert parser.in_body and parser.found == [], parser.found
    assert "autograder.inert" not in sys.modules
    for name in [n for n in sys.modules if n == "autograder" or n.startswith("autograder.")]:
        del sys.modules[name]  # the course copy's; monkeypatch restores this process's own


# ---------------------------------------------------------------------------------------
# Without a browser: the exporters the formgrader and the feedback use
# ---------------------------------------------------------------------------------------


@slow
def test_the_formgraders_and_the_feedbacks_exporters_read_the_course_config_and_sanitise(graded, tmp_path):
    home = jupyter_home(tmp_path, graded)
    ex = exporters(graded, home)
    for name, exporter in ex.items():
        assert exporter.sanitize_html, name
        assert exporter.template_name == name
    nb = graded / f"autograded/{STUDENT}/chars/chars.ipynb"
    html, _ = ex["formgrade"].from_filename(str(nb), resources=FORMGRADE_RESOURCES)
    check_inert_html(html)
    assert 'class="score tabbable"' in html  # nbgrader's grading widgets are still there
    # The feedback as generate_feedback wrote it (through grade.py), and as rendered here.
    check_inert_html((graded / f"feedback/{STUDENT}/chars/chars.html").read_text(encoding="utf-8"))


@slow
def test_the_autograded_notebook_still_holds_the_payloads(graded):
    """The payloads reached the notebook the pages render (so the tests above test them)."""
    text = (graded / f"autograded/{STUDENT}/chars/chars.ipynb").read_text(encoding="utf-8")
    nb = json.loads(text)
    mimes = {m for c in nb["cells"] for o in c.get("outputs", []) for m in o.get("data", {})}
    assert {"application/javascript", "text/html", "image/png"} <= mimes
    for n in range(1, N_PAYLOADS + 1):
        assert base64.b64encode(payload(n).encode()).decode() in text, n


# ---------------------------------------------------------------------------------------
# In Chromium: the feedback from disk and over HTTP, the formgrader of a real server
# ---------------------------------------------------------------------------------------

from test_browser import CHROMEDRIVER, CHROMIUM, HAVE_SELENIUM, chromium  # noqa: E402

def browser(test):
    return slow(pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None or not HAVE_SELENIUM,
                                   reason="no chromium/chromedriver/selenium for the browser test")(test))

LISTEN = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  {directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample, line: e.lineNumber}));
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# MathJax 2.7.7 as the CDN serves it, for a machine without network: the directory of the
# npm package (`npm pack mathjax@2.7.7`, unpacked). With it, Chromium fetches
# https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/ from a local HTTPS server (the same
# URL, so the same policy), and the tests check that the math is typeset and that
# nbgrader's formgrade.js finished its set-up (it waits for MathJax); without it, MathJax
# does not load and both are skipped.
MATHJAX2 = os.environ.get("TOKREF_MATHJAX2")


def fake_cdn(tmp: Path):
    """An HTTPS server of MATHJAX2 at /ajax/libs/mathjax/2.7.7/, and Chromium's flags."""
    root = tmp / "cdn"
    (root / "ajax/libs/mathjax").mkdir(parents=True)
    (root / "ajax/libs/mathjax/2.7.7").symlink_to(MATHJAX2)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", str(tmp / "key.pem"), "-out", str(tmp / "cert.pem"),
                    "-subj", "/CN=cdnjs.cloudflare.com"], check=True, capture_output=True)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def end_headers(self):  # as the CDN: its fonts load from any origin
            self.send_header("Access-Control-Allow-Origin", "*")
            super().end_headers()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp / "cert.pem", tmp / "key.pem")
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    return httpd, [f"--host-resolver-rules=MAP cdnjs.cloudflare.com:443 127.0.0.1:{port}",
                   "--ignore-certificate-errors"]


@pytest.fixture(scope="module")
def driver():
    profile = tempfile.mkdtemp(prefix="inert-chrome-")
    httpd, flags = fake_cdn(Path(profile)) if MATHJAX2 else (None, [])
    drv = chromium(str(Path(profile) / "profile"), "--window-size=1280,1600", *flags)
    # Listen for CSP violations before any script of the page runs.
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LISTEN})
    yield drv
    drv.quit()
    if httpd:
        httpd.shutdown()
    shutil.rmtree(profile, ignore_errors=True)


def typeset(drv) -> int:
    """How many formulas MathJax 2 typeset (its CommonHTML output)."""
    return drv.execute_script("return document.querySelectorAll('.mjx-chtml.MathJax_CHTML').length;")


def ran(drv) -> list[int]:
    return drv.execute_script(
        "return Array.from({length: %d}, (_, i) => i + 1).filter(n => window['__xss_' + n]);"
        % N_PAYLOADS)


def settle(drv, seconds: float = 1.5) -> None:
    drv.execute_async_script(
        "const done = arguments[0];"
        "(function wait(){ document.readyState === 'complete' ? setTimeout(done, %d) : setTimeout(wait, 50); })();"
        % int(seconds * 1000))


def click_links(drv) -> None:
    """Click the student's link (a javascript: URL runs only when clicked)."""
    from selenium.webdriver.common.by import By

    for a in drv.find_elements(By.PARTIAL_LINK_TEXT, "see my proof"):
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'});", a)
        a.click()
    time.sleep(0.3)


@browser
def test_feedback_is_inert_from_disk_and_over_http(graded, driver):
    feedback = graded / f"feedback/{STUDENT}/chars/chars.html"
    driver.get(feedback.as_uri())
    settle(driver)
    click_links(driver)
    assert ran(driver) == []
    text = driver.find_element("tag name", "body").text
    assert "token" in text
    assert typeset(driver) == 1 if MATHJAX2 else "x^2 + y" in text
    assert driver.execute_script("return window.__csp;") == []
    driver.execute_script("document.querySelector('.rendered_html h2').scrollIntoView({block: 'start'});")
    driver.save_screenshot("/tmp/inert-feedback.png")

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(feedback.parent)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{httpd.server_address[1]}/{feedback.name}")
        settle(driver)
        click_links(driver)
        assert ran(driver) == []
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def server(graded, tmp_path_factory):
    """``jupyter server`` with the formgrader, its root above the course, token auth; the
    course found as on the hub, through ~/.jupyter/nbgrader_config.py."""
    tmp = tmp_path_factory.mktemp("server")
    home = jupyter_home(tmp, graded)
    port, token = free_port(), "inert-test-token"
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / ".jupyter"),
           "JUPYTER_RUNTIME_DIR": str(tmp / "runtime")}
    log = open(tmp / "server.log", "w")
    proc = subprocess.Popen(
        [str(ROOT / ".venv/bin/jupyter"), "server", "--allow-root", "--no-browser",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         f"--ServerApp.root_dir={graded.parent}", f"--IdentityProvider.token={token}"],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        import urllib.request

        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1)
                break
            except OSError:
                assert proc.poll() is None, (tmp / "server.log").read_text()
                time.sleep(0.1)
        yield {"base": base, "token": token, "log": tmp / "server.log"}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def gradebook(course: Path):
    import warnings

    from nbgrader.api import Gradebook

    warnings.filterwarnings("ignore", message=".*not in session.*")
    return Gradebook(f"sqlite:///{course / 'gradebook.db'}")


def submission_id(course: Path) -> str:
    with gradebook(course) as gb:
        return gb.find_submission_notebook("chars", "chars", STUDENT).id


def manual_score(course: Path, grade_id: str):
    with gradebook(course) as gb:
        grade = gb.find_grade(grade_id, "chars", "chars", STUDENT)
        return grade.manual_score, grade.max_score


@browser
def test_formgrader_submission_page_is_inert_and_still_works(graded, server, driver):
    import urllib.request

    from selenium.webdriver.common.by import By

    sid = submission_id(graded)
    url = f"{server['base']}/formgrader/submissions/{sid}/"
    with urllib.request.urlopen(f"{url}?token={server['token']}") as resp:
        csp = resp.headers["Content-Security-Policy"]
        check_inert_html(resp.read().decode(), meta=False)
    assert "script-src 'self' https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/ 'sha256-" in csp, csp
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0], csp
    assert "object-src 'none'" in csp and "base-uri 'none'" in csp, csp

    # Log in as the instructor does (the login form sets the cookie the API calls need).
    driver.get(f"{server['base']}/login?next=/formgrader/submissions/{sid}/")
    driver.find_element(By.CSS_SELECTOR, "input[type=password]").send_keys(server["token"])
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit], form input[type=submit]").click()
    for _ in range(100):
        if driver.current_url.startswith(url):
            break
        time.sleep(0.1)
    assert driver.current_url.startswith(url), driver.current_url
    settle(driver, 2.5)
    click_links(driver)
    time.sleep(1)
    assert ran(driver) == []
    assert not list(graded.parent.rglob("pwned-*.txt"))
    # The legit content is there.
    text = driver.find_element(By.TAG_NAME, "body").text
    assert typeset(driver) == 1 if MATHJAX2 else "x^2 + y" in text  # MathJax did not load
    assert driver.find_element(By.ID, "legit-table").text.split() == ["token", "id", "a", "42"]
    img = driver.find_element(By.CSS_SELECTOR, f'img[src="data:image/png;base64,{PNG}"]')
    assert driver.execute_script("return arguments[0].naturalWidth;", img) == 2
    driver.execute_script("document.querySelector('.rendered_html h2').scrollIntoView({block: 'start'});"
                          "window.scrollBy(0, -60);")
    driver.save_screenshot("/tmp/inert-formgrader.png")
    # nbgrader's own JavaScript ran: it loaded the grades into the score inputs (the
    # autograded score as a placeholder), and "Full credit" saves a manual score.
    scores = driver.execute_script("return $('input.score').map((i, e) => e.placeholder).get();")
    assert len(scores) == 12 and all(s != "" for s in scores), scores
    if MATHJAX2:  # offline, formgrade.js stops where it waits for MathJax (nbgrader's own)
        assert driver.execute_script("return formgrader.loaded && MathJax.loaded;")
    cell = driver.find_element(By.ID, "chars-encode-basic").find_element(
        By.XPATH, "./ancestor::*[contains(@class, 'nbgrader_cell')]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", cell)
    cell.find_element(By.CSS_SELECTOR, "button.full-credit").click()
    for _ in range(50):
        score, max_score = manual_score(graded, "chars-encode-basic")
        if score is not None:
            break
        time.sleep(0.1)
    assert score == max_score > 0
    assert float(driver.find_element(By.ID, "chars-encode-basic").get_attribute("value")) == max_score
    # Nothing was blocked: nbgrader's scripts, styles and API calls are all allowed, and no
    # student script is left for the policy to block (the sanitiser removed them).
    assert driver.execute_script("return window.__csp;") == []
    # The files of a submission are served in a sandbox (a unique origin, no script).
    with urllib.request.urlopen(f"{url}chars.ipynb?token={server['token']}") as resp:
        assert "sandbox" in resp.headers["Content-Security-Policy"].split("; ")
