"""Interactive explorers: one object, two faces (a live widget and a static page).

Three explorers, each an object that Jupyter displays:

- :class:`MergeExplorer`: a slider over the merge steps of a BPE training run. At
  step *k* it shows the pair merged and its count, a sample text segmented as it is
  after *k* merges (the pieces made by merge *k* outlined), the pair counts when merge
  *k* was chosen, and tokens per character against the step.
- :class:`CompareExplorer`: one text box, several tokenizers side by side, with token
  and character counts, whitespace made visible (``␣ ⏎ ⇥``) and the bytes of a
  character that byte-level BPE splits shown as hex under the character.
- :class:`TradeoffExplorer`: a slider over the vocabulary size of real trained
  tokenizers: held-out sequence length, embedding parameters at a chosen width, and
  attention cost relative to characters.

**Two faces.** In a live notebook (JupyterLab, Notebook 7, VS Code) an explorer is an
``ipywidgets`` widget whose callbacks run Python. In a notebook executed without a
person at it (``jupyter-book``/``myst-nb``, ``nbconvert``, ``papermill``: they run
cells with ``allow_stdin=False``) it renders as self-contained HTML and vanilla
JavaScript with its data inlined: no kernel, no network, no library. The HTML face
does not create a single widget, so no widget state is saved into the notebook and no
widget manager is pulled into the book from a CDN. ``set_mode("static")`` or
``set_mode("widget")`` (or the environment variable ``TOKREF_EXPLORER``) overrides the
choice; ``.widget()`` and ``.to_html()`` give either face explicitly, and
``.save_html(path)`` writes a page that works from any static host or from disk.

**The protocol.** The explorers take any object with the methods below, so they work
with a student's own tokenizer as well as with tokref's:

.. code-block:: python

    class SupportsTokenize(Protocol):          # CompareExplorer
        def encode(self, text: str) -> list[int]: ...
        def decode(self, ids: list[int]) -> str: ...
        def id_to_token(self, id: int) -> str: ...

    class SupportsMergeTrace(SupportsTokenize, Protocol):   # MergeExplorer, TradeoffExplorer
        trace: Sequence[MergeStepLike]      # merge k: .pair (two ids), .count, .new_id

Optional extras, used when present: ``encode_with_offsets(text)`` (tokens with
``.id``, ``.start``, ``.end``: character spans), ``decode_single_token_bytes(id)``
(byte spans, for byte-level tokenizers), ``unk_id`` and ``vocab_size``.

What each explorer does with an object depends on what it knows about it:

- tokref's ``CharTokenizer``, ``WordTokenizer``, ``BPETokenizer``,
  ``ByteLevelBPETokenizer``, ``WordPieceTokenizer`` and ``UnigramTokenizer`` have a
  JavaScript twin of their encoder (char: the vocabulary; word: the regex and the
  vocabulary; BPE: the merges; byte-level BPE: the merges and the pre-tokenization
  regex; WordPiece: the vocabulary and Hugging Face's Unicode tables; Unigram: the
  pieces and their scores), so the static comparison re-tokenizes whatever is typed.
  Any other object is encoded in Python for a fixed list of sample texts, and the
  static page says so when other text is typed.
- WordPiece is shown without ``[CLS]``/``[SEP]`` (its ``encode_with_offsets``), so
  that tokens per character compare with the other tokenizers. Its twin gets every
  Unicode table from Python (what cleaning removes, whitespace, CJK, punctuation; with
  ``lowercase`` tokref's per-character lowercasing of every character it changes; with
  ``strip_accents`` the NFD of every decomposing character, the combining classes and
  the non-spacing marks), never from the browser. Unigram's twin runs Viterbi with
  tokref's tie rule, adding the float64 scores in the same order. For NFKC it cuts the
  text into segments that normalize independently (tables from Python) and normalizes
  each with the browser's ``normalize("NFKC")``, which by Unicode's normalization
  stability gives Python's answer on characters assigned in Python's Unicode version;
  unassigned ones are left alone, as Python does, and a browser whose Unicode is older
  than Python's is detected and the card says it cannot run. The spans drawn for
  Unigram are those NFKC segments (tokref's ``encode_with_offsets`` uses grapheme
  clusters, which a browser does not segment as the ``regex`` module does); the ids are
  tokref's.
- For tokref's two BPE tokenizers the merge explorer computes the segmentation after
  *k* merges the way tokref encodes with the first *k* merges (rank order for
  character BPE, tiktoken's rule for byte-level BPE). For any other traced object it
  encodes the sample once and undoes merges from the trace (merge *r* makes
  ``new_id`` from ``pair``): after *k* merges a token made by merge *r* ≥ *k* is
  shown as its two parts. That is exact for BPE that applies merges in rank order.
- The pair counts at each step are counted over ``corpus`` (the training corpus gives
  the exact counts training saw: the merged pair is then always the top row) by
  replaying the merges with incremental counts; without a corpus, over the sample.

**JavaScript regexes.** Pre-tokenization patterns are translated from Python syntax
to JavaScript by :func:`js_regex`: character classes (``\\p{L}``, ``\\s``, ``\\w``...) are
expanded into explicit code-point ranges computed by the Python engine itself (``re``
or ``regex``), so the browser's Unicode version cannot make them differ; possessive
quantifiers become atomic groups (``X++`` is ``(?=(X+))\\1``); ``(?i:...)`` becomes
classes of the case variants the engine accepts (``s`` also matches ``ſ``); Python's
``$`` becomes ``(?=\\n?$)``.

**The package.** :mod:`~tokref.explorer.protocols` (the protocols and what the
explorers read from any tokenizer), :mod:`~tokref.explorer.faces` (the two faces, the
static assets), :mod:`~tokref.explorer.jsregex` (:func:`js_regex`),
:mod:`~tokref.explorer.replay` (segmentation after *k* merges, merge replay and
totals), :mod:`~tokref.explorer.render` (the HTML and SVG the Python side draws),
:mod:`~tokref.explorer.twins` (the JavaScript twins' data and the views they compute),
and one module per explorer (:mod:`~tokref.explorer.merge`,
:mod:`~tokref.explorer.compare`, :mod:`~tokref.explorer.tradeoff`). The JavaScript is
``static/tokx.js``, generated and committed: esbuild bundles it (``make web``,
``book/_web/build.mjs``) from the ES modules of ``book/_web/src/explorer``, one per
engine or view.
"""

from __future__ import annotations

from .compare import DEFAULT_SAMPLES, CompareExplorer
from .faces import set_mode
from .jsregex import js_regex
from .merge import MergeExplorer
from .protocols import MergeStepLike, SupportsMergeTrace, SupportsTokenize
from .tradeoff import TradeoffExplorer

__all__ = [
    "SupportsTokenize",
    "SupportsMergeTrace",
    "MergeStepLike",
    "MergeExplorer",
    "CompareExplorer",
    "TradeoffExplorer",
    "js_regex",
    "set_mode",
    "DEFAULT_SAMPLES",
]
