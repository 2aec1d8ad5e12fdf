#!/usr/bin/env python3
"""Static llvm-mca estimates of the hot loops on the aarch64 page (issue 59):
fieldwork's kernels and the peers' where their loop can be found, each loop
cut out of the aarch64 disassembly and given to llvm-mca for a Neoverse
model. These are **static estimates**, not measurements: llvm-mca assumes
every load hits L1, every branch is predicted, and the loop runs forever in
a steady state; its model of the core is only as good as LLVM's scheduling
tables (which the page names).

Each row of LOOPS names a function (a substring of its demangled name in the
peer-bench binary, or an exact symbol of the arm64 `libcrypto.a` of Debian's
`libssl-dev:arm64`), how its loop is found, and what one iteration does:

- `loop:REGEX`: among the function's innermost loops (a backward branch
  with no other backward branch inside), the one with the most instructions
  whose mnemonic matches REGEX (e.g. `pmull` for a GHASH loop, `aese` for an
  AES loop); the loop is the instructions from the branch target to the
  branch.
- `outer:REGEX`: the same among all loops, innermost or not (for a loop
  whose body has a short inner loop, e.g. a per-block loop around the
  ChaCha20 rounds: the rounds are then counted once, as llvm-mca sees a
  straight sequence).
- `REGEX=N` (after `loop:` or `outer:`): only loops with exactly N
  matching instructions (one monomorph, e.g. AES-128's 80 `aese` of 8
  blocks); `@most` / `@least` after it: of the copies (monomorphs) with
  such a loop, the one with the most / fewest matching instructions in the
  whole function (AES-GCM: encryption's copy runs its first group's AES
  before the loop, so `aese=80@most` is the encryption loop and
  `aese=80@least` the decryption loop).
- `whole`: the function as a straight line (a kernel with no loop, e.g.
  gf2x's 4-word product); its returns and calls counted as instructions.

Usage (after the aarch64 peer-bench build with `--features system-peers`,
see scripts/aarch64-counts.py):
  scripts/aarch64-mca.py --bin $CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/release/peer-bench \\
      [--mcpu neoverse-n1 --mcpu neoverse-v1] [--show NAME] [--markdown]
`--markdown` prints the page's section (aarch64-counts.py --mca includes it).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

LIBCRYPTO_A = "/usr/lib/aarch64-linux-gnu/libcrypto.a"
OBJDUMP = "aarch64-linux-gnu-objdump"
NM = "aarch64-linux-gnu-nm"

# (group, implementation, where, symbol, how, one iteration)
# where: "bin" (the peer-bench binary: symbol is a substring of the
# demangled name, the shortest match taken) or "libcrypto" (exact name).
LOOPS = [
    ("ghash", "fieldwork (pmull, neon)", "bin", "fieldwork::ghash::pmull::neon::update", "loop:pmull", (8, "16 B block", "8 blocks, one reduction")),
    ("ghash", "fieldwork (pmull-eor3)", "bin", "fieldwork::ghash::pmull::eor3::update", "loop:pmull", (8, "16 B block", "8 blocks, one reduction")),
    ("ghash", "OpenSSL gcm_ghash_v8_4x", "libcrypto", "gcm_ghash_v8_4x", "loop:pmull", (4, "16 B block", "4 blocks")),
    ("ghash", "OpenSSL gcm_ghash_v8", "libcrypto", "gcm_ghash_v8", "loop:pmull", (2, "16 B block", "2 blocks")),
    ("gcm", "fieldwork (aes-pmull) crypt, encrypt", "bin", "fieldwork::gcm::armv8::crypt", "loop:aese=80@most", (8, "16 B block", "8 blocks stitched AES-128 + GHASH (one reduction)")),
    ("gcm", "fieldwork (aes-pmull) crypt, decrypt", "bin", "fieldwork::gcm::armv8::crypt", "loop:aese=80@least", (8, "16 B block", "8 blocks stitched AES-128 + GHASH (one reduction)")),
    ("gcm", "OpenSSL aes_gcm_enc_128_kernel", "libcrypto", "aes_gcm_enc_128_kernel", "loop:aese", (4, "16 B block", "4 blocks, stitched AES-128 + GHASH")),
    ("gcm", "OpenSSL aes_gcm_dec_128_kernel", "libcrypto", "aes_gcm_dec_128_kernel", "loop:aese", (4, "16 B block", "4 blocks, stitched AES-128 + GHASH")),
    ("gcm", "fieldwork (aes-pmull) crypt, encrypt", "bin", "fieldwork::gcm::armv8::crypt", "loop:aese=112@most", (8, "16 B block", "8 blocks stitched AES-256 + GHASH (one reduction)")),
    ("gcm", "OpenSSL aes_gcm_enc_256_kernel", "libcrypto", "aes_gcm_enc_256_kernel", "loop:aese", (4, "16 B block", "4 blocks, stitched AES-256 + GHASH")),
    ("gcm", "ring aes_gcm_enc_kernel", "bin", "ring_core_0_17_14__aes_gcm_enc_kernel", "loop:aese", (4, "16 B block", "4 blocks stitched; all 14 rounds in the body (AES-128 branches past 4)")),
    ("chacha20", "fieldwork (neon) xor_long", "bin", "fieldwork::chacha20::neon::xor_long", "loop:add", (0.4, "64 B block", "one double round of 4 blocks (×10 per block)")),
    ("chacha20", "OpenSSL ChaCha20_neon", "libcrypto", "ChaCha20_neon", "loop:add", (0.5, "64 B block", "one double round of 4 NEON + 1 scalar blocks")),
    ("chacha20", "OpenSSL ChaCha20_512_neon", "libcrypto", "ChaCha20_512_neon", "loop:add", (0.8, "64 B block", "one double round of 6 NEON + 2 scalar blocks")),
    ("chachapoly", "fieldwork (neon-stitched) seal_neon", "bin", "fieldwork::chachapoly::neon::seal_neon", "loop:add", (0.8, "64 B block", "two double rounds of 4 blocks with 4 Poly1305 blocks between (4 such iterations of a 256 B group's 10 double rounds; the other 2 are the bare rounds)")),
    ("chachapoly", "fieldwork (neon-stitched) open_neon", "bin", "fieldwork::chachapoly::neon::open_neon", "loop:add", (0.8, "64 B block", "two double rounds of 4 blocks with 4 Poly1305 blocks between (4 such iterations of a 256 B group's 10 double rounds; the other 2 are the bare rounds)")),
    ("chachapoly", "ring chacha20_poly1305_seal", "bin", "ring_core_0_17_14__chacha20_poly1305_seal", "loop:add", (0.5, "64 B block", "one double round of 5 blocks (Poly1305 in other loops)")),
    ("poly1305", "fieldwork (neon) blocks_neon", "bin", "fieldwork::poly1305::neon::blocks_neon", "loop:umlal", (4, "16 B block", "4 blocks")),
    ("poly1305", "OpenSSL poly1305_blocks_neon", "libcrypto", "poly1305_blocks_neon", "loop:umlal", (4, "16 B block", "4 blocks")),
    ("poly1305", "OpenSSL poly1305_blocks (scalar)", "libcrypto", "poly1305_blocks", "loop:mul", (1, "16 B block", "1 block")),
    ("kummer", "fieldwork (neon) ladder", "bin", "fieldwork::kummer::neon::tf::ladder", "loop:mul", (1, "ladder step", "one ladder step (255 per shared secret)")),
    ("gf2x", "fieldwork (pmull) mul4", "bin", "fieldwork::gf2x::pmull::tf::mul4", "whole", (1, "product", "the whole 4×4-word product")),
]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def find_symbols(binary, want, cache={}):
    """[(start, stop)] of the shortest-named defined text symbols whose
    demangled name contains `want` (several for a generic function's
    monomorphs, which demangle alike)."""
    if binary not in cache:
        syms = []
        for line in run([NM, "-C", "-S", "--defined-only", binary]).splitlines():
            parts = line.split(None, 3)
            if len(parts) == 4 and parts[2] in "tT":
                syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
        cache[binary] = syms
    hits = [s for s in cache[binary] if want in s[2] and s[1] > 0]
    if not hits:
        return None
    shortest = min(len(s[2]) for s in hits)
    return sorted({(a, a + n) for a, n, name in hits if len(name) == shortest})


INSN = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{8}\s+)?(\S+)\s*(.*)$")


def disassemble(where, binary, symbol):
    """[[(address, mnemonic, operands)]]: the function's instructions, one
    list per copy (monomorph) of it."""
    if where == "libcrypto":
        return [parse(run([OBJDUMP, "-d", "--no-show-raw-insn", f"--disassemble={symbol}", LIBCRYPTO_A]))]
    return [parse(run([OBJDUMP, "-d", "--no-show-raw-insn", f"--start-address={a:#x}",
                       f"--stop-address={b:#x}", binary]))
            for a, b in find_symbols(binary, symbol)]


def parse(out):
    insns = []
    for line in out.splitlines():
        m = INSN.match(line)
        if m and not m.group(2).startswith("."):
            ops = m.group(3).split("//")[0].strip()
            insns.append((int(m.group(1), 16), m.group(2), ops))
    return insns


BRANCH = re.compile(r"^(b|b\.\w+|cbn?z|tbn?z)$")
TARGET = re.compile(r"\b([0-9a-f]+) <[^>]*>")


def loops(insns):
    """[(first index, last index)] of each backward branch's loop."""
    index = {a: i for i, (a, _, _) in enumerate(insns)}
    found = []
    for i, (addr, mn, ops) in enumerate(insns):
        if BRANCH.match(mn):
            m = TARGET.search(ops)
            if m and int(m.group(1), 16) <= addr and int(m.group(1), 16) in index:
                found.append((index[int(m.group(1), 16)], i))
    return found


