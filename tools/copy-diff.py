#!/usr/bin/env python3
"""copy-diff.py: a differential tester of `copy` against an element-by-element reference.

    tools/copy-diff.py --tilec build/tilec --seed S --programs N [--cases K] [--keep DIR] [--jobs J]

Writes N random .tile programs, each one kernel with K copy cases (global <-> local, local ->
shared -> local, local -> tmem -> local), runs each with `tilec run --dump` on the CPU emulator, and
compares every output tensor with what this script computes on its own from the inputs the run
dumped: a copy moves element c of its source view to element c of its destination view; elements
not written keep their value (a register its sentinel, a global element its input value); a load
gives 0 where a slice of run-time bounds leaves its tensor, and a store writes nothing there.

The reference knows the language, not tilec: a strided layout's places (docs/language.md section 6:
the flat index in mixed radix, replicas, offsets), which threads hold a place (no warp-level axis:
every warp; no lane-level axis: every lane of the warp; no thread axis: every thread; tid_in_wg /
wid_in_wg without tx, warpid, wgid: every warpgroup), a load fills every replica held by a thread that runs it, a store writes each element
from the replica of the lowest thread (then slot) among the warps that run it (docs/copy.md), a
tcgen05.ld fills the replicas of the warps that issue it (the warp of the element's TMEM lane slab
in each unit of the scope).

A program that tilec refuses is counted as a rejection (its first error line kept in the summary,
--rejections FILE writes them all); a case whose output differs is a failure. Exit status 1 when
any failed. One line per program with -v; the summary always.
"""
import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

AXES_THREAD = ("tx", "tid_in_wg", "laneid", "warpid", "wid_in_wg", "wgid")
WARP_LEVEL = ("tx", "tid_in_wg", "warpid", "wid_in_wg")
GROUP_LEVEL = ("tx", "warpid", "wgid")

FMT = {"f32": "f", "i32": "i", "u32": "I", "f16": "H", "bf16": "H", "i16": "h", "u16": "H", "i8": "b", "u8": "B"}
SIZE = {"f32": 4, "i32": 4, "u32": 4, "f16": 2, "bf16": 2, "i16": 2, "u16": 2, "i8": 1, "u8": 1}


# ------------------------------------------------------------------ values (as bit patterns)

def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def bf16_bits(x):
    b = f32_bits(x)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def from_bits(t, bits):
    """The value of a bit pattern of type t as a Python number (floats exact)."""
    if t == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    if t == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    width = 8 * SIZE[t]
    if t[0] == "i" and bits >= 1 << (width - 1):
        return bits - (1 << width)
    return bits


def to_bits(t, v):
    """v (exactly representable or an integer in range) as type t's bits."""
    if t == "f32":
        return f32_bits(v)
    if t == "f16":
        return f16_bits(v)
    if t == "bf16":
        return bf16_bits(v)
    return v & ((1 << (8 * SIZE[t])) - 1)


def convert(frm, to, bits):
    """An element converted as an assignment would; only the exact conversions the generator uses."""
    if frm == to:
        return bits
    return to_bits(to, from_bits(frm, bits))


def sentinel(t, s):
    if t in ("f32", "f16", "bf16"):
        return to_bits(t, -1.5 - s)
    return to_bits(t, -7 - s)


def sentinel_text(t):
    return "-1.5 - f32(s)" if t in ("f32", "f16", "bf16") else "-7 - s"


# ------------------------------------------------------------------ layouts

class Layout:
    """S[modes] + R[reps] + offsets: modes and reps are (extent, stride, axis); axis 'm' is a slot."""

    def __init__(self, modes, reps=(), offsets=()):
        self.modes = list(modes)
        self.reps = list(reps)
        self.offsets = list(offsets)

    def text(self):
        def part(ms):
            ext = ", ".join(str(e) for e, _, _ in ms)
            st = ", ".join(("%d" % s) if a == "m" else "%d@%s" % (s, a) for _, s, a in ms)
            return "(%s) : (%s)" % (ext, st) if len(ms) > 1 else "%s : %s" % (ext, st)
        out = "S[%s]" % part(self.modes)
        if self.reps:
            out += " + R[%s]" % part(self.reps)
        for k, a in self.offsets:
            out += " + %d@%s" % (k, a)
        return out

    def axes(self):
        return {a for _, s, a in self.modes + self.reps if s} | {a for k, a in self.offsets if k}

    def places(self, e):
        """Every place of element e: a dict axis -> value, one per replica."""
        base = {}
        for k, a in self.offsets:
            base[a] = base.get(a, 0) + k
        rest = e
        digits = []
        for ext, st, a in reversed(self.modes):
            digits.append((rest % ext, st, a))
            rest //= ext
        for d, st, a in digits:
            base[a] = base.get(a, 0) + d * st
        out = [base]
        for ext, st, a in self.reps:
            nxt = []
            for p in out:
                for r in range(ext):
                    q = dict(p)
                    q[a] = q.get(a, 0) + r * st
                    nxt.append(q)
            out = nxt
        return out


def place_thread(p):
    return (p.get("tx", 0) + p.get("tid_in_wg", 0) + p.get("laneid", 0) +
            32 * (p.get("warpid", 0) + p.get("wid_in_wg", 0)) + 128 * p.get("wgid", 0))


