#!/usr/bin/env python3
"""Constant-time check of the AArch64 kernels by reading their disassembly
(issue 59: "ct-check's idea carries over where it can").

ct-check (scripts/ct-check.sh) runs the x86 backends under valgrind with
their secrets marked undefined: any branch or address computed from a
secret is reported. There is no valgrind for an emulated AArch64 here, so
this script does the same reasoning statically, on the machine code the
compiler produced for each AArch64 kernel:

- **Where secrets live.** In these kernels (AES, GHASH/POLYVAL, AES-GCM,
  AES-GCM-SIV, ChaCha20, Poly1305's NEON path, Kummer, gf2x, GF(2^m) on
  PMULL) keys, powers, states and text are processed in the vector
  registers. Every value moved from a vector register into a general one
  (`umov`, `smov`, `fmov x/w ← d/s`, `mov x, v.d[i]`) or reloaded into a
  general register from a stack slot a vector register was stored to, is
  tainted.
- **Propagation.** A forward may-taint analysis over each function's
  control-flow graph (basic blocks split at the branch targets, joined by
  union, iterated to a fixed point, so a taint carried round a loop is
  seen): an instruction's general destination is tainted when any general
  source is (or the flags, for `csel`/`cset`/`adc`…); flag-setting
  instructions (`cmp`, `tst`, `subs`, `ccmp`…) taint the flags; a call
  (`bl`) taints its results `x0`, `x1` when an argument was tainted
  (`x0`–`x7` written since the block began or the last call: the callee's
  arity is not known, so an argument set up in an earlier block is missed).
- **What is a finding.** A tainted register in any memory operand (base or
  index of a load, store or prefetch, vector or general), a conditional
  branch on tainted flags, `cbz`/`cbnz`/`tbz`/`tbnz` on a tainted register,
  or an indirect branch or call through one.

Limits, said plainly: a general-register load from memory other than a
vector spill slot is not tainted (pointers and lengths are loaded that way
and cannot be told from text words without types); functions outside the
kernels' modules (e.g. a generic helper LLVM did not inline) are not
checked unless they match `--module`; the portable backends are covered by
ct-check under valgrind on x86 (same source, another compiler back end).

`--self-test` runs the analysis on small hand-written functions, six
leaky and three clean, so that the check is shown to be able to fail.

Usage: scripts/ct-aarch64.py [--self-test] [--objdump CMD] BINARY...
Exit status 1 on any finding or if a required module has no function.
"""

import argparse
import re
import subprocess
import sys

# The AArch64 kernels' modules (each must contribute at least one function
# across the binaries given, so a renamed module cannot silently drop out).
MODULES = [
    "aes::armv8",
    "gcm::armv8",
    "gcm_siv::armv8",
    "ghash::pmull",
    "chacha20::neon",
    "chacha20::sve2",
    "chachapoly::neon",
    "poly1305::neon",
    "kummer::neon",
    "gf2x::pmull",
    "gf2m::pmull",
]

GPR = re.compile(r"^(?:[xw](\d+)|xzr|wzr|sp|wsp)$")
VREG = re.compile(r"^(?:v\d+(?:\.\w+)?(?:\[\d+\])?|[qdsbh]\d+)$")

BRANCH_COND = re.compile(r"^b\.\w+$")
FLAG_SET = {"cmp", "cmn", "tst", "ccmp", "ccmn", "adds", "subs", "ands", "bics", "negs", "adcs", "sbcs", "ngcs"}
FLAG_READ = {
    "csel", "csinc", "csinv", "csneg", "cset", "csetm", "cinc", "cinv", "cneg",
    "adc", "adcs", "sbc", "sbcs", "ngc", "ngcs", "ccmp", "ccmn",
}
NO_GPR_DEST = {"str", "stp", "strb", "strh", "stur", "sturb", "sturh", "stlr", "stxr", "st1", "st2", "st3", "st4",
               "prfm", "prfum", "cmp", "cmn", "tst", "ccmp", "ccmn", "b", "bl", "br", "blr", "ret", "cbz", "cbnz",
               "tbz", "tbnz", "nop", "hint", "dmb", "dsb", "isb", "brk", "udf", "paciasp", "autiasp", "bti"}
