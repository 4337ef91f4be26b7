T("Kernels, declarations and loops")
E("launch_no_block", "`kernel 'NAME' needs 'block = N' in its launch(...)`",
  "The block size is part of the kernel: tilec checks every warp against it. `grid` defaults to 1.",
  "tiny", wrong=[("launch(grid = 1, block = 32)", "launch(grid = 1)")], fix=[("launch(grid = 1)", "launch(grid = 1, block = 32)")])
E("launch_twice", "`'grid' is given twice` / `'block' is given twice`",
  "Each launch argument once.",
  "tiny", wrong=[("launch(grid = 1, block = 32)", "launch(grid = 1, grid = 2, block = 32)")], fix=[("grid = 1, grid = 2,", "grid = 2,")])
E("launch_dims", "`grid takes at most three dimensions`",
  "`grid` and `block` are a number or a tuple of two or three numbers, as `dim3`.",
  "tiny", wrong=[("grid = 1,", "grid = (2, 2, 2, 2),")], fix=[("(2, 2, 2, 2)", "(4, 2, 2)")])
E("launch_positive", "`block dimension must be positive, got N`",
  "Launch dimensions are positive compile-time integers.",
  "tiny", wrong=[("block = 32", "block = (32, 0)")], fix=[("(32, 0)", "(32, 1)")])
E("launch_limit", "`grid dimension y is at most 65535, got N` / `block dimension z is at most 64, got N`",
  "CUDA's limits per launch dimension: grid x up to 2^31 - 1, grid y and z up to 65535; block x and y up to 1024, block z up to 64 (and 1024 threads in all). A launch past them would be refused by the driver.",
  "tiny", wrong=[("grid = 1,", "grid = (1, 65536),")], fix=[("(1, 65536)", "(256, 256)")])
E("block_1024", "`a block has at most 1024 threads; 'NAME' asks for N`",
  "The CUDA limit.",
  "tiny", wrong=[("block = 32", "block = (32, 64)")], fix=[("(32, 64)", "(32, 32)")])
E("dim_positive", "`dimension must be positive, got N`",
  "Tensor dimensions are positive.",
  "tiny", wrong=[("Out: f32[32]", "Out: f32[32, 0]")], fix=[("Out: f32[32, 0]", "Out: f32[32, 1]"), ("Out[tid] =", "Out[tid, 0] =")])
E("too_many_dims", "`at most 16 dimensions`",
  "Tensors and views have at most 16 dimensions.",
  "tiny", wrong=[("    Out[tid]", "    shared s: f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2];\n    Out[tid]")],
  fix=[("f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]", "f32[2]")])
E("too_large", "`tensor 'NAME' is too large (more than 2^24 elements)`",
  "tilec evaluates every layout element by element, so tensors are limited to 2^24 elements (far more than shared memory or registers hold).",
  "tiny", wrong=[("Out: f32[32]", "Out: f32[32, 1048576]")], fix=[("f32[32, 1048576]", "f32[32, 1024]"), ("Out[tid] =", "Out[tid, 0] =")])
E("shared_limit", "`shared memory of kernel 'NAME' reaches N bytes with 'NAME' (N bytes); a block has at most 232448 bytes (227 KB)`",
  "The static shared memory of a block (each array rounded up to 16 bytes) is at most 227 KB on every tcgen05 architecture; ptxas would refuse the kernel. Reported at the declaration that goes past the limit.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    shared big: f32[65536];\n    big[tid] = A[tid];\n    Out[tid] = big[31 - tid];")],
  fix=[("f32[65536]", "f32[32]")])
E("registers_255", "`'NAME' needs N registers per thread; a thread has at most 255`",
  "A local tensor's per-thread part is held in 32-bit registers; more than 255 cannot exist. The note says into how many chunks to split it: each chunk is a local tensor of its own, moved by its own apply. The tensor is then remembered as failed, so its uses report nothing more.",
  "small", wrong=[("local r: f32[32, 1] layout S[32 : 1@laneid];", "local r: f32[32, 1] layout S[32 : 1@laneid];\n    local big: f32[32, 256] layout S[(32, 256) : (1@laneid, 1)];")],
  fix=[("f32[32, 256] layout S[(32, 256)", "f32[32, 128] layout S[(32, 128)")])
