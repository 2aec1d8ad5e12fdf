"""Poly1305 (RFC 8439), one-shot: a one-time authenticator."""

from __future__ import annotations

from ._native import poly1305_tag, poly1305_verify

__all__ = ["tag", "verify"]


def tag(key: bytes | bytearray | memoryview, data: bytes | bytearray | memoryview) -> bytes:
    """The 16-byte Poly1305 tag of ``data`` under the one-time 32-byte ``key``.

    Raises ``ValueError`` if the key is not 32 bytes. A key must never
    authenticate two messages.
    """
    return poly1305_tag(key, data)


def verify(
    key: bytes | bytearray | memoryview,
    data: bytes | bytearray | memoryview,
    tag: bytes | bytearray | memoryview,
) -> None:
    """Checks in constant time that ``tag`` is ``data``'s tag under ``key``.

    Raises :class:`fieldwork.InvalidTag` if it is not, ``ValueError`` if the
    key is not 32 bytes or the tag not 16.
    """
    poly1305_verify(key, data, tag)
