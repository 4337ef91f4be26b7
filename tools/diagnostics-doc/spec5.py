def golden(name):
    BASES[name] = strip_comments(open("tests/golden/%s.tile" % name).read())
    return name
for n in ["proto_alloc_after_relinquish", "proto_alloc_all_warps", "proto_alloc_grows", "proto_alloc_ncols", "proto_at_no_alloc",
          "proto_cross_warp", "proto_cta_group_mix", "proto_dealloc_ncols", "proto_dealloc_one_path", "proto_lane_branch",
          "proto_ld_no_wait", "proto_ld_wait_one_branch", "proto_no_dealloc", "proto_no_relinquish", "proto_st_ld_pending",
          "proto_st_no_wait", "proto_tid_branch_apply", "proto_use_after_dealloc"]:
    golden(n)
DEALLOC = "tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0], 32);"
T("Single tcgen05 statements", """
alloc, dealloc, relinquish_alloc_permit, the two waits and the two fences are written as single
statements with their PTX spelling and operands ([reference.md section 8](reference.md#8-statements)).
""")
E("instr_unknown", "`unknown tcgen05 instruction 'OPCODE'; tilec knows alloc, dealloc, relinquish_alloc_permit, wait::ld, wait::st and the two thread_sync fences (with their exact PTX spelling), and ld / st through apply`",
  "The spelling must be exact, including `.sync.aligned` and the `cta_group`.",
  "small", wrong=[("tcgen05.wait::st.sync.aligned;", "tcgen05.wait::st;")], fix=[("tcgen05.wait::st;", "tcgen05.wait::st.sync.aligned;")])
E("instr_ldst", "`tcgen05.ld is written with apply, which checks it against its image: apply OPCODE(...) scope warpgroup;`",
  "Loads and stores are always written with `apply`.",
  "small", wrong=[("    apply tcgen05.ld.sync.aligned.32x32b.x1.b32(r, t) scope warp(0);", "    tcgen05.ld.sync.aligned.32x32b.x1.b32(r, t);")],
  fix=[("    tcgen05.ld.sync.aligned.32x32b.x1.b32(r, t);", "    apply tcgen05.ld.sync.aligned.32x32b.x1.b32(r, t) scope warp(0);")])
E("instr_operands", "`OPCODE takes N operands, not M`",
  "", "small", wrong=[("tcgen05.wait::st.sync.aligned;", "tcgen05.wait::st.sync.aligned(t);")], fix=[("tcgen05.wait::st.sync.aligned(t);", "tcgen05.wait::st.sync.aligned;")])
E("ncols", "`tcgen05 allocations take a power of two from 32 to 512 columns, not N`",
  "alloc and dealloc take a power of two from 32 to 512 ([reference.md section 11.4](reference.md#114-allocation)).",
  "proto_alloc_ncols", wrong=[], fix=[("(&address[0], 48)", "(&address[0], 64)")])
E("dealloc_float", "`tcgen05.dealloc takes a TMEM address (u32), not a float`",
  "", "small", wrong=[(DEALLOC, "tcgen05.dealloc.cta_group::1.sync.aligned.b32(f32(slot[0]), 32);")], fix=[("(f32(slot[0]), 32)", "(slot[0], 32)")])
E("tmem_at_float", "`a TMEM address is a u32, not a float`",
  "", "small", wrong=[("at slot[0] layout default;", "at f32(slot[0]) layout default;")], fix=[("at f32(slot[0])", "at slot[0]")])
E("cta_group_mix", "`cta_group::2 mixed with cta_group::1 in one kernel`",
  "All tcgen05 instructions of a kernel use one cta_group; ptxas rejects a mix.",
  "proto_cta_group_mix", wrong=[], fix=[("relinquish_alloc_permit.cta_group::2", "relinquish_alloc_permit.cta_group::1")])

T("Allocation", """
tilec follows each `tcgen05.alloc` from the shared slot it fills to the tmem tensors declared at
that slot, and each `tcgen05.dealloc` back to the allocation it frees (docs/protocol.md).
""")
E("alloc_warps", "`tcgen05.alloc must be executed by one warp, but N warps can reach it here; guard it with if (warp_id == K)`",
  "alloc (and dealloc) are executed by exactly one warp.",
  "proto_alloc_all_warps", wrong=[],
  fix=[("    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);\n", "    if (warp_id == 0) {\n        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);\n    }\n")])
