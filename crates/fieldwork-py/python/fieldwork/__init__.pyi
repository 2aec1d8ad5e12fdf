from . import gf2x as gf2x, poly1305 as poly1305
from ._gf2m import GF2m as GF2m, GF2mArray as GF2mArray
from ._normal import GaussianNormalBasis as GaussianNormalBasis
from ._native import (
    AESGCM as AESGCM,
    ChaCha20Poly1305 as ChaCha20Poly1305,
    Gf2Poly as Gf2Poly,
    InvalidTag as InvalidTag,
    KummerPrivateKey as KummerPrivateKey,
    KummerPublicKey as KummerPublicKey,
    XChaCha20Poly1305 as XChaCha20Poly1305,
    ghash as ghash,
    polyval as polyval,
)

__all__: list[str]
__version__: str