def pick(copies, how):
    """The loop `how` names among the function's copies (see the module
    docs: `REGEX=N` and `@most` / `@least` pick one monomorph's loop)."""
    if how == "whole":
        return min(copies, key=len) if copies else []
    kind, regex = how.split(":", 1)
    regex, _, want = regex.partition("=")
    want, _, copy = want.partition("@")
    key = re.compile(regex + "$")
    cands = []
    for insns in copies:
        spans = loops(insns)
        if kind == "loop":
            spans = [s for s in spans
                     if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
        total = sum(1 for _, mn, _ in insns if key.match(mn))
        for a, b in spans:
            body = insns[a:b + 1]
            cands.append((sum(1 for _, mn, _ in body if key.match(mn)), body, total))
    if want:
        cands = [c for c in cands if c[0] == int(want)]
    if copy and cands:
        best = (max if copy == "most" else min)(c[2] for c in cands)
        cands = [c for c in cands if c[2] == best]
    if not cands:
        return []
    return max(cands, key=lambda c: (c[0], -len(c[1])))[1]


def to_asm(body):
    """The loop as llvm-mc assembly: addresses in operands become a label at
    the loop's top (llvm-mca only needs them to parse)."""
    lines = [".Ltop:"]
    for _, mn, ops in body:
        ops = TARGET.sub(".Ltop", ops)
        ops = re.sub(r"\b0x[0-9a-f]+ <[^>]*>", ".Ltop", ops)
        lines.append(f"\t{mn} {ops}".rstrip())
    return "\n".join(lines) + "\n"


def mca(tool, mcpu, asm):
    out = subprocess.run([tool, "-mtriple=aarch64", f"-mcpu={mcpu}",
                          "-mattr=+neon,+aes,+sha2,+sha3,+crc", "-iterations=200"],
                         input=asm, capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[:3]
    cyc = int(re.search(r"Total Cycles:\s+(\d+)", out.stdout).group(1))
    it = int(re.search(r"Iterations:\s+(\d+)", out.stdout).group(1))
    rt = float(re.search(r"Block RThroughput:\s+([\d.]+)", out.stdout).group(1))
    res = re.search(r"Resources:\n\[[\d.]+\]\s+-\s+(\S+)", out.stdout)
    model = re.sub(r"Unit.*", "Unit", res.group(1)) if res else "?"
    return (cyc / it, rt, model), None


def find_tool(name):
    for t in [name] if name else ["llvm-mca-19", "llvm-mca-18", "llvm-mca-17", "llvm-mca-16", "llvm-mca"]:
        if shutil.which(t):
            return t
    sys.exit("no llvm-mca: apt-get install llvm-19 (or llvm-16)")


def tool_version(tool):
    lines = run([tool, "--version"]).splitlines() if tool else []
    return next((l.strip() for l in lines if "version" in l), "?")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="peer-bench cross-built for aarch64 (with system-peers)")
    p.add_argument("--mcpu", action="append", help="llvm-mca -mcpu (default neoverse-n1 and neoverse-v1)")
    p.add_argument("--mca", help="the llvm-mca to run (default: the newest installed)")
    p.add_argument("--show", help="print the extracted loop of rows whose implementation contains this")
    p.add_argument("--markdown", action="store_true", help="print the page's section")
    args = p.parse_args()
    tool = find_tool(args.mca)
    cpus = args.mcpu or ["neoverse-n1", "neoverse-v1"]
    rows = []
    for group, name, where, symbol, how, unit in LOOPS:
        copies = disassemble(where, args.bin, symbol) if where == "bin" or os.path.exists(LIBCRYPTO_A) else []
        body = pick(copies, how) if copies else []
        if args.show and args.show in name:
            print(f"## {name}: {len(body)} instructions ({len(copies)} copies)\n{to_asm(body)}")
        est = {}
        for c in cpus if body else []:
            r, err = mca(tool, c, to_asm(body))
            est[c] = r if r else err
        rows.append((group, name, symbol, how, unit, len(body), est))
    if args.show:
        return
    print(markdown(rows, cpus, tool) if args.markdown else text(rows, cpus))


def text(rows, cpus):
    out = []
    for group, name, _, how, unit, n, est in rows:
        cells = " ".join(f"{c}: {e[0]:.1f} c/iter, {e[0] / unit[0]:.1f} c/{unit[1]} ({e[2]})"
                         if isinstance(e, tuple) else f"{c}: {e}" for c, e in est.items())
        out.append(f"{group:10} {name:34} {how:12} {n:4} insns/iter  {cells}" if n else
                   f"{group:10} {name:34} loop not found")
    return "\n".join(out)


def markdown(rows, cpus, tool):
    """The page's section: one row per loop."""
    out = ["\n## Static estimates: llvm-mca on the hot loops\n",
           f"**These are static estimates, not measurements.** Each loop is cut out of the aarch64 "
           f"disassembly by `scripts/aarch64-mca.py` (its table names each loop's function and how it "
           f"is found: the innermost backward branch with the most instructions of the mnemonic shown) "
           f"and given to `{tool}` ({tool_version(tool)}); llvm-mca assumes L1 hits, predicted branches "
           f"and a steady state, and is only as good as LLVM's scheduling model of the core (named by "
           f"its resource prefix, e.g. `N1Unit`). Per unit = cycles per iteration ÷ the units one "
           f"iteration covers (ChaCha20: 10 double rounds per block, the rest of the block's work not "
           f"counted). fieldwork's loops are its default kernels at qemu `-cpu neoverse-n1` except "
           f"`pmull-eor3` (SHA3, not on N1).\n",
           "| group | loop | one iteration | insns/iter |"
           + "".join(f" {c} cycles/iter | {c} per unit |" for c in cpus),
           "|---|---|---|---:|" + "---:|---:|" * len(cpus)]
    for group, name, symbol, how, unit, n, est in rows:
        label = f"{name} (`{symbol}`, {how})"
        if not n:
            out.append(f"| {group} | {label} | {unit[2]} | loop not found |" + " – | – |" * len(cpus))
            continue
        cells = ""
        for c in cpus:
            e = est[c]
            cells += (f" {e[0]:.1f} | {e[0] / unit[0]:.1f} c/{unit[1]} |" if isinstance(e, tuple)
                      else " mca error | – |")
        out.append(f"| {group} | {label} | {unit[2]} | {n} |{cells}")
    models = sorted({e[2] for r in rows for e in r[6].values() if isinstance(e, tuple)})
    out.append(f"\nScheduling models used (llvm-mca's first resource per -mcpu): {', '.join(models)}.")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
