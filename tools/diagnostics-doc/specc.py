T("copy", """
`copy(dst, src)` between tmem and local views searches the tcgen05.ld / st instructions itself
(copy.md). Its operands must fit a copy at all; when no instruction matches their
layouts, the error names the closest candidate, its first mismatching element in the copy's
coordinates, and what would make it fit.
""")
BASES["copy"] = """layout TD  = tmem_datapath_layout("D", 128, 32);
layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];

kernel k(A: f32[128, 32], Out: f32[128, 32]) launch(grid = 1, block = 128)
{
    let tid = thread_idx.x;
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 32);
    }
    cta_sync;
    tmem acc: f32[128, 32] at address[0] layout TD;
    local r: f32[128, 32] layout ROW;
    view mine = r.view(32, layout = default);
    for j in 0..32 {
        mine[j] = A[tid, j];
    }
    copy(acc, r);
    copy(r, acc);
    for j in 0..32 {
        Out[tid, j] = mine[j];
    }
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 32);
    }
}
"""
E("copy_no_match", "`no tcgen05.ld instruction matches the layouts of this copy; the closest candidate is OPCODE` (and `tcgen05.st`)",
  "No instruction's image fits the two layouts. Here each warp's 32 x 32 block of registers is transposed (thread 32w + c holds column c of rows 32w..32w+31), which no tcgen05.ld shape delivers. The notes are those of apply's check for the closest candidate (the one whose check got furthest), with the element in the copy's coordinates, and what the local (or tmem) layout would have to say instead.",
  "copy", wrong=[('layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];\n', 'layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];\nlayout TRANSPOSED = S[(4, 32, 32) : (32@tid_in_wg, 1, 1@tid_in_wg)];\n'),
                 ("    for j in 0..32 {\n        Out[tid, j] = mine[j];\n    }\n", "    local t: f32[128, 32] layout TRANSPOSED;\n    copy(t, acc);\n")],
  fix=[("    local t: f32[128, 32] layout TRANSPOSED;\n    copy(t, acc);\n", "    for j in 0..32 {\n        Out[tid, j] = mine[j];\n    }\n")],
  fixtext="use a layout that an instruction delivers (here: back to ROW, thread t holds row t, which is 32x32b's image), or apply the transposition to the registers after a copy that fits.")
E("copy_uneven", "`no tcgen05.st instruction matches ...` with `warp N of the warpgroup would issue ...`",
  "Each warp moves the elements in its own TMEM lanes (its 32-lane slab), and the warps of the scope issue the same instructions. A copy of rows 0..63 with warpgroup scope leaves warps 2 and 3 nothing to do.",
  "copy", wrong=[("    copy(acc, r);\n", "    copy(acc[0:64, :], r[0:64, :]);\n")],
  fix=[("    copy(acc[0:64, :], r[0:64, :]);\n", "    copy(acc, r);\n")],
  fixtext="copy what every warp of the scope holds (or give the copy the scope `warp(K)` of one warp and its slab's rows).")
E("copy_hole", "`no tcgen05.st instruction matches ...` with `it would also move TMEM lane L, ...`",
  "Every instruction moves whole atoms: 32 lanes (or 16) by its width in columns. A copy of 31 rows per warp would leave a lane of every atom out, and an instruction would store it too.",
  "copy", wrong=[("    copy(acc, r);\n", '    view av = acc.rearrange("(w l) c -> w l c", w = 4);\n    view rv = r.rearrange("(w l) c -> w l c", w = 4);\n    copy(av[:, 0:31, :], rv[:, 0:31, :]);\n')],
  fix=[("    copy(av[:, 0:31, :], rv[:, 0:31, :]);\n", "    copy(av, rv);\n")],
  fixtext="copy whole lanes (here all 32 of each warp).")
E("copy_shape", "`copy needs operands of one shape: 'A' is (...), 'B' is (...)`",
  "dst[c] = src[c] for every coordinate c: both views have the same dimensions.",
  "copy", wrong=[("    copy(acc, r);\n", "    copy(acc[:, 0:16], r);\n")],
  fix=[("    copy(acc[:, 0:16], r);\n", "    copy(acc[:, 0:16], r[:, 0:16]);\n")],
  fixtext="slice both operands alike.")
E("copy_type", "`copy between tmem and local needs one element type: 'A' is T, 'B' is U`",
  "tcgen05.ld and st move bits, so the two tensors have the same element type (a conversion is an assignment on the registers).",
  "copy", wrong=[("    local r: f32[128, 32] layout ROW;\n", "    local r: f32[128, 32] layout ROW;\n    local h: bf16[128, 32] layout ROW;\n"),
                 ("    copy(acc, r);\n", "    copy(acc, h);\n")],
  fix=[("    copy(acc, h);\n", "    copy(acc, r);\n")],
  fixtext="copy from a tensor of the tmem tensor's type.")
E("copy_kinds", "`copy moves between tmem and local views, or between local views and global or shared tensors; ...`",
  "Tensor memory is reached only from registers: a copy names one tmem view and one local view, or one local view and a global or shared tensor.",
  "copy", wrong=[("    copy(acc, r);\n", "    copy(acc, A);\n")],
  fix=[("    copy(acc, A);\n", "    copy(acc, r);\n")],
  fixtext="go through registers: load into a local tensor first, then copy that.")