E("loop_unroll_bounds", "`this loop touches registers or views, so tilec unrolls it; its bounds must be compile-time constants`",
  "A loop whose body uses a local tensor, a view, an `apply`, or declares a tensor or view is unrolled (registers cannot be indexed at run time), so its bounds must be constants. Loops that only touch global and shared memory and scalars stay loops.",
  "layout_d_repeat", wrong=[("    for j in 0..128 {\n        mine[j] = A[tid, j];", "    let n = tid / 128 + 128;\n    for j in 0..n {\n        mine[j] = A[tid, j];")],
  fix=[("0..n {", "0..128 {"), ("    let n = tid / 128 + 128;\n", "")])
E("loop_too_long", "`loop of N iterations is too long to unroll (at most 4096)`",
  "An unrolled loop has at most 4096 iterations.",
  "small", wrong=[("    mine[0] = A[tid];", "    for i in 0..5000 {\n        mine[0] = A[(tid + i) % 32];\n    }")],
  fix=[("0..5000", "0..1")])
E("unroll_budget", "`unrolling this loop makes the file longer than 65536 unrolled iterations in all`",
  "Nested unrolled loops multiply, and every kernel of a file adds its loops: the whole file may unroll at most 65536 iterations, so that a small file cannot make a huge output. Reported once, at the loop that goes past the budget.",
  "small", wrong=[("    mine[0] = A[tid];", "    for i in 0..300 {\n        for j in 0..300 {\n            mine[0] = A[(tid + i + j) % 32];\n        }\n    }")],
  fix=[("0..300 {\n        for j in 0..300", "0..30 {\n        for j in 0..30")])
E("loop_float", "`loop bounds must be integers`",
  "`for i in a..b` counts integers from a up to b - 1.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    for i in 0..2.0 {\n        Out[tid] = A[tid];\n    }")], fix=[("0..2.0", "0..2")])
E("cta_sync_divergent", "`cta_sync inside control flow that can split a warp [-Wdivergent-sync]` (warning)",
  "A barrier that some lanes of a warp may skip: `__syncthreads()` in divergent code is undefined behaviour in CUDA. This is a warning (an error with `-Werror` or `-Werror=divergent-sync`; `-Wno-divergent-sync` turns it off).",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    if (tid < 16) {\n        Out[tid] = A[tid];\n        cta_sync;\n    }")],
  fix=[("        cta_sync;\n    }", "    }\n    cta_sync;")], kind="warning")

T("Layouts", """
Layout errors are reported at the layout, with the tensor it was evaluated for.
""")
E("extents_strides", "`N extents but M strides`",
  "`S[(e0, ..., ek) : (s0, ..., sk)]` pairs every extent with one stride.",
  "small", wrong=[("S[32 : 1@laneid]", "S[(32, 1) : (1@laneid)]")], fix=[("(1@laneid)]", "(1@laneid, 0)]")])
E("extent_positive", "`layout extent must be positive, got N`",
  "Extents split the element index; they are positive.",
  "small", wrong=[("S[32 : 1@laneid]", "S[(32, 0) : (1@laneid, 1)]")], fix=[("S[(32, 0) : (1@laneid, 1)]", "S[(32, 1) : (1@laneid, 1)]")])
E("layout_product", "`layout extents cover N elements but tensor 'NAME' has M`",
  "The extents of `S[...]` split the tensor's flat index, so their product is its element count.",
  "small", wrong=[("S[32 : 1@laneid]", "S[(16, 1) : (1@laneid, 1)]")], fix=[("S[(16, 1) : (1@laneid, 1)]", "S[(32, 1) : (1@laneid, 1)]")])
E("too_many_modes", "`too many modes (at most 32)`",
  "A layout splits the index into at most 32 digits.",
  "small", wrong=[("S[32 : 1@laneid]", "S[(" + ", ".join(["1"] * 32) + ", 32) : (" + ", ".join(["0"] * 32) + ", 1@laneid)]")],
  fix=[("S[(" + ", ".join(["1"] * 32) + ", 32) : (" + ", ".join(["0"] * 32) + ", 1@laneid)]", "S[32 : 1@laneid]")])
