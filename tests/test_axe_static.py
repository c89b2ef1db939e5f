"""WCAG 2.1 AA on every page of the built book without JavaScript (issue 29): the static
markup (the explorers' and the practice pages' faces before their scripts run), which is
light (the theme switches only with scripts), at 1280 and 320 CSS px. The checks are
tests/test_axe.py's; this file runs the half of the sweep that loads pages with scripts
off, on its own core."""

from __future__ import annotations

from test_axe import axe_source, browser, pytestmark, sweep  # noqa: F401
from test_browser import html_dir, server  # noqa: F401


def test_every_page_without_javascript_has_no_axe_violation(browser, server, html_dir, axe_source):
    sweep(browser, server, html_dir, axe_source, scripts=False)