VEC_TO_GPR = {"umov", "smov", "fmov", "mov", "fcvtzu", "fcvtzs", "fcvtas", "fcvtau", "fcvtms", "fcvtmu", "fcvtns",
              "fcvtnu", "fcvtps", "fcvtpu"}


def gpr(op):
    """The canonical name (x0…x30, sp, xzr) of a general register operand, or None."""
    op = op.strip()
    m = GPR.match(op)
    if not m:
        return None
    if m.group(1) is not None:
        return "x" + m.group(1)
    return "sp" if op in ("sp", "wsp") else "xzr"


def split_operands(s):
    """Operands at top level (commas inside [] or {} do not split)."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def mem_regs(operands):
    """General registers used in a memory operand ([base, index …])."""
    regs = []
    for op in operands:
        if op.startswith("["):
            inner = op.strip("[]!").split(",")
            for part in inner:
                part = part.strip().split()[0] if part.strip() else ""
                r = gpr(part)
                if r and r not in ("sp", "xzr"):
                    regs.append(r)
    return regs


def imm(text):
    """The value of an immediate operand ("#0x30", "#-16", "#0x1, lsl #12")."""
    m = re.match(r"^#(-?(?:0x[0-9a-f]+|\d+))(?:\s*,?\s*lsl\s*#(\d+))?$", text.strip())
    if not m:
        return None
    v = int(m.group(1), 0)
    return v << int(m.group(2)) if m.group(2) else v


def sp_slot(st, operands):
    """The stack address of a memory operand on sp or x29, as an offset from
    the stack pointer at the function's entry (None when it is not a stack
    operand or the frame is not known), applying a pre- or post-index
    writeback of sp to the state."""
    for k, op in enumerate(operands):
        if not op.startswith("["):
            continue
        inner = [p.strip() for p in op.rstrip("!").strip("[]").split(",")]
        if not inner or inner[0] not in ("sp", "x29"):
            return None
        off = 0
        if len(inner) > 1:
            off = imm(",".join(inner[1:]))
            if off is None:
                return None
        base = st.sp if inner[0] == "sp" else st.fp
        post = imm(operands[k + 1]) if k + 1 < len(operands) else None
        if base is None:
            addr = None
        elif op.endswith("!"):
            addr = base + off
        else:
            addr = base + off
        if inner[0] == "sp" and st.sp is not None:
            if op.endswith("!"):
                st.sp += off
            elif post is not None:
                addr = st.sp
                st.sp += post
        return addr
    return None


def frame(st, mn, operands):
    """Follows writes of sp and x29 (the frame pointer); True if handled."""
    if not operands or gpr(operands[0]) not in ("sp", "x29") or operands[0].startswith("w"):
        return False
    dest = operands[0]
    src = operands[1] if len(operands) > 1 else ""
    base = st.sp if src == "sp" else st.fp if src == "x29" else None
    value = None
    if mn == "mov" and src in ("sp", "x29"):
        value = base
    elif mn in ("add", "sub") and src in ("sp", "x29") and len(operands) > 2:
        k = imm(",".join(operands[2:]))
        if base is not None and k is not None:
            value = base + k if mn == "add" else base - k
    if dest == "sp":
        st.sp = value
    else:
        st.fp = value
    return True


def vec_width(op):
    op = op.strip()
    if op.startswith("q"):
        return 16
    if op.startswith("d"):
        return 8
    if op.startswith("s"):
        return 4
    return 16


class State:
    __slots__ = ("regs", "flags", "slots", "sp", "fp", "recent")

    def __init__(self, regs=None, flags=False, slots=None, sp=0, fp=None):
        self.regs = set(regs or ())
        self.flags = flags
        self.slots = set(slots or ())
        self.sp = sp
        self.fp = fp
        self.recent = set()

    def copy(self):
        return State(self.regs, self.flags, self.slots, self.sp, self.fp)

    def union(self, other, first):
        """Joins `other` into this block's entry state; `first` when this
        block had no entry state yet (its frame is then other's)."""
        changed = False
        if first:
            self.sp, self.fp = other.sp, other.fp
            changed = True
        else:
            if self.sp != other.sp and self.sp is not None:
                self.sp = None
                changed = True
            if self.fp != other.fp and self.fp is not None:
                self.fp = None
                changed = True
        if not other.regs <= self.regs:
            self.regs |= other.regs
            changed = True
        if other.flags and not self.flags:
            self.flags = True
            changed = True
        if not other.slots <= self.slots:
            self.slots |= other.slots
            changed = True
        return changed


def branch_target(mn, operands):
    """The target address of a direct branch, or None."""
    if mn in ("b", "bl") or BRANCH_COND.match(mn) or mn in ("cbz", "cbnz", "tbz", "tbnz"):
        last = operands[-1] if operands else ""
        m = re.match(r"^([0-9a-f]+)", last)
        if m:
            return int(m.group(1), 16)
    return None


def step(st, mn, operands, findings, where):
    """Applies one instruction to the taint state; records findings."""
    # Memory operands: a tainted base or index is a secret address.
    for r in mem_regs(operands):
        if r in st.regs:
            findings.append(f"{where}: secret-dependent address ({r})")
    if BRANCH_COND.match(mn):
        if st.flags:
            findings.append(f"{where}: conditional branch on secret flags")
        return
    if mn in ("cbz", "cbnz", "tbz", "tbnz"):
        r = gpr(operands[0])
        if r in st.regs:
            findings.append(f"{where}: branch on a secret register ({r})")
        return
    if mn in ("br", "blr"):
        r = gpr(operands[0])
        if r in st.regs:
            findings.append(f"{where}: indirect branch through a secret register ({r})")
        if mn == "br":
            return
    if mn in ("bl", "blr"):
        # The results (x0, x1) may carry a secret argument's taint; the
        # other caller-saved registers hold nothing the caller reads.
        # Arguments: the argument registers written since the block began
        # or the last call (the callee's arity is unknown, and leftovers in
        # x0…x7 are not arguments).
        args = any(f"x{i}" in st.regs and f"x{i}" in st.recent for i in range(8))
        st.recent = set()
        for i in range(19):
            if args and i < 2:
                st.regs.add(f"x{i}")
            else:
                st.regs.discard(f"x{i}")
        st.flags = False
        return
    # Stores: a vector store to a stack slot marks it (a spill); a general
    # store marks it when the stored register is tainted.
    if mn.startswith("st"):
        slot = sp_slot(st, operands)
        if slot is not None:
            data = [op for op in operands if not op.startswith("[") and not op.startswith("#")]
            for k, op in enumerate(data):
                r = gpr(op)
                if r is None and VREG.match(op.strip("{}").split(".")[0]):
                    w = vec_width(op)
                    for b in range(slot + k * w, slot + (k + 1) * w):
                        st.slots.add(b)
                elif r is not None:
                    w = 8 if op.startswith("x") else 4
                    off = slot + k * w
                    for b in range(off, off + w):
                        if r in st.regs:
                            st.slots.add(b)
                        else:
                            st.slots.discard(b)
        return
    if not operands:
        return
    if frame(st, mn, operands):
        return
    dest = gpr(operands[0])
    srcs = operands[1:]
    if mn in FLAG_SET:
        taint = any(gpr(o) in st.regs for o in (operands if mn in ("cmp", "cmn", "tst", "ccmp", "ccmn") else srcs)
                    if gpr(o))
        if mn in ("ccmp", "ccmn"):
            taint = taint or st.flags
        st.flags = taint
        if mn in ("cmp", "cmn", "tst", "ccmp", "ccmn"):
            return
    if dest is None or mn in NO_GPR_DEST:
        return
    # General destination.
    if mn.startswith("ld"):
        # Loads: from a marked stack slot, tainted; otherwise not (see the
        # module docs' limits). A pair load writes two registers.
        slot = sp_slot(st, operands)
        dests = [gpr(o) for o in operands if not o.startswith("[") and gpr(o)]
        for k, r in enumerate(dests):
            w = 8 if operands[k].startswith("x") else 4
            tainted = slot is not None and any(b in st.slots for b in range(slot + k * w, slot + (k + 1) * w))
            if tainted:
                st.regs.add(r)
            else:
                st.regs.discard(r)
        return
    if mn in VEC_TO_GPR and any(VREG.match(o.split(",")[0].strip()) for o in srcs):
        st.regs.add(dest)
        return
    taint = any(gpr(o.split()[0]) in st.regs for o in srcs if o and gpr(o.split()[0]))
    if mn in FLAG_READ:
        taint = taint or st.flags
    if mn in ("adds", "subs", "ands", "bics", "negs", "adcs", "sbcs", "ngcs"):
        st.flags = taint
    if dest in ("xzr", "sp"):
        return
    if taint:
        st.regs.add(dest)
    else:
        st.regs.discard(dest)


# Instructions after which control does not fall through: jumps, returns,
# and the traps LLVM puts after a call that does not return (`bl` to a
# panic, then `brk #0x1`) — the next block is reached only by a branch.
ENDS = ("b", "br", "ret", "brk", "udf")


def analyse(name, insns):
    """insns: [(addr, mnemonic, operands)]. Returns (findings, vec_moves)."""
    if not insns:
        return [], 0
    addrs = [a for a, _, _ in insns]
    index = {a: i for i, a in enumerate(addrs)}
    leaders = {0}
    for i, (a, mn, ops) in enumerate(insns):
        t = branch_target(mn, ops)
        if mn in ("bl",):
            continue
        if t is not None and t in index:
            leaders.add(index[t])
        if t is not None or mn in ENDS or BRANCH_COND.match(mn):
            if i + 1 < len(insns):
                leaders.add(i + 1)
    starts = sorted(leaders)
    blocks = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(insns)
        blocks.append((s, e))
    block_of = {s: k for k, (s, _) in enumerate(blocks)}
    succ = []
    for s, e in blocks:
        a, mn, ops = insns[e - 1]
        out = []
        t = branch_target(mn, ops)
        if mn != "bl" and t is not None and t in index and index[t] in block_of:
            out.append(block_of[index[t]])
        falls = mn not in ENDS and e < len(insns)
        if falls:
            out.append(block_of[e])
        succ.append(out)
    ins = [State() for _ in blocks]
    reached = {0}
    work = [0]
    exits = State(sp=None)  # the join of the states at indirect branches
    seen = set()
    vec_moves = 0
    findings = []
    iterations = 0
    while work:
        iterations += 1
        if iterations > 100000:
            findings.append(f"{name}: analysis did not converge")
            break
        k = work.pop(0)
        st = ins[k].copy()
        s, e = blocks[k]
        local = []
        for i in range(s, e):
            a, mn, ops = insns[i]
            if k not in seen and mn in VEC_TO_GPR and len(ops) > 1 and gpr(ops[0]) and VREG.match(ops[1].strip()):
                vec_moves += 1
            if ops and mn not in NO_GPR_DEST and gpr(ops[0]):
                st.recent.add(gpr(ops[0]))
                if mn.startswith("ldp") and len(ops) > 1 and gpr(ops[1]):
                    st.recent.add(gpr(ops[1]))
            step(st, mn, ops, local, f"{name}+{a - addrs[0]:#x} @{a:x} ({mn} {', '.join(ops)})")
        seen.add(k)
        for f in local:
            if f not in findings:
                findings.append(f)
        if insns[e - 1][1] == "br":
            exits.union(st, False)
        for n in succ[k]:
            first = n not in reached
            reached.add(n)
            if ins[n].union(st, first) and n not in work:
                work.append(n)
        if not work:
            # Blocks reached only through an indirect branch (a jump
            # table): entered with what any indirect branch carried, frame
            # unknown.
            for n in range(len(blocks)):
                if n not in reached:
                    reached.add(n)
                    ins[n] = exits.copy()
                    ins[n].sp = ins[n].fp = None
                    work.append(n)
    return findings, vec_moves


# The instructions that mark a vector kernel (inlined generic code named by
# its generic function, e.g. gf2m's field operations on PMULL).
VECTOR_KERNEL = re.compile(r"^(?:pmull2?|aes[ed]|aes[i]?mc|eor3|xar|bcax|umlal2?|umull2?)$")

# Test modules inside the kernels' modules (unit tests, the stack-wipe
# tests and their probe): test code compares results, not secrets' timing.
TEST_CODE = re.compile(r"::(?:tests|stack_wipe|stack_probe)::")

LINE = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{8}\s+)?(\S+)\s*(.*)$")
HEAD = re.compile(r"^([0-9a-f]+) <(.*)>:$")


