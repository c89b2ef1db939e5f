"""The book's own Sphinx extension (listed in _config.yml under sphinx.local_extensions).

What it does, and why each part is here rather than in a theme option:

- **Notebooks to download.** Every chapter (a MyST-markdown notebook) is converted with
  jupytext into ``_sources/<page>.ipynb`` at the end of the build, unexecuted, with a
  first cell that installs what the chapter imports when ``tokref`` is missing (Colab,
  Binder). The theme's download menu offers it as ``.ipynb`` (``ipynb_source``).
- **Launch buttons from one setting.** ``repository.url`` in _config.yml drives them:
  when it is empty every launch service is switched off (the theme would otherwise fail
  on the empty URL, or point at Jupyter Book's own repository, the default); when it is
  a GitHub URL the Binder and Colab buttons appear. The environment variable
  ``BOOK_REPOSITORY_URL`` stands in for an empty setting (the GitHub workflow sets it). Colab cannot open a ``.md`` file,
  so its button opens the generated notebook from the ``gh-pages`` branch, which
  ``make publish`` and the GitHub workflow both write.
- **No Thebe.** sphinx-thebe (always loaded by Jupyter Book) puts its configuration
  script into every page twice (``const THEBE_JS_URL`` declared twice: a console
  error) plus a loader that would fetch Thebe from a CDN. With ``launch_buttons.thebe``
  false nothing on the page uses them, so they are dropped from the pages.
- **Author–year bibliography.** The text cites author–year (``bibtex_reference_style:
  author_year``); the pybtex style ``authoryear`` registered here labels the
  bibliography the same way ("Kudo and Richardson (2018)", "Sennrich et al. (2016)")
  and sorts it by author, year and title, instead of numbering it.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

LOG = logging.getLogger(__name__)
LAUNCH_KEYS = ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url")
# The branch that holds the published site (and so the generated notebooks).
PAGES_BRANCH = "gh-pages"


# ---------------------------------------------------------------------------
# Launch buttons: on only with a repository URL
# ---------------------------------------------------------------------------


def github_repo(url: str | None) -> tuple[str, str] | None:
    """(owner, name) of a GitHub repository URL, else None.

    >>> github_repo("https://github.com/someone/tokenization-course.git")
    ('someone', 'tokenization-course')
    >>> github_repo("") is None, github_repo("https://example.org/x/y") is None
    (True, True)
    """
    m = re.fullmatch(r"https?://github\.com/([^/\s]+)/([^/\s]+?)(?:\.git)?/?", (url or "").strip())
    return (m.group(1), m.group(2)) if m else None


def launch_settings(theme_options: dict[str, Any]) -> dict[str, Any]:
    """The launch_buttons the theme gets: every service off without a GitHub repository.

    >>> opts = {"repository_url": "", "launch_buttons": {"binderhub_url": "https://mybinder.org",
    ...         "colab_url": "https://colab.research.google.com", "thebe": False}}
    >>> launch_settings(opts)["binderhub_url"], launch_settings(opts)["colab_url"]
    ('', '')
    >>> opts["repository_url"] = "https://github.com/someone/course"
    >>> launch_settings(opts)["binderhub_url"]
    'https://mybinder.org'
    """
    launch = dict(theme_options.get("launch_buttons") or {})
    if github_repo(theme_options.get("repository_url")) is None:
        for key in LAUNCH_KEYS:
            launch[key] = ""
        launch["thebe"] = False
    return launch


def _config_inited(app: Sphinx, config) -> None:
    opts = config.html_theme_options
    # BOOK_REPOSITORY_URL (set by .github/workflows/book.yml to the repository it runs
    # in) stands in for an empty repository.url, so a published fork gets its buttons.
    if not (opts.get("repository_url") or "").strip() and os.environ.get("BOOK_REPOSITORY_URL"):
        opts["repository_url"] = os.environ["BOOK_REPOSITORY_URL"].strip()
    url = (opts.get("repository_url") or "").strip()
    if url and github_repo(url) is None:
        LOG.warning(f"repository.url {url!r} is not a GitHub repository URL: no launch buttons")
    opts["launch_buttons"] = launch_settings(opts)


def _colab_from_pages_branch(app: Sphinx, pagename: str, templatename: str,
                             context: dict, doctree) -> None:
    """Point the Colab button at the generated notebook on the gh-pages branch."""
    repo = github_repo(app.config.html_theme_options.get("repository_url"))
    if repo is None or not context.get("ipynb_source"):
        return
    for group in context.get("header_buttons") or []:
        if group.get("label") != "launch-buttons":
            continue
        for button in group.get("buttons", []):
            if button.get("text") == "Colab":
                colab = app.config.html_theme_options["launch_buttons"]["colab_url"].rstrip("/")
                button["url"] = (f"{colab}/github/{repo[0]}/{repo[1]}/blob/{PAGES_BRANCH}/"
                                 f"_sources/{context['ipynb_source']}")


# ---------------------------------------------------------------------------
# Notebooks: each chapter as .ipynb
# ---------------------------------------------------------------------------


def _is_notebook_page(app: Sphinx, pagename: str) -> bool:
    return pagename in app.env.found_docs and "kernelspec" in app.env.metadata.get(pagename, {})


def _offer_notebook(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if _is_notebook_page(app, pagename):
        context["ipynb_source"] = pagename + ".ipynb"


def setup_cell(repo_url: str | None) -> dict:
    """The first cell of a downloaded chapter: install what it imports if tokref is missing."""
    repo = github_repo(repo_url)
    if repo:
        source = f"git+https://github.com/{repo[0]}/{repo[1]}.git#subdirectory=solutions"
        install = (f'    %pip install -q "tokref @ {source}" \\\n'
                   '        myst-nb matplotlib regex tiktoken sentencepiece\n')
    else:
        install = ('    # From a clone of the course repository:\n'
                   '    %pip install -q -e ../solutions myst-nb matplotlib regex tiktoken sentencepiece\n')
    return {
        "cell_type": "code", "execution_count": None, "id": "setup-outside-the-course",
        "metadata": {"tags": ["setup"]}, "outputs": [],
        "source": ("# Outside the course's environment (Colab, Binder, a fresh Python):\n"
                   "# install the reference package tokref and what the chapter imports.\n"
                   "import importlib.util\n\n"
                   'if importlib.util.find_spec("tokref") is None:\n' + install),
    }


def chapter_notebook(md_path: Path, repo_url: str | None) -> dict:
    """The chapter's MyST source as a notebook (no outputs), with the setup cell first."""
    import jupytext

    nb = jupytext.read(md_path)
    nb.metadata.pop("jupytext", None)
    data = json.loads(jupytext.writes(nb, fmt="ipynb"))
    data["cells"].insert(0, setup_cell(repo_url))
    return data


