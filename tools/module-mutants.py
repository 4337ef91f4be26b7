#!/usr/bin/env python3
"""module-mutants.py OUTDIR CUBIN [FATBIN]: writes corrupt copies of a cubin (and a fatbinary) into
OUTDIR for tools/gpu-robust-check.sh, from a fixed seed so that every run makes the same files:
  cNNN.cubin   1 to 16 bytes changed inside one section with contents (300)
  hNNN.cubin   one 32-bit field of one section header (sh_name, sh_type, sh_link, sh_info or the
               low half of sh_entsize) set to 0, 1, 0x7fffffff, 0xffffffff or a random value (100)
  fNNN.fatbin  the fatbinary cut at a random length, to its header, or with bytes changed (60)
Every cubin keeps its ELF header and tables in bounds, so only the checks of what the sections say
(libtilert's elf_check) stand between them and the driver."""
import os
import random
import struct
import sys


def sections(data):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for i in range(shnum):
        at = shoff + i * shentsize
        kind = struct.unpack_from("<I", data, at + 4)[0]
        off, size = struct.unpack_from("<QQ", data, at + 24)
        out.append((at, kind, off, size))
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: module-mutants.py OUTDIR CUBIN [FATBIN]")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    rng = random.Random(25)
    cubin = open(sys.argv[2], "rb").read()
    secs = sections(cubin)
    filled = [(off, size) for (_, kind, off, size) in secs if kind not in (0, 8) and size > 0]
    for n in range(300):
        data = bytearray(cubin)
        off, size = rng.choice(filled)
        for _ in range(rng.choice([1, 2, 4, 16])):
            data[off + rng.randrange(size)] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        open(os.path.join(outdir, "c%03d.cubin" % n), "wb").write(data)
    for n in range(100):
        data = bytearray(cubin)
        at = rng.choice(secs)[0]
        field = rng.choice([0, 4, 40, 44, 56])
        value = rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, rng.randrange(64), rng.randrange(1 << 32)])
        struct.pack_into("<I", data, at + field, value)
        open(os.path.join(outdir, "h%03d.cubin" % n), "wb").write(data)
    if len(sys.argv) == 4:
        fat = open(sys.argv[3], "rb").read()
        for n in range(60):
            data = bytearray(fat)
            if n == 0:
                data = data[:16]
            elif n < 20:
                data = data[: rng.randrange(4, len(fat))]
            else:
                for _ in range(rng.choice([1, 4, 16])):
                    data[rng.randrange(len(data))] = rng.randrange(256)
            open(os.path.join(outdir, "f%03d.fatbin" % n), "wb").write(data)


main()
