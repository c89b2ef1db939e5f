"""The two faces of an explorer: the switch between a live widget and static HTML
(:func:`set_mode`), the base class every explorer shares, and the static assets (the
CSS, and the page's one script, ``static/tokx.js``, bundled from book/_web/src/explorer)."""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

_MODES = ("auto", "widget", "static")
_mode = os.environ.get("TOKREF_EXPLORER", "auto")


def set_mode(mode: str) -> None:
    """``"widget"`` (always an ipywidget), ``"static"`` (always HTML + JavaScript) or
    ``"auto"`` (a widget in a live notebook, HTML when the notebook is executed
    headless, as when the book is built)."""
    global _mode
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, not {mode!r}")
    _mode = mode


def live_widgets() -> bool:
    """Whether the explorers show themselves as widgets now (see :func:`set_mode`)."""
    mode = _mode if _mode in _MODES else "auto"
    if mode != "auto":
        return mode == "widget"
    try:
        from IPython import get_ipython

        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    kernel = getattr(get_ipython(), "kernel", None)
    # A person's frontend (JupyterLab, Notebook, VS Code, Colab) executes with
    # allow_stdin=True; nbclient (myst-nb, nbconvert, papermill) with False. ipykernel
    # has no public name for it.
    return bool(kernel is not None and getattr(kernel, "_allow_stdin", False))


class Explorer:
    """The two faces shared by every explorer: a subclass sets ``kind`` and ``data``
    and implements ``widget()`` and ``_prerender()`` (the static face's HTML before
    its JavaScript runs)."""

    kind = ""
    data: dict[str, Any]

    def to_html(self) -> str:
        """The static face: HTML with the data and the JavaScript inlined."""
        return fragment(self.kind, self.data, self._prerender())

    def save_html(self, path: str | os.PathLike[str]) -> None:
        """Write a standalone page (works from disk, needs no server, no network)."""
        title = html.escape(self.data.get("title") or "tokref explorer")
        page = (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>"
            "</head><body style=\"max-width:900px;margin:2em auto;padding:0 1em\">"
            f"{self.to_html()}</body></html>\n"
        )
        Path(path).write_text(page, encoding="utf-8")

    def widget(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _prerender(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": repr(self)}
        if live_widgets():
            w = self.widget()
            # IPython's display protocol (a public hook despite its underscore): the
            # widget's own bundle is its view.
            bundle.update(w._repr_mimebundle_(include=include, exclude=exclude) or {})
            bundle["text/plain"] = repr(self)
        else:
            bundle["text/html"] = self.to_html()
        return bundle


# ---------------------------------------------------------------------------
# Static assets and the HTML fragment
# ---------------------------------------------------------------------------

@lru_cache(maxsize=None)
def asset(name: str) -> str:
    """The text of ``static/<name>`` (e.g. ``"tokx.css"``, ``"tokx.js"``)."""
    path = resources.files(__package__).joinpath("static", *name.split("/"))
    return path.read_text(encoding="utf-8")


def script() -> str:
    """The explorers' JavaScript: ``static/tokx.js``, one script that publishes
    ``window.TokX`` once per page (an earlier explorer's copy stays). It is generated:
    ``book/_web/build.mjs`` bundles it with esbuild from the ES modules of
    ``book/_web/src/explorer`` (``make web``), and it is committed, so the package
    needs no npm."""
    return asset("tokx.js")


_counter = itertools.count()


def json_for_script(data: Any) -> str:
    """``data`` as JSON that can sit inside a ``<script>`` element."""
    # "<" escaped as \u003c: valid JSON, and nothing in it can close the <script>.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def fragment(kind: str, data: dict[str, Any], prerendered: str) -> str:
    """The static face: the CSS, the explorer's root (showing ``prerendered`` until
    the script runs), its data, the script and the call that mounts it."""
    payload = json_for_script(data)
    digest = hashlib.sha1(payload.encode("utf-8")).hexdigest()[:10]
    uid = f"tokx-{kind}-{digest}-{next(_counter)}"
    return (
        f"<style>{asset('tokx.css')}</style>\n"
        f'<div class="tokx tokx-{kind}" id="{uid}" data-tokx="{kind}">{prerendered}</div>\n'
        f'<script type="application/json" id="{uid}-data">{payload}</script>\n'
        f"<script>{script()}</script>\n"
        f'<script>window.TokX && window.TokX.mount("{uid}");</script>\n'
    )


# ---------------------------------------------------------------------------
# The widget face's shared parts
# ---------------------------------------------------------------------------


def widgets() -> Any:
    """The ``ipywidgets`` module, or an ImportError that says how to get it."""
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - ipywidgets is in requirements.txt
        raise ImportError("the widget face needs ipywidgets: pip install ipywidgets") from None
    return ipywidgets


def css_widget(W: Any) -> Any:
    """An invisible widget that brings the explorers' CSS into the notebook."""
    return W.HTML(f"<style>{asset('tokx.css')}</style>", layout=W.Layout(height="0px", margin="0"))