def _write_notebooks(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    repo_url = app.config.html_theme_options.get("repository_url")
    out = Path(app.outdir) / "_sources"
    for docname in sorted(app.env.found_docs):
        if not _is_notebook_page(app, docname):
            continue
        target = out / f"{docname}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        data = chapter_notebook(Path(app.env.doc2path(docname)), repo_url)
        target.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                          encoding="utf-8")


# ---------------------------------------------------------------------------
# No Thebe scripts when Thebe is off
# ---------------------------------------------------------------------------


def _is_thebe_script(js: Any) -> bool:
    filename = str(getattr(js, "filename", js) or "")
    body = str(getattr(js, "attributes", {}).get("body", "") if hasattr(js, "attributes") else "")
    return ("THEBE_JS_URL" in body or filename.endswith("sphinx-thebe.js")
            or "unpkg.com/thebe" in filename)


def _drop_thebe(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.config.html_theme_options.get("launch_buttons", {}).get("thebe"):
        return
    if "script_files" in context:
        context["script_files"] = [js for js in context["script_files"] if not _is_thebe_script(js)]


# ---------------------------------------------------------------------------
# Author–year bibliography labels
# ---------------------------------------------------------------------------


def _plain(latex: str) -> str:
    from pybtex.richtext import Text

    return Text.from_latex(latex).render_as("text")


def _last_names(entry) -> list[str]:
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    return [_plain(" ".join(p.prelast_names + p.last_names)) for p in persons]


def author_year_label(entry) -> str:
    """'Kudo (2018)', 'Kudo and Richardson (2018)', 'Sennrich et al. (2016)'."""
    lasts = _last_names(entry)
    if not lasts:
        names = _plain(entry.fields.get("organization", entry.key))
    elif len(lasts) == 1:
        names = lasts[0]
    elif len(lasts) == 2:
        names = f"{lasts[0]} and {lasts[1]}"
    else:
        names = f"{lasts[0]} et al."
    return f"{names} ({entry.fields.get('year', 'n.d.')})"


def _register_author_year_style() -> None:
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.unsrt import Style as UnsrtStyle
    from pybtex.style.labels import BaseLabelStyle
    from pybtex.style.sorting import BaseSortingStyle

    class AuthorYearSortingStyle(BaseSortingStyle):
        """By the names as printed (an organisation sorts under its name), year, title."""

        def sorting_key(self, entry):
            names = [n.casefold() for n in _last_names(entry)] or [entry.key.casefold()]
            return (names, entry.fields.get("year", ""), _plain(entry.fields.get("title", "")).casefold())

    class AuthorYearLabelStyle(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            entries = list(sorted_entries)
            labels = [author_year_label(e) for e in entries]
            # Two works of one author and year: 2024a, 2024b (in the sorted order).
            seen: Counter = Counter()
            dup = {label for label, n in Counter(labels).items() if n > 1}
            for label in labels:
                if label in dup:
                    seen[label] += 1
                    yield label[:-1] + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1] + ")"
                else:
                    yield label

    class AuthorYearStyle(UnsrtStyle):
        default_label_style = AuthorYearLabelStyle
        default_sorting_style = AuthorYearSortingStyle

    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle, force=True)


