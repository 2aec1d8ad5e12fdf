"""Type stubs for the native module ``fieldwork._native`` (Rust, PyO3)."""

from typing import Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt

_Bytes = Union[bytes, bytearray, memoryview]
_PolyLike = Union["Gf2Poly", int, str]
_Words = npt.NDArray[np.uint64]

class InvalidTag(Exception):
    """Authentication failed: the ciphertext, tag, nonce or associated data
    was altered, or the key is wrong."""

@final
class Gf2Poly:
    """A polynomial over GF(2): bit i of its int value is the coefficient of
    x^i. Immutable and hashable; ``Gf2Poly(value)`` takes an int >= 0, a
    Gf2Poly or the text form ``"x^163 + x^7 + 1"``."""

    def __new__(cls, value: Optional[_PolyLike] = None) -> "Gf2Poly": ...
    @staticmethod
    def from_bytes(data: _Bytes) -> "Gf2Poly":
        """From big-endian bytes."""
    @staticmethod
    def from_hex(s: str) -> "Gf2Poly":
        """From big-endian hex (optional 0x); ValueError if not hex."""
    @staticmethod
    def from_str(s: str) -> "Gf2Poly":
        """From the text form; ValueError if malformed."""
    @staticmethod
    def from_exponents(exponents: Sequence[int]) -> "Gf2Poly":
        """The sum of x^e over the exponents."""
    def to_int(self) -> int:
        """The coefficients as an int."""
    def to_bytes(self) -> bytes:
        """Big-endian bytes of minimal length."""
    def to_hex(self) -> str:
        """Lower-case hex without prefix."""
    def exponents(self) -> list[int]:
        """The exponents of the nonzero terms, highest first."""
    def coeff(self, i: int) -> int:
        """The coefficient of x^i."""
    @property
    def degree(self) -> int:
        """The degree; -1 for zero."""
    def square(self) -> "Gf2Poly":
        """The square."""
    def gcd(self, other: _PolyLike) -> "Gf2Poly":
        """The monic gcd."""
    def xgcd(self, other: _PolyLike) -> Tuple["Gf2Poly", "Gf2Poly", "Gf2Poly"]:
        """(g, s, t) with g = gcd = s*self + t*other."""
    def pow_mod(self, e: int, m: _PolyLike) -> "Gf2Poly":
        """self**e mod m, 0 <= e < 2**64."""
    def inverse_mod(self, m: _PolyLike) -> "Gf2Poly":
        """The inverse modulo m; ValueError if gcd(self, m) != 1."""
    def is_irreducible(self) -> bool:
        """Whether the polynomial is irreducible over GF(2)."""
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __bool__(self) -> bool: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __add__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __radd__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __sub__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __rsub__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __mul__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __rmul__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __floordiv__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __rfloordiv__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __mod__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __rmod__(self, other: Union["Gf2Poly", int]) -> "Gf2Poly": ...
    def __divmod__(self, other: Union["Gf2Poly", int]) -> Tuple["Gf2Poly", "Gf2Poly"]: ...
    def __rdivmod__(self, other: Union["Gf2Poly", int]) -> Tuple["Gf2Poly", "Gf2Poly"]: ...
    def __lshift__(self, n: int) -> "Gf2Poly": ...
    def __rshift__(self, n: int) -> "Gf2Poly": ...

def gf2x_mul(a: _Words, b: _Words) -> _Words:
    """The product of two word arrays (use fieldwork.gf2x.mul)."""

@final
class Field:
    """The native field behind fieldwork.GF2m (internal)."""

    @staticmethod
    def nist(m: int) -> "Field": ...
    @staticmethod
    def from_modulus(modulus: _PolyLike) -> "Field": ...
    @property
    def m(self) -> int: ...
    @property
    def words(self) -> int: ...
    @property
    def is_nist(self) -> bool: ...
    @property
    def modulus(self) -> Gf2Poly: ...
    def check(self, a: _Words) -> None: ...
    def mul(self, a: _Words, b: _Words) -> _Words: ...
    def square(self, a: _Words) -> _Words: ...
    def invert(self, a: _Words) -> _Words: ...
    def sqrt(self, a: _Words) -> _Words: ...
    def half_trace(self, a: _Words) -> _Words: ...
    def pow(self, a: _Words, exponent: Sequence[int]) -> _Words: ...
    def trace(self, a: _Words) -> npt.NDArray[np.uint8]: ...
    def solve_quadratic(self, a: _Words) -> Tuple[_Words, npt.NDArray[np.uint8]]: ...

