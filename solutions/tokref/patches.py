r"""Byte patches: the Byte Latent Transformer's entropy patching (Pagnoni et al. 2024) and
MegaByte's fixed patches (Yu et al. 2023).

A patch model reads bytes but runs its big transformer once per *patch*, a run of
bytes. BLT cuts where a small byte-level model is unsure of the next byte. With
``H[i]`` the entropy of the model's distribution of byte ``i`` given the bytes before
it (:func:`next_byte_entropies`, here from an n-gram model over bytes), byte 0 starts
a patch and, by the rule (the paper's section 2.3, the code's
``bytelatent/data/patcher.py``, ``find_entropy_patch_start_ids`` with
``include_next_token=False``, transcribed in the tests):

- ``"global"``: byte ``i >= 1`` starts a patch when ``H[i] > threshold``;
- ``"monotonic"`` (the paper's approximate monotonic constraint, the code's
  ``monotonicity=True``): byte ``i >= 2`` starts one when ``H[i] - H[i-1] > threshold``;
  byte 1 always does (the code has no difference to test there and sets it);
- ``"global_monotonic"`` (the code's ``threshold_add``): byte ``i >= 3`` starts one when
  ``H[i] > threshold`` and ``H[i] - H[i-1] > threshold_add``; byte 1 always does and
  byte 2 never does (the code tests "no start just before" against the first start only).

The code's sequences begin with a BOS token, which is a patch of its own and is left
out here: ``H[i]`` is the code's entropy of the prediction made at token ``i`` (BOS is
token 0, byte ``i`` is token ``i + 1``). The code measures entropy in nats; this module
in bits (a threshold in nats is ``threshold * log2(e)`` bits).

>>> patch_starts([2.0, 0.1, 0.2, 3.0, 0.5], threshold=1.0)
[0, 3]
>>> patch_starts([2.0, 0.1, 0.2, 3.0, 0.5], threshold=1.0, rule="monotonic")
[0, 1, 3]
>>> patch_lengths([0, 3], 5)
[3, 2]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Literal

import numpy as np

from .checks import check_int
from .ngram import KneserNeyLM

__all__ = ["patch_starts", "patch_lengths", "fixed_patch_starts", "next_byte_entropies", "split_patches"]

Rule = Literal["global", "monotonic", "global_monotonic"]


def _check_entropies(entropies: Sequence[float]) -> list[float]:
    if isinstance(entropies, (str, bytes, bytearray)):
        raise TypeError(f"entropies must be a sequence of numbers, one per byte, not {type(entropies).__name__}")
    out = []
    for i, h in enumerate(entropies):
        if isinstance(h, bool) or not isinstance(h, Real) or not math.isfinite(h):
            raise ValueError(f"entropies[{i}] = {h!r} is not a finite number; pass one entropy per byte")
        out.append(float(h))
    return out


def _check_threshold(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise TypeError(f"{name} must be a finite number (bits), not {value!r}")
    return float(value)


def patch_starts(
    entropies: Sequence[float],
    *,
    threshold: float,
    rule: Rule = "global",
    threshold_add: float | None = None,
) -> list[int]:
    """The bytes that start a patch under BLT's ``rule`` (module docstring), in order.

    ``entropies[i]`` is the entropy of byte ``i`` given the bytes before it; the result
    always starts with 0 (when there is a byte). ``threshold_add`` is needed by, and
    only by, ``rule="global_monotonic"``.

    >>> patch_starts([1.0, 0.2, 2.5, 0.3, 0.4, 3.1], threshold=2.0)
    [0, 2, 5]
    >>> patch_starts([1.0, 0.2, 2.5, 0.3, 2.4, 3.1], threshold=2.0, rule="global_monotonic", threshold_add=0.5)
    [0, 1, 4, 5]
    """
    h = _check_entropies(entropies)
    threshold = _check_threshold(threshold, "threshold")
    if rule not in ("global", "monotonic", "global_monotonic"):
        raise ValueError(f"rule must be 'global', 'monotonic' or 'global_monotonic', not {rule!r}")
    if (rule == "global_monotonic") != (threshold_add is not None):
        raise ValueError("threshold_add goes with rule='global_monotonic', and that rule needs it")
    n = len(h)
    if n == 0:
        return []
    starts = [0]
    for i in range(1, n):
        if rule == "global":
            cut = h[i] > threshold
        elif i == 1:
            cut = True  # the code sets its first mask entry: no difference to test
        elif rule == "monotonic":
            cut = h[i] - h[i - 1] > threshold
        else:
            add = _check_threshold(threshold_add, "threshold_add")
            cut = i >= 3 and h[i] > threshold and h[i] - h[i - 1] > add
        if cut:
            starts.append(i)
    return starts


def patch_lengths(starts: Sequence[int], n_bytes: int) -> list[int]:
    """The lengths of the patches that begin at ``starts`` (increasing, from 0) in a
    sequence of ``n_bytes`` bytes: they sum to ``n_bytes``.

    >>> patch_lengths([0, 2, 5], 6)
    [2, 3, 1]
    """
    n_bytes = check_int(n_bytes, name="n_bytes", minimum=0)
    s = [check_int(x, name="starts[i]", minimum=0) for x in starts]
    if n_bytes and (not s or s[0] != 0):
        raise ValueError(f"starts must begin with 0 (the first byte starts a patch), not {s[:1]}")
    if any(b <= a for a, b in zip(s, s[1:])) or (s and s[-1] >= max(n_bytes, 1)):
        raise ValueError(f"starts must increase and stay below n_bytes = {n_bytes}, not {s}")
    return [b - a for a, b in zip(s, s[1:] + [n_bytes])]


def fixed_patch_starts(n_bytes: int, size: int) -> list[int]:
    """MegaByte's patches: every ``size`` bytes, whatever they hold.

    >>> fixed_patch_starts(10, 4)
    [0, 4, 8]
    """
    n_bytes = check_int(n_bytes, name="n_bytes", minimum=0)
    size = check_int(size, name="size", minimum=1)
    return list(range(0, n_bytes, size))


def split_patches(data: bytes, starts: Sequence[int]) -> list[bytes]:
    """``data`` cut at ``starts``.

    >>> split_patches(b"hello world", [0, 5])
    [b'hello', b' world']
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}; use text.encode('utf-8')")
    lengths = patch_lengths(starts, len(data))
    ends = np.cumsum([0] + lengths).tolist()
    return [bytes(data[a:b]) for a, b in zip(ends, ends[1:])]


def next_byte_entropies(lm: KneserNeyLM, data: bytes) -> list[float]:
    """``H[i]``, in bits, of ``lm``'s distribution of byte ``i`` of ``data`` given the
    bytes before it (``lm`` fitted on byte sequences: ``vocab_size=256``; the
    distribution includes its end-of-sequence outcome).

    >>> lm = KneserNeyLM(2, vocab_size=256).fit([list(b"abababab")])
    >>> h = next_byte_entropies(lm, b"ab")
    >>> len(h), h[1] < h[0]   # after "a", "b" is nearly sure
    (2, True)
    """
    if not isinstance(lm, KneserNeyLM) or lm.vocab_size != 256:
        raise TypeError("lm must be a KneserNeyLM over bytes: KneserNeyLM(order, vocab_size=256).fit(...)")
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}; use text.encode('utf-8')")
    p = lm.next_distributions(list(data))[: len(data)]
    return (-(p * np.log2(p)).sum(axis=1)).tolist()