def _register_round_citations() -> None:
    """In-text citations with round brackets, "Gage (1994)" and "(Sennrich et al., 2016)",
    like the bibliography's labels (sphinxcontrib-bibtex's author_year uses square ones)."""
    from dataclasses import dataclass, field

    import sphinxcontrib.bibtex.plugin
    from sphinxcontrib.bibtex.style.referencing import BracketStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    def round_brackets() -> BracketStyle:
        return BracketStyle(left="(", right=")")

    @dataclass
    class AuthorYearRoundStyle(AuthorYearReferenceStyle):
        bracket_parenthetical: BracketStyle = field(default_factory=round_brackets)
        bracket_textual: BracketStyle = field(default_factory=round_brackets)
        bracket_author: BracketStyle = field(default_factory=round_brackets)
        bracket_label: BracketStyle = field(default_factory=round_brackets)
        bracket_year: BracketStyle = field(default_factory=round_brackets)

    sphinxcontrib.bibtex.plugin.register_plugin(
        "sphinxcontrib.bibtex.style.referencing", "author_year_round", AuthorYearRoundStyle, force=True)


def _add_static(app: Sphinx) -> None:
    """book/_static: the book's own CSS (tokbook.css)."""
    static = str(Path(__file__).resolve().parents[1] / "_static")
    if static not in app.config.html_static_path:
        app.config.html_static_path.append(static)


def setup(app: Sphinx) -> dict:
    _register_author_year_style()
    _register_round_citations()
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _add_static)
    app.add_css_file("tokbook.css")
    # Before the theme's buttons (priority 501) so the download menu offers the notebook...
    app.connect("html-page-context", _offer_notebook, priority=500)
    # ...and after them to fix the Colab link; scripts are final by then too.
    app.connect("html-page-context", _colab_from_pages_branch, priority=600)
    app.connect("html-page-context", _drop_thebe, priority=600)
    app.connect("build-finished", _write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