@final
class AESGCM:
    """AES-GCM (128/192/256-bit key, 16-byte tag, 8- to 128-byte nonce) in
    pyca/cryptography's shape."""

    def __init__(self, key: _Bytes) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes:
        """A random key of 128, 192 or 256 bits."""
    def encrypt(self, nonce: _Bytes, data: _Bytes, associated_data: Optional[_Bytes]) -> bytes:
        """Ciphertext ‖ 16-byte tag."""
    def decrypt(self, nonce: _Bytes, data: _Bytes, associated_data: Optional[_Bytes]) -> bytes:
        """The plaintext; raises InvalidTag if authentication fails."""

@final
class ChaCha20Poly1305:
    """ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce."""

    def __init__(self, key: _Bytes) -> None: ...
    @staticmethod
    def generate_key() -> bytes:
        """A random 32-byte key."""
    def encrypt(self, nonce: _Bytes, data: _Bytes, associated_data: Optional[_Bytes]) -> bytes:
        """Ciphertext ‖ 16-byte tag."""
    def decrypt(self, nonce: _Bytes, data: _Bytes, associated_data: Optional[_Bytes]) -> bytes:
        """The plaintext; raises InvalidTag if authentication fails."""

@final
class XChaCha20Poly1305:
    """XChaCha20-Poly1305: 32-byte key, 24-byte nonce."""

    def __init__(self, key: _Bytes) -> None: ...
    @staticmethod
    def generate_key() -> bytes:
        """A random 32-byte key."""
    def encrypt(self, nonce: _Bytes, data: _Bytes, associated_data: Optional[_Bytes]) -> bytes:
        """Ciphertext ‖ 16-byte tag."""
    def decrypt(self, nonce: _Bytes, data: _Bytes, associated_data: Optional[_Bytes]) -> bytes:
        """The plaintext; raises InvalidTag if authentication fails."""

def poly1305_tag(key: _Bytes, data: _Bytes) -> bytes:
    """The Poly1305 tag (use fieldwork.poly1305.tag)."""

def poly1305_verify(key: _Bytes, data: _Bytes, tag: _Bytes) -> None:
    """Raises InvalidTag on mismatch (use fieldwork.poly1305.verify)."""

def ghash(h: _Bytes, data: _Bytes) -> bytes:
    """GHASH of data under the 16-byte key h."""

def polyval(h: _Bytes, data: _Bytes) -> bytes:
    """POLYVAL of data under the 16-byte key h."""

@final
class KummerPublicKey:
    """A validated 48-byte Kummer-surface public key."""

    @staticmethod
    def from_public_bytes(data: _Bytes) -> "KummerPublicKey":
        """Parses and validates 48 bytes; ValueError if invalid."""
    def public_bytes(self) -> bytes:
        """The 48 bytes."""
    def public_bytes_raw(self) -> bytes:
        """The 48 bytes."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

@final
class KummerPrivateKey:
    """A 32-byte Kummer-surface Diffie–Hellman private key."""

    @staticmethod
    def generate() -> "KummerPrivateKey":
        """A fresh random key."""
    @staticmethod
    def from_private_bytes(data: _Bytes) -> "KummerPrivateKey":
        """From 32 bytes; ValueError for another length."""
    def private_bytes(self) -> bytes:
        """The 32 bytes."""
    def private_bytes_raw(self) -> bytes:
        """The 32 bytes."""
    def public_key(self) -> KummerPublicKey:
        """The matching public key."""
    def exchange(self, peer_public_key: KummerPublicKey) -> bytes:
        """The 48-byte shared secret; ValueError if degenerate."""

@final
class NormalBasis:
    """The native Gaussian normal basis behind fieldwork.GaussianNormalBasis
    (internal)."""

    def __init__(self, m: int, t: int) -> None: ...
    @staticmethod
    def lowest_type(m: int) -> "NormalBasis": ...
    @property
    def m(self) -> int: ...
    @property
    def t(self) -> int: ...
    @property
    def p(self) -> int: ...
    @property
    def words(self) -> int: ...
    def one(self) -> list[int]: ...
    def parse_hex(self, s: str) -> list[int]: ...
    def to_hex(self, coords: Sequence[int]) -> str: ...
    def check(self, a: _Words) -> None: ...
    def mul(self, a: _Words, b: _Words) -> _Words: ...
    def square(self, a: _Words) -> _Words: ...
    def sqrt(self, a: _Words) -> _Words: ...
    def invert(self, a: _Words) -> _Words: ...
    def trace(self, a: _Words) -> npt.NDArray[np.uint8]: ...
    def normal_to_poly(self, a: _Words, modulus: _PolyLike) -> _Words: ...
    def poly_to_normal(self, a: _Words, modulus: _PolyLike) -> _Words: ...
