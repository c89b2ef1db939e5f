r"""Interpolated Kneser–Ney n-gram language models over token ids, and bits per byte.

The extrinsic measure of the chapter *Which tokenizer is better?*: encode a training
split with a tokenizer, fit a small language model on the ids, and count how many bits
it needs for the held-out split. numpy and the standard library only.

**Events.** Each training or held-out sequence (a document or a line of ids in
``range(vocab_size)``) is padded on the left with ``order - 1`` start symbols ``BOS`` and
ends with an end-of-sequence event ``EOS``. Two ids are reserved above the tokenizer's:
``eos_id = vocab_size`` and ``bos_id = vocab_size + 1``. Every token of a sequence and its
``EOS`` is one *event*: the token ``w`` with its *context* ``h``, the ``order - 1`` symbols
before it (``BOS`` included). ``BOS`` is only ever context, never predicted, so the model
is a distribution over the ``vocab_size + 1`` outcomes ``0 .. vocab_size - 1`` and ``EOS``.

**Counts** (what counts as a context: the last ``k - 1`` symbols before an event, never
crossing into another sequence). With ``n = order``, the order-``k`` table ``c_k`` is

- ``k = n``: the raw count ``c_n(h w)`` of the n-gram ``h w`` among the events;
- ``k < n``: the *continuation count* ``c_k(h w) = N1+(• h w)``, the number of distinct
  symbols ``v`` (``BOS`` included) such that ``v h w`` is the last ``k + 1`` symbols of
  some event (Kneser & Ney 1995: how many contexts a word completes, not how often).

For a context ``h`` of ``k - 1`` symbols, ``S_k(h) = Σ_w c_k(h w)`` and
``T_k(h) = |{w : c_k(h w) > 0}|``, the per-context normalisers, computed once in ``fit``.

**Probabilities** (interpolated Kneser–Ney, Chen & Goodman 1999 §3; Jurafsky & Martin,
3rd ed., ch. 3), with ``h'`` the context ``h`` without its first symbol::

    P_0(w)      = 1 / (vocab_size + 1)                                    (uniform)
    P_k(w | h)  = max(c_k(h w) - D_k, 0) / S_k(h)
                  + D_k · T_k(h) / S_k(h) · P_{k-1}(w | h')               if S_k(h) > 0
    P_k(w | h)  = P_{k-1}(w | h')                   if h was never seen (full back-off)

and the model's probability is ``P_n``. Each line sums to one over the ``vocab_size + 1``
outcomes, and because the chain ends in the uniform ``P_0``, an id never seen in
training still gets a probability above zero. For ``order = 1``, ``P_1`` is the
maximum-likelihood unigram, absolutely discounted, interpolated with the uniform
distribution: ``P_1(w) = (max(c(w) - D, 0) + D · T / (vocab_size + 1)) / N``.

**Discounts.** ``D_k = n1 / (n1 + 2 n2)`` (Ney, Essen & Kneser 1994), where ``n1`` and
``n2`` are the numbers of order-``k`` entries of ``c_k`` equal to 1 and 2 (continuation
counts for the lower orders, as KenLM does); ``estimate_discount`` computes it. When
``n1`` or ``n2`` is zero (tiny corpora, or a corpus repeated) the formula gives 0 or 1,
so ``D_k = FALLBACK_DISCOUNT = 0.5`` instead. This model has one discount per order;
KenLM's ``lmplz`` (modified Kneser–Ney) has three, for counts 1, 2 and 3+, and stops with
an error when it cannot estimate them unless run with ``--discount_fallback``, whose
default, ``KENLM_FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)``, is used only then; 0.5 is its
discount for the n-grams seen once. ``discount=`` fixes one ``D`` in ``(0, 1)`` for every
order instead.

**Bits per byte.** A model's total ``-log2`` probability of a held-out text is the
length, in bits, of the shortest code an arithmetic coder driven by the model could
write for it. Per-token perplexity cannot be compared across tokenizers: a tokenizer
with longer tokens makes fewer, harder predictions, so its perplexity per token is
higher even when it describes the same text in fewer bits. Dividing the total bits by
the UTF-8 bytes of the held-out text puts every tokenizer on the same denominator,
the same held-out bytes, so bits per byte compares them directly (and compares the
model with ``gzip``, which also writes bits for bytes).

>>> lm = KneserNeyLM(2, vocab_size=3, discount=0.5).fit([[0, 1], [0, 2, 1]])
>>> lm.prob([0], 1)                     # c_2(0 1) = 1 of S_2(0) = 2, T_2(0) = 2
0.45
>>> round(sum(lm.prob([0], t) for t in range(lm.vocab_size + 1)), 12)  # ids and EOS
1.0
>>> lm.prob([0], 2) > lm.prob([0], 0) > 0   # 0 never followed 0, yet it is possible
True
>>> round(lm.bits([[0, 1]]), 4)         # -log2 of P(0|BOS) P(1|0) P(EOS|1) = 0.8·0.45·0.8
1.7959
>>> bits_per_byte(16.0, 8)
2.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from numbers import Real

import numpy as np

from .checks import check_ids, check_int, check_texts, is_integer
from .protocols import SupportsEncode

__all__ = [
    "KneserNeyLM",
    "estimate_discount",
    "bits_per_byte",
    "evaluate_bits_per_byte",
    "padded_ids",
]

#: The discount used when n1 or n2 is zero: one discount, since this model has one per
#: order; it is the first of KenLM's three (``KENLM_FALLBACK_DISCOUNTS``).
FALLBACK_DISCOUNT = 0.5

#: KenLM ``lmplz --discount_fallback``'s default discounts for adjusted counts 1, 2 and 3+
#: (kpu/kenlm, lm/builder/lmplz_main.cc), substituted for an order only when the flag is
#: given and the closed-form estimate fails (lm/builder/adjust_counts.cc); without the
#: flag lmplz stops with an error.
KENLM_FALLBACK_DISCOUNTS = (0.5, 1.0, 1.5)


class KneserNeyLM:
    """An interpolated Kneser–Ney n-gram model over ids ``0 .. vocab_size - 1``.

    ``order`` is ``n`` (3: each token given the two before it); ``vocab_size`` is the
    tokenizer's; ``discount`` fixes ``D`` for every order (``None``: estimated per order
    as ``n1 / (n1 + 2 n2)``). The module docstring gives every formula.

    >>> lm = KneserNeyLM(3, vocab_size=4).fit([[0, 1, 2], [0, 1, 3]])
    >>> lm.eos_id, lm.bos_id, [round(d, 3) for d in lm.discounts]  # n1 = 4, n2 = 1 for D_1
    (4, 5, [0.667, 0.5, 0.5])
    >>> lm.prob([0], 1) > lm.prob([0], 3)
    True
    """

    def __init__(self, order: int = 3, *, vocab_size: int, discount: float | None = None) -> None:
        self._order = check_int(order, name="order", minimum=1)
        self._vocab_size = check_int(vocab_size, name="vocab_size", minimum=1)
        if discount is not None:
            if isinstance(discount, bool) or not isinstance(discount, Real):
                raise TypeError(
                    f"discount must be a number between 0 and 1 or None (estimate it), "
                    f"not {type(discount).__name__} ({discount!r})"
                )
            if not 0.0 < float(discount) < 1.0:
                raise ValueError(
                    f"discount must be strictly between 0 and 1, not {discount!r}; "
                    "pass for example discount=0.75, or None to estimate it from the counts"
                )
            discount = float(discount)
        self._fixed_discount = discount
        self._fitted = False

    # -- properties -------------------------------------------------------------------

    @property
    def order(self) -> int:
        """``n``: how many symbols an n-gram has (the context is ``n - 1`` of them)."""
        return self._order

    @property
    def vocab_size(self) -> int:
        """The number of token ids the model was built for (``EOS`` and ``BOS`` not counted)."""
        return self._vocab_size

    @property
    def eos_id(self) -> int:
        """The end-of-sequence outcome, ``vocab_size``: ``prob(context, lm.eos_id)``."""
        return self._vocab_size

    @property
    def bos_id(self) -> int:
        """The start symbol that pads contexts, ``vocab_size + 1`` (never predicted)."""
        return self._vocab_size + 1

    @property
    def discounts(self) -> tuple[float, ...]:
        """``(D_1, ..., D_n)``, the absolute discount of each order, lowest first."""
        self._require_fitted()
        return tuple(self._discount[1:])

    # -- training ---------------------------------------------------------------------

    def fit(self, sequences: Iterable[Sequence[int]]) -> KneserNeyLM:
        """Count the events of ``sequences`` (an iterable of id sequences, one per
        document or line) and build the model; returns ``self``. Fitting again starts over.
        """
        x, pos = self._events(sequences, name="sequences")
        if not np.any(x[pos] != self.eos_id):  # every sequence empty: only EOS events
            raise ValueError(
                "cannot fit on sequences that hold no token ids; pass at least one "
                "non-empty sequence, for example [tokenizer.encode(text) for text in texts]"
            )
        n, base = self._order, self._vocab_size + 2
        w = x[pos]
        # Context ranks: ranks[j][e] is the index of event e's last-j-symbols context in the
        # sorted array contexts[j]; a j-symbol context's key is (rank of its last j - 1
        # symbols) * base + its first symbol, so the keys stay below (#events * base).
        ranks = [np.zeros(len(pos), dtype=np.int64)]
        self._contexts: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        for j in range(1, n):
            keys = ranks[-1] * base + x[pos - j]
            uniq, inverse = np.unique(keys, return_inverse=True)
            self._contexts.append(uniq)
            ranks.append(inverse.reshape(-1).astype(np.int64))
        items: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * (n + 1)
        counts: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * (n + 1)
        items[n], counts[n] = _unique_counts(ranks[n - 1] * base + w)
        for k in range(n - 1, 0, -1):
            longer = _unique_counts(ranks[k] * base + w)[0]  # the distinct (k+1)-suffixes
            parent = self._contexts[k][longer // base] // base  # drop the leftmost symbol
            items[k], counts[k] = _unique_counts(parent * base + longer % base)
        self._items, self._counts = items, counts
        self._totals = [np.zeros(0)] * (n + 1)
        self._types = [np.zeros(0)] * (n + 1)
        self._discount = [0.0] * (n + 1)
        for k in range(1, n + 1):
            ctx = items[k] // base
            size = len(self._contexts[k - 1])
            self._totals[k] = np.bincount(ctx, weights=counts[k], minlength=size)
            self._types[k] = np.bincount(ctx, minlength=size).astype(np.float64)
            self._discount[k] = self._estimate_discount(counts[k])
        self._fitted = True
        return self

    def _estimate_discount(self, counts: np.ndarray) -> float:
        if self._fixed_discount is not None:
            return self._fixed_discount
        n1 = int(np.count_nonzero(counts == 1))
        n2 = int(np.count_nonzero(counts == 2))
        return _discount(n1, n2)

    # -- scoring ----------------------------------------------------------------------

    def prob(self, context: Sequence[int], token: int) -> float:
        """``P(token | context)``: ``context`` holds the ids before ``token`` in its
        sequence (only the last ``order - 1`` matter; fewer means the sequence started
        there, so ``BOS`` fills in); ``token`` is an id or ``eos_id``.
        """
        self._require_fitted()
        if isinstance(context, (str, bytes, bytearray)):
            raise TypeError(
                f"context must be a sequence of token ids, not {type(context).__name__}; "
                "encode text first with tokenizer.encode(text)"
            )
        ctx = check_ids(context, self._vocab_size, name="context")
        if not is_integer(token):
            raise TypeError(f"token must be int, not {type(token).__name__} ({token!r})")
        if not 0 <= int(token) <= self.eos_id:
            raise ValueError(
                f"token = {token} is neither a token id (0..{self._vocab_size - 1}) nor "
                f"the end of sequence (eos_id = {self.eos_id})"
            )
        keep = ctx[max(0, len(ctx) - (self._order - 1)):] if self._order > 1 else []
        row = [self.bos_id] * (self._order - 1 - len(keep)) + keep + [int(token)]
        x = np.array(row, dtype=np.int64)
        return float(self._probs(x, np.array([len(row) - 1]))[0])

    def log2_prob(self, sequence: Sequence[int]) -> float:
        """The total ``log2`` probability of ``sequence``: every token given the ones
        before it, plus the end-of-sequence event (``0.0`` would be certainty)."""
        self._require_fitted()
        x, pos = self._events([sequence], name="sequence")
        return float(np.log2(self._probs(x, pos)).sum())

    def bits(self, sequences: Iterable[Sequence[int]]) -> float:
        """The total ``-log2`` probability of ``sequences`` (each with its ``EOS``): the
        bits an arithmetic coder driven by this model would write for them."""
        self._require_fitted()
        x, pos = self._events(sequences, name="sequences")
        return float(-np.log2(self._probs(x, pos)).sum())

    def next_distributions(self, sequence: Sequence[int]) -> np.ndarray:
        """Row ``i``: the model's distribution over the ``vocab_size + 1`` outcomes (the ids,
        then ``EOS``) after ``sequence[:i]``, for ``i`` in ``0 .. len(sequence)``; each row
        sums to one. What the entropy of the next symbol is computed from
        (:func:`tokref.patches.next_byte_entropies`).

        >>> lm = KneserNeyLM(2, vocab_size=3, discount=0.5).fit([[0, 1], [0, 2, 1]])
        >>> d = lm.next_distributions([0])
        >>> d.shape, float(d[1, 1]) == lm.prob([0], 1), bool(np.allclose(d.sum(axis=1), 1))
        ((2, 4), True, True)
        """
        self._require_fitted()
        x = padded_ids([sequence], self._vocab_size, self._order - 1, name="sequence")
        n_out, width = self._vocab_size + 1, self._order
        n_rows = len(x) - (self._order - 1)  # one per position: before each id and EOS
        # Each (position, candidate) becomes its own row: the order - 1 symbols of context,
        # then the candidate; _probs reads the candidate at the row's last place.
        ctx = np.lib.stride_tricks.sliding_window_view(x, width)[:n_rows, :-1]
        rows = np.empty((n_rows, n_out, width), dtype=np.int64)
        rows[:, :, :-1] = ctx[:, None, :]
        rows[:, :, -1] = np.arange(n_out)
        flat = rows.reshape(-1)
        pos = np.arange(width - 1, len(flat), width)
        return self._probs(flat, pos).reshape(n_rows, n_out)

    def _probs(self, x: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """``P_n(x[p] | the order - 1 symbols before it)`` for every ``p`` in ``pos``,
        order by order from the uniform ``P_0`` up (the formulas of the module docstring)."""
        base = self._vocab_size + 2
        w = x[pos]
        p = np.full(len(pos), 1.0 / (self._vocab_size + 1))
        rank = np.zeros(len(pos), dtype=np.int64)
        seen = np.ones(len(pos), dtype=bool)
        for k in range(1, self._order + 1):
            if k > 1:  # the context grows by one symbol on the left
                rank, found = _lookup(self._contexts[k - 1], rank * base + x[pos - (k - 1)])
                seen &= found
                rank = np.where(seen, rank, 0)
            j, hit = _lookup(self._items[k], rank * base + w)
            c = np.where(hit, self._counts[k][j], 0)
            d = self._discount[k]
            total, types = self._totals[k][rank], self._types[k][rank]
            pk = (np.maximum(c - d, 0.0) + d * types * p) / total
            p = np.where(seen, pk, p)
        return p

    # -- input ------------------------------------------------------------------------

    def _events(
        self, sequences: Iterable[Sequence[int]], *, name: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """The padded sequences end to end, ``BOS … BOS ids EOS`` each, and the positions
        of their events (every id and every ``EOS``)."""
        x = padded_ids(sequences, self._vocab_size, self._order - 1, name=name)
        return x, np.flatnonzero(x != self.bos_id)

    def _require_fitted(self) -> None:
        if not self._fitted:
            raise ValueError("this KneserNeyLM has not been fitted; call .fit(sequences) first")

    def __repr__(self) -> str:
        state = "fitted" if self._fitted else "not fitted"
        return f"KneserNeyLM(order={self._order}, vocab_size={self._vocab_size}, {state})"


def estimate_discount(counts: Iterable[int]) -> float:
    """The absolute discount of one order from the entries of its count table:
    ``n1 / (n1 + 2 n2)`` with ``n1`` and ``n2`` the numbers of entries equal to 1 and 2
    (Ney, Essen & Kneser 1994), or ``FALLBACK_DISCOUNT`` (0.5) when either is zero, where
    the formula would give 0 or 1. ``KneserNeyLM`` uses it for every order.

    >>> estimate_discount([1, 1, 1, 2, 5])      # n1 = 3, n2 = 1: 3 / (3 + 2)
    0.6
    >>> estimate_discount([2, 4, 4])            # no count of 1: the fallback
    0.5
    """
    if isinstance(counts, (str, bytes, bytearray)) or not isinstance(counts, Iterable):
        raise TypeError(
            "counts must be an iterable of positive ints (the entries of one order's "
            f"count table), not {type(counts).__name__}"
        )
    n1 = n2 = 0
    for i, c in enumerate(counts):
        if not is_integer(c) or c < 1:
            raise ValueError(
                f"counts[{i}] = {c!r}: counts must be positive ints (how often each n-gram "
                "was seen, or how many contexts it completes); leave out the n-grams never seen"
            )
        n1 += c == 1
        n2 += c == 2
    return _discount(n1, n2)


def _discount(n1: int, n2: int) -> float:
    if n1 == 0 or n2 == 0:
        return FALLBACK_DISCOUNT
    return n1 / (n1 + 2 * n2)


def _unique_counts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct ``keys`` and how often each occurs (``np.unique`` by sorting,
    which is faster here than the hash table newer numpy uses without ``return_inverse``)."""
    s = np.sort(keys)
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    return s[starts], np.diff(np.append(starts, len(s)))