E("too_many_replica_terms", "`too many replica terms (at most 8)`",
  "At most eight `+ R[...]` terms.",
  "small", wrong=[("S[32 : 1@laneid]", "S[32 : 1@laneid]" + " + R[1 : 0@m]" * 9)], fix=[(" + R[1 : 0@m]" * 9, " + R[1 : 0@m]")])
E("too_many_replicas", "`too many replicas`",
  "All replica terms together give at most 4096 places per element.",
  "small", wrong=[("S[32 : 1@laneid]", "S[32 : 1@laneid] + R[8192 : 0@m]")], fix=[(" + R[8192 : 0@m]", "")])
E("axis_kind", "`a local layout cannot use axis 'NAME' (it takes thread axes and m)` / `a tmem layout cannot use axis 'NAME' (it takes TLane and TCol)`",
  "A local layout places elements on threads and register slots; a tmem layout on TMEM lanes and columns.",
  "small", wrong=[("S[32 : 1@laneid]", "S[32 : 1@TLane]")], fix=[("1@TLane]", "1@laneid]")])
E("axis_range", "`element [..] of 'NAME' is at AXIS = N, outside 0..M`",
  "Every place must exist: `laneid` 0..31, `wid_in_wg` 0..3, `tid_in_wg` 0..127, `tx` and `warpid` inside the block, `TLane` 0..127, `m` below 2^20.",
  "small", wrong=[("local r: f32[32, 1] layout S[32 : 1@laneid];", "local r: f32[32, 1] layout S[32 : 2@laneid];")],
  fix=[("S[32 : 2@laneid]", "S[32 : 1@laneid]")])
E("tcol_range", "`element [..] of 'NAME' is at TCol N, past the 512 columns of tensor memory`",
  "TMEM has 512 columns of 32-bit cells (1024 16-bit columns, 2048 8-bit ones).",
  "small", wrong=[("tmem t: f32[32, 1] at slot[0] layout default;", "tmem t: f32[32, 1] at slot[0] layout default;\n    tmem wide: f32[1, 1024] at slot[0] layout default;")],
  fix=[("f32[1, 1024]", "f32[1, 32]")])
E("thread_range", "`element [..] of 'NAME' belongs to thread N, but the block has M threads`",
  "The thread a layout names (from all its thread axes together) must exist in the block.",
  "small", wrong=[("S[32 : 1@laneid]", "S[32 : 2@tid_in_wg]")], fix=[("2@tid_in_wg", "1@tid_in_wg")])
E("one_to_one_tmem", "`layout of 'NAME' is not one-to-one: elements [..] and [..] share TMEM lane L, column C`",
  "Check 0 of [apply](reference.md#9-apply), made when the tensor is declared: two elements cannot occupy one TMEM cell (or one half of a cell for 16-bit data).",
  "small", wrong=[("tmem t: f32[32, 1] at slot[0] layout default;", "tmem t: f32[32, 1] at slot[0] layout S[32 : 0@TLane];")],
  fix=[("S[32 : 0@TLane]", "S[32 : 1@TLane]")])
E("one_to_one_regs", "`layout of 'NAME' is not one-to-one: elements [..] and [..] share thread T, slot S`",
  "Two elements cannot occupy the same register slot of the same thread.",
  "small", wrong=[("local r: f32[32, 1] layout S[32 : 1@laneid];", "local r: f32[32, 1] layout S[(16, 2) : (1@laneid, 0@laneid)];")],
  fix=[("S[(16, 2) : (1@laneid, 0@laneid)]", "S[(16, 2) : (2@laneid, 1@laneid)]")])
E("datapath_c", "`tmem_datapath_layout \"C\" (M=128 sparse, cta_group::2) is not supported: its lane organisation is not settled (the sources disagree)`",
  "Layout C (the sparse M=128 cta_group::2 accumulator) is refused on purpose: the references tilec relies on disagree about it. Write its layout with `S[...]` once you know it.",
  "layout_d_repeat", wrong=[('tmem_datapath_layout("D", 128, 128)', 'tmem_datapath_layout("C", 128, 128)')], fix=[('"C"', '"D"')])