def holders(axes, p, threads):
    """The threads that hold place p (language.md section 6)."""
    if not axes & set(AXES_THREAD):
        return list(range(threads))
    owner = place_thread(p)
    out = []
    for t in range(threads):
        # no lane-level axis (warpid, wid_in_wg, wgid only): every lane of the warp holds it
        if axes & {"tx", "tid_in_wg", "laneid"} and owner % 32 != t % 32:
            continue
        if axes & set(WARP_LEVEL) and (owner // 32) % 4 != (t // 32) % 4:
            continue
        if axes & set(GROUP_LEVEL) and owner // 128 != t // 128:
            continue
        out.append(t)
    return out


def split_bits(n, rnd, maxpiece=3):
    """n bits as a list of piece sizes (most significant first)."""
    out = []
    while n > 0:
        k = rnd.randint(1, min(n, maxpiece))
        out.append(k)
        n -= k
    return out


class LocalGen:
    """Builds a random layout from the bits of a power-of-two element count (times an odd factor on m)."""

    def __init__(self, rnd, threads):
        self.rnd = rnd
        self.threads = threads
        self.warp_bits = max(0, (threads // 32 - 1).bit_length()) if threads % 32 == 0 else 0

    def make(self, count, kind):
        rnd = self.rnd
        odd, bits = count, 0
        while odd % 2 == 0:
            odd //= 2
            bits += 1
        pieces = split_bits(bits, rnd)
        # targets: lane bits 0..4, warp bits 0..warp_bits-1, m
        free_lane = list(range(5))
        free_warp = list(range(self.warp_bits)) if self.threads in (64, 128, 256) else []
        lane_axis = rnd.choice(["laneid", "laneid", "tx", "tid_in_wg"])
        warp_axis = rnd.choice(["warpid", "tx", "wid_in_wg", "tid_in_wg"])
        if kind == "warps":
            # over warps alone, no lane-level axis: every lane of a warp holds its elements
            warp_axis = "warpid" if warp_axis in ("warpid", "tx") else "wid_in_wg"
        if warp_axis in ("wid_in_wg", "tid_in_wg") or lane_axis == "tid_in_wg":
            free_warp = [b for b in free_warp if b < 2]
        modes = []  # (extent, target, bitpos) before strides
        for k in pieces:
            choices = ["m"]
            if kind == "spread":
                choices += ["lane"] * 3 + ["warp"] * 2
            elif kind == "lanes":
                choices += ["lane"] * 3
            elif kind == "warps":
                choices += ["warp"] * 3
            t = rnd.choice(choices)
            free = free_lane if t == "lane" else free_warp if t == "warp" else None
            starts = [b for b in free if all(b + j in free for j in range(k))] if free is not None else []
            if starts:
                # k consecutive free bits of the lane or the warp index
                b = rnd.choice(starts)
                for j in range(k):
                    free.remove(b + j)
                modes.append([1 << k, t, b])
                continue
            modes.append([1 << k, "m", None])
        if odd > 1:
            modes.insert(rnd.randrange(len(modes) + 1), [odd, "m", None])
        if self.threads == 96 and kind == "spread" and rnd.random() < 0.7:
            # three warps: a mode of extent 3 over the warps, when the count has one
            for md in modes:
                if md[0] % 3 == 0 and md[1] == "m":
                    md[1], md[2] = "warp3", 0
                    break
        # m strides: a random order of the m modes, dense or with gaps
        ms = [md for md in modes if md[1] == "m"]
        rnd.shuffle(ms)
        stride = 1
        for md in reversed(ms):
            md[2] = stride
            stride *= md[0] * (2 if rnd.random() < 0.15 else 1)
        out = []
        for ext, t, b in modes:
            if t == "lane":
                out.append((ext, 1 << b, lane_axis))
            elif t == "warp":
                if warp_axis in ("warpid", "wid_in_wg"):
                    out.append((ext, 1 << b, warp_axis))
                else:
                    out.append((ext, 32 << b, warp_axis))
            elif t == "warp3":
                out.append((ext, 32, "tx") if ext == 3 else (ext, 0, "m"))
            else:
                out.append((ext, b, "m"))
        # extent 3 with more: keep it simple, only a pure 3 goes to the warps
        out = [(e, s, a) if not (a == "tx" and s == 32 and e != 3) else (e, s, a) for e, s, a in out]
        reps, offsets = [], []
        if kind not in ("free", "warps") and rnd.random() < 0.3 and free_lane:
            b = rnd.choice(free_lane)
            free_lane.remove(b)
            reps.append((2, 1 << b, lane_axis if lane_axis != "tx" else "laneid"))
        if kind == "spread" and rnd.random() < 0.2 and free_warp:
            b = rnd.choice(free_warp)
            free_warp.remove(b)
            wa = "warpid" if warp_axis in ("warpid", "tx") else "wid_in_wg"
            reps.append((2, 1 << b, wa))
        if kind not in ("free", "warps") and rnd.random() < 0.2 and free_lane:
            b = rnd.choice(free_lane)
            offsets.append((1 << b, "laneid"))
        if rnd.random() < 0.15:
            offsets.append((rnd.randint(1, 3), "m"))
        if kind == "spread" and free_warp and rnd.random() < 0.15 and warp_axis in ("warpid", "tx"):
            b = rnd.choice(free_warp)
            offsets.append((1 << b, "warpid"))
        # an extent-1 mode is an m mode of stride 0? not needed
        return Layout(out, reps, offsets)


def reslot(rnd, lay):
    """The same layout with its slot modes in another order: the same threads hold each element."""
    ms = [i for i, (e, st, a) in enumerate(lay.modes) if a == "m" and st]
    order = list(ms)
    rnd.shuffle(order)
    modes = list(lay.modes)
    stride = 1
    for i in reversed(order):
        e, _, a = modes[i]
        modes[i] = (e, stride, a)
        stride *= e
    return Layout(modes, lay.reps, lay.offsets)


# ------------------------------------------------------------------ views of global tensors

class GView:
    """A view of a global tensor: text, shape, and coordinate -> flat index of the tensor (or None)."""

    def __init__(self, text, shape, index):
        self.text = text
        self.shape = shape
        self.index = index


def coords(shape, x):
    out = []
    for d in reversed(shape):
        out.append(x % d)
        x //= d
    return list(reversed(out))


def flat(shape, c):
    x = 0
    for d, v in zip(shape, c):
        x = x * d + v
    return x


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def make_gview(rnd, name, shape, scalars, newname, allow_runtime=True):
    """A view of shape `shape` over a new global tensor `name`; returns (GView, tensor shape)."""
    r = rnd.random()
    rank = len(shape)
    if r < 0.25:
        return GView(name, shape, lambda c: flat(shape, c)), list(shape)
    if r < 0.45 and rank == 2:
        # a transpose
        tshape = [shape[1], shape[0]]
        return (GView('%s.rearrange("a b -> b a")' % name, shape, lambda c: flat(tshape, [c[1], c[0]])), tshape)
    if r < 0.55 and rank == 1 and shape[0] % 4 == 0:
        # (a b) -> (b a): an interleave
        a = 4
        b = shape[0] // a
        tshape = [shape[0]]
        return (GView('%s.rearrange("(a b) -> (b a)", a = %d)' % (name, a), shape,
                      lambda c: (c[0] % a) * b + c[0] // a), tshape)
    if r < 0.65:
        # the flat tensor viewed in this shape
        n = prod(shape)
        return (GView('%s.view(%s)' % (name, ", ".join(map(str, shape))), shape, lambda c: flat(shape, c)), [n])
    # a slice: constant or run-time starts, maybe an index dimension in front
    lead = rnd.random() < 0.3
    tshape = ([rnd.randint(1, 3)] if lead else []) + [d + rnd.choice([0, 0, 1, 3, 8]) for d in shape]
    runtime = allow_runtime and rnd.random() < 0.5
    parts, starts = [], []
    if lead:
        i = rnd.randrange(tshape[0])
        parts.append(str(i))
        starts.append(("const", i))
    for k, d in enumerate(shape):
        dim = tshape[k + lead]
        if runtime and rnd.random() < 0.7:
            # may leave the tensor on either side
            st = rnd.randint(-d // 2 - 1, dim - d // 2)
            sname = newname("o")
            scalars.append((sname, st))
            parts.append("%s : %s + %d" % (sname, sname, d))
            starts.append(("rt", st))
        else:
            st = rnd.randint(0, dim - d)
            parts.append("%d : %d" % (st, st + d) if rnd.random() < 0.8 or st else ":%d" % d)
            starts.append(("const", st))
    off = [s for _, s in starts]

    def index(c, lead=lead, off=off, tshape=tshape):
        full = ([off[0]] if lead else []) + [o + v for o, v in zip(off[lead:], c)]
        if any(x < 0 or x >= d for x, d in zip(full, tshape)):
            return None
        return flat(tshape, full)
    return GView("%s[%s]" % (name, ", ".join(parts)), shape, index), tshape


# ------------------------------------------------------------------ local views

def local_view(rnd, name, shape):
    """A view of local tensor `name` of shape `shape`: (text, view shape, coordinate -> element)."""
    r = rnd.random()
    rank = len(shape)
    if r < 0.55:
        return name, list(shape), lambda c: flat(shape, c)
    if r < 0.7 and rank == 2:
        return ('%s.rearrange("a b -> b a")' % name, [shape[1], shape[0]], lambda c: flat(shape, [c[1], c[0]]))
    if r < 0.85 and rank >= 1:
        # a box of the first dimension
        d = shape[0]
        if d >= 2:
            k = rnd.choice([x for x in (1, 2, 4, d // 2) if 0 < x < d and d % x == 0] or [d])
            # mostly an aligned box: an unaligned one often leaves a register slot to threads that are
            # no range and no bit pattern of the thread index (refused, diagnostics.md)
            st = rnd.randrange(0, d - k + 1) if rnd.random() < 0.2 else k * rnd.randrange(d // k)
            vs = [k] + list(shape[1:])
            txt = "%s[%d:%d]" % (name, st, st + k)
            return txt, vs, lambda c: flat(shape, [c[0] + st] + list(c[1:]))
    n = prod(shape)
    if rank == 1 and n % 2 == 0:
        vs = [2, n // 2]
        return "%s.view(2, %d)" % (name, n // 2), vs, lambda c: c[0] * (n // 2) + c[1]
    return name, list(shape), lambda c: flat(shape, c)


# ------------------------------------------------------------------ a program

class Case:
    """One copy case: its parameters, scalars, lines, and the check that fills the expected outputs."""

    def __init__(self):
        self.params = []     # (name, type, shape)
        self.scalars = []    # (name, value)
        self.lines = []
        self.check = None
        self.what = ""


class Program:
    def __init__(self, rnd, threads):
        self.rnd = rnd
        self.threads = threads
        self.cases = []
        self.names = 0

    def name(self, prefix):
        self.names += 1
        return "%s%d" % (prefix, self.names)

    def text(self):
        """The program of the kept cases, and the line range of each case."""
        params = ["%s: %s[%s]" % (n, t, ", ".join(map(str, s))) for c in self.cases for n, t, s in c.params]
        params += ["%s: i32" % n for c in self.cases for n, _ in c.scalars]
        out = ["// copy-diff program: %d cases, block %d" % (len(self.cases), self.threads),
               "kernel cd(%s) launch(grid = 1, block = %d)" % (", ".join(params), self.threads),
               "{"]
        ranges = []
        for c in self.cases:
            first = len(out) + 1
            out += c.lines
            ranges.append((first, len(out)))
        out.append("}")
        return "\n".join(out) + "\n", ranges

    def scalars(self):
        return [sc for c in self.cases for sc in c.scalars]


def rand_shape(rnd, count):
    """A row-major shape of count elements, rank 1..3."""
    rank = rnd.choice([1, 2, 2, 3])
    dims = []
    rest = count
    for _ in range(rank - 1):
        divs = [d for d in (2, 4, 8, 16, 32, 3) if rest % d == 0 and rest // d >= 1]
        if not divs:
            break
        d = rnd.choice(divs)
        dims.append(d)
        rest //= d
    dims.append(rest)
    rnd.shuffle(dims)
    return dims


def regs_state(layout, shape, threads):
    """(thread, slot) of every place of every element: list per element."""
    axes = layout.axes()
    out = []
    for e in range(prod(shape)):
        ps = []
        for p in layout.places(e):
            for t in holders(axes, p, threads):
                ps.append((t, p.get("m", 0)))
        out.append(ps)
    return out


def slots_of(layout, shape):
    return max(p.get("m", 0) for e in range(prod(shape)) for p in layout.places(e)) + 1


def running_warps(threads, warp_k):
    w = (threads + 31) // 32
    return [warp_k] if warp_k is not None else list(range(w))


def emit_mem_case(P, ci):
    """global -> local (-> shared -> local) -> global, with a probe of the registers."""
    rnd, threads = P.rnd, P.threads
    gen = LocalGen(rnd, threads)
    kind = rnd.choice(["spread", "spread", "spread", "lanes", "free", "warps"])
    bits = rnd.randint(2 if kind != "free" else 1, 7 if kind != "free" else 5)
    count = (1 << bits) * (3 if rnd.random() < 0.1 else 1)
    shape = rand_shape(rnd, count)
    lay = gen.make(count, kind)
    while slots_of(lay, [count]) > 128:
        # a layout of too many registers for a thread (at most 255) or for a quick test
        lay = gen.make(count, kind)
    t = rnd.choice(["f32", "f32", "f32", "i32", "f16", "bf16"])
    gt = t if rnd.random() < 0.8 else {"f32": "f16", "i32": "i16", "f16": "f32", "bf16": "f32"}[t]
    lname = "l%d" % ci
    slots = slots_of(lay, shape)
    regs = regs_state(lay, shape, threads)
    # where the copy runs: all warps, one warp by an if, or a written scope
    nw = (threads + 31) // 32
    where = rnd.choice(["all", "all", "all", "if", "scope"])
    warp_k = rnd.randrange(nw) if where != "all" else None
    scope_txt = ""
    if where == "scope":
        if nw >= 4 and rnd.random() < 0.4:
            g = rnd.randrange(nw // 4)
            scope_txt = " scope warpgroup(%d)" % g
            runs = list(range(4 * g, 4 * g + 4))
        else:
            scope_txt = " scope warp(%d)" % warp_k
            runs = [warp_k]
    elif where == "if":
        runs = [warp_k]
    else:
        runs = list(range(nw))
    if where != "all" and not all(any(th // 32 in runs for th, _ in ps) for ps in regs):
        # a scope that leaves an element out is refused (copy.md); run it everywhere instead
        where, scope_txt, warp_k, runs = "all", "", None, list(range(nw))
    lv_text, lv_shape, lv_elem = local_view(rnd, lname, shape)
    C = Case()
    gin_name = P.name("In")
    gv, tshape = make_gview(rnd, gin_name, lv_shape, C.scalars, P.name)
    C.params.append((gin_name, gt, tshape))
    pname = P.name("P")
    C.params.append((pname, t, [threads, slots]))
    # store: the same local view into another view of a new output tensor
    gout_name = P.name("Out")
    ov, oshape = make_gview(rnd, gout_name, lv_shape, C.scalars, P.name)
    C.params.append((gout_name, gt, oshape))
    via_shared = rnd.random() < 0.2 and where == "all"
    # or through a second local of the same threads and other slots: a copy between local tensors
    via_local = not via_shared and rnd.random() < 0.25
    lay_text = lay.text()
    body = []
    body.append("    // case %d: %s layout %s" % (ci, kind, lay_text))
    body.append("    local %s: %s[%s] layout %s;" % (lname, t, ", ".join(map(str, shape)), lay_text))
    body.append("    view pk%d = %s.view(%d, layout = default);" % (ci, lname, slots))
    body.append("    for s in 0..%d {" % slots)
    body.append("        pk%d[s] = %s;" % (ci, sentinel_text(t)))
    body.append("    }")
    store_src = lv_text
    if via_local:
        l2 = "q%d" % ci
        body.append("    local %s: %s[%s] layout %s;" % (l2, t, ", ".join(map(str, shape)), reslot(rnd, lay).text()))
        store_src = lv_text.replace(lname, l2, 1)
    ind = "    "
    if where == "if":
        body.append("    if (warp_id == %d) {" % warp_k)
        ind = "        "
    body.append("%scopy(%s, %s)%s;" % (ind, lv_text, gv.text, scope_txt))
    if via_shared:
        # through shared memory: local -> shared (the whole view), barrier, shared -> a second local
        sname = "sh%d" % ci
        l2 = "m%d" % ci
        body.append("    shared %s: %s[%s];" % (sname, gt, ", ".join(map(str, lv_shape))))
        body.append("    copy(%s, %s);" % (sname, lv_text))
        body.append("    cta_sync;")
        body.append("    local %s: %s[%s] layout %s;" % (l2, t, ", ".join(map(str, shape)), lay_text))
        body.append("    copy(%s, %s);" % (lv_text.replace(lname, l2, 1), sname))
        body.append("    cta_sync;")
        store_src = lv_text.replace(lname, l2, 1)
    if via_local:
        body.append("%scopy(%s, %s)%s;" % (ind, store_src, lv_text, scope_txt))
    body.append("%scopy(%s, %s)%s;" % (ind, ov.text, store_src, scope_txt))
    if where == "if":
        body.append("    }")
    body.append("    for s in 0..%d {" % slots)
    body.append("        %s[thread_idx.x, s] = pk%d[s];" % (pname, ci))
    body.append("    }")
    C.lines = body
    nelem = prod(lv_shape)
    holders_by_elem = regs
    runs_set = set(runs)

    def check(inputs, expected, gv=gv, ov=ov, lv_elem=lv_elem, lv_shape=lv_shape, gt=gt, t=t, slots=slots,
              pname=pname, gin_name=gin_name, gout_name=gout_name, runs_set=runs_set):
        regs_val = {}
        for th in range(threads):
            for s in range(slots):
                regs_val[(th, s)] = sentinel(t, s)
        inp = inputs[gin_name]
        for x in range(nelem):
            c = coords(lv_shape, x)
            gi = gv.index(c)
            v = convert(gt, t, inp[gi]) if gi is not None else to_bits(t, 0)
            e = lv_elem(c)
            for th, s in holders_by_elem[e]:
                if th // 32 in runs_set:
                    regs_val[(th, s)] = v
        expected[pname] = [regs_val[(th, s)] for th in range(threads) for s in range(slots)]
        out = list(inputs[gout_name])
        for x in range(nelem):
            c = coords(lv_shape, x)
            oi = ov.index(c)
            if oi is None:
                continue
            e = lv_elem(c)
            cands = sorted((th, s) for th, s in holders_by_elem[e] if th // 32 in runs_set)
            if not cands:
                continue
            vals = {regs_val[k] for k in cands}
            v = regs_val[cands[0]]
            out[oi] = convert(t, gt, v) if len(vals) == 1 else ("any", {convert(t, gt, u) for u in vals})
        expected[gout_name] = out
    C.check = check
    C.what = "mem %s %s" % (kind, lay_text)
    P.cases.append(C)


# ------------------------------------------------------------------ tmem cases

# The lane bits of each shape's image in terms of TMEM bits: ('L', k) is bit k of the lane in the slab,
# ('K', k) bit k of the 32-bit cell column in the atom (tilec --print-image).
SHAPE_LANES = {
    "32x32b": [("L", 0), ("L", 1), ("L", 2), ("L", 3), ("L", 4)],
    "16x64b": [("L", 3), ("K", 0), ("L", 0), ("L", 1), ("L", 2)],
    "16x128b": [("K", 0), ("K", 1), ("L", 0), ("L", 1), ("L", 2)],
    "16x256b": [("K", 1), ("K", 2), ("L", 0), ("L", 1), ("L", 2)],
}


def tmem_local_layout(rnd, tbits, half, lane_axes):
    """A local layout that one of the shapes' images fits, for an element whose index bits (most
    significant first) go to the TMEM bits tbits (('L', k) lane bit, ('C', k) column bit in elements):
    its lane bits where the image puts them, lane bits 5 and 6 to the warps, the rest to slots in a
    random order, except that the half of a 16-bit cell stays slot bit 0 (two halves, one register).
    None when no shape fits."""
    cell = {}
    for i, (kind, k) in enumerate(tbits):
        if kind == "L":
            cell[("L", k)] = i
        elif half == 2 and k == 0:
            cell["half"] = i
        else:
            cell[("K", k - (half == 2))] = i
    shapes = [sh for sh, lanes in SHAPE_LANES.items() if all(b in cell for b in lanes)]
    if not shapes:
        return None
    lanes = SHAPE_LANES[rnd.choice(shapes)]
    lane_of = {cell[b]: j for j, b in enumerate(lanes)}
    warp_of = {cell[("L", k)]: k - 5 for k in (5, 6) if ("L", k) in cell}
    rest = [i for i in range(len(tbits)) if i not in lane_of and i not in warp_of]
    first = [cell["half"]] if "half" in cell else []
    order = [i for i in rest if i not in first]
    if rnd.random() < 0.7:
        rnd.shuffle(order)
    order = first + order
    slot_of = {i: 1 << n for n, i in enumerate(order)}
    lane_ax, warp_ax = lane_axes
    modes = []
    for i in range(len(tbits)):
        if i in lane_of:
            modes.append((2, 1 << lane_of[i], lane_ax))
        elif i in warp_of:
            st = 1 << warp_of[i]
            modes.append((2, st if warp_ax in ("warpid", "wid_in_wg") else 32 * st, warp_ax))
        else:
            modes.append((2, slot_of[i], "m"))
    return Layout(modes)


def tmem_layout(rnd, rows, cols):
    """A tmem layout for [rows, cols]: default, datapath D (128 rows), or rows over lanes and a
    permutation of the column bits over TCol. Returns its text, the place of [i, j] and the TMEM bit of
    each index bit."""
    rb = (rows - 1).bit_length()
    cb = (cols - 1).bit_length()
    rowbits = [("L", k) for k in reversed(range(rb))]
    r = rnd.random()
    if r < 0.35:
        return "default", (lambda i, j: (i, j)), rowbits + [("C", k) for k in reversed(range(cb))]
    if r < 0.45 and rows == 128:
        return ('tmem_datapath_layout("D", 128, %d)' % cols, (lambda i, j: (i, j)),
                rowbits + [("C", k) for k in reversed(range(cb))])
    perm = list(range(cb))
    rnd.shuffle(perm)
    # column bit n (from the most significant) goes to TCol bit perm[n]
    ext = [rows] + [2] * cb
    st = ["1@TLane"] + ["%d@TCol" % (1 << perm[n]) for n in range(cb)]
    text = "S[(%s) : (%s)]" % (", ".join(map(str, ext)), ", ".join(st))

    def place(i, j, perm=perm, cb=cb):
        col = 0
        for n in range(cb):
            if j >> (cb - 1 - n) & 1:
                col += 1 << perm[n]
        return i, col
    return text, place, rowbits + [("C", perm[n]) for n in range(cb)]


def emit_tmem_case(P, ci):
    """global -> local -> tmem -> local (another layout, maybe a part) -> global."""
    rnd, threads = P.rnd, P.threads
    t = rnd.choice(["f32", "f32", "i32", "f16", "bf16"])
    half = 2 if t in ("f16", "bf16") else 1
    nw = threads // 32
    scope_txt = ""
    lane_base = 0
    # who moves it: the warps of a warpgroup over 128 lanes, the two warps of a 64-thread block, or one
    # warp (a block of one warp, or scope warp(K) over the lanes of its slab)
    if nw >= 4 and rnd.random() < 0.6:
        rows = 128
        axes = rnd.choice([("tid_in_wg", "tid_in_wg"), ("laneid", "wid_in_wg")] +
                          ([("tx", "tx"), ("laneid", "warpid")] if nw == 4 else []))
        runs_slab = {w: w % 4 for w in range(nw)}
        if nw > 4:
            # every warpgroup holds a copy: two of them would store to the same cells, so one does
            g = rnd.randrange(nw // 4)
            scope_txt = " scope warpgroup(%d)" % g
            runs_slab = {w: w % 4 for w in range(4 * g, 4 * g + 4)}
    elif nw == 2 and rnd.random() < 0.6:
        rows = 64
        axes = rnd.choice([("tx", "tx"), ("laneid", "warpid")])
        runs_slab = {0: 0, 1: 1}
    else:
        k = rnd.randrange(nw)
        rows = rnd.choice([32, 32, 16])
        axes = ("laneid", "laneid")
        if nw > 1:
            scope_txt = " scope warp(%d)" % k
        lane_base = 32 * (k % 4) + (rnd.choice([0, 16]) if rows == 16 else 0)
        runs_slab = {k: k % 4}
    cols = rnd.choice([1, 2, 4, 8, 16]) * half
    shape = [rows, cols]
    tl_text, tplace, tbits = tmem_layout(rnd, rows, cols)
    if lane_base:
        tl_text = "S[(%d, %d) : (1@TLane, 1@TCol)] + %d@TLane" % (rows, cols, lane_base)
        tplace = (lambda i, j: (i, j))
        tbits = [("L", k) for k in reversed(range((rows - 1).bit_length()))] + \
            [("C", k) for k in reversed(range((cols - 1).bit_length()))]
    lay1 = tmem_local_layout(rnd, tbits, half, axes)
    lay2 = tmem_local_layout(rnd, tbits, half, axes)
    if lay1 is None or lay2 is None:
        emit_mem_case(P, ci)
        return
    C = Case()
    gin = P.name("In")
    C.params.append((gin, t, shape))
    pname = P.name("P")
    slots2 = slots_of(lay2, shape)
    C.params.append((pname, t, [threads, slots2]))
    gout = P.name("Out")
    C.params.append((gout, t, shape))
    a, b, tm = "a%d" % ci, "b%d" % ci, "t%d" % ci
    lines = ["    // case %d: tmem %s, locals %s and %s" % (ci, tl_text, lay1.text(), lay2.text()),
             "    local %s: %s[%d, %d] layout %s;" % (a, t, rows, cols, lay1.text()),
             "    local %s: %s[%d, %d] layout %s;" % (b, t, rows, cols, lay2.text()),
             "    tmem %s: %s[%d, %d] layout %s;" % (tm, t, rows, cols, tl_text)]
    lines.append("    view pk%d = %s.view(%d, layout = default);" % (ci, b, slots2))
    lines.append("    for s in 0..%d {" % slots2)
    lines.append("        pk%d[s] = %s;" % (ci, sentinel_text(t)))
    lines.append("    }")
    lines.append("    copy(%s, %s);" % (a, gin))
    # the part moved: the whole tensor, or half of its columns
    # half of the columns, where the top column bit is a slot bit in both layouts (were it a lane bit,
    # half of the lanes would hold nothing: no instruction, diagnostics.md)
    top = (rows - 1).bit_length()
    top_slot = all(top < len(l.modes) and l.modes[top][2] == "m" for l in (lay1, lay2))
    if rnd.random() < 0.3 and cols >= 2 * half and cols % (2 * half) == 0 and top_slot:
        c0 = rnd.choice([0, cols // 2])
        pr, pc = (0, rows), (c0, c0 + cols // 2)
        sl = "[:, %d:%d]" % pc
        tv, av, bv = tm + sl, a + sl, b + sl
    else:
        pr, pc = (0, rows), (0, cols)
        tv, av, bv = tm, a, b
    lines.append("    copy(%s, %s)%s;" % (tv, av, scope_txt))
    lines.append("    copy(%s, %s)%s;" % (bv, tv, scope_txt))
    lines.append("    for s in 0..%d {" % slots2)
    lines.append("        %s[thread_idx.x, s] = pk%d[s];" % (pname, ci))
    lines.append("    }")
    lines.append("    copy(%s, %s)%s;" % (gout, b, scope_txt))
    C.lines = lines
    regs_b = regs_state(lay2, shape, threads)
    store_warps = set(runs_slab) if scope_txt else set(range(nw))

    def check(inputs, expected, gin=gin, gout=gout, pname=pname, regs_b=regs_b, slots2=slots2, t=t,
              shape=shape, pr=pr, pc=pc, lane_base=lane_base, tplace=tplace, runs_slab=runs_slab,
              store_warps=store_warps):
        inp = inputs[gin]
        regs = {(th, s): sentinel(t, s) for th in range(threads) for s in range(slots2)}
        # the load: a warp that runs it fills the replicas it holds of the elements in its slab
        for i in range(pr[0], pr[1]):
            for j in range(pc[0], pc[1]):
                e = i * shape[1] + j
                lane = tplace(i, j)[0] + lane_base
                for th, s in regs_b[e]:
                    w = th // 32
                    if w in runs_slab and runs_slab[w] == (lane // 32) % 4:
                        regs[(th, s)] = inp[e]
        expected[pname] = [regs[(th, s)] for th in range(threads) for s in range(slots2)]
        out = list(inputs[gout])
        for e in range(prod(shape)):
            cands = sorted((th, s) for th, s in regs_b[e] if th // 32 in store_warps)
            if cands:
                out[e] = regs[cands[0]]
        expected[gout] = out
    C.check = check
    C.what = "tmem %s %s %s" % (tl_text, lay1.text(), lay2.text())
    P.cases.append(C)


def make_program(rnd, ncases, tmem_share):
    threads = rnd.choice([32, 64, 96, 128, 128, 256])
    P = Program(rnd, threads)
    for ci in range(ncases):
        if threads != 96 and rnd.random() < tmem_share:
            emit_tmem_case(P, ci)
        else:
            emit_mem_case(P, ci)
    return P


# ------------------------------------------------------------------ running and comparing

def read_dump(d):
    tensors = {}
    with open(os.path.join(d, "manifest")) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "tensor":
                tensors[int(w[1])] = (w[2], w[3])
    ins, outs = {}, {}
    for i, (name, t) in tensors.items():
        fmt = "<" + FMT[t] if t not in ("f32",) else "<I"
        if t == "i32":
            fmt = "<I"
        sz = SIZE[t]
        for which, store in (("in", ins), ("out", outs)):
            data = open(os.path.join(d, "%d.%s" % (i, which)), "rb").read()
            n = len(data) // sz
            code = {4: "I", 2: "H", 1: "B"}[sz]
            store[name] = list(struct.unpack("<%d%s" % (n, code), data))
    return ins, outs


def first_error(err):
    """The first error line of tilec's stderr and its line number, or (None, None)."""
    for l in err.splitlines():
        if ": error:" in l:
            parts = l.split(":")
            try:
                return l, int(parts[1])
            except (IndexError, ValueError):
                return l, None
    return None, None


def run_one(args, idx, seed):
    """One program: its cases that tilec refuses dropped one by one (tilec --target=emu, no run), the
    rest run and compared. Returns (index, seed, passed cases, rejections, failures, text, cmd)."""
    rnd = random.Random(seed)
    P = make_program(rnd, args.cases, args.tmem)
    work = tempfile.mkdtemp(prefix="copydiff.", dir=args.tmp)
    path = os.path.join(work, "p%d.tile" % idx)
    rejections = []
    text, cmd = "", []
    try:
        while P.cases:
            text, ranges = P.text()
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([args.tilec, "--target=emu", path, "-o", os.devnull], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=600)
            err = r.stderr.decode(errors="replace")
            if r.returncode == 0:
                break
            line, no = first_error(err)
            which = [k for k, (a, b) in enumerate(ranges) if no is not None and a <= no <= b]
            if r.returncode != 1 or not which:
                return (idx, seed, 0, rejections, ["tilec --target=emu: exit status %d: %s" % (r.returncode, err[-3000:])],
                        text, [args.tilec, "--target=emu", path])
            c = P.cases.pop(which[0])
            rejections.append((c.what, line, err, text))
        if not P.cases:
            return (idx, seed, 0, rejections, [], text, cmd)
        dump = os.path.join(work, "dump")
        cmd = [args.tilec, "run", path, "-w", "--dump", dump]
        for n, v in P.scalars():
            cmd += ["--set", "%s=%d" % (n, v)]
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        except subprocess.TimeoutExpired:
            return (idx, seed, 0, rejections, ["tilec run: timeout"], text, cmd)
        err = r.stderr.decode(errors="replace") + r.stdout.decode(errors="replace")
        if r.returncode != 0:
            return (idx, seed, 0, rejections, ["tilec run: exit status %d: %s" % (r.returncode, err[-3000:])], text, cmd)
        ins, outs = read_dump(dump)
        failures = []
        passed = 0
        for k, c in enumerate(P.cases):
            expected = {}
            c.check(ins, expected)
            problems = []
            for name, want in expected.items():
                got = outs[name]
                bad = []
                for x, (w, g) in enumerate(zip(want, got)):
                    if isinstance(w, tuple):
                        if g not in w[1]:
                            bad.append((x, sorted(w[1]), g))
                    elif w != g:
                        bad.append((x, w, g))
                if bad:
                    problems.append("%s: %d of %d elements differ; first [%d]: expected %s, got %s" %
                                    (name, len(bad), len(want), bad[0][0], bad[0][1], bad[0][2]))
            if problems:
                failures.append("case at lines %d-%d (%s): %s" % (ranges[k][0], ranges[k][1], c.what, "; ".join(problems)))
            else:
                passed += 1
        return (idx, seed, passed, rejections, failures, text, cmd)
    finally:
        subprocess.run(["rm", "-rf", work])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilec", default="build/tilec")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--programs", type=int, default=10)
    ap.add_argument("--cases", type=int, default=8)
    ap.add_argument("--tmem", type=float, default=0.3, help="share of cases through tensor memory")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep", help="directory for the failing and rejected programs")
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--rejections", help="file for every rejection message")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--lines", action="store_true", help="one PASS or FAIL line per program (tests/copy-diff.sh)")
    ap.add_argument("--print", action="store_true", help="print the programs and exit")
    args = ap.parse_args()
    seeds = [(i, args.seed * 1000003 + i) for i in range(args.programs)]
    if args.print:
        for i, sd in seeds:
            print(make_program(random.Random(sd), args.cases, args.tmem).text()[0])
        return 0
    totals = {"programs": 0, "cases": 0, "passed": 0, "rejected": 0, "failed": 0, "failed_programs": 0}
    rej = []
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for idx, seed, passed, rejections, failures, text, cmd in ex.map(lambda p: run_one(args, *p), seeds):
            totals["programs"] += 1
            totals["cases"] += passed + len(rejections) + (args.cases - passed - len(rejections))
            totals["passed"] += passed
            totals["rejected"] += len(rejections)
            nfail = args.cases - passed - len(rejections) if failures else 0
            totals["failed"] += nfail
            totals["failed_programs"] += bool(failures)
            if args.lines:
                print("%s copy-diff/%d/%d: %d cases passed, %d refused by tilec%s" %
                      ("FAIL" if failures else "PASS", args.seed, idx, passed, len(rejections),
                       ", %d failed" % nfail if failures else ""))
            elif args.v or failures:
                print("%s program %d (seed %d): %d passed, %d rejected, %d failed" %
                      ("FAIL" if failures else "ok", idx, seed, passed, len(rejections), nfail))
            for f in failures[:3]:
                print("    " + f[:3000].replace("\n", "\n    "))
            for what, line, err, rtext in rejections:
                rej.append((idx, seed, what, line, err))
            if args.keep and failures:
                with open(os.path.join(args.keep, "fail-%d.tile" % idx), "w") as f:
                    f.write(text)
                with open(os.path.join(args.keep, "fail-%d.txt" % idx), "w") as f:
                    f.write(" ".join(cmd) + "\n" + "\n".join(failures) + "\n")
            if args.keep:
                for k, (what, line, err, rtext) in enumerate(rejections):
                    with open(os.path.join(args.keep, "reject-%d-%d.tile" % (idx, k)), "w") as f:
                        f.write(rtext)
                    with open(os.path.join(args.keep, "reject-%d-%d.err" % (idx, k)), "w") as f:
                        f.write(err)
    if args.rejections:
        with open(args.rejections, "w") as f:
            for idx, seed, what, line, err in rej:
                f.write("program %d (seed %d): %s\n    %s\n" % (idx, seed, line, what))
    print("copy-diff: seed %d, %d programs, %d cases: %d passed, %d rejected by tilec, %d failed (in %d programs)" %
          (args.seed, totals["programs"], totals["cases"], totals["passed"], totals["rejected"], totals["failed"],
           totals["failed_programs"]))
    return 1 if totals["failed"] or totals["failed_programs"] else 0


if __name__ == "__main__":
    sys.exit(main())