def functions(text, wanted):
    """Yields (name, insns) for every function whose name matches `wanted`."""
    name, insns = None, []
    for line in text.splitlines():
        h = HEAD.match(line)
        if h:
            if name is not None and insns:
                yield name, insns
            name = h.group(2) if wanted.search(h.group(2)) and not TEST_CODE.search(h.group(2)) else None
            insns = []
            continue
        if name is None:
            continue
        m = LINE.match(line)
        if not m:
            continue
        mn = m.group(2)
        ops = m.group(3).split("//")[0].split(";")[0].strip()
        ops = re.sub(r"\s*<[^>]*>", "", ops)
        insns.append((int(m.group(1), 16), mn, split_operands(ops)))
    if name is not None and insns:
        yield name, insns


SELF_TESTS = [
    # (name, leaky?, listing)
    ("table lookup by a vector lane", True, """
0000000000001000 <t1>:
    1000: umov x8, v0.d[0]
    1004: and x8, x8, #0xff
    1008: ldrb w9, [x10, x8]
    100c: ret
"""),
    ("branch on a vector-derived value", True, """
0000000000002000 <t2>:
    2000: fmov x9, d1
    2004: cmp x9, #0x0
    2008: b.eq 2010 <t2+0x10>
    200c: add x0, x0, #0x1
    2010: ret
"""),
    ("taint carried round a loop to an earlier address", True, """
0000000000003000 <t3>:
    3000: mov x8, #0x0
    3004: ldr q1, [x1, x8]
    3008: mov x8, v1.d[1]
    300c: subs x2, x2, #0x1
    3010: b.ne 3004 <t3+0x4>
    3014: ret
"""),
    ("secret reloaded from a vector spill", True, """
0000000000004000 <t4>:
    4000: str q0, [sp, #16]
    4004: ldr x8, [sp, #24]
    4008: ldr x9, [x0, x8, lsl #3]
    400c: ret
"""),
    ("branch on a call's result from a secret argument", True, """
0000000000007000 <t7>:
    7000: umov w8, v0.b[0]
    7004: mov w0, w8
    7008: bl 9000 <callee>
    700c: tbnz w0, #0, 7014 <t7+0x14>
    7010: ret
    7014: ret
"""),
    ("secret spilled below a moved stack pointer, reloaded by the frame pointer", True, """
0000000000008000 <t8>:
    8000: stp x29, x30, [sp, #-32]!
    8004: mov x29, sp
    8008: sub sp, sp, #0x40
    800c: str q3, [sp, #16]
    8010: ldur x9, [x29, #-48]
    8014: ldrb w10, [x1, x9]
    8018: ret
"""),
    ("clean: secret stored through a public address, public loop", False, """
0000000000005000 <t5>:
    5000: umov x8, v0.d[0]
    5004: eor x9, x9, x8
    5008: str x9, [x1]
    500c: subs x2, x2, #0x10
    5010: b.ne 5000 <t5>
    5014: ret
"""),
    ("clean: a register secret only on a panic's path, which ends in brk", False, """
0000000000009000 <t9>:
    9000: fmov x26, d0
    9004: cbz x2, 9010 <t9+0x10>
    9008: sub x26, x2, x3
    900c: b 9018 <t9+0x18>
    9010: bl 9400 <panic>
    9014: brk #0x1
    9018: cmp x26, #0x10
    901c: b.ls 9024 <t9+0x24>
    9020: ret
    9024: ret
"""),
    ("clean: selection by a secret with csel", False, """
0000000000006000 <t6>:
    6000: fmov x8, d0
    6004: tst x8, #0x1
    6008: csel x9, x10, x11, ne
    600c: str x9, [x0]
    6010: cbz x3, 6018 <t6+0x18>
    6014: ret
    6018: ret
"""),
]


