"""Binary fields GF(2^m) with numpy-backed element arrays."""

from __future__ import annotations

import os
import operator
from typing import Any, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import Gf2Poly

__all__ = ["GF2m", "GF2mArray"]

#: galois FieldArray classes built so far, by modulus (building one can take
#: seconds for large m).
_GALOIS_FIELDS: "dict[int, Any]" = {}


class GF2m:
    """The binary field GF(2^m) = GF(2)[x]/(f).

    ``GF2m(m)`` is one of the NIST fields (m = 163, 233, 283, 409, 571, with
    the moduli of FIPS 186-4), which run on fixed-size Rust types and batch
    kernels; ``GF2m.from_modulus(f)`` takes any irreducible f of degree 2 to
    10000. Calling the field builds elements::

        F = GF2m(163)
        a = F(5)                   # a scalar (x^2 + 1)
        v = F([1, 2, 3])           # an array of three elements from ints
        w = F(words)               # from a uint64 array of shape (n, F.words)
        r = F.random(10**5)        # uniformly random elements

    Elements are :class:`GF2mArray` values; arithmetic on them is
    vectorised and runs in Rust with the GIL released.
    """

    __slots__ = ("_f", "_galois")

    def __init__(self, m: int) -> None:
        if isinstance(m, bool) or not isinstance(m, int):
            raise TypeError(f"GF2m(m) takes an int degree, not {type(m).__name__}")
        self._f = _native.Field.nist(m)
        self._galois: Any = None

    @classmethod
    def from_modulus(cls, modulus: Union[Gf2Poly, int, str]) -> "GF2m":
        """GF(2)[x]/(f) for an irreducible ``modulus`` f (a :class:`Gf2Poly`,
        its int value or its text form), of degree 2 to 10000.

        Raises ``ValueError`` if f is reducible or of another degree.
        """
        field = cls.__new__(cls)
        field._f = _native.Field.from_modulus(modulus)
        field._galois = None
        return field

    @property
    def m(self) -> int:
        """The degree m: the field has 2^m elements."""
        return self._f.m

    @property
    def words(self) -> int:
        """uint64 words per element, ceil(m/64)."""
        return self._f.words

    @property
    def order(self) -> int:
        """The number of elements, 2^m."""
        return 1 << self.m

    @property
    def modulus(self) -> Gf2Poly:
        """The modulus f."""
        return self._f.modulus

    @property
    def is_nist(self) -> bool:
        """Whether this is one of the five NIST fields (fixed-size kernels)."""
        return self._f.is_nist

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GF2m) and self.modulus == other.modulus

    def __hash__(self) -> int:
        return hash(self.modulus)

    def __repr__(self) -> str:
        if self.is_nist:
            return f"GF2m({self.m})"
        return f"GF2m.from_modulus('{self.modulus}')"

    # Building elements.

    def __call__(self, value: Any) -> "GF2mArray":
        """Elements from an int (a scalar), a sequence of ints (an array),
        a uint64 word array of shape (words,) (a scalar) or (n, words) (an
        array), or a :class:`GF2mArray` of this field.

        Raises ``ValueError`` for a value that is not a reduced element
        (an int ``>= 2**m`` or a word with a bit at or above m set).
        """
        if isinstance(value, GF2mArray):
            if value.field != self:
                raise ValueError(f"elements of {value.field!r}, not of {self!r}")
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return self.from_ints([int(value)])[0]
        if isinstance(value, np.ndarray) and value.dtype == np.uint64:
            return self.from_words(value)
        if isinstance(value, (list, tuple, np.ndarray)):
            return self.from_ints(value)
        raise TypeError(
            f"cannot make GF(2^{self.m}) elements from {type(value).__name__}"
        )

    def from_words(self, words: np.ndarray) -> "GF2mArray":
        """Elements from a uint64 array: shape (words,) gives a scalar,
        shape (n, words) an array of n elements (word 0 lowest). The array
        is copied. ``ValueError`` for another dtype or shape, or a bit at or
        above m."""
        arr = np.asarray(words)
        if arr.dtype != np.uint64:
            raise ValueError(f"element words must be uint64, not {arr.dtype}")
        scalar = arr.ndim == 1
        if scalar:
            arr = arr.reshape(1, -1)
        if arr.ndim != 2 or arr.shape[1] != self.words:
            raise ValueError(
                f"GF(2^{self.m}) elements are {self.words} words: expected shape "
                f"({self.words},) or (n, {self.words}), got {np.shape(words)}"
            )
        arr = np.array(arr, dtype=np.uint64, order="C", copy=True)
        self._f.check(arr)
        return GF2mArray._new(self, arr, scalar)

    def from_ints(self, values: Union[Sequence[int], np.ndarray]) -> "GF2mArray":
        """An array of elements from ints in [0, 2^m) (bit i is the
        coefficient of x^i); ``ValueError`` for one out of range."""
        nbytes = 8 * self.words
        chunks = []
        for i, v in enumerate(values):
            v = operator.index(v)
            if v < 0 or v >> self.m:
                raise ValueError(
                    f"element {i}: {v} is not in GF(2^{self.m}) (needs 0 <= v < 2^{self.m})"
                )
            chunks.append(v.to_bytes(nbytes, "little"))
        arr = np.frombuffer(b"".join(chunks), dtype="<u8").astype(np.uint64)
        return GF2mArray._new(self, arr.reshape(len(chunks), self.words), False)

    def from_bytes(self, data: bytes) -> "GF2mArray":
        """A scalar from its big-endian octet string of ceil(m/8) bytes
        (SEC 1); ``ValueError`` for another length or a value >= 2^m."""
        data = bytes(data)
        if len(data) != (self.m + 7) // 8:
            raise ValueError(
                f"a GF(2^{self.m}) element is {(self.m + 7) // 8} bytes, got {len(data)}"
            )
        return self.from_ints([int.from_bytes(data, "big")])[0]

    def zeros(self, n: int) -> "GF2mArray":
        """An array of n zeros."""
        return GF2mArray._new(self, np.zeros((n, self.words), dtype=np.uint64), False)

    def ones(self, n: int) -> "GF2mArray":
        """An array of n ones."""
        w = np.zeros((n, self.words), dtype=np.uint64)
        w[:, 0] = 1
        return GF2mArray._new(self, w, False)

    def random(self, n: int, rng: Optional[np.random.Generator] = None) -> "GF2mArray":
        """An array of n uniformly random elements, from ``os.urandom`` or
        from ``rng`` (a numpy Generator, for reproducible tests)."""
        nbytes = n * self.words * 8
        raw = rng.bytes(nbytes) if rng is not None else os.urandom(nbytes)
        w = np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(n, self.words)
        top = self.m - 64 * (self.words - 1)
        if top < 64:
            w[:, -1] &= np.uint64((1 << top) - 1)
        return GF2mArray._new(self, w, False)

    # galois interoperability.

    def galois_field(self) -> Any:
        """The same field as a ``galois`` FieldArray class (needs the
        ``galois`` package): ``GF(2**m, irreducible_poly=f)``."""
        if self._galois is None:
            key = int(self.modulus)
            if key not in _GALOIS_FIELDS:
                try:
                    import galois
                except ImportError as e:  # pragma: no cover - depends on the install
                    raise ImportError("galois conversion needs the galois package") from e
                poly = galois.Poly.Int(key)
                _GALOIS_FIELDS[key] = galois.GF(2**self.m, irreducible_poly=poly, verify=False)
            self._galois = _GALOIS_FIELDS[key]
        return self._galois

    def from_galois(self, x: Any) -> "GF2mArray":
        """Elements from a ``galois`` FieldArray of this field (same order and
        irreducible polynomial; ``ValueError`` otherwise). A 0-d array gives
        a scalar, a 1-d array an array."""
        cls = type(x)
        order = getattr(cls, "order", None)
        irr = getattr(cls, "irreducible_poly", None)
        if order != self.order or irr is None or int(irr) != int(self.modulus):
            raise ValueError(f"not an array of {self!r}: {cls.__name__}")
        plain = np.asarray(x.view(np.ndarray))
        if plain.ndim > 1:
            raise ValueError("only 0-d and 1-d galois arrays convert")
        arr = self.from_ints([int(v) for v in plain.reshape(-1)])
        return arr[0] if plain.ndim == 0 else arr


