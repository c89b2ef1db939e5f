"""BLT entropy patching (tokref.patches) against a line-by-line numpy transcription of
the authors' code (facebookresearch/blt, bytelatent/data/patcher.py,
find_entropy_patch_start_ids with include_next_token=False), and the entropies of the
n-gram model."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from tokref.ngram import KneserNeyLM
from tokref.patches import fixed_patch_starts, next_byte_entropies, patch_lengths, patch_starts, split_patches


def _blt_starts(h: list[float], threshold: float, monotonicity: bool, threshold_add: float | None) -> list[int]:
    """The authors' function on one sequence [BOS] + bytes, torch ops as numpy ones; the
    entropy at token j (the prediction of token j + 1) is h[j] (h[n] is never read)."""
    e = np.array([h + [0.0]])  # [1, seq_len]: tokens BOS, bytes; predictions for bytes 0..n
    first_ids = np.array([[0, 1]])
    e = e[:, 1:]
    if monotonicity:
        mask = np.zeros_like(e, dtype=bool)
        mask[:, 0] = True
        mask[:, 1:] = (e[:, 1:] - e[:, :-1]) > threshold
    elif threshold_add is not None:
        mask = np.zeros_like(e, dtype=bool)
        mask[:, 0] = True
        mask[:, 1:] = ((e[:, 1:] - e[:, :-1]) > threshold_add) & (e[:, 1:] > threshold) & (~mask[:, :-1])
    else:
        mask = e > threshold
    mask = mask[:, :-1]  # include_next_token=False
    ids = np.flatnonzero(mask[0])
    starts = np.concatenate((first_ids[0], ids + 2))
    return [int(s) - 1 for s in starts if s >= 1]  # token positions -> bytes, BOS left out


@pytest.mark.parametrize("seed", range(200))
def test_equals_authors_code(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    h = [round(rng.uniform(0, 4), 1) for _ in range(n)]
    theta = rng.choice([0.5, 1.0, 2.0, 3.5])
    assert patch_starts(h, threshold=theta) == _blt_starts(h, theta, False, None)
    assert patch_starts(h, threshold=theta, rule="monotonic") == _blt_starts(h, theta, True, None)
    add = rng.choice([0.0, 0.5, 1.0])
    assert patch_starts(h, threshold=theta, rule="global_monotonic", threshold_add=add) == \
        _blt_starts(h, theta, False, add)


def test_lengths_fixed_split() -> None:
    assert patch_lengths([0, 1, 4], 6) == [1, 3, 2]
    assert fixed_patch_starts(9, 4) == [0, 4, 8] and fixed_patch_starts(0, 4) == []
    assert split_patches(b"abcdef", [0, 1, 4]) == [b"a", b"bcd", b"ef"]
    assert patch_starts([], threshold=1.0) == []
    with pytest.raises(ValueError, match="begin with 0"):
        patch_lengths([1], 3)
    with pytest.raises(ValueError, match="not a finite number"):
        patch_starts([1.0, float("nan")], threshold=1.0)
    with pytest.raises(ValueError, match="threshold_add"):
        patch_starts([1.0], threshold=1.0, threshold_add=0.5)
    with pytest.raises(ValueError, match="rule"):
        patch_starts([1.0], threshold=1.0, rule="local")  # type: ignore[arg-type]


def test_entropies_match_prob() -> None:
    data = b"the cat sat on the mat. the cat"
    lm = KneserNeyLM(3, vocab_size=256).fit([list(data)])
    h = next_byte_entropies(lm, b"the ca")
    for i in (0, 3, 5):
        ctx = list(b"the ca"[:i])
        p = [lm.prob(ctx, t) for t in range(257)]
        assert math.isclose(h[i], -sum(q * math.log2(q) for q in p), rel_tol=1e-9)
    with pytest.raises(TypeError, match="bytes"):
        next_byte_entropies(lm, "text")  # type: ignore[arg-type]
