#!/usr/bin/env python3
"""ptx-straight.py FILE.ptx: runs the straight-line kernel of FILE.ptx on the CPU, once for each input
read from stdin (one hex word a line), and prints what it stores (one hex word a line).

For tests/minifloat-ptx.sh: the kernel loads one element (its ld.global gives the input word), computes
without branches and stores one element (its st.global's value is the output). Only the integer,
predicate and f32 instructions that tilec's PTX for the 8-bit and narrower floats uses are known; any
other instruction stops the program with its name (exit 2), so a change of the emitted PTX cannot pass
unseen. Address arithmetic and parameter loads are skipped."""
import re
import struct
import sys

MASK = 0xFFFFFFFF


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits & MASK))[0]


def signed(x):
    x &= MASK
    return x - (1 << 32) if x >> 31 else x


def compare(cond, x, y):
    return {"gt": x > y, "lt": x < y, "eq": x == y, "ne": x != y, "le": x <= y, "ge": x >= y}[cond]


def step(op, v):
    """The result of instruction op on operand values v (words, or booleans for predicates)."""
    if op == "mov.b32":
        return v[0]
    if op == "and.b32":
        return v[0] & v[1]
    if op == "or.b32":
        return v[0] | v[1]
    if op == "shr.u32":  # PTX clamps shift amounts above 32
        return v[0] >> v[1] if v[1] < 32 else 0
    if op == "shl.b32":
        return (v[0] << v[1]) & MASK if v[1] < 32 else 0
    if op == "add.s32":
        return (v[0] + v[1]) & MASK
    if op == "sub.s32":
        return (v[0] - v[1]) & MASK
    if op == "max.s32":
        return max(signed(v[0]), signed(v[1])) & MASK
    if op == "max.u32":
        return max(v[0], v[1])
    if op == "min.u32":
        return min(v[0], v[1])
    if op.startswith("setp.") and op.count(".") == 2:
        _, cond, kind = op.split(".")
        if kind == "s32":
            return compare(cond, signed(v[0]), signed(v[1]))
        if kind == "u32":
            return compare(cond, v[0], v[1])
    if op in ("selp.b32", "selp.u32"):
        return v[0] if v[2] else v[1]
    if op == "and.pred":
        return v[0] and v[1]
    if op == "or.pred":
        return v[0] or v[1]
    if op == "bfe.u32":
        return (v[0] >> v[1]) & ((1 << v[2]) - 1)
    if op == "cvt.rn.f32.u32":
        return f32_bits(float(v[0]))  # exact: the significands are below 2^24
    if op == "mul.rn.f32":  # exact in double, so packing rounds once, to nearest even
        return f32_bits(f32_value(v[0]) * f32_value(v[1]))
    if op == "cvt.u32.u16":
        return v[0] & 0xFFFF
    sys.exit("ptx-straight.py: unknown instruction " + op)


SKIPPED = ("ld.param", "cvta", "mul.wide", "add.s64")


def run(lines, word):
    regs, out = {}, None
    for line in lines:
        m = re.match(r"([a-z0-9.:]+)\s+(.*);$", line)
        if not m:
            continue
        op, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
        if op.startswith("ld.global"):
            regs[args[0]] = word
        elif op.startswith("st.global"):
            out = regs[args[1]]
        elif op == "mov.u32" and args[1].startswith("%tid"):
            regs[args[0]] = 0
        elif op.startswith(SKIPPED):
            regs[args[0]] = 0
        else:
            vals = []
            for a in args[1:]:
                if a.startswith("%"):
                    vals.append(regs[a])
                elif a.startswith("0f"):
                    vals.append(int(a[2:], 16))
                else:
                    vals.append(int(a) & MASK)
            regs[args[0]] = step(op, vals)
    if out is None:
        sys.exit("ptx-straight.py: the kernel stores nothing")
    return out


def main():
    text = open(sys.argv[1]).read()
    body = text[text.index(".entry"):]
    lines = [l.strip() for l in body.split("\n") if l.strip() and not l.strip().startswith((".", "{", "}", "//"))]
    for line in sys.stdin:
        if line.strip():
            print("%08x" % run(lines, int(line, 16)))


main()