E("datapath_letter", "`unknown datapath layout \"X\"; expected one of \"A\", \"B\", \"D\", \"E\", \"F\", \"G\"`",
  "The letters are those of [reference.md section 11.6](reference.md#116-accumulator-organisations).",
  "layout_d_repeat", wrong=[('tmem_datapath_layout("D", 128, 128)', 'tmem_datapath_layout("d", 128, 128)')], fix=[('"d"', '"D"')])
E("datapath_rows", "`layout \"L\" has R rows per CTA, not N`",
  "A and D have 128 rows, B, E and F 64, G 32.",
  "layout_d_repeat", wrong=[('tmem_datapath_layout("D", 128, 128)', 'tmem_datapath_layout("D", 64, 128)')], fix=[('"D", 64,', '"D", 128,')])
E("datapath_cols", "`column count must be positive, got N`",
  "", "layout_d_repeat", wrong=[('tmem_datapath_layout("D", 128, 128)', 'tmem_datapath_layout("D", 128, 0)')], fix=[('128, 0)', '128, 128)')])
E("datapath_subslab_f", "`sub_slab of layout \"F\" must be 0 or 1, got N`",
  "Layout F puts its 16-row blocks in the first or second half of each 32-lane slab.",
  "layout_f_subslab", wrong=[("sub_slab = 1", "sub_slab = 2")], fix=[("sub_slab = 2", "sub_slab = 1")])
E("datapath_subslab", "`layout \"L\" has no sub-slabs (sub_slab must be 0)`",
  "Only F takes a sub_slab.",
  "layout_d_repeat", wrong=[('tmem_datapath_layout("D", 128, 128)', 'tmem_datapath_layout("D", 128, 128, sub_slab = 1)')], fix=[(", sub_slab = 1", "")])
E("datapath_b_odd", "`layout \"B\" needs an even column count, got N` (also E)",
  "B and E put the second half of the columns in lanes 64..127.",
  "tmem_roundtrip", wrong=[('tmem_datapath_layout("B", 64, 128)', 'tmem_datapath_layout("B", 64, 127)')], fix=[('64, 127)', '64, 128)')])
E("datapath_g", "`layout \"G\" needs a column count divisible by 4, got N`",
  "G spreads the columns over four 32-lane slabs.",
  "small", wrong=[("    tmem t: f32[32, 1]", '    tmem g: f32[32, 30] at slot[0] layout tmem_datapath_layout("G", 32, 30);\n    tmem t: f32[32, 1]')],
  fix=[('f32[32, 30] at slot[0] layout tmem_datapath_layout("G", 32, 30)', 'f32[32, 32] at slot[0] layout tmem_datapath_layout("G", 32, 32)')])
E("datapath_shape", "`tmem_datapath_layout(\"L\", R, C) describes a [R, C] tensor, but 'NAME' is [..]`",
  "A datapath layout is for a 2-D tensor of exactly its rows and columns.",
  "layout_d_repeat", wrong=[("tmem acc: f32[128, 128]", "tmem acc: f32[128, 64]")], fix=[("tmem acc: f32[128, 64]", "tmem acc: f32[128, 128]")])
E("datapath_local", "`tmem_datapath_layout describes tensor memory; 'NAME' is not a tmem tensor`",
  "Datapath layouts place elements in TMEM; a local tensor needs a thread layout.",
  "layout_d_repeat", wrong=[("local buf: f32[128, 128] layout ROW;", "local buf: f32[128, 128] layout TD;")], fix=[("buf: f32[128, 128] layout TD;", "buf: f32[128, 128] layout ROW;")])

T("Views")
E("view_base", "`'NAME' is not a tensor or a view`",
  "Views are taken of tensors and other views.",
  "small", wrong=[("    view mine", "    view x = tid.view(1);\n    view mine")], fix=[("    view x = tid.view(1);\n", "")])