def self_test():
    ok = True
    for name, leaky, text in SELF_TESTS:
        lines = []
        for line in text.strip().splitlines():
            m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
            if m:
                lines.append(f"   {m.group(1)}:\t{m.group(2)}\t{m.group(3)}")
            else:
                lines.append(line)
        funcs = list(functions("\n".join(lines), re.compile(".")))
        assert len(funcs) == 1, name
        findings, _ = analyse(*funcs[0])
        got = bool(findings)
        status = "ok" if got == leaky else "WRONG"
        ok &= got == leaky
        print(f"self-test {status}: {name}: {'finding' if got else 'clean'}" + (f" ({findings[0]})" if findings else ""))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="*")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--objdump", default="aarch64-linux-gnu-objdump")
    ap.add_argument("--module", action="append", help="module path to check (default: the kernels' modules)")
    ap.add_argument("--vector-only", action="store_true",
                    help="only functions that run a carry-less, AES, SHA3 or widening vector multiply")
    args = ap.parse_args()
    status = 0
    if args.self_test:
        if not self_test():
            print("ct-aarch64: the self-test failed", file=sys.stderr)
            return 1
    if not args.binaries:
        return status
    modules = args.module or MODULES
    wanted = re.compile(r"fieldwork::(?:" + "|".join(re.escape(m) for m in modules) + r")::")
    per_module = {m: set() for m in modules}
    checked = {}
    total_findings = []
    moves = 0
    for b in args.binaries:
        text = subprocess.run([args.objdump, "-d", "-C", "--no-show-raw-insn", b],
                              check=True, capture_output=True, text=True).stdout
        for name, insns in functions(text, wanted):
            key = (name, len(insns))
            if key in checked:
                continue
            if args.vector_only and not any(VECTOR_KERNEL.match(mn) for _, mn, _ in insns):
                continue
            findings, vm = analyse(name, insns)
            checked[key] = len(insns)
            moves += vm
            total_findings += [f"{b.rsplit('/', 1)[-1]}: {f}" for f in findings]
            for m in modules:
                if f"fieldwork::{m}::" in name:
                    per_module[m].add(name)
    n_insns = sum(checked.values())
    print(f"ct-aarch64: {len(checked)} function bodies, {n_insns} instructions, "
          f"{moves} vector-to-general moves followed, {len(args.binaries)} binaries")
    for m in modules:
        print(f"  {m}: {len(per_module[m])} functions")
        if not per_module[m]:
            print(f"ct-aarch64: no function of {m} found", file=sys.stderr)
            status = 1
    for f in total_findings:
        print("FINDING:", f)
    if total_findings:
        status = 1
    print("ct-aarch64:", "findings above" if total_findings else "no secret-dependent branch or address")
    return status


if __name__ == "__main__":
    sys.exit(main())