E("dealloc_warps", "`tcgen05.dealloc must be executed by one warp, but N warps can reach it here; guard it with if (warp_id == K)`",
  "", "tmem_roundtrip", wrong=[("        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n    }", "    }\n    tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);")],
  fix=[("    }\n    tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);", "        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n    }")])
E("at_no_alloc", "`no tcgen05.alloc writes the address 'NAME' is declared at; declare a tmem tensor at the shared slot an alloc filled (plus a constant offset)`",
  "A tmem tensor is declared `at` the shared slot an alloc wrote, optionally plus a constant (columns, and lanes as `k << 16`); that is how tilec knows which allocation and which cells it covers.",
  "proto_at_no_alloc", wrong=[], fix=[("at address[1] layout", "at address[0] layout")])
E("alloc_grows", "`tcgen05.alloc of N columns after one of M: the column count must not grow between allocations of a CTA`",
  "A rule of the hardware: [reference.md section 11.4](reference.md#114-allocation).", "proto_alloc_grows", wrong=[],
  fix=[("(&address[0], 64);", "(&address[0], 128);"), ("(&address[1], 128);", "(&address[1], 64);"), ("b32(address[0], 64);", "b32(address[0], 128);"), ("b32(address[1], 128);", "b32(address[1], 64);")])
E("dealloc_offset", "`tcgen05.dealloc takes the address the allocation returned, not an offset into it`",
  "", "small", wrong=[(DEALLOC, "tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0] + 16, 32);")], fix=[("(slot[0] + 16, 32)", "(slot[0], 32)")])
E("dealloc_ncols", "`tcgen05.dealloc of N columns, but the allocation has M`",
  "dealloc names exactly the allocated (address, ncols).", "proto_dealloc_ncols", wrong=[], fix=[("b32(address[0], 128);", "b32(address[0], 64);")])
E("dealloc_twice", "`tensor memory freed twice`",
  "", "small", wrong=[(DEALLOC, DEALLOC + "\n    " + DEALLOC)], fix=[(DEALLOC + "\n    " + DEALLOC, DEALLOC)])
E("no_dealloc", "`tensor memory allocated here is not freed with tcgen05.dealloc (N columns) on every path to the end of kernel 'NAME'`",
  "Every allocation is freed before the kernel exits, on every path.",
  "proto_no_dealloc", wrong=[], fix=[("        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n", "        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n")])
E("dealloc_one_path", "(the same, with the note `it is freed here, but not on every path`)",
  "Here the dealloc sits under a condition that is not true in every CTA.",
  "proto_dealloc_one_path", wrong=[], fix=[("if (block_idx.x == 0) {\n            tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n        }", "tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);")])
E("use_after_dealloc", "`'NAME' is used after the tcgen05.dealloc of its tensor memory` / `'VIEW' (a view of tmem tensor 'NAME') is used after ...`",
  "A tmem tensor (or a view of it) used by an apply, or declared, after its allocation was freed on some path. The message names what the apply wrote, and the tensor behind a view.",
  "proto_use_after_dealloc", wrong=[], fix=[("    cta_sync;\n    if (warp == 0) {\n        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n    }\n    cta_sync;\n    apply tcgen05.ld.sync.aligned.32x32b.x64.b32(dv, mv) scope warpgroup;\n    tcgen05.wait::ld.sync.aligned;\n", ""),
    ("relinquish_alloc_permit.cta_group::1.sync.aligned;\n    }", "relinquish_alloc_permit.cta_group::1.sync.aligned;\n        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 64);\n    }")],
  fixtext="free the memory after its last use (behind a `cta_sync`, so that every warp is done with it).")
E("alloc_after_relinquish", "`tcgen05.alloc after tcgen05.relinquish_alloc_permit: this CTA gave up its right to allocate`",
  "", "proto_alloc_after_relinquish", wrong=[], fix=[("        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);", "        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 64);\n        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;")],
  fixtext="relinquish after the last allocation.")