E("view_count", "`view has N elements but 'NAME' has M`",
  "`t.view(d0, d1, ...)` reshapes; the element count stays.",
  "tmem_roundtrip", wrong=[('view mv = mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2);', 'view mv = mem.view(4, 32, 32);')],
  fix=[('view mv = mem.view(4, 32, 32);', 'view mv = mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2);')])
E("view_dim_positive", "`view dimension must be positive, got N`",
  "", "small", wrong=[("    view mine", "    view tv = t.view(-32);\n    view mine")], fix=[("t.view(-32)", "t.view(32)")])
E("per_thread_count", "`a thread of 'NAME' holds N register slots (its own elements), not M: write NAME.view(N, layout = default)`",
  "The per-thread view covers exactly the slots the layout gives each thread (the largest `m` + 1): the elements a thread holds in its registers, not the elements of the tensor.",
  "tmem_roundtrip", wrong=[("view local_src = src.view(64, layout = default);\n    for j in 0..64", "view local_src = src.view(32, layout = default);\n    for j in 0..32")],
  fix=[("src.view(32, layout = default);\n    for j in 0..32", "src.view(64, layout = default);\n    for j in 0..64")])
E("per_thread_layout", "`a per-thread view takes only 'layout = default'`",
  "The per-thread view is always in slot order.",
  "small", wrong=[("r.view(1, layout = default)", "r.view(1, layout = S[1 : 1])")], fix=[("layout = S[1 : 1]", "layout = default")])
E("per_thread_of_view", "`the per-thread view is taken of a local tensor itself, not of a view`",
  "Take the per-thread view of the tensor; its slots do not depend on any view of it.",
  "small", wrong=[("    view mine = r.view(1, layout = default);", "    view rv = r.view(32);\n    view mine = rv.view(1, layout = default);")],
  fix=[("    view rv = r.view(32);\n    view mine = rv.view(1, layout = default);", "    view mine = r.view(1, layout = default);")])
E("per_thread_not_local", "`'NAME' is not a local tensor; only local tensors have a per-thread view`",
  "Only registers have a per-thread view.",
  "small", wrong=[("    view mine = r.view(1, layout = default);", "    view mine = t.view(1, layout = default);")],
  fix=[("    view mine = t.view(1, layout = default);", "    view mine = r.view(1, layout = default);")])
E("slice_range", "`slice A:B is out of range for dimension D of size N`",
  "Slices are checked when the view is declared; `a:b` is half-open and must not be empty.",
  "column_slice", wrong=[("big[:, 64:128]", "big[:, 192:320]")], fix=[("big[:, 192:320]", "big[:, 192:256]")])
E("slice_index_range", "`index N is out of range for dimension D of size M`",
  "An integer in a slice drops the dimension; it must be inside it.",
  "small", wrong=[("    view mine", "    view col = t[:, 1];\n    view mine")], fix=[("t[:, 1]", "t[:, 0]")])
E("slice_count", "`N indices for 'NAME' of rank R`",
  "A slice takes at most one index per dimension (missing trailing ones mean `:`).",
  "small", wrong=[("    view mine", "    view col = t[:, 0, 0];\n    view mine")], fix=[("t[:, 0, 0]", "t[:, 0]")])
E("view_index_const", "`the index into view 'NAME' must be a compile-time constant; index 'T' itself for run-time indices`",
  "Views of global and shared tensors can be read and written element by element, but since a view is a table of elements its indices are compile-time constants. Index the tensor for run-time indices.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    view a2 = A.view(2, 16);\n    Out[tid] = a2[tid / 16, tid % 16];")],
  fix=[("a2[tid / 16, tid % 16]", "A[tid]")])
E("rearrange_arrow", "`rearrange pattern needs '->' between its two sides`",
  "Patterns are einops: `\"lhs -> rhs\"`.",
  "small", wrong=[("    view mine", '    view tv = t.rearrange("r c");\n    view mine')], fix=[('"r c"', '"r c -> c r"')])
E("rearrange_nest", "`rearrange pattern: groups do not nest`",
  "A group `( ... )` is a flat list of names.",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> ((wl wh) r) c"')],
  fix=[('-> ((wl wh) r) c"', '-> (wl wh) r c"')])