class GF2mArray:
    """Elements of a :class:`GF2m` field: a scalar, or a one-dimensional
    array backed by a numpy ``uint64`` array of shape (n, words).

    ``+``/``-`` (XOR), ``*``, ``/``, ``**`` (an int exponent; negative ones
    invert), ``==`` and the methods below work element-wise between arrays
    of one length, an array and a scalar, or with ints (taken as elements).
    Values are immutable: operations return new arrays.
    """

    __slots__ = ("_field", "_w", "_scalar")

    _field: GF2m
    _w: np.ndarray
    _scalar: bool

    @classmethod
    def _new(cls, field: GF2m, words: np.ndarray, scalar: bool) -> "GF2mArray":
        obj = cls.__new__(cls)
        words.flags.writeable = False
        obj._field = field
        obj._w = words
        obj._scalar = scalar
        return obj

    @property
    def field(self) -> GF2m:
        """The field."""
        return self._field

    @property
    def words(self) -> np.ndarray:
        """The read-only uint64 words: shape (words,) for a scalar, (n, words)
        for an array; word 0 lowest."""
        return self._w[0] if self._scalar else self._w

    @property
    def is_scalar(self) -> bool:
        """Whether this is a single element rather than an array."""
        return self._scalar

    @property
    def shape(self) -> Tuple[int, ...]:
        """``()`` for a scalar, ``(n,)`` for an array."""
        return () if self._scalar else (int(self._w.shape[0]),)

    def __len__(self) -> int:
        if self._scalar:
            raise TypeError("a GF2m scalar has no len()")
        return int(self._w.shape[0])

    def __getitem__(self, index: Any) -> "GF2mArray":
        if self._scalar:
            raise TypeError("a GF2m scalar is not indexable")
        if isinstance(index, (int, np.integer)):
            i = operator.index(index)
            row = self._w[i].reshape(1, -1).copy()
            return GF2mArray._new(self._field, row, True)
        return GF2mArray._new(self._field, np.ascontiguousarray(self._w[index]), False)

    def __iter__(self) -> Iterator["GF2mArray"]:
        for i in range(len(self)):
            yield self[i]

    def copy(self) -> "GF2mArray":
        """A copy (values are immutable, so this is rarely needed)."""
        return GF2mArray._new(self._field, self._w.copy(), self._scalar)

    # Conversions.

    def _ints(self) -> List[int]:
        raw = self._w.astype("<u8").tobytes()
        step = 8 * self._field.words
        return [int.from_bytes(raw[i : i + step], "little") for i in range(0, len(raw), step)]

    def to_ints(self) -> Union[int, List[int]]:
        """The elements as ints (bit i is the coefficient of x^i): an int for
        a scalar, a list for an array."""
        ints = self._ints()
        return ints[0] if self._scalar else ints

    def __int__(self) -> int:
        if not self._scalar:
            raise TypeError("only a GF2m scalar converts to int")
        return self._ints()[0]

    def to_bytes(self) -> bytes:
        """A scalar's big-endian octet string of ceil(m/8) bytes."""
        return int(self).to_bytes((self._field.m + 7) // 8, "big")

    def to_galois(self) -> Any:
        """The same values as a ``galois`` FieldArray (needs ``galois``)."""
        gf = self._field.galois_field()
        return gf(self._ints()[0] if self._scalar else self._ints())

    def __repr__(self) -> str:
        if self._scalar:
            return f"{self._field!r}({hex(int(self))})"
        vals = [hex(v) for v in (self._ints() if len(self) <= 6 else self[:3]._ints())]
        body = ", ".join(vals if len(self) <= 6 else vals + ["..."])
        return f"{self._field!r}([{body}])"

    # Element-wise arithmetic.

    def _coerce(self, other: Any) -> Optional["GF2mArray"]:
        if isinstance(other, GF2mArray):
            if other._field != self._field:
                raise ValueError(f"elements of {self._field!r} and {other._field!r} combined")
            return other
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return self._field(int(other))
        return None

    def _pair(self, other: "GF2mArray") -> Tuple[np.ndarray, np.ndarray, bool]:
        a, b = self._w, other._w
        scalar = self._scalar and other._scalar
        if a.shape[0] != b.shape[0]:
            if a.shape[0] == 1 and self._scalar:
                a = np.ascontiguousarray(np.broadcast_to(a, b.shape))
            elif b.shape[0] == 1 and other._scalar:
                b = np.ascontiguousarray(np.broadcast_to(b, a.shape))
            else:
                raise ValueError(f"arrays of {a.shape[0]} and {b.shape[0]} elements combined")
        return a, b, scalar

    def _wrap(self, words: np.ndarray, scalar: Optional[bool] = None) -> "GF2mArray":
        return GF2mArray._new(self._field, words, self._scalar if scalar is None else scalar)

    def __add__(self, other: Any) -> "GF2mArray":
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        a, b, s = self._pair(o)
        return self._wrap(np.bitwise_xor(a, b), s)

    __radd__ = __add__
    __sub__ = __add__
    __rsub__ = __add__

    def __neg__(self) -> "GF2mArray":
        return self

    def __pos__(self) -> "GF2mArray":
        return self

    def __mul__(self, other: Any) -> "GF2mArray":
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        a, b, s = self._pair(o)
        return self._wrap(self._field._f.mul(a, b), s)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "GF2mArray":
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return self * o.invert()

    def __rtruediv__(self, other: Any) -> "GF2mArray":
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return o * self.invert()

    def __pow__(self, exponent: int) -> "GF2mArray":
        e = operator.index(exponent)
        base = self
        if e < 0:
            base, e = self.invert(), -e
        limbs = []
        while True:
            limbs.append(e & 0xFFFF_FFFF_FFFF_FFFF)
            e >>= 64
            if not e:
                break
        return self._wrap(self._field._f.pow(base._w, limbs))

    def __eq__(self, other: object) -> Any:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        a, b, s = self._pair(o)
        eq = np.all(a == b, axis=1)
        return bool(eq[0]) if s else eq

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        if eq is NotImplemented:
            return eq
        return not eq if isinstance(eq, bool) else ~eq

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        if not self._scalar:
            raise ValueError("the truth value of a GF2m array is ambiguous; use .all() or .any()")
        return bool(self._w.any())

    def is_zero(self) -> Any:
        """Whether each element is 0 (a bool for a scalar)."""
        z = ~np.any(self._w, axis=1)
        return bool(z[0]) if self._scalar else z

    def square(self) -> "GF2mArray":
        """Element-wise a²."""
        return self._wrap(self._field._f.square(self._w))

    def invert(self) -> "GF2mArray":
        """Element-wise a⁻¹ (Montgomery's batch trick over the array);
        ``ZeroDivisionError`` if an element is 0."""
        return self._wrap(self._field._f.invert(self._w))

    def sqrt(self) -> "GF2mArray":
        """Element-wise square root (every element has exactly one)."""
        return self._wrap(self._field._f.sqrt(self._w))

    def trace(self) -> Any:
        """Element-wise absolute trace Tr(a) in {0, 1}: an int for a scalar,
        a uint8 array for an array."""
        t = self._field._f.trace(self._w)
        return int(t[0]) if self._scalar else t

    def half_trace(self) -> "GF2mArray":
        """Element-wise half-trace Σ a^(4^i), i ≤ (m−1)/2 (odd m only;
        ``ValueError`` for even m)."""
        return self._wrap(self._field._f.half_trace(self._w))

    def solve_quadratic(self) -> Any:
        """Roots z of z² + z = a. For a scalar: z, or None when there is no
        root (exactly when Tr(a) = 1); z + 1 is the other root. For an
        array: ``(z, ok)`` with ``ok`` a bool array and z = 0 where there is
        no root."""
        z, ok = self._field._f.solve_quadratic(self._w)
        ok = ok.astype(bool)
        if self._scalar:
            return self._wrap(z) if ok[0] else None
        return self._wrap(z), ok
