"""Shared helpers for the fieldwork Python tests."""

from pathlib import Path

import pytest

#: The Rust crate's test data (Kummer known answers, GHASH/POLYVAL vectors).
RUST_DATA = Path(__file__).resolve().parents[2] / "fieldwork" / "tests" / "data"
#: This package's test data (Wycheproof AEAD vectors).
DATA = Path(__file__).resolve().parent / "data"


def rust_data(name: str) -> Path:
    """A file of the Rust tests' data directory (skip if run outside the repo)."""
    path = RUST_DATA / name
    if not path.exists():
        pytest.skip(f"{path} not found: run the tests from a fieldwork checkout")
    return path
