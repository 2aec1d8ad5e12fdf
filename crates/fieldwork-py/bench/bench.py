#!/usr/bin/env python3
"""Benchmarks of the fieldwork Python package against galois and
pyca/cryptography; prints (or writes with --out) a markdown page.

    python crates/fieldwork-py/bench/bench.py --out docs/benchmarks/python-<cpu>.md

- GF(2^m) batch multiply and invert of 10^5 elements (m = 163, 233, 571),
  fieldwork against galois. galois' big-field arithmetic works on Python
  ints in object arrays, and its inversion is very slow for these degrees,
  so galois runs on a sample (sizes in the table) and both sides are given
  per element.
- AEAD encrypt of 1 KiB and 16 KiB against pyca/cryptography, one Python
  call per message (the call overhead included), and the per-call overhead
  alone (an empty message, no associated data).

Every figure is the best of several repetitions (time.perf_counter).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import fieldwork
from fieldwork import GF2m

REPO = Path(__file__).resolve().parents[3]


def cpu() -> tuple[str, str]:
    """(description, slug) from /proc/cpuinfo: model name, vendor, family,
    model."""
    info: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if ":" in line:
                k, v = (s.strip() for s in line.split(":", 1))
                info.setdefault(k, v)
    except OSError:
        pass
    name = info.get("model name", platform.processor() or "unknown CPU")
    fam, mod = info.get("cpu family", "?"), info.get("model", "?")
    vendor = info.get("vendor_id", "")
    words = re.sub(r"\(R\)|\(TM\)|CPU|Processor|@.*", "", name).split()
    slug = "-".join(w.lower() for w in words[:2] if re.match(r"^[A-Za-z]", w))
    return f"{name} ({vendor} family {fam} model {mod})", f"{slug}-f{fam}m{mod}"


def commit() -> str:
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def best(fn, repeat: int, number: int = 1) -> float:
    """The best time of one call of fn over `repeat` runs of `number` calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def fmt_time(s: float) -> str:
    for unit, f in (("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if s * f >= 1:
            return f"{s * f:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


NIST = {163: [163, 7, 6, 3, 0], 233: [233, 74, 0], 571: [571, 10, 5, 2, 0]}


def bench_fields(n: int, galois_mul_n: int, galois_inv_n: int, repeat: int) -> list[str]:
    try:
        import galois
    except ImportError:
        galois = None
    rows = [
        f"| m | operation | fieldwork, {n:,} elements | fieldwork per element | galois sample | galois per element | speed-up |",
        "|---|---|---|---|---|---|---|",
    ]
    rng = np.random.default_rng(1)
    for m in (163, 233, 571):
        F = GF2m(m)
        a = F.random(n, rng=rng)
        b = F.from_ints([v | 1 for v in F.random(n, rng=rng).to_ints()])
        ours = {
            "multiply": best(lambda: a * b, repeat),
            "invert": best(lambda: b.invert(), repeat),
        }
        theirs: dict[str, tuple[int, float]] = {}
        if galois is not None:
            G = F.galois_field()
            gm = min(galois_mul_n, n)
            ga, gb = a[:gm].to_galois(), b[:gm].to_galois()
            theirs["multiply"] = (gm, best(lambda: ga * gb, max(1, repeat // 2)) / gm)
            gi = min(galois_inv_n, n)
            gbi = b[:gi].to_galois()
            theirs["invert"] = (gi, best(lambda: gbi**-1, 1) / gi)
            assert G is not None
        for op, t in ours.items():
            per = t / n
            if op in theirs:
                gn, gper = theirs[op]
                rows.append(
                    f"| {m} | {op} | {fmt_time(t)} | {fmt_time(per)} | {gn} | "
                    f"{fmt_time(gper)} | {gper / per:,.0f}× |"
                )
            else:
                rows.append(f"| {m} | {op} | {fmt_time(t)} | {fmt_time(per)} | – | galois not installed | – |")
    return rows


def bench_aeads(repeat: int) -> tuple[list[str], list[str]]:
    try:
        from cryptography.hazmat.primitives.ciphers import aead as pyca
    except ImportError:
        pyca = None
    key16, key32 = os.urandom(16), os.urandom(32)
    nonce = os.urandom(12)
    cases = [
        ("AES-128-GCM", fieldwork.AESGCM(key16), pyca and pyca.AESGCM(key16)),
        ("AES-256-GCM", fieldwork.AESGCM(key32), pyca and pyca.AESGCM(key32)),
        ("ChaCha20-Poly1305", fieldwork.ChaCha20Poly1305(key32), pyca and pyca.ChaCha20Poly1305(key32)),
    ]
    rows = [
        "| AEAD | message | fieldwork per call | fieldwork throughput | pyca per call | pyca throughput | speed-up |",
        "|---|---|---|---|---|---|---|",
    ]
    over = [
        "| AEAD | fieldwork | pyca/cryptography |",
        "|---|---|---|",
    ]
    for name, ours, theirs in cases:
        for size in (1024, 16384):
            data = os.urandom(size)
            aad = os.urandom(16)
            number = 20000 if size == 1024 else 4000
            t = best(lambda: ours.encrypt(nonce, data, aad), repeat, number)
            line = f"| {name} | {size // 1024} KiB | {fmt_time(t)} | {size / t / 1e9:.2f} GB/s |"
            if theirs:
                u = best(lambda: theirs.encrypt(nonce, data, aad), repeat, number)
                line += f" {fmt_time(u)} | {size / u / 1e9:.2f} GB/s | {u / t:.2f}× |"
            else:
                line += " – | – | – |"
            rows.append(line)
        empty = b""
        t = best(lambda: ours.encrypt(nonce, empty, None), repeat, 50000)
        u = best(lambda: theirs.encrypt(nonce, empty, None), repeat, 50000) if theirs else None
        over.append(f"| {name} | {fmt_time(t)} | {fmt_time(u) if u else '–'} |")
    return rows, over


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="write the page here instead of stdout")
    ap.add_argument("-n", type=int, default=100_000, help="field elements per batch (10^5)")
    ap.add_argument("--galois-mul", type=int, default=20_000, help="galois multiply sample size")
    ap.add_argument("--galois-inv", type=int, default=200, help="galois invert sample size")
    ap.add_argument("--repeat", type=int, default=5, help="repetitions (the best is kept)")
    args = ap.parse_args()

    cpu_desc, slug = cpu()
    try:
        load = Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        load = "unknown"
    cmd = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:])
    versions = [f"numpy {np.__version__}"]
    for mod in ("galois", "cryptography"):
        try:
            versions.append(f"{mod} {__import__(mod).__version__}")
        except ImportError:
            versions.append(f"{mod} not installed")
    fields = bench_fields(args.n, args.galois_mul, args.galois_inv, args.repeat)
    aeads, overhead = bench_aeads(args.repeat)
    lines = [
        f"# fieldwork Python package: {cpu_desc.split(' (')[0]}",
        "",
        "*Generated by `crates/fieldwork-py/bench/bench.py`; do not edit by hand: run the command below again on this CPU instead.*",
        "",
        f"- command: `{cmd}` (from the repository root, in a venv with `pip install ./crates/fieldwork-py numpy galois cryptography`)",
        f"- CPU: {cpu_desc} (page slug `{slug}`)",
        f"- commit: {commit()}",
        f"- date: {datetime.date.today().isoformat()}",
        f"- Python {platform.python_version()}, {', '.join(versions)}",
        f"- load average when started: {load} on {os.cpu_count()} logical CPUs (a shared machine: figures are best-of, not medians)",
        "- each figure is the best of the repetitions; one Python call per batch or message, call overhead included",
        "",
        "## GF(2^m) batches: fieldwork against galois",
        "",
        f"fieldwork on {args.n:,} elements (numpy uint64 words, the batch kernels, the GIL released); "
        "galois on the sample given (its arithmetic on Python ints is linear in the count, "
        "and its inversion too slow for 10^5 elements at these degrees), compared per element. "
        "The inverse batch is Montgomery's trick: one inversion and three products per element.",
        "",
        *fields,
        "",
        "## AEAD encryption: fieldwork against pyca/cryptography",
        "",
        "`encrypt(nonce, data, associated_data)` with 16 bytes of associated data, one call per message.",
        "",
        *aeads,
        "",
        "Per-call overhead: `encrypt(nonce, b\"\", None)`, an empty message (argument handling, the tag of the empty message, the 16-byte output object):",
        "",
        *overhead,
        "",
    ]
    page = "\n".join(lines)
    if args.out:
        args.out.write_text(page)
        print(f"wrote {args.out}")
    else:
        print(page)


if __name__ == "__main__":
    main()
