#!/usr/bin/env python3
"""Compares two peer-bench pages of the same CPU and lists the ratios that moved.

Usage:
    scripts/page-diff.py OLD NEW [--threshold 0.05] [--all]

OLD and NEW are page files, or `REV:PATH` for a page as committed at a git
revision (for example `HEAD~5:docs/benchmarks/amd-epyc-f25m1.md`).

Every table of a page has fieldwork's reference implementation in its first
column and, in the others, that column's time ÷ the first column's (the
ratio in brackets). A ratio is a same-process comparison, so it survives the
core-clock differences between runs that move the cycle figures by a few per
cent; this script compares those ratios cell by cell and prints every one that
fell (fieldwork lost ground) or rose by more than the threshold, worst first.
Before them it lists the reference column's own cycles per call that moved by
more than the threshold: a ratio that moves while ours stays put is the peer's
noise (gf2x's 9-word product, for one, is bimodal on Zen 3).
Columns that are other fieldwork backends are printed too: a backend that
became faster than the chosen one is a dispatch question.

Why it exists: a kernel change in 28490f5 slowed ChaCha20 alone by 18 %, and
the regenerated pages showed it (1.48× → 1.33× RustCrypto) for two sessions
before anyone read those rows.
"""

import re
import subprocess
import sys


def read(spec):
    if ":" in spec and not spec.startswith("/"):
        rev, path = spec.split(":", 1)
        return subprocess.run(
            ["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True
        ).stdout
    with open(spec, encoding="utf-8") as f:
        return f.read()


RATIO = re.compile(r"\(([0-9.]+)×\)")
SCALE = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


def cost(cell):
    """The cycles per call of a first-column cell (`1.12 · 18 415`, `140`,
    `1.08 M`), or None."""
    part = cell.split("·")[-1].strip()
    m = re.fullmatch(r"([0-9][0-9 ]*(?:\.[0-9]+)?)\s*([kKMG]?)", part)
    if not m:
        return None
    return float(m.group(1).replace(" ", "")) * SCALE[m.group(2)]


def tables(text):
    """{(table title, row label, column name): ratio}, and {(table title,
    row label, first column name): cycles per call}."""
    cells, own = {}, {}
    title, header = None, None
    for line in text.splitlines():
        if line.startswith("**"):
            title = line.split("**")[1]
            header = None
            continue
        if not line.startswith("|") or title is None:
            continue
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if header is None:
            header = parts
            continue
        if set(parts[0]) <= set("-: "):
            continue
        if len(header) > 1 and len(parts) > 1:
            c = cost(parts[1])
            if c:
                own[(title, parts[0], header[1])] = c
        for name, cell in zip(header[1:], parts[1:]):
            m = RATIO.search(cell)
            if m:
                cells[(title, parts[0], name)] = float(m.group(1))
    return cells, own


def listed(old, new, threshold, show_all, sign, words, fmt):
    """Prints the cells of both pages that moved by more than `threshold`,
    worst first (`sign` 1: a fall is worse, -1: a rise is); returns them."""
    moved = []
    for key in sorted(old.keys() & new.keys()):
        change = new[key] / old[key] - 1
        if show_all or abs(change) > threshold:
            moved.append((sign * change, change, key))
    moved.sort()
    for worse, change, (title, row, col) in moved:
        word = words[0] if worse < 0 else words[1]
        print(
            f"{change * 100:+6.1f} %  {word:6}  {title} · {row} · {col}: "
            f"{fmt.format(old[(title, row, col)])} → {fmt.format(new[(title, row, col)])}"
        )
    return moved


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    threshold = 0.05
    show_all = "--all" in argv
    for i, a in enumerate(argv):
        if a == "--threshold" and i + 1 < len(argv):
            threshold = float(argv[i + 1])
            args.remove(argv[i + 1])
    if len(args) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    (old, old_own), (new, new_own) = tables(read(args[0])), tables(read(args[1]))
    print("fieldwork's reference column, cycles per call (clock estimates differ by a few % between runs):")
    # A rise in our own cycles is bad, a rise in a ratio is good: sort and
    # name each so that the worst comes first.
    listed(old_own, new_own, threshold, show_all, -1, ("slower", "faster"), "{:.0f}")
    print()
    print("ratios (column ÷ fieldwork's reference; a fall is ground lost):")
    moved = listed(old, new, threshold, show_all, 1, ("lost", "gained"), "{:.2f}×")
    only = len(old.keys() ^ new.keys())
    print(
        f"{len(moved)} of {len(old.keys() & new.keys())} shared ratios moved by more than "
        f"{threshold * 100:.0f} %; {only} cells are in one page only",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
