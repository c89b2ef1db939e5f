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
]
PAGES = ["book/index", *CHAPTERS, "book/glossary", "book/references"]
# Chapter -> the exercise notebooks it offers for download.
DOWNLOADS = {
    "book/01_why_tokenize": ["chars.ipynb", "words.ipynb"],
    "book/02_characters": ["chars.ipynb"],
    "book/03_words": ["words.ipynb"],
    "book/04_bpe": ["bpe.ipynb"],
    "book/05_byte_level_bpe": ["bytelevel.ipynb", "capstone.ipynb"],
    "book/06_wordpiece": ["wordpiece.ipynb"],
    "book/07_unigram": ["unigram.ipynb"],
}
# Every key of book/references.bib is cited somewhere, so each must be listed.
BIB = ROOT / "book" / "references.bib"

pytestmark = pytest.mark.slow


def _jupyter_book() -> str:
    for candidate in (ROOT / ".venv" / "bin" / "jupyter-book",
                      Path(sys.executable).with_name("jupyter-book")):
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
    for notebook in DOWNLOADS[name]:
        matching = [u for u in links if u.endswith("/" + notebook)]
        assert matching, f"{name}: no download link to {notebook}"
        for url in matching:
            target = _local(page, url)
            assert target.is_file(), f"{name}: {url} does not resolve"
            assert target.stat().st_size > 0
