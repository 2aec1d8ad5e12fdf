#!/usr/bin/env python3
"""Instructions executed per call and per byte, fieldwork against its peers,
on an emulated AArch64 CPU (issue 59): there is no ARM hardware here, and
time under emulation means nothing, so rows are compared by the number of
guest instructions they execute, counted by a qemu plugin
(scripts/qemu-insn-count.c). These are instruction counts, not times: an
instruction count ignores latencies, ports and memory.

For each row of `peer-bench --count-list` (the implementations of the cases
of the groups named), peer-bench runs under `qemu-aarch64 -cpu MODEL` twice,
running the row 1 + R1 and 1 + R2 times; (count2 - count1) / (R2 - R1) is the
row's instructions per call, everything else in the process (start-up,
building the cases, the first call's one-time costs) cancelling out.

The C peers (OpenSSL's libcrypto, Debian's gf2x and NTL) need peer-bench
built with `--features system-peers` against the arm64 packages (multiarch
arm64 enabled in apt) and the cross C++ compiler:
  apt-get install -y libssl-dev:arm64 libgmp-dev:arm64 libgf2x3:arm64 libntl44:arm64 \\
      g++-aarch64-linux-gnu llvm-19
(not libgf2x-dev:arm64 / libntl-dev:arm64: they are not Multi-Arch and
would remove the amd64 ones the x86 build needs; build.rs links the
runtime libraries and uses the host's NTL headers)
  RUSTC=/usr/bin/rustc CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \\
      /usr/bin/cargo build --release -p peer-bench --features system-peers \\
      --target aarch64-unknown-linux-gnu
(build.rs links /usr/lib/aarch64-linux-gnu; qemu-aarch64 finds the arm64
.so files there through the arm64 loader, no -L needed.) `--mca` appends
the llvm-mca section of scripts/aarch64-mca.py (llvm-mca-19: LLVM 16's
neoverse-n1 is the Cortex-A57 model, 19 has Neoverse N1's own).

Usage:
  scripts/aarch64-counts.py --bin target/aarch64/aarch64-unknown-linux-gnu/release/peer-bench \\
      --cpu neoverse-n1 --group poly1305 --group ghash [--out-dir docs/benchmarks]

The whole page (docs/benchmarks/aarch64-emulated-neoverse-n1.md):
  scripts/aarch64-counts.py --bin $CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/release/peer-bench \\
      --cpu neoverse-n1 --group poly1305 --group chacha20 --group chachapoly --group ghash \\
      --group gcm --group kummer --group clmul64 --group gf2x_mul \\
      --size '16 B' --size '64 B' --size '256 B' --size '16384 B' --size 'shared secret' \\
      --size 'keygen (fixed base)' --size '64×64 bit' --size '4 words' --size '16 words' \\
      --size '1024 words' --size '4096 words' --mca --out-dir docs/benchmarks
"""

import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_plugin(out_dir):
    src = os.path.join(ROOT, "scripts", "qemu-insn-count.c")
    so = os.path.join(out_dir, "qemu-insn-count.so")
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", so, src], check=True)
    return so