E("copy_per_thread", "`copy with tensor memory takes a view of the whole local tensor 'NAME', not a per-thread view`",
  "A per-thread view names one thread's registers; a tcgen05 copy works on the whole distributed tensor, whose layout says which thread holds each element.",
  """layout ONE = S[(32, 32) : (1@laneid, 1)];

kernel k(A: f32[32, 32]) launch(grid = 1, block = 32)
{
    shared address: u32[1];
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 32);
    cta_sync;
    tmem t: f32[32] at address[0] layout S[32 : 1@TCol];
    local r: f32[32, 32] layout ONE;
    copy(t, r.view(32, layout = default)) scope warp(0);
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 32);
}
""",
  fix=[("    tmem t: f32[32] at address[0] layout S[32 : 1@TCol];\n", "    tmem t: f32[32, 32] at address[0] layout S[(32, 32) : (1@TLane, 1@TCol)];\n"),
       ("    copy(t, r.view(32, layout = default)) scope warp(0);\n", "    copy(t, r) scope warp(0);\n")],
  fixtext="copy the whole local tensor to a tmem tensor of its shape.")
BASES["copymem"] = """layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];

kernel k(A: f32[128, 32], Out: f32[128, 32]) launch(grid = 1, block = 128)
{
    local r: f32[128, 32] layout ROW;
    copy(r, A);
    copy(Out, r);
}
"""
E("copy_mem_per_thread", "`copy with memory takes a view of the whole local tensor 'NAME', not a per-thread view`",
  "A copy between registers and memory works on the distributed tensor: its layout says which thread moves which element. A per-thread view is for element-by-element code.",
  "copymem", wrong=[("    copy(Out, r);\n", "    copy(Out[0, :], r.view(32, layout = default));\n")],
  fix=[("    copy(Out[0, :], r.view(32, layout = default));\n", "    copy(Out, r);\n")],
  fixtext="copy the whole local tensor (or a slice of it) to the matching part of the memory tensor.")
E("copy_partial_slot", "`copy: register slot N of 'NAME' holds an element of the copy in M of the T threads, which are neither a range of thread_idx.x nor the threads with some bits of it fixed`",
  "Each register slot becomes one access per thread, under a test of which threads hold it: a range of thread indices (`thread_idx.x < 64`) or the threads with some bits of their index fixed (one warp, one half of the block). Here rows 0..47 live in threads 0..47 and rows 48..95 in threads 64..111: no such test describes them.",
  """layout ROWS = S[(2, 48, 4) : (64@tx, 1@tx, 1)];

kernel k(A: f32[96, 4], Out: f32[96, 4]) launch(grid = 1, block = 128)
{
    local r: f32[96, 4] layout ROWS;
    copy(r, A);
    copy(Out, r);
}
""", wrong=[], fix=[("ROWS = S[(2, 48, 4) : (64@tx, 1@tx, 1)]", "ROWS = S[(96, 4) : (1@tx, 1)]")],
  fixtext="give the rows that the copy moves to a range of threads (or to the threads of whole warps).")
E("copy_offsets", "`copy: the memory offsets of register slot N of 'NAME' are no sum of bit fields of thread_idx.x; ...`",
  "tilec computes each thread's offset from bit fields of its index, which covers strided layouts over a power-of-two block. A block of 96 threads has no such form.",
  """layout ROW = S[(96, 4) : (1@tx, 1)];

kernel k(A: f32[96, 4], Out: f32[96, 4]) launch(grid = 1, block = 96)
{
    local r: f32[96, 4] layout ROW;
    copy(r, A);
    copy(Out, r);
}
""", wrong=[], fix=[("ROW = S[(96, 4) : (1@tx, 1)]", "ROW = S[(96, 4) : (1@tx, 1)];\nlayout ROW128 = S[(128, 4) : (1@tx, 1)]"),
                   ("A: f32[96, 4], Out: f32[96, 4]) launch(grid = 1, block = 96)", "A: f32[128, 4], Out: f32[128, 4]) launch(grid = 1, block = 128)"),
                   ("local r: f32[96, 4] layout ROW;", "local r: f32[128, 4] layout ROW128;")],
  fixtext="use a power-of-two block (or move the elements with a loop over a per-thread view).")
E("copy_block_2d", "`copy between registers and memory needs a one-dimensional block, not X x Y x Z`",
  "The offsets are computed from `thread_idx.x` alone.",
  "copymem", wrong=[("launch(grid = 1, block = 128)", "launch(grid = 1, block = (64, 2))")],
  fix=[("launch(grid = 1, block = (64, 2))", "launch(grid = 1, block = 128)")],
  fixtext="launch a one-dimensional block.")
E("copy_divergent", "`copy inside control flow that can split a warp; every lane of the warp must execute it`",
  "A copy with tensor memory is made of tcgen05.ld / st instructions, which are `.sync.aligned`: every lane of a warp executes them together. A copy between registers and global or shared memory moves each thread's own elements and may sit in such control flow (tests/golden/copy_divergent_memory.tile).",
  "copy", wrong=[("    copy(acc, r);\n", "    if (lane_id < 16) {\n        copy(acc, r);\n    }\n")],
  fix=[("    if (lane_id < 16) {\n        copy(acc, r);\n    }\n", "    copy(acc, r);\n")],
  fixtext="copy with tensor memory where the whole warp runs, and split the warp only around the work on registers or memory.")
