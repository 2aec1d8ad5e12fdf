"""Gaussian normal bases of GF(2^m) on numpy coordinate arrays."""

from __future__ import annotations

import os
from typing import Optional, Tuple

import numpy as np

from . import _native
from ._gf2m import GF2m, GF2mArray

__all__ = ["GaussianNormalBasis"]


class GaussianNormalBasis:
    """The type-t Gaussian normal basis {β, β², β⁴, …} of GF(2^m) (IEEE
    P1363, ANSI X9.62; FIPS 186-2 uses t = 4, 2, 6, 4, 10 for m = 163,
    233, 283, 409, 571).

    Elements are numpy ``uint64`` coordinate arrays: shape (words,) for one
    element, (n, words) for n, with bit i of word i/64 the coefficient of
    β^(2^i). ``GaussianNormalBasis(m)`` picks the lowest type. The
    operations run in Rust with the GIL released, element by element (there
    are no batch kernels for normal bases).
    """

    __slots__ = ("_nb",)

    def __init__(self, m: int, t: Optional[int] = None) -> None:
        self._nb = _native.NormalBasis(m, t) if t is not None else _native.NormalBasis.lowest_type(m)

    @property
    def m(self) -> int:
        """The degree m."""
        return self._nb.m

    @property
    def t(self) -> int:
        """The type t."""
        return self._nb.t

    @property
    def p(self) -> int:
        """The prime p = t·m + 1."""
        return self._nb.p

    @property
    def words(self) -> int:
        """uint64 words per element, ceil(m/64)."""
        return self._nb.words

    def __repr__(self) -> str:
        return f"GaussianNormalBasis({self.m}, {self.t})"

    def _rows(self, a: np.ndarray) -> Tuple[np.ndarray, bool]:
        arr = np.asarray(a)
        if arr.dtype != np.uint64:
            raise ValueError(f"coordinates must be uint64, not {arr.dtype}")
        single = arr.ndim == 1
        arr = arr.reshape(1, -1) if single else arr
        if arr.ndim != 2 or arr.shape[1] != self.words:
            raise ValueError(
                f"degree-{self.m} coordinates are {self.words} words: expected shape "
                f"({self.words},) or (n, {self.words}), got {np.shape(a)}"
            )
        return np.ascontiguousarray(arr), single

    @staticmethod
    def _out(arr: np.ndarray, single: bool) -> np.ndarray:
        return arr[0] if single else arr

    def one(self) -> np.ndarray:
        """The coordinates of 1 (every bit set)."""
        return np.array(self._nb.one(), dtype=np.uint64)

    def from_hex(self, s: str) -> np.ndarray:
        """Coordinates from the X9.62 / FIPS 186-2 m-bit string in hex (a₀
        the most significant bit); ``ValueError`` if malformed."""
        return np.array(self._nb.parse_hex(s), dtype=np.uint64)

    def to_hex(self, coords: np.ndarray) -> str:
        """The X9.62 / FIPS 186-2 hex string of one element's coordinates."""
        arr, single = self._rows(coords)
        if not single:
            raise ValueError("to_hex takes one element's coordinates")
        return self._nb.to_hex([int(w) for w in arr[0]])

    def random(self, n: int, rng: Optional[np.random.Generator] = None) -> np.ndarray:
        """n uniformly random elements, from ``os.urandom`` or ``rng``."""
        nbytes = n * self.words * 8
        raw = rng.bytes(nbytes) if rng is not None else os.urandom(nbytes)
        w = np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(n, self.words)
        top = self.m - 64 * (self.words - 1)
        if top < 64:
            w[:, -1] &= np.uint64((1 << top) - 1)
        return w

    def mul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Element-wise products (one shape, or one element against many)."""
        x, sx = self._rows(a)
        y, sy = self._rows(b)
        if x.shape[0] != y.shape[0]:
            if sx:
                x = np.ascontiguousarray(np.broadcast_to(x, y.shape))
            elif sy:
                y = np.ascontiguousarray(np.broadcast_to(y, x.shape))
        return self._out(self._nb.mul(x, y), sx and sy)

    def square(self, a: np.ndarray) -> np.ndarray:
        """Element-wise squares (a rotation of the coordinates)."""
        x, s = self._rows(a)
        return self._out(self._nb.square(x), s)

    def sqrt(self, a: np.ndarray) -> np.ndarray:
        """Element-wise square roots."""
        x, s = self._rows(a)
        return self._out(self._nb.sqrt(x), s)

    def invert(self, a: np.ndarray) -> np.ndarray:
        """Element-wise inverses; ``ZeroDivisionError`` for 0."""
        x, s = self._rows(a)
        return self._out(self._nb.invert(x), s)

    def trace(self, a: np.ndarray) -> np.ndarray:
        """Element-wise traces (uint8 0/1; the parity of the coordinates)."""
        x, s = self._rows(a)
        t = self._nb.trace(x)
        return t[0] if s else t

    def to_polynomial(self, coords: np.ndarray, field: GF2m) -> GF2mArray:
        """The same elements in the polynomial basis of ``field`` (of degree
        m), by the standard isomorphism (the one FIPS 186-2's two tables of
        curve parameters agree on)."""
        if field.m != self.m:
            raise ValueError(f"{field!r} has degree {field.m}, the basis {self.m}")
        x, s = self._rows(coords)
        return field.from_words(self._out(self._nb.normal_to_poly(x, field.modulus), s))

    def from_polynomial(self, x: GF2mArray) -> np.ndarray:
        """The normal-basis coordinates of polynomial-basis elements."""
        if x.field.m != self.m:
            raise ValueError(f"elements of degree {x.field.m}, the basis has {self.m}")
        rows = x.words.reshape(-1, self.words)
        out = self._nb.poly_to_normal(np.ascontiguousarray(rows), x.field.modulus)
        return self._out(out, x.is_scalar)
