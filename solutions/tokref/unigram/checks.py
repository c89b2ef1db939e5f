"""Argument checks shared by the unigram modules, on top of ``tokref.base``'s.

They keep the wording the tests and users already rely on: a count is refused as
"``k`` must be at least 1" (the shared :func:`tokref.base.check_int` says ``>= 1``).
"""

from __future__ import annotations

from ..base import is_finite_number
from ..checks import check_int
from ..checks import check_rng  # noqa: F401 - shared with BPE-dropout; imported from here too

__all__ = ["check_positive", "check_alpha", "check_rng"]


def check_positive(value: object, *, name: str) -> int:
    """``value`` as an ``int`` of at least 1 (``bool`` refused); ``TypeError``/``ValueError``
    otherwise, saying "at least 1".

    >>> check_positive(3, name="k")
    3
    >>> check_positive(0, name="k")
    Traceback (most recent call last):
    ...
    ValueError: k must be at least 1, not 0
    """
    v = check_int(value, name=name)
    if v < 1:
        raise ValueError(f"{name} must be at least 1, not {v}")
    return v


def check_alpha(alpha: object) -> float:
    """The smoothing exponent of sampling: a finite number > 0, as a ``float``.

    >>> check_alpha(1)
    1.0
    """
    if not is_finite_number(alpha):
        raise TypeError(f"alpha must be a finite number, not {alpha!r}")
    if alpha <= 0:  # type: ignore[operator]
        raise ValueError(
            f"alpha must be > 0, not {alpha}: segmentations are sampled with probability "
            "proportional to P(seg) ** alpha (1.0: the model's own distribution; "
            "small: closer to uniform)"
        )
    return float(alpha)  # type: ignore[arg-type]
