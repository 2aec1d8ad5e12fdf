"""Products in GF(2)[x] on numpy ``uint64`` word arrays (word 0 lowest)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import _native

__all__ = ["mul"]


def _words(x: npt.ArrayLike, name: str) -> np.ndarray:
    if isinstance(x, np.ndarray):
        if x.dtype != np.uint64:
            raise ValueError(f"{name} must be a uint64 array, not {x.dtype}")
        arr = x
    else:
        try:
            arr = np.asarray(x, dtype=np.uint64)
        except (OverflowError, TypeError, ValueError) as e:
            raise ValueError(f"{name}: not a sequence of 64-bit words: {e}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, has shape {arr.shape}")
    return np.ascontiguousarray(arr)


def mul(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """The carry-less product of two polynomials of any length.

    ``a`` and ``b`` are one-dimensional ``uint64`` arrays, word 0 holding
    the coefficients of x^0..x^63. The result has ``len(a) + len(b)`` words
    (the top ones may be zero). Large products run with the GIL released on
    the library's fastest kernel (Karatsuba, Toom-3 or the additive FFT).
    """
    return _native.gf2x_mul(_words(a, "a"), _words(b, "b"))