E("rearrange_close", "`rearrange pattern: ')' without '('` / `rearrange pattern: '(' without ')'`",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> (wl wh r c"')],
  fix=[('-> (wl wh r c"', '-> (wl wh) r c"')])
E("rearrange_char", "`rearrange pattern: unexpected 'C'`",
  "Names are letters, digits and `_`; einops' `...` and numeric sizes in the pattern are not supported (give sizes as `name = size`).",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(2 r) (wl c) -> (wl 2) r c", r = 32, wl = 2)')],
  fix=[('mem.rearrange("(2 r) (wl c) -> (wl 2) r c", r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)')])
E("rearrange_rank", "`rearrange pattern has N input dimensions but the operand has M`",
  "The left side has one group per dimension of the tensor or view.",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r wl c) -> (wl wh) r c"')],
  fix=[('mem.rearrange("(wh r wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c"')])
E("rearrange_twice_left", "`rearrange pattern names 'NAME' twice on the left` (also `on the right`)",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wh c) -> (wl wh) r c"')],
  fix=[('mem.rearrange("(wh r) (wh c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c"')])
E("rearrange_right_only", "`rearrange pattern: 'NAME' is on the right but not on the left` (also `on the left but not on the right`)",
  "Both sides name the same set of axes: a rearrange only splits, permutes and merges.",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r x"')],
  fix=[('-> (wl wh) r x"', '-> (wl wh) r c"')])
E("rearrange_unknown_size", "`'NAME' does not appear in the rearrange pattern`",
  "A size given for a name the pattern does not have.",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, w = 2)')],
  fix=[('r = 32, w = 2)', 'r = 32, wl = 2)')])
E("rearrange_size_twice", "`'NAME' is given twice`",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2, wl = 2)')],
  fix=[('wl = 2, wl = 2)', 'wl = 2)')])
E("rearrange_size_positive", "`'NAME' must be positive, got N`",
  "Sizes are positive; a negative size is reported as 0 today (see the pending test rearrange_negative).",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 0, r = 32, wl = 2)')],
  fix=[('wh = 0, r', 'wh = 2, r')])
E("rearrange_two_unknown", "`rearrange: both 'A' and 'B' need a size`",
  "In each group at most one size may be left out; tilec computes it from the dimension.",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wl = 2)')],
  fix=[('r c", wl = 2)', 'r c", wh = 2, wl = 2)')])
E("rearrange_divisible", "`rearrange: dimension D has size N, not divisible by K`",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 3, wl = 2)')],
  fix=[('wh = 3, wl = 2)', 'wh = 2, wl = 2)')])
E("rearrange_mismatch", "`rearrange: dimension D has size N but the pattern gives M`",
  "All sizes of a group are given and their product is not the dimension.",
  "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 2, r = 32, wl = 2)', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c", wh = 3, r = 32, wl = 2)')],
  fix=[('wh = 3, r = 32', 'wh = 2, r = 32')])

E("rearrange_close2", "`rearrange pattern: ')' without '('`",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> wl wh) r c"')],
  fix=[('-> wl wh) r c"', '-> (wl wh) r c"')])
E("rearrange_twice_right", "`rearrange pattern names 'NAME' twice on the right`",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r c wl"')],
  fix=[('-> (wl wh) r c wl"', '-> (wl wh) r c"')])
E("rearrange_left_only", "`rearrange pattern: 'NAME' is on the left but not on the right`",
  "", "tmem_roundtrip", wrong=[('mem.rearrange("(wh r) (wl c) -> (wl wh) r c"', 'mem.rearrange("(wh r) (wl c) -> (wl wh) r"')],
  fix=[('-> (wl wh) r"', '-> (wl wh) r c"')])
TOPIC[0] = "Kernels, declarations and loops"
E("kernel_reserved", "`kernel name 'NAME' is reserved in the generated CUDA C; choose another`",
  "A kernel keeps its name in the CUDA C (`extern \"C\"`), so it cannot be a C/CUDA keyword or builtin name (`main`, `float`, `threadIdx`, ...) or start with `tl_` or `__`.",
  "tiny", wrong=[("kernel k(", "kernel main(")], fix=[("kernel main(", "kernel copy_row(")])