def qemu_version():
    out = subprocess.run(["qemu-aarch64", "--version"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[0].strip()


def count(args, plugin, group, row, reps, log):
    cmd = ["qemu-aarch64", "-cpu", args.cpu, "-plugin", plugin, "-d", "plugin", "-D", log,
           args.bin, "--filter", group, "--count-row", str(row), "--count-reps", str(reps)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(log) as f:
        m = re.search(r"insns: (\d+)", f.read())
    if not m:
        sys.exit(f"no instruction count in {log} for {' '.join(cmd)}")
    return int(m.group(1))


def reps_for(nbytes):
    # Enough repetitions that the difference is large beside the noise of
    # nothing (the counts are exact: the other instructions cancel).
    if nbytes is None:
        return 4
    return max(2, min(64, (1 << 16) // max(nbytes, 1)))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True, help="peer-bench cross-built for aarch64")
    p.add_argument("--cpu", default="neoverse-n1", help="qemu -cpu model (default neoverse-n1)")
    p.add_argument("--group", action="append", required=True, help="a peer-bench group (see --list)")
    p.add_argument("--size", action="append", help="only sizes equal to this label (e.g. '16 KiB')")
    p.add_argument("--impl", action="append", dest="impls",
                   help="only implementations whose name contains this text (and fieldwork's best "
                        "row, the ratios' reference); for checking a few rows while iterating")
    p.add_argument("--mca", action="store_true",
                   help="append the llvm-mca section (scripts/aarch64-mca.py --markdown on --bin)")
    p.add_argument("--out-dir", help="write DIR/aarch64-emulated-MODEL.md")
    args = p.parse_args()

    tmp = tempfile.mkdtemp(prefix="aarch64-counts-")
    plugin = build_plugin(tmp)
    log = os.path.join(tmp, "log")
    env_cap = os.environ.get("FIELDWORK_MAX_ISA", "")
    sections = []
    for group in args.group:
        listing = subprocess.run(["qemu-aarch64", "-cpu", args.cpu, args.bin, "--filter", group,
                                  "--count-list"], capture_output=True, text=True, check=True)
        cases = {}
        order = []
        for line in listing.stdout.splitlines():
            idx, grp, size, nbytes, who, name = line.split("\t")
            if args.size and size not in args.size:
                continue
            if args.impls and who != "ours" and not any(t in name for t in args.impls):
                continue
            nbytes = None if nbytes == "-" else int(nbytes)
            key = (grp, size)
            if key not in cases:
                cases[key] = []
                order.append(key)
            cases[key].append((int(idx), nbytes, who, name))
        for key in order:
            rows = []
            for idx, nbytes, who, name in cases[key]:
                r = reps_for(nbytes)
                c1 = count(args, plugin, group, idx, 0, log)
                c2 = count(args, plugin, group, idx, r, log)
                per_call = (c2 - c1) / r
                rows.append((name, who, nbytes, per_call))
                print(f"{key[0]:>10} {key[1]:>10} {name:<40} {per_call:14.1f} insns/call", file=sys.stderr)
            sections.append((key, rows))

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    cmd = "scripts/aarch64-counts.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    out = []
    out.append(f"# Instruction counts on an emulated AArch64 CPU: qemu `-cpu {args.cpu}`\n")
    out.append("Generated by `scripts/aarch64-counts.py`; do not edit. **These are instruction counts "
               "under emulation, not times**: qemu's user-mode emulation of the model's instruction "
               "set, each row's guest instructions counted by a qemu plugin "
               "(`scripts/qemu-insn-count.c`). A count ignores latency, issue width, ports and "
               "memory; it is a proxy for speed until the code is timed on ARM hardware.\n")
    out.append(f"- emulator: {qemu_version()}, `-cpu {args.cpu}`")
    out.append(f"- cap: FIELDWORK_MAX_ISA={env_cap or 'unset'}")
    out.append(f"- commit: {commit}; date: {datetime.date.today().isoformat()}")
    out.append("- build: `RUSTC=/usr/bin/rustc CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc "
               "/usr/bin/cargo build --release -p peer-bench --features system-peers "
               "--target aarch64-unknown-linux-gnu` (the toolchain of `scripts/test-aarch64.sh`; the C peers "
               "from Debian's arm64 packages: `apt-get install libssl-dev:arm64 libgmp-dev:arm64 "
               "libgf2x3:arm64 libntl44:arm64 g++-aarch64-linux-gnu`)")
    out.append(f"- command: `{cmd}`\n")
    out.append("Ratio: the row's instructions ÷ fieldwork's best row (> 1: fieldwork executes fewer).\n")
    current = None
    for (grp, size), rows in sections:
        if grp != current:
            out.append(f"\n## {grp}\n")
            out.append("| size | implementation | insns/call | insns/byte | ratio |")
            out.append("|---|---|---:|---:|---:|")
            current = grp
        ours = [r for r in rows if r[1] == "ours"]
        ref = min((r[3] for r in ours), default=None)
        for name, who, nbytes, per_call in rows:
            per_byte = f"{per_call / nbytes:.2f}" if nbytes else "–"
            ratio = f"{per_call / ref:.2f}" if ref else "–"
            out.append(f"| {size} | {name} | {per_call:,.0f} | {per_byte} | {ratio} |")
    page = "\n".join(out) + "\n"
    if args.mca:
        page += subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "aarch64-mca.py"),
                                "--bin", args.bin, "--markdown"],
                               capture_output=True, text=True, check=True).stdout
    if args.out_dir:
        path = os.path.join(args.out_dir, f"aarch64-emulated-{args.cpu}.md")
        with open(path, "w") as f:
            f.write(page)
        print(f"wrote {path}", file=sys.stderr)
    else:
        sys.stdout.write(page)


if __name__ == "__main__":
    main()
