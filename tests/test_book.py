"""The built book: every chapter page exists, executed, shows a figure, and links work.

`make test` runs after `make html`, so `_build/html` is normally there already; if it
is not, the book is built here (the same command as `make html`) instead of skipping,
so that this test can never pass without a book.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from conftest import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"

CHAPTERS = [
    "book/01_why_tokenize",
    "book/02_characters",
    "book/03_words",
    "book/04_bpe",
    "book/05_byte_level_bpe",
    "book/06_wordpiece",
    "book/07_unigram",
    "book/08_in_practice",
    "book/09_languages_code",
    "book/10_performance",
    "book/11_which_is_better",
    "book/12_beyond_the_vocabulary",
]
PAGES = ["book/index", *CHAPTERS, "book/glossary", "book/references"]
# Chapter -> the assignments whose notebook it offers for download and whose practice page
# it links: each assignment's chapter (source/assignments.json), and chapter 1, which
# points to the first two.
ALSO_LINKED = {"book/01_why_tokenize": ["chars", "words"]}
DOWNLOADS: dict[str, list[str]] = {name: list(ids) for name, ids in ALSO_LINKED.items()}
for _a in REGISTRY:
    DOWNLOADS.setdefault(_a.chapter, []).append(_a.id)
# Every key of book/references.bib is cited somewhere, so each must be listed.
BIB = ROOT / "book" / "references.bib"

pytestmark = pytest.mark.slow


def _jupyter_book() -> str:
    # The one beside the Python running the tests first (that environment's packages).
    for candidate in (Path(sys.executable).with_name("jupyter-book"),
                      ROOT / ".venv" / "bin" / "jupyter-book"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which("jupyter-book")
    if found is None:
        pytest.fail("jupyter-book is not installed; run `make setup` first")
    return found


@pytest.fixture(scope="module")
def html_dir() -> Path:
    if not (HTML / "index.html").exists():
        result = subprocess.run(
            [_jupyter_book(), "build", ".", "-W", "--keep-going"],
            cwd=ROOT, capture_output=True, text=True, timeout=1800,
        )
        assert result.returncode == 0, (
            "the book did not build:\n" + result.stdout[-5000:] + result.stderr[-5000:]
        )
    return HTML


class _Links(HTMLParser):
    """Collects img src, a href, and the classes of elements, from one page."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.classes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "img" and a.get("src"):
            self.images.append(a["src"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if a.get("class"):
            self.classes.extend(a["class"].split())


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _local(page: Path, url: str) -> Path:
    return (page.parent / unquote(urlsplit(url).path)).resolve()


def test_index_exists(html_dir: Path) -> None:
    index = html_dir / "index.html"
    assert index.exists()
    # With the root page in book/, index.html is a redirect to it.
    text = index.read_text(encoding="utf-8")
    assert "book/index.html" in text or "Tokenization for Language Models" in text


@pytest.mark.parametrize("name", PAGES)
def test_page_exists(html_dir: Path, name: str) -> None:
    assert (html_dir / f"{name}.html").exists(), f"{name}.html was not built"


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_executed_cleanly(html_dir: Path, name: str) -> None:
    page = html_dir / f"{name}.html"
    text = page.read_text(encoding="utf-8")
    parsed = _parse(page)
    # Executed: code cells have outputs.
    assert "cell_output" in parsed.classes, f"{name}: no code cell output"
    # No errors, tracebacks or warnings printed by a cell.
    assert "Traceback" not in text, f"{name}: a cell printed a traceback"
    # myst-nb marks error outputs "output traceback" and stderr "output stderr".
    assert "traceback" not in parsed.classes, f"{name}: a cell raised"
    assert "stderr" not in parsed.classes, f"{name}: a cell wrote to stderr (a warning?)"


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_has_figure(html_dir: Path, name: str) -> None:
    page = html_dir / f"{name}.html"
    images = [src for src in _parse(page).images if "_images/" in src]
    assert images, f"{name}: no figure"
    for src in images:
        image = _local(page, src)
        assert image.exists() and image.stat().st_size > 1000, f"{name}: broken image {src}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_glued_numbers_rendered(html_dir: Path, name: str) -> None:
    # A glue key that failed to resolve leaves the raw role text in the page.
    text = (html_dir / f"{name}.html").read_text(encoding="utf-8")
    assert "{glue" not in text, f"{name}: an unresolved {{glue}} role"


def test_bibliography_rendered(html_dir: Path) -> None:
    page = html_dir / "book" / "references.html"
    text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
    keys = re.findall(r"@\w+\{([^,\s]+),", BIB.read_text(encoding="utf-8"))
    assert len(keys) >= 11
    for needle in ("Neural Machine Translation of Rare Words with Subword Units",
                   "Japanese and Korean Voice Search", "Subword Regularization",
                   "SentencePiece", "Language Models are Unsupervised Multitask Learners",
                   "Language Models are Few-Shot Learners",
                   "Human Behavior and the Principle of Least Effort",
                   "Information Retrieval: Computational and Theoretical Aspects",
                   "Attention Is All You Need", "Unicode Text Segmentation",
                   "How Good is Your Tokenizer?"):
        assert needle in text, f"the bibliography lacks {needle!r}"
    # Citations in the chapters link to the bibliography entries.
    chapter = (html_dir / "book" / "01_why_tokenize.html").read_text(encoding="utf-8")
    assert "references.html#" in chapter


@pytest.mark.parametrize("name", sorted(DOWNLOADS))
def test_exercise_downloads_resolve(html_dir: Path, name: str) -> None:
    page = html_dir / f"{name}.html"
    links = [u for u in _parse(page).links if "_downloads/" in u]
    for assignment in DOWNLOADS[name]:
        notebook = f"{assignment}.ipynb"
        matching = [u for u in links if u.endswith("/" + notebook)]
        assert matching, f"{name}: no download link to {notebook}"
        for url in matching:
            target = _local(page, url)
            assert target.is_file(), f"{name}: {url} does not resolve"
            assert target.stat().st_size > 0
        practice = [u for u in _parse(page).links if urlsplit(u).path.endswith(f"practice/{assignment}.html")]
        assert practice, f"{name}: no link to the practice page of {assignment}"
        assert all(_local(page, u).is_file() for u in practice), (name, practice)


# ---------------------------------------------------------------------------
# The reader's book (issue 11): figures, bibliography, notebooks, launch buttons, math
# ---------------------------------------------------------------------------


class _Figures(HTMLParser):
    """Each image of the page's article: inside a <figure>? its alt, its figcaption."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict] = []
        self._figure: list[dict] = []  # the open <figure>s
        self._caption = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "figure":
            self._figure.append({"caption": "", "images": []})
        elif tag == "figcaption":
            self._caption += 1
        elif tag == "img" and "_images/" in (a.get("src") or ""):
            image = {"src": a["src"], "alt": (a.get("alt") or "").strip(), "caption": None}
            self.images.append(image)
            if self._figure:
                self._figure[-1]["images"].append(image)

    def handle_endtag(self, tag: str) -> None:
        if tag == "figcaption":
            self._caption -= 1
        elif tag == "figure" and self._figure:
            fig = self._figure.pop()
            for image in fig["images"]:
                image["caption"] = " ".join(fig["caption"].split())

    def handle_data(self, data: str) -> None:
        if self._caption and self._figure:
            self._figure[-1]["caption"] += data


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_figure_is_numbered_captioned_and_described(html_dir: Path, name: str) -> None:
    """Every plot of a chapter is a numbered <figure> ("Fig. N") with a caption of its
    own and alt text for a reader who cannot see it (myst-nb's `mystnb: figure:` and
    `image: alt:` cell metadata; numfig in _config.yml)."""
    parser = _Figures()
    parser.feed((html_dir / f"{name}.html").read_text(encoding="utf-8"))
    assert parser.images, f"{name}: no figure"
    problems = []
    for image in parser.images:
        caption = image["caption"]
        if caption is None:
            problems.append(f"{image['src']}: not in a <figure>")
        elif not re.match(r"Fig\. \d+\s*\S", caption):
            problems.append(f"{image['src']}: caption {caption[:60]!r} is not 'Fig. N' and a text")
        if len(image["alt"]) < 20:
            problems.append(f"{image['src']}: alt text {image['alt']!r} does not describe the plot")
    assert not problems, f"{name}: {len(problems)} figure problems: {problems}"


def _bibliography_labels(html_dir: Path) -> list[str]:
    page = (html_dir / "book" / "references.html").read_text(encoding="utf-8")
    labels = re.findall(r'<span class="label">(.*?)</span>\s*</span>|<span class="label">(.*?)</span>', page)
    return [re.sub(r"<[^>]+>|[\[\]]", "", a or b).strip() for a, b in labels]


def test_bibliography_is_author_year_like_the_citations(html_dir: Path) -> None:
    """The bibliography is labelled "Kudo and Richardson (2018)", "Sennrich et al.
    (2016)" (not [1]), one label per entry, sorted by author: the style of the text's
    citations (the pybtex style `authoryear` of book/_ext/tokbook.py)."""
    labels = _bibliography_labels(html_dir)
    keys = re.findall(r"@\w+\{([^,\s]+),", BIB.read_text(encoding="utf-8"))
    assert len(labels) == len(keys), f"{len(labels)} labels for {len(keys)} entries: {labels}"
    bad = [x for x in labels if not re.fullmatch(r"\D+ \(\d{4}[a-z]?\)", x)]
    assert not bad, f"labels not 'Author (Year)': {bad}"
    assert len(set(labels)) == len(labels), f"two entries share a label: {labels}"
    # By the first author's name; entries of one first author keep the style's own order
    # (it sorts by every author: "Press et al. (2022)", Press, Smith, Lewis, before "Press and Wolf").
    first = [label.split(" ")[0].casefold() for label in labels]
    assert first == sorted(first), f"not sorted by author: {labels}"
    for label in ("Sennrich et al. (2016)", "Kudo and Richardson (2018)", "Zipf (1949)"):
        assert label in labels, f"no {label!r} among {labels}"
    # The text cites the same way (author, year), linking to the entries.
    chapter = (html_dir / "book" / "04_bpe.html").read_text(encoding="utf-8")
    assert re.search(r"Sennrich <em>et al\.</em>|Sennrich et al\.", chapter)


@pytest.mark.parametrize("name", ["book/index", *CHAPTERS])
def test_chapter_downloads_as_a_notebook(html_dir: Path, name: str) -> None:
    """The download menu offers the chapter as .ipynb: made from its MyST source at build
    time (jupytext), unexecuted, with one setup cell first (install tokref if missing)."""
    import json

    page = html_dir / f"{name}.html"
    links = [u for u in _parse(page).links if u.endswith(f"_sources/{name}.ipynb")]
    assert links, f"{name}: the page does not offer _sources/{name}.ipynb"
    target = _local(page, links[0])
    nb = json.loads(target.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["name"] == "python3"
    cells = nb["cells"]
    assert cells[0]["cell_type"] == "code" and 'find_spec("tokref")' in "".join(cells[0]["source"])
    code = [c for c in cells[1:] if c["cell_type"] == "code"]
    source = (ROOT / f"{name}.md").read_text(encoding="utf-8")
    assert len(code) == source.count("```{code-cell}"), f"{name}: code cells lost in the notebook"
    assert all(not c["outputs"] and c["execution_count"] is None for c in code)
    assert len({c["id"] for c in cells}) == len(cells), f"{name}: cell ids repeat"


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_launch_buttons_without_a_repository(html_dir: Path, name: str) -> None:
    """repository.url is empty in _config.yml: no launch button, no Thebe loader, no link
    to any repository (Jupyter Book's default one included)."""
    text = (html_dir / f"{name}.html").read_text(encoding="utf-8")
    assert "launch-buttons" not in text and "mybinder.org" not in text and "colab.research" not in text
    assert "executablebooks/jupyter-book" not in text
    assert "THEBE_JS_URL" not in text and "sphinx-thebe.js" not in text


def test_no_page_loads_anything_from_another_host(html_dir: Path) -> None:
    """No <script src> or stylesheet from the network in any page (MathJax included)."""
    for page in sorted(html_dir.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link)\b[^>]*(?:src|href)="((?:https?:)?//[^"]+)"', text)
        remote = [u for u in remote if not re.search(r'rel="(?:canonical|alternate)"', u)]
        assert not remote, f"{page.relative_to(html_dir)} loads {remote}"


MINI_PAGE = """---
jupytext:
  text_representation: {extension: .md, format_name: myst, format_version: 0.13}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

# A page

```{math}
:label: eq-mini
V = K n^{\\beta}
```

See {eq}`eq-mini` and {math}`\\beta < 1`.

```{code-cell} ipython3
print(1 + 1)
```
"""


def test_setting_the_repository_url_turns_the_launch_buttons_on(tmp_path: Path) -> None:
    """A one-page book with the book's _config.yml and a repository.url: Binder and Colab
    buttons appear (Colab opens the generated notebook on gh-pages), the notebook's setup
    cell installs tokref from that repository, and math loads MathJax from _static."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["repository"]["url"] = "https://github.com/someone/tokcourse"
    config["execute"]["execute_notebooks"] = "off"
    config["only_build_toc_files"] = True
    config.pop("bibtex_bibfiles", None)
    config["sphinx"]["config"].pop("bibtex_reference_style", None)
    config["sphinx"]["config"].pop("bibtex_default_style", None)
    config["sphinx"]["local_extensions"] = {"tokbook": str(ROOT / "book" / "_ext")}
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: page\n", encoding="utf-8")
    (tmp_path / "page.md").write_text(MINI_PAGE, encoding="utf-8")
    result = subprocess.run([_jupyter_book(), "build", ".", "-W", "--keep-going"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    html = tmp_path / "_build" / "html"
    text = (html / "page.html").read_text(encoding="utf-8")
    assert "https://mybinder.org/v2/gh/someone/tokcourse/main?urlpath=tree/page.md" in text
    assert ("https://colab.research.google.com/github/someone/tokcourse/blob/gh-pages/"
            "_sources/page.ipynb") in text
    setup = (html / "_sources" / "page.ipynb").read_text(encoding="utf-8")
    assert "git+https://github.com/someone/tokcourse.git#subdirectory=solutions" in setup
    assert re.search(r'<script[^>]*src="_static/mathjax/tex-chtml\.js', text), "MathJax is not local"
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert (html / "_static" / "mathjax" / "output" / "chtml" / "fonts").is_dir()
    assert 'class="math' in text and "(1)" in text  # the numbered equation


def test_published_in_one_command() -> None:
    """`make publish` pushes _build/html to gh-pages with ghp-import (in requirements.txt),
    and the GitHub workflow builds with `make book` and deploys to Pages on push to main."""
    import yaml

    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^publish: html\n((?:\t.*\n)+)", make, re.M)
    assert recipe and "ghp-import" in recipe.group(1) and "_build/html" in recipe.group(1)
    assert re.search(r"^ghp-import\b", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M)
    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "book.yml").read_text(encoding="utf-8"))
    on = flow.get("on", flow.get(True))  # YAML 1.1 reads the key `on` as True
    assert on["push"]["branches"] == ["main"]
    steps = [s for job in flow["jobs"].values() for s in job["steps"]]
    assert any(s.get("run") == "make book" for s in steps)
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    assert {"pages": "write", "id-token": "write"}.items() <= flow["permissions"].items()
