#!/usr/bin/env python3
"""cp-image-golden.py: writes tests/data/tcgen05_cp_images.tsv, the image of every tcgen05.cp form, from the
PTX ISA's description of the data-movement shapes (not from tilec's code), each lane cross-checked with
TVM TIRx's B200-run table (below); the script stops if the two disagree.

The PTX ISA ("tcgen05 Data Movement Shape") describes each shape by the warps of the warpgroup whose
32-lane quarters of tensor memory receive the data: a shape of 128 rows fills all 128 lanes in order;
4x256b puts row r in the first lane of warp r's quarter; a multicast names warp sets, one per group of
32 source rows: warpx2::02_13 sends rows 0..31 to warps 0 and 2 and rows 32..63 to warps 1 and 3,
warpx2::01_23 rows 0..31 to warps 0 and 1 and rows 32..63 to warps 2 and 3, warpx4 rows 0..31 to all
four. Each 16-byte chunk c of a row fills columns 4c..4c+3. Decompression and cta_group::2 change
neither the lanes nor the columns. Regenerate with: python3 tools/cp-image-golden.py >tests/data/tcgen05_cp_images.tsv
"""

# shape: (rows, chunks per row, multicasts: name -> warp set of each 32-row group); None = no multicast
SHAPES = [
    ("128x256b", 128, 2, {None: None}),
    ("4x256b", 4, 2, {None: None}),
    ("128x128b", 128, 1, {None: None}),
    ("64x128b", 64, 1, {"warpx2::02_13": [[0, 2], [1, 3]], "warpx2::01_23": [[0, 1], [2, 3]]}),
    ("32x128b", 32, 1, {"warpx4": [[0, 1, 2, 3]]}),
]
DECOMPRESSIONS = [None, "b8x16.b6x16_p32", "b8x16.b4x16_p64"]


def lanes_of(shape, rows, warp_sets, r):
    if warp_sets is not None:
        return [32 * w + r % 32 for w in warp_sets[r // 32]]
    if rows == 4:
        return [32 * r]  # one row per warp quarter, its first lane
    return [r]


# The second source: TVM TIRx's end-to-end cp tests (apache/tvm, tests/python/tirx/operator/tile_primitive/
# cuda/copy_async/test_tcgen05_cp.py, run on a B200) describe each route as the lane of row r in ONE copy
# and the lane offsets of the multicast replicas. Every lane the warp sets give must be what this gives.
TVM_ONE_COPY = {
    "128x256b": lambda r: r, "128x128b": lambda r: r, "4x256b": lambda r: 32 * r,
    "warpx2::02_13": lambda r: r,  # rows 0-63 -> lanes 0-63
    "warpx2::01_23": lambda r: r if r < 32 else r + 32,  # rows 32-63 -> lanes 64-95
    "warpx4": lambda r: r,
}
TVM_REPLICA_OFFSETS = {None: [0], "warpx2::02_13": [0, 64], "warpx2::01_23": [0, 32], "warpx4": [0, 32, 64, 96]}


def tvm_lanes(shape, multi, r):
    one = TVM_ONE_COPY[multi if multi else shape](r)
    return [one + off for off in TVM_REPLICA_OFFSETS[multi]]


def main():
    print("# opcode\trow\tchunk\tlanes (relative to taddr)\tcolumns (relative to taddr)")
    for group in (1, 2):
        for shape, rows, chunks, multicasts in SHAPES:
            for multi, warp_sets in multicasts.items():
                for decomp in DECOMPRESSIONS:
                    parts = ["tcgen05", "cp", "cta_group::%d" % group, shape]
                    parts += [multi] if multi else []
                    parts += [decomp] if decomp else []
                    name = ".".join(parts)
                    for r in range(rows):
                        lanes = lanes_of(shape, rows, warp_sets, r)
                        if sorted(lanes) != sorted(tvm_lanes(shape, multi, r)):
                            raise SystemExit("%s row %d: the PTX warp sets give lanes %s, TVM's table %s"
                                             % (name, r, lanes, tvm_lanes(shape, multi, r)))
                        for c in range(chunks):
                            cols = "%d..%d" % (4 * c, 4 * c + 3)
                            print("%s\t%d\t%d\t%s\t%s" % (name, r, c, ",".join(map(str, sorted(lanes))), cols))


main()
