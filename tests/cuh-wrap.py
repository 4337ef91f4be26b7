#!/usr/bin/env python3
"""cuh-wrap.py HEADER...: prints one CUDA C++ translation unit that includes every header tilec wrote
(--emit=cuh) and, for each device function in them (and each overload with float / int32_t registers), a
kernel that calls it: registers loaded from
and stored back to global memory, every other parameter a kernel parameter. tests/ptxas.sh compiles
it, so that ptxas sees every function of every header, all of them in one translation unit."""
import re
import sys

SIG = re.compile(r"^static __device__ __forceinline__ void (\w+)\((.*)\)$")
REGS = re.compile(r"^(uint32_t|float|int32_t) \(&(\w+)\)\[(\d+)\]$")


def wrap(name, kname, params):
    kparams, before, after, args = ["uint32_t *tl_io"], [], [], []
    for p in params:
        m = REGS.match(p)
        if m:
            ty, reg, n = m.group(1), m.group(2), int(m.group(3))
            io = "tl_io" if ty == "uint32_t" else "reinterpret_cast<%s *>(tl_io)" % ty
            before.append("\t%s %s[%d];" % (ty, reg, n))
            before.append("\tfor (int i = 0; i < %d; i++)\n\t\t%s[i] = %s[threadIdx.x * %d + i];" % (n, reg, io, n))
            after.append("\tfor (int i = 0; i < %d; i++)\n\t\t%s[threadIdx.x * %d + i] = %s[i];" % (n, io, n, reg))
            args.append(reg)
        else:
            kparams.append(p)
            args.append(p.split()[-1].lstrip("*"))
    out = ["extern \"C\" __global__ void wrap_%s(%s)\n{\n\t(void)tl_io;" % (kname, ", ".join(kparams))]
    out += before
    out.append("\t%s(%s);" % (name, ", ".join(args)))
    out += after
    out.append("}\n")
    return "\n".join(out)


def main():
    print("// Every function of the headers tilec wrote, called from a kernel of its own (tests/cuh-wrap.py).")
    for h in sys.argv[1:]:
        print('#include "%s"' % h)
    print()
    seen = set()
    for h in sys.argv[1:]:
        for line in open(h):
            m = SIG.match(line.rstrip("\n"))
            if m:
                params = [p.strip() for p in m.group(2).split(",")] if m.group(2).strip() else []
                # the second signature of a name: its overload with float / int32_t registers
                kname = m.group(1) + ("_typed" if m.group(1) in seen else "")
                seen.add(m.group(1))
                print(wrap(m.group(1), kname, params))


main()
