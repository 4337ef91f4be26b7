#!/usr/bin/env python3
"""ptx-pack-check.py SCALAR.ptx PACKED.ptx: whether PACKED (tilec's PTX for sm_100a, with packed
.f32x2 arithmetic) computes what SCALAR (the same program for sm_110a, where tilec packs nothing)
computes, instruction for instruction.

Both files are executed symbolically, each as one straight line (branches are not taken, which is
the same semantics for both, and the packing moves nothing across a label or a branch): a register's
value is the expression that made it (the opcode and the values of the operands, interned as a
number), so a reordering that feeds an instruction another value, or a packed half that is not the
scalar operation it replaces, gives another expression. Every instruction that is not pure register
arithmetic (a label, a branch, a load or store of memory other than parameters, a barrier, a tcgen05
instruction, a guarded one) is an effect: the two files must make the same effects, in the same order,
on the same values. The warp collectives (shfl.sync, vote.sync, redux.sync) count as arithmetic: tilec
writes them in code the whole warp runs, where every lane meets each in the same order, so each is a
function of its operands in all lanes and may move among the others as arithmetic does. A packed operation `OP.rn.f32x2 d, a, b[, c]` is the scalar `OP.rn.f32` on each
half; `mov.b64 d, {x, y}` and `mov.b64 {x, y}, d` make and take apart a pair. Exit status 0 when the
files agree, 1 with the first difference, 2 on bad usage."""
import re
import sys

PURE = {"add", "sub", "mul", "fma", "mad", "div", "abs", "neg", "min", "max", "mov", "cvt", "cvta", "setp",
        "selp", "and", "or", "xor", "not", "shl", "shr", "ex2", "sqrt", "rcp", "rsqrt", "lg2", "sin", "cos",
        "bfi", "bfe", "prmt", "lop3", "copysign", "testp", "clz", "popc", "brev", "set", "slct", "cnot",
        "shfl", "vote", "redux"}


def operands(text):
    """The operands of an instruction: a list of strings or, for {x, y}, lists of strings."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [[x.strip() for x in o[1:-1].split(",")] if o.startswith("{") else o for o in out]


def body(path):
    """The instructions and labels of every kernel, in order, without comments and declarations."""
    lines = []
    with open(path) as f:
        for line in f:
            line = line.split("//")[0].strip()
            if not line or line.startswith(".") or line in ("{", "}") or line.startswith(")"):
                continue
            lines.append(line)
    return lines


class Machine:
    def __init__(self, names):
        self.names = names  # shared: the same expression gets the same number in both files
        self.regs = {}
        self.pairs = {}  # a 64-bit register made of two 32-bit values: their values
        self.writes = {}
        self.effects = []

    def intern(self, key):
        return self.names.setdefault(key, len(self.names))

    def value(self, o):
        if o.startswith("["):  # an address: its register's value and the rest
            inner = o[1:-1]
            reg = re.match(r"%[A-Za-z0-9_]+", inner)
            if reg:
                return self.intern(("address", self.value(reg.group(0)), inner[reg.end():]))
            return self.intern(("literal", o))
        if o.startswith("%"):
            if o not in self.regs:
                self.regs[o] = self.intern(("initial", o))
            return self.regs[o]
        return self.intern(("literal", o))

    def step(self, line):
        if line.endswith(":"):
            self.effects.append(("label", line))
            return
        guard = ""
        if line.startswith("@"):
            guard, line = line.split(None, 1)
        m = re.match(r"([A-Za-z0-9_.:]+)\s*(.*?);?$", line)
        op, rest = m.group(1), m.group(2)
        ops = operands(rest)
        base = op.split(".")[0]
        read_only = op.startswith(("ld.param.", "ld.global.nc."))  # memory nothing writes
        if guard or (base not in PURE and not read_only) or ("[" in rest and not read_only):
            vals = [[self.value(x) for x in o] if isinstance(o, list) else self.value(o) for o in ops]
            self.effects.append((guard and self.value(guard.lstrip("@!")), guard.startswith("@!"), op, repr(vals)))
            if ops and (isinstance(ops[0], list) or ops[0].startswith("%")):
                dests = ops[0] if isinstance(ops[0], list) else [ops[0]]
                for i, d in enumerate(dests):
                    self.define(d, ("effect", len(self.effects), i))
            return
        if op.endswith(".f32x2"):  # a pair of pending scalar results, named when taken apart
            halves = [[self.pairs[x][h] for x in ops[1:]] for h in (0, 1)]
            self.pairs[ops[0]] = tuple(("pending", op[:-2]) + tuple(h) for h in halves)
            return
        if op == "mov.b64" and isinstance(ops[1], list):
            self.pairs[ops[0]] = tuple(self.value(x) for x in ops[1])
            return
        if op == "mov.b64" and isinstance(ops[0], list) and ops[1] in self.pairs:
            for d, v in zip(ops[0], self.pairs[ops[1]]):
                if isinstance(v, tuple):  # the scalar operation, as if it had written d
                    self.define(d, (v[1],) + v[2:])
                else:
                    self.regs[d] = v
            return
        key = (op,) + tuple(self.value(x) if isinstance(x, str) else tuple(self.value(y) for y in x) for x in ops[1:])
        if isinstance(ops[0], list):  # mov.b32 {%h1, %h2}, %r1 and the like
            for i, d in enumerate(ops[0]):
                self.define(d, key + (("part", i),))
        else:
            self.define(ops[0], key)

    def define(self, reg, key):
        """reg's new value: the operation and its operands, and which write of reg this is (so that
        equal computations into different registers, such as the zero of each element that a branch
        not taken gives, stay apart)."""
        self.writes[reg] = self.writes.get(reg, 0) + 1
        self.regs[reg] = self.intern(key + (reg, self.writes[reg]))


def run(path, names):
    m = Machine(names)
    for line in body(path):
        m.step(line)
    return m.effects


def main():
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    names = {}
    a = run(sys.argv[1], names)
    b = run(sys.argv[2], names)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("effect %d differs: %s: %s, %s: %s" % (i, sys.argv[1], x, sys.argv[2], y))
            return 1
    if len(a) != len(b):
        print("%s makes %d effects, %s %d" % (sys.argv[1], len(a), sys.argv[2], len(b)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