def _lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each key in ``sorted_keys`` (0 where absent) and whether it is there."""
    idx = np.searchsorted(sorted_keys, keys)
    idx = np.minimum(idx, max(len(sorted_keys) - 1, 0))
    found = sorted_keys[idx] == keys if len(sorted_keys) else np.zeros(len(keys), dtype=bool)
    return np.where(found, idx, 0), found


def padded_ids(sequences: Iterable[Sequence[int]], vocab_size: int, n_pad: int, *,
               name: str = "sequences") -> np.ndarray:
    """Every sequence of ids in ``range(vocab_size)`` as ``BOS * n_pad, ids, EOS``, end to
    end, with ``EOS = vocab_size`` and ``BOS = vocab_size + 1``.

    Lists of ``int`` take a fast path (one pass over the types, one over the range, both
    in C); anything else, and every error message, goes through ``checks.check_ids``.

    >>> padded_ids([[0, 1], []], 2, 1).tolist()
    [3, 0, 1, 2, 3, 2]
    """
    if isinstance(sequences, (str, bytes, bytearray)) or not isinstance(sequences, Iterable):
        raise TypeError(
            f"{name} must be an iterable of id sequences, such as [[5, 2], [7]], "
            f"not {type(sequences).__name__}"
        )
    eos, pad = vocab_size, [vocab_size + 1] * n_pad
    flat: list[object] = []
    lengths: list[int] = []
    for i, seq in enumerate(sequences):
        if type(seq) is not list:  # lists (what encode returns) skip the slower checks
            if isinstance(seq, (str, bytes, bytearray)) or not isinstance(seq, Iterable):
                raise TypeError(
                    f"{_label(name, i)} must be a sequence of token ids, not "
                    f"{type(seq).__name__}; encode text first with tokenizer.encode(text)"
                )
            if isinstance(seq, np.ndarray) and seq.ndim == 1 and seq.dtype.kind in "iu":
                seq = seq.tolist()
        flat += pad
        before = len(flat)
        flat += seq
        lengths.append(len(flat) - before)
        flat.append(eos)
    if not lengths:
        raise ValueError(
            f"{name} is empty; pass at least one sequence of token ids, for example "
            "[tokenizer.encode(text) for text in texts]"
        )
    n = len(lengths)
    runs = np.column_stack([np.full(n, n_pad), lengths, np.ones(n, dtype=np.int64)]).ravel()
    is_id = np.repeat(np.tile([False, True, False], n), runs)  # BOS… ids EOS, per sequence
    x = np.array(flat, dtype=np.int64) if set(map(type, flat)) <= {int} else None
    if x is not None and not np.any(is_id & ((x < 0) | (x >= vocab_size))):
        return x
    # Slow path: find the first bad sequence and let check_ids say what is wrong with it.
    ends = np.cumsum(np.array(lengths) + n_pad + 1)
    out: list[int] = []
    for i, end in enumerate(ends.tolist()):
        start = end - 1 - lengths[i]
        out += pad
        out += check_ids(flat[start:end - 1], vocab_size, name=_label(name, i))
        out.append(eos)
    return np.array(out, dtype=np.int64)


def _label(name: str, i: int) -> str:
    return f"{name}[{i}]" if name == "sequences" else name


# ---------------------------------------------------------------------------------------
# Bits per byte
# ---------------------------------------------------------------------------------------


def bits_per_byte(total_bits: float, n_bytes: int) -> float:
    """``total_bits / n_bytes``: a model's bits for a held-out text per UTF-8 byte of it.

    >>> bits_per_byte(12_000.0, 5_000)
    2.4
    """
    if isinstance(total_bits, bool) or not isinstance(total_bits, Real):
        raise TypeError(f"total_bits must be a number, not {type(total_bits).__name__}")
    if not math.isfinite(total_bits) or total_bits < 0:
        raise ValueError(f"total_bits must be a finite number >= 0, not {total_bits}")
    n = check_int(n_bytes, name="n_bytes", minimum=1)
    return float(total_bits) / n


def evaluate_bits_per_byte(
    tokenizer: SupportsEncode,
    train_texts: str | Iterable[str],
    heldout_texts: str | Iterable[str],
    *,
    order: int = 3,
    discount: float | None = None,
) -> float:
    """Fit a ``KneserNeyLM`` on ``tokenizer``'s ids of ``train_texts`` and return its
    bits per byte on ``heldout_texts``.

    Each text (a str, or each str of an iterable: a line or a document) is one sequence,
    encoded with ``tokenizer.encode``. The bytes are the UTF-8 bytes of the held-out
    texts plus one per text: the model also predicts where each text ends (its ``EOS``),
    which stands for the line break between texts. Ids are what the model sees: a
    tokenizer that lowercases or maps text to ``<unk>`` throws information away, and its
    bits per byte look better than the text deserves (report the unknown rate beside it).

    >>> from tokref import CharTokenizer
    >>> tok = CharTokenizer().train("abab ba")
    >>> round(evaluate_bits_per_byte(tok, ["abab", "baba"] * 20, ["abab"], order=2), 3)
    0.859
    """
    encode = getattr(tokenizer, "encode", None)
    if isinstance(tokenizer, (str, bytes, bytearray)) or not callable(encode):
        raise TypeError(
            "tokenizer must have an encode(text) method returning a list of ids; "
            f"got {type(tokenizer).__name__}; the arguments are "
            "evaluate_bits_per_byte(tokenizer, train_texts, heldout_texts)"
        )
    train = check_texts(train_texts, name="train_texts")
    try:
        heldout = check_texts(heldout_texts, name="heldout_texts")
    except ValueError:
        raise ValueError(
            "nothing to score: heldout_texts holds no characters; pass at least one "
            "non-empty string"
        ) from None
    vocab_size = getattr(tokenizer, "vocab_size", None)
    if not is_integer(vocab_size):
        raise TypeError(
            "tokenizer.vocab_size must be an int, the number of token ids; "
            f"got {type(vocab_size).__name__}"
        )
    lm = KneserNeyLM(order, vocab_size=vocab_size, discount=discount)
    lm.fit(tokenizer.encode(t) for t in train)
    total = lm.bits(tokenizer.encode(t) for t in heldout)
    n_bytes = sum(len(t.encode("utf-8")) for t in heldout) + len(heldout)
    return bits_per_byte(total, n_bytes)