E("no_relinquish", "`kernel 'NAME' allocates tensor memory but does not execute tcgen05.relinquish_alloc_permit on every path; other CTAs on the SM may wait for columns [-Wmissing-relinquish]` (warning)",
  "A warning (an error under `-Werror`, as here, or `-Werror=missing-relinquish`; `-Wno-missing-relinquish` turns it off): the allocating warp should give up its permit once it allocates no more, so that other CTAs on the SM do not wait. It is only reported when there are no errors.",
  "proto_no_relinquish", wrong=[], args="-Werror",
  fix=[("    if (warp == 0) {\n        tcgen05.dealloc", "    if (warp == 0) {\n        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n        tcgen05.dealloc")])

T("Completion and ordering: wait::ld, wait::st and cta_sync", """
tcgen05.ld and tcgen05.st are asynchronous. docs/protocol.md explains what tilec tracks; each error
names the statement that completes too late and has a note at the other party.
""")
E("ld_no_wait", "`reads register slot N of 'NAME' before tcgen05.wait::ld; the tcgen05.ld that writes it may not have completed`",
  "A register a tcgen05.ld writes is read (in an expression, or as a store source) on some path with no wait::ld between.",
  "proto_ld_no_wait", wrong=[], fix=[("scope warpgroup;\n    view local_dst", "scope warpgroup;\n    tcgen05.wait::ld.sync.aligned;\n    view local_dst")])
E("ld_wait_one_branch", "(the same, when only some warps wait)",
  "The wait is on one side of a branch on `warp_id`: warps 1 to 3 go the other way and read too early. tests/golden/proto_ld_wait_both_branches.tile waits on both sides.",
  "proto_ld_wait_one_branch", wrong=[], fix=[("    if (warp == 0) {\n        tcgen05.wait::ld.sync.aligned;\n    }", "    tcgen05.wait::ld.sync.aligned;")])
E("st_ld_pending", "`this tcgen05.st stores registers of 'NAME' that a tcgen05.ld may still be writing`",
  "", "proto_st_ld_pending", wrong=[], fix=[("    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, dv) scope warpgroup;", "    tcgen05.wait::ld.sync.aligned;\n    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, dv) scope warpgroup;")])
E("st_no_wait", "`tcgen05.ld reads TMEM (lane L, column C) that warp W stored with tcgen05.st without tcgen05.wait::st in between`",
  "The same warp stores and then loads overlapping cells.",
  "proto_st_no_wait", wrong=[], fix=[("scope warpgroup;\n    cta_sync;\n    apply tcgen05.ld", "scope warpgroup;\n    tcgen05.wait::st.sync.aligned;\n    cta_sync;\n    apply tcgen05.ld")])
E("cross_warp", "`warp W reads TMEM (lane L, column C) that warp V stored; warp V must execute tcgen05.wait::st and then cta_sync before this load`",
  "Another warp stored the cells: the storing warp waits, then a `cta_sync` orders it before the load (tilec adds the fences around that `cta_sync`). The fixed program is tests/golden/proto_cross_warp_synced.tile.",
  "proto_cross_warp", wrong=[], fix=[("        tcgen05.wait::st.sync.aligned;\n    }\n", "        tcgen05.wait::st.sync.aligned;\n    }\n    cta_sync;\n")])

T("Warp-uniform control flow", """
tcgen05 instructions are `.sync.aligned`: all 32 lanes of a warp execute each one together. tilec
evaluates every `if` condition for every thread of the block; a condition that can differ between
the lanes of one warp (it depends on `lane_id`, `thread_idx`, a register or a value derived from
them, and does not split the block at warp boundaries) makes its body divergent.
""")
E("lane_branch", "`OPCODE inside control flow that can split a warp; every lane of the warp must execute it`",
  "", "proto_lane_branch", wrong=[], fix=[("if (lane_id == 0)", "if (warp_id == 0)")])
E("tid_branch_apply", "`apply inside control flow that can split a warp; every lane of the warp must execute it`",
  "`tid % 2 == 0` differs between neighbouring lanes. A condition on `thread_idx.x` that keeps whole warps together is fine (tests/golden/proto_tid_branch_uniform.tile).",
  "proto_tid_branch_apply", wrong=[], fix=[("    if (tid % 2 == 0) {\n        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n    }", "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;")])
