"""Student content made inert where the instructor reads it (issue 34).

A submission is hostile data: its markdown and the outputs saved in it (``display(HTML)``,
``display(Javascript)``, SVG, widget views) are HTML that nbconvert would put in the
formgrader's page and in the feedback as it is, where it runs as whoever opens it (the
instructor's Jupyter server, with its contents API). Two layers, both installed by the
course's nbgrader_config.py through ``configure(c)``:

1. Sanitising (nbconvert's own ``HTMLExporter.sanitize_html``, with our allowlist): markdown
   as rendered, text/html and SVG outputs go through ``clean_html`` (bleach: no script, no
   event handler, no ``javascript:`` or ``data:`` URL but raster images); JavaScript and
   widget outputs are dropped (``InertOutputs``).
2. A Content-Security-Policy: a header on the formgrader's submission page
   (``InertSubmissionHandler``) and a ``<meta>`` in the document's head (feedback HTML, also
   opened from disk), with no 'unsafe-inline' or 'unsafe-eval' for scripts.

What still renders: markdown formatting, math (MathJax 2.7.7 from cdnjs, pinned), images
(PNG/JPEG/GIF outputs and pasted images), HTML tables.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re

import bleach
from nbconvert.filters.strings import strip_files_prefix
from nbconvert.preprocessors import Preprocessor

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "templates")  # base/mathjax.html.j2: the <meta> CSP and MathJax

# ---------------------------------------------------------------------------------------
# Sanitising
# ---------------------------------------------------------------------------------------
# bleach's default allowlist has no paragraphs, headings, images or table heads: with it
# (nbconvert's own clean_html) a markdown answer shows its tags as text.
TAGS = frozenset(bleach.ALLOWED_TAGS) | {
    "p", "div", "span", "pre", "code", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6",
    "img", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
    "sup", "sub", "del", "s", "ins", "u", "mark", "small", "kbd", "samp", "var", "q", "cite",
    "dl", "dt", "dd", "details", "summary", "figure", "figcaption"}
ATTRIBUTES = {
    "*": {"class", "id", "title", "align", "lang", "dir"},
    "a": {"href", "name"}, "img": {"src", "alt", "width", "height"},
    "th": {"colspan", "rowspan", "scope"}, "td": {"colspan", "rowspan"},
    "table": {"border"}, "ol": {"start", "type"}, "col": {"span"}, "colgroup": {"span"},
}
# The only data: URLs kept: raster images in <img src> (PNG plots, pasted images).
_DATA_IMAGE = re.compile(r"data:image/(png|jpeg|gif|webp);base64,[a-z0-9+/=]*\Z", re.I)
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")  # what browsers drop from a URL before its scheme
# A <style> element (pandas' tables have one) is removed with its content, not shown as text;
# bleach then sees what is left, so nothing this joins together gets through.
_STYLE = re.compile(r"<style\b[^>]*>.*?</style\s*>", re.I | re.S)


def _attribute_allowed(tag: str, name: str, value: str) -> bool:
    if name not in ATTRIBUTES["*"] and name not in ATTRIBUTES.get(tag, ()):
        return False
    if name in ("href", "src") and _URL_NOISE.sub("", value).lower().startswith("data:"):
        return tag == "img" and _DATA_IMAGE.match(_URL_NOISE.sub("", value)) is not None
    return True  # other schemes: bleach keeps http, https, mailto and relative URLs


def clean_html(html: str | bytes) -> str:
    """HTML with only the allowlisted tags and attributes; any other tag is shown as text.

    Contract: the result holds no element that runs script (script, iframe, object, svg,
    style...), no event-handler or style attribute, and no URL but http(s), mailto,
    relative, or a raster data: image in <img src>. It replaces nbconvert's ``clean_html``
    filter, so text/html and SVG outputs pass through it when ``sanitize_html`` is on.

    >>> clean_html('<p onclick="x()">a <b>b</b></p><script>alert(1)</script>')
    '<p>a <b>b</b></p>&lt;script&gt;alert(1)&lt;/script&gt;'
    >>> clean_html('<img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a>')
    '<img src="x"><a>x</a>'
    >>> clean_html('<svg onload=alert(1)></svg><a href="data:text/html,x">d</a>')
    '&lt;svg onload=alert(1)&gt;&lt;/svg&gt;<a>d</a>'
    >>> clean_html('<style>td {}</style><table border="1"><tr><th>n</th></tr></table>')
    '<table border="1"><tbody><tr><th>n</th></tr></tbody></table>'
    >>> clean_html('<img src="data:image/png;base64,iVBO" alt="plot">')
    '<img src="data:image/png;base64,iVBO" alt="plot">'
    """
    html = html.decode("utf-8", "replace") if isinstance(html, bytes) else str(html)
    return bleach.clean(_STYLE.sub("", html), tags=TAGS, attributes=_attribute_allowed,
                        protocols={"http", "https", "mailto", "data"}, strip=False)


def clean_markdown(html: str) -> str:
    """nbconvert's ``strip_files_prefix``, then ``clean_html``.

    Installed in its place: nbgrader's formgrade and feedback templates render markdown as
    ``cell.source | markdown2html | strip_files_prefix`` and never call clean_html, even
    with sanitize_html on, so this is the one filter every rendered markdown passes.

    >>> clean_markdown('<p>$x^2$ <img src="files/a.png"> <svg onload=f()></svg></p>')
    '<p>$x^2$ <img src="a.png"> &lt;svg onload=f()&gt;&lt;/svg&gt;</p>'
    """
    return clean_html(strip_files_prefix(html))


class InertOutputs(Preprocessor):
    """Drops the outputs that are code (JavaScript, widget views and state), cleans
    text/html, and keeps an image's width and height only when they are numbers.

    nbconvert's templates write ``width={{ width }}`` unquoted, so a student's metadata
    ``"1 onerror=..."`` would be an event handler; and JavaScript should not even reach a
    template that might forget to check sanitize_html.

    >>> from nbformat.v4 import new_notebook, new_code_cell, new_output
    >>> out = new_output("display_data", {"application/javascript": "x()",
    ...     "text/html": "<b onclick=x()>t</b>", "image/png": "iVBO"},
    ...     metadata={"image/png": {"width": "1 onerror=x()", "height": 2}, "height": "2 onload=y()"})
    >>> nb, _ = InertOutputs().preprocess(new_notebook(cells=[new_code_cell(outputs=[out])]), {})
    >>> o = nb.cells[0].outputs[0]
    >>> sorted(o.data), o.data["text/html"], o.metadata
    (['image/png', 'text/html'], '<b>t</b>', {'image/png': {'height': 2}})
    """

    DROPPED = ("application/javascript", "text/javascript", "application/x-javascript",
               "application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json")

    def preprocess(self, nb, resources):
        nb.metadata.pop("widgets", None)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime in self.DROPPED:
                data.pop(mime, None)
            if "text/html" in data:
                html = data["text/html"]
                data["text/html"] = clean_html("".join(html) if isinstance(html, list) else html)
            metadata = output.get("metadata", {})
            # per mime type, and at the top level, where nbconvert looks next
            for meta in [metadata, *metadata.values()]:
                if isinstance(meta, dict):
                    for key in ("width", "height"):
                        if key in meta and not _is_number(meta[key]):
                            del meta[key]
        return cell, resources


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) or (
        isinstance(value, str) and value.isdigit())


# ---------------------------------------------------------------------------------------
# Content-Security-Policy
# ---------------------------------------------------------------------------------------
MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/"  # a path: only its files
# nbconvert's own MathJax block is a text/x-mathjax-config script, which MathJax evaluates
# (it would need 'unsafe-eval'), and loads latest.js, which fetches another version's
# directory. Ours configures MathJax with a plain object before it loads: one inline script
# with a fixed text, allowed by its hash.
MATHJAX_CONFIG = (
    "window.MathJax = {tex2jax: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
    "displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true, "
    "processEnvironments: true}, TeX: {equationNumbers: {autoNumber: 'AMS', useLabelIds: true}}, "
    "displayAlign: 'center', messageStyle: 'none', "
    "CommonHTML: {linebreaks: {automatic: true}}};")
MATHJAX_SCRIPT = MATHJAX + "MathJax.js?config=TeX-AMS_CHTML-full,Safe"
# The formgrader's eye icons (show/hide the student's name) are inline onclick attributes
# of nbgrader's template: allowed by their hashes, and no other handler ('unsafe-hashes').
HANDLERS = ("toggle_name(true);", "toggle_name(false);")


def sha256(text: str) -> str:
    """A CSP hash source.

    >>> sha256("toggle_name(true);")
    "'sha256-...='"
    """
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def policy(script_hashes=(), *, scripts_from_self: bool = False) -> str:
    """The policy of a page that shows student content: scripts only from MathJax's
    directory, ``script_hashes`` (inline scripts) and ``'self'`` if asked; no plugin, no
    <base>; styles may be inline (MathJax and nbconvert's CSS need it).

    >>> p = policy([sha256("x")], scripts_from_self=True)
    >>> "script-src 'self' https://cdnjs" in p, "'unsafe-inline'" in p.split("style-src")[0]
    (True, False)
    """
    script = ["'self'"] if scripts_from_self else []
    script += [MATHJAX, *dict.fromkeys([sha256(MATHJAX_CONFIG), *script_hashes]),
               "'unsafe-hashes'", *map(sha256, HANDLERS)]
    return "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(script),
        f"style-src 'self' 'unsafe-inline' {MATHJAX}",
        "img-src 'self' data:",
        f"font-src 'self' data: {MATHJAX}",
        "connect-src 'self'",  # the formgrader saves scores and comments through its API
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    ])


def meta_policy() -> str:
    """The <meta> that carries ``policy()`` in a document.

    >>> meta_policy().startswith('<meta http-equiv="Content-Security-Policy" content="default-src')
    True
    """
    return f'<meta http-equiv="Content-Security-Policy" content="{policy()}">'


_META = re.compile(r"<meta\b[^>]*http-equiv=[\"']?Content-Security-Policy[^>]*>", re.I)


def without_meta_policy(html: str) -> str:
    """The document without the <meta> CSP of its <head> (nbconvert rewrites the tag
    through BeautifulSoup, attributes in another order).

    >>> without_meta_policy('<head><meta content="x" http-equiv="Content-Security-Policy"/>'
    ...                     '</head><body>')
    '<head></head><body>'
    """
    head, body, rest = html.partition("<body")
    return _META.sub("", head, count=1) + body + rest


def head_html(_url=None) -> str:
    """What replaces nbconvert's ``mathjax()`` macro (templates/base/mathjax.html.j2): the
    <meta> CSP, then MathJax. nbgrader's templates call mathjax() in the <head>, before
    any student content, so the policy covers all of it, even opened from disk.

    >>> print(head_html())  # doctest: +ELLIPSIS
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src https://...">
    <script>window.MathJax = ...</script>
    <script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/MathJax.js?config=..."></script>
    <style>...</style>
    """
    return (f"{meta_policy()}\n<script>{MATHJAX_CONFIG}</script>\n"
            f'<script src="{MATHJAX_SCRIPT}"></script>\n{STYLE}')


# Markup shown as text (a payload, a long base64 line) wraps instead of widening the page.
STYLE = "<style>.rendered_html, .output_html { overflow-wrap: anywhere; }</style>"


_INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
# Where nbgrader's templates put the notebook (nbconvert rewrites the tag through
# BeautifulSoup, which may reorder its attributes).
_NOTEBOOK = re.compile(r"<div\b[^>]*\bid=[\"']?notebook[\"'\s>]", re.I)


# A script of another type (text/x-mathjax-config) is data, not run: not hashed.
_SCRIPT_TYPE = re.compile(r"\btype\s*=\s*[\"']?([^\"'\s>]*)", re.I)


def _is_javascript(attrs: str) -> bool:
    m = _SCRIPT_TYPE.search(attrs)
    return m is None or m.group(1).lower() in ("", "text/javascript", "application/javascript", "module")


def template_script_hashes(html: str) -> list[str]:
    """Hashes of the inline scripts of nbgrader's formgrade template: those before the
    notebook (the <head>, the navigation bar), where only the template and the gradebook's
    ids write; nbgrader puts the submission's id in one, so they are hashed per page. The
    student's content is all inside the notebook's <div> (or, without it, the <body>).

    >>> template_script_hashes('<head><script src="a.js"> </script><script>var a = 1;</script>'
    ...     '<script type="text/javascript">b()</script><script type="text/x-mathjax-config">c'
    ...     '</script></head><body><script>d()</script><div class="x" id="notebook">'
    ...     '<script>evil()</script>') == [sha256(s) for s in ("var a = 1;", "b()", "d()")]
    True
    """
    notebook = _NOTEBOOK.search(html)
    trusted = html[:notebook.start()] if notebook else html.split("<body", 1)[0]
    return [sha256(body) for attrs, body in _INLINE_SCRIPT.findall(trusted)
            if not re.search(r"\bsrc\s*=", attrs) and _is_javascript(attrs)]


def submission_page_policy(existing: str, html: str) -> str:
    """The formgrader page's header: what jupyter_server already says (frame-ancestors, from
    JupyterHub too), then ours, with the hashes of the template's own inline scripts.

    >>> submission_page_policy("frame-ancestors 'none'", "<body>").startswith(
    ...     "frame-ancestors 'none'; default-src 'none'; script-src 'self' https://")
    True
    """
    return "; ".join(filter(None, [existing, policy(template_script_hashes(html), scripts_from_self=True)]))


# A submission's own files (/formgrader/submissions/<id>/<path>, for the images its markdown
# shows) come from the student too: an HTML file there is shown in a sandbox, a unique
# origin with no script.
FILES_POLICY = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"


def install_formgrader_policy() -> None:
    """Swaps nbgrader's SubmissionHandler and SubmissionFilesHandler for ones that send a
    CSP, in nbgrader's handlers.default_handlers, which the formgrader extension reads
    when it registers its handlers: after it has loaded nbgrader_config.py (the course's
    config calls this). Idempotent (nbgrader reloads the config at each request).

    nbgrader has no setting for a page's headers, and jupyter_server's one CSP setting
    (``headers``) applies to every page, Jupyter's own included, which need inline scripts.
    """
    from nbgrader.server_extensions.formgrader import handlers

    class InertSubmissionHandler(handlers.SubmissionHandler):
        """nbgrader's page, with our CSP as a header, hashing its inline scripts. The header
        replaces the page's <meta>: that one (for files opened from disk) cannot know the
        hashes of the template's scripts in the <body>, and both would be enforced."""

        def write(self, chunk):
            if isinstance(chunk, str):
                chunk = without_meta_policy(chunk)
                self.set_header("Content-Security-Policy",
                                submission_page_policy(self.content_security_policy, chunk))
            return super().write(chunk)

    class InertSubmissionFilesHandler(handlers.SubmissionFilesHandler):
        @property
        def content_security_policy(self) -> str:
            return "; ".join(filter(None, [super().content_security_policy, FILES_POLICY]))

    swap = {handlers.SubmissionHandler: InertSubmissionHandler,
            handlers.SubmissionFilesHandler: InertSubmissionFilesHandler}
    for i, (pattern, handler, *rest) in enumerate(handlers.default_handlers):
        if handler in swap:
            handlers.default_handlers[i] = (pattern, swap[handler], *rest)


def configure(c) -> None:
    """Installs all of it on the config ``c`` of nbgrader_config.py: every HTMLExporter of
    nbgrader (the formgrader's, generate_feedback's) sanitises, drops code outputs and
    writes the <meta> CSP; the formgrader's submission page sends the CSP header."""
    from nbgrader.server_extensions import formgrader

    nbgrader_templates = os.path.join(os.path.dirname(formgrader.__file__), "templates")
    c.HTMLExporter.sanitize_html = True
    c.HTMLExporter.filters = {"clean_html": clean_html, "strip_files_prefix": clean_markdown,
                              "inert_head": head_html}
    c.HTMLExporter.preprocessors = [InertOutputs]
    # Ours first: base/mathjax.html.j2 is found before nbconvert's. nbgrader's formgrade and
    # feedback templates stay where they are (each sets this only when the config does not).
    c.HTMLExporter.extra_template_basedirs = [TEMPLATES, nbgrader_templates]
    install_formgrader_policy()
