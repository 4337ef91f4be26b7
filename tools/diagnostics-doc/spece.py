T("Device functions", """
Device functions, their calls and their headers ([language.md section 16](language.md#16-device-functions)).
A call is checked like an `apply`: each tensor argument against its parameter, element by element,
and the protocol state against the function's contract (the TMEM passed is allocated, no
tcgen05.ld or st is pending at the call, none at the return).
""")

DEV = """layout TD = tmem_datapath_layout("D", 128, 32);
layout REG = S[(128, 32) : (1@tid_in_wg, 1)];

device scale(acc: tmem f32[128, 32] layout TD, r: local f32[128, 32] layout REG, alpha: f32) scope warpgroup
{
    copy(r, acc);
    view mine = r.view(32, layout = default);
    for j in 0..32 {
        mine[j] = mine[j] * alpha;
    }
    copy(acc, r);
}

kernel k(A: f32[128, 32], Out: f32[128, 32]) launch(grid = 1, block = 128)
{
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 32);
    }
    cta_sync;
    tmem mem: f32[128, 32] at address[0] layout TD;
    local x: f32[128, 32] layout REG;
    view xs = x.view(32, layout = default);
    for j in 0..32 {
        xs[j] = A[thread_idx.x, j];
    }
    copy(mem, x);
    scale(mem, x, 2.0);
    copy(x, mem);
    for j in 0..32 {
        Out[thread_idx.x, j] = xs[j];
    }
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 32);
    }
}
"""
BASES["dev"] = DEV

WARPDEV = """device fill(out: shared f32[32], v: f32) scope warp
{
    out[lane_id] = v;
}

kernel k(Out: f32[32]) launch(grid = 1, block = 64)
{
    shared row: f32[32];
    if (warp_id == 1) {
        fill(row, 1.0);
    }
    cta_sync;
    if (thread_idx.x < 32) {
        Out[thread_idx.x] = row[thread_idx.x];
    }
}
"""
BASES["warpdev"] = WARPDEV

E("device_unknown", "`unknown function 'NAME'`",
  "A statement `NAME(...);` calls a device function declared earlier in the file (or in a file it includes).",
  "dev", wrong=[("scale(mem, x, 2.0);", "scal(mem, x, 2.0);")], fix=[("scal(mem", "scale(mem")])
E("device_builtin_stmt", "`'NAME' is a builtin function: use its value in an expression; only device functions are called as statements`",
  "The functions of section 13 compute values; a statement that only calls one does nothing.",
  "warpdev", wrong=[("        fill(row, 1.0);", "        fill(row, 1.0);\n        max(1.0, 2.0);")], fix=[("        max(1.0, 2.0);\n", "")])
E("device_kernel_call", "`'NAME' is a kernel: kernels are launched, not called; only device functions are called`",
  "Move the code to share into a device function and call that from both kernels.",
  "warpdev", wrong=[("        fill(row, 1.0);", "        k(Out);")], fix=[("k(Out);", "fill(row, 1.0);")])
E("device_not_function", "`'NAME' is not a device function`",
  "Only device functions are called as statements.",
  "warpdev", wrong=[("        fill(row, 1.0);", "        row(1.0);")], fix=[("row(1.0);", "fill(row, 1.0);")])
E("device_recursion", "`recursive call of 'NAME': a device function is inlined where it is called, so it cannot call itself`",
  "tilec checks each call with the function's body in place, as if inlined; a function cannot contain itself. Write the repetition as a loop.",
  "warpdev", wrong=[("    out[lane_id] = v;", "    out[lane_id] = v;\n    fill(out, v);")], fix=[("    fill(out, v);\n", "")])
E("device_arg_count", "`'NAME' takes N arguments, not M`",
  "Every parameter gets an argument, in the order declared.",
  "dev", wrong=[("scale(mem, x, 2.0);", "scale(mem, x);")], fix=[("scale(mem, x);", "scale(mem, x, 2.0);")])
E("device_arg_kind", "`argument N of 'NAME' is KIND parameter 'P', but 'A' is a KIND tensor`",
  "A tmem parameter takes a tmem tensor or a view of one, a local parameter a local tensor, a shared or global parameter a shared or global tensor, by name.",
  "dev", wrong=[("scale(mem, x, 2.0);", "scale(x, x, 2.0);")], fix=[("scale(x, x, 2.0);", "scale(mem, x, 2.0);")])
E("device_arg_name", "`argument N of 'NAME' is KIND parameter 'P': pass a tensor by its name`",
  "Tensor arguments are names; give a slice or reshape a name with `view` first.",
  "dev", wrong=[("scale(mem, x, 2.0);", "scale(mem, x[0, 0], 2.0);")], fix=[("scale(mem, x[0, 0], 2.0);", "scale(mem, x, 2.0);")])
E("device_arg_scalar", "`argument N of 'NAME' is scalar parameter 'P' (TYPE), but 'A' is a tensor`",
  "A scalar parameter takes a value: an expression, an element, a scalar variable.",
  "dev", wrong=[("scale(mem, x, 2.0);", "scale(mem, x, A);")], fix=[("scale(mem, x, A);", "scale(mem, x, A[0, 0]);")])
E("device_arg_shape", "`argument N of 'NAME' is 'A', TYPE[DIMS], but parameter 'P' is TYPE[DIMS]`",
  "A tensor argument has the parameter's element type and dimensions; a tmem view can select the part that fits.",
  "dev", wrong=[("scale(mem, x, 2.0);", "view half = mem[:, 0:16];\n    scale(half, x, 2.0);")], fix=[("view half = mem[:, 0:16];\n    scale(half, x, 2.0);", "scale(mem, x, 2.0);")])
E("device_local_layout", "`local argument 'A' does not match the layout of parameter 'P' of 'NAME'`",
  "The registers are passed by reference, so every element must be in the register slot of the thread that the parameter's layout gives it. The note names the first element that is elsewhere, as apply's check does; the other note shows the parameter.",
  "dev", wrong=[("    local x: f32[128, 32] layout REG;", "    local x: f32[128, 32] layout REG;\n    local y: f32[128, 32] layout S[(32, 128) : (1, 1@tid_in_wg)];"),
                 ("scale(mem, x, 2.0);", "scale(mem, y, 2.0);")],
  fix=[("scale(mem, y, 2.0);", "scale(mem, x, 2.0);"), ("    local y: f32[128, 32] layout S[(32, 128) : (1, 1@tid_in_wg)];\n", "")])
E("device_tmem_layout", "`tmem argument 'A' does not match the layout of parameter 'P' of 'NAME'`",
  "The function gets one TMEM address: where the argument's element [0, ..., 0] is. Every other element must be where the parameter's layout puts it relative to that address.",
  "dev", wrong=[("    tmem mem: f32[128, 32] at address[0] layout TD;", "    tmem mem: f32[128, 32] at address[0] layout TD;\n    tmem wide: f32[128, 32] at address[0] layout S[(128, 32) : (1@TLane, 2@TCol)];"),
                 ("scale(mem, x, 2.0);", "scale(wide, x, 2.0);")],
  fix=[("scale(wide, x, 2.0);", "scale(mem, x, 2.0);"), ("    tmem wide: f32[128, 32] at address[0] layout S[(128, 32) : (1@TLane, 2@TCol)];\n", "")])
E("device_call_pending", "`a tcgen05.ld into 'NAME' may still be pending at the call of 'F'; a device function starts and returns with no tcgen05.ld or st pending`",
  "The function's code does not know what its caller left in flight: wait before the call (a `copy`'s waits are placed by tilec; an `apply`'s are written).",
  "dev", wrong=[("    copy(mem, x);\n    scale(mem, x, 2.0);", "    copy(mem, x);\n    tcgen05.wait::st.sync.aligned;\n    apply tcgen05.ld.sync.aligned.32x32b.x32.b32(x.view(4, 32, 32), mem.view(4, 32, 32)) scope warpgroup;\n    scale(mem, x, 2.0);")],
  fix=[("scope warpgroup;\n    scale(mem", "scope warpgroup;\n    tcgen05.wait::ld.sync.aligned;\n    scale(mem")])
E("device_return_pending", "`a tcgen05.st of warp N may still be pending at the return of 'F'; ...`",
  "A function waits for its own loads and stores before it returns: its caller may read the registers or the TMEM at once.",
  """layout TD = tmem_datapath_layout("D", 128, 32);
layout REG = S[(128, 32) : (1@tid_in_wg, 1)];

device put(acc: tmem f32[128, 32] layout TD, r: local f32[128, 32] layout REG) scope warpgroup
{
    apply tcgen05.st.sync.aligned.32x32b.x32.b32(acc.view(4, 32, 32), r.view(4, 32, 32)) scope warpgroup;
}
""", fix=[("scope warpgroup;\n}", "scope warpgroup;\n    tcgen05.wait::st.sync.aligned;\n}")])
E("device_tmem_no_at", "`tmem tensor 'NAME' has no 'at': ... a device function may not declare one (the caller owns TMEM)`",
  "tilec allocates TMEM for a kernel, at its start; a device function works in TMEM that its caller allocated and passes.",
  "dev", wrong=[("    copy(r, acc);", "    tmem t: f32[128, 32] layout TD;\n    copy(r, acc);")], fix=[("    tmem t: f32[128, 32] layout TD;\n", "")])
E("device_cta_sync", "`cta_sync in device function 'NAME' of scope warp; only a function of scope cta, which every thread of the CTA calls, may synchronise the CTA`",
  "A warp or warpgroup function runs on part of the CTA: a barrier of the whole CTA inside it would wait for threads that never come. `warp_sync;` synchronises the warp.",
  "warpdev", wrong=[("    out[lane_id] = v;", "    out[lane_id] = v;\n    cta_sync;")], fix=[("v;\n    cta_sync;", "v;\n    warp_sync;")])
E("device_cta_block", "`device function 'NAME' of scope cta needs 'block = N', the CTA size it assumes`",
  "A cta function is checked for one block size: its warps, and the threads that its layouts name.",
  "dev", wrong=[("scope warpgroup\n{", "scope cta\n{")], fix=[("scope cta\n{", "scope cta block = 128\n{")])
E("device_block_value", "`block of a device function is a multiple of 32 from 32 to 1024, not N`",
  "Whole warps, as in a kernel's launch.",
  "dev", wrong=[("scope warpgroup\n{", "scope cta block = 100\n{")], fix=[("block = 100", "block = 128")])
E("device_block_units", "`block = N is not a whole number of warpgroups`",
  "`block` of a warp or warpgroup function is the block of the kernels it is meant for; it holds whole warpgroups.",
  "dev", wrong=[("scope warpgroup\n{", "scope warpgroup block = 96\n{")], fix=[("block = 96", "block = 128")])
E("device_cta_threads", "`'NAME' has scope cta for a block of N threads, but 'K' runs M`",
  "A cta function is called by a kernel (or cta function) of the block size it declares.",
  "dev", wrong=[("scope warpgroup\n{", "scope cta block = 256\n{")], fix=[("block = 256", "block = 128")])
E("device_cta_partial", "`'NAME' has scope cta: every warp of the CTA calls it, but some warps do not reach this call`",
  "Call a cta function where every warp goes.",
  "dev", wrong=[("scope warpgroup\n{", "scope cta block = 128\n{"), ("    scale(mem, x, 2.0);", "    if (warp_id < 2) {\n        scale(mem, x, 2.0);\n    }")],
  fix=[("    if (warp_id < 2) {\n        scale(mem, x, 2.0);\n    }", "    scale(mem, x, 2.0);")])
E("device_warp_unfixed", "`'NAME' has scope warp: one warp calls it, where the code has fixed the warp (inside if (warp_id == K) { ... })`",
  "A warp function's TMEM accesses are checked for the warp that calls it, so the call must be where only one warp can be.",
  "warpdev", wrong=[("    if (warp_id == 1) {\n        fill(row, 1.0);\n    }", "    fill(row, 1.0);")],
  fix=[("    fill(row, 1.0);", "    if (warp_id == 1) {\n        fill(row, 1.0);\n    }")])
E("device_warpgroup_partial", "`'NAME' has scope warpgroup: all four warps of a warpgroup call it together, but only some warps of warpgroup N (warps A..B) reach this call`",
  "A warpgroup function runs on the four warps of a warpgroup at once, as an `apply ... scope warpgroup` does.",
  "dev", wrong=[("    scale(mem, x, 2.0);", "    if (warp_id < 2) {\n        scale(mem, x, 2.0);\n    }")],
  fix=[("    if (warp_id < 2) {\n        scale(mem, x, 2.0);\n    }", "    scale(mem, x, 2.0);")])
E("device_scope_order", "`'NAME' has scope warpgroup; device function 'F' of scope warp cannot call it`",
  "A function calls functions of its own scope or a smaller one: a warp function is run by one warp, which cannot stand for a warpgroup.",
  """device fill(out: shared f32[32], v: f32) scope warpgroup
{
    out[lane_id] = v;
}

device twice(out: shared f32[32], v: f32) scope warp
{
    fill(out, v * 2.0);
}
""", fix=[("scope warpgroup\n", "scope warp\n")])
E("device_thread_idx", "`thread_idx.x is not known inside a device function of scope warp, which runs wherever it is called; ...`",
  "A warp or warpgroup function may be called by any warp or warpgroup of the CTA. `lane_id` is the lane, and `warp_id` counts within the calling warpgroup (0 to 3) or is 0 in a warp function.",
  "warpdev", wrong=[("    out[lane_id] = v;", "    out[thread_idx.x] = v;")], fix=[("out[thread_idx.x]", "out[lane_id]")])
E("device_layout_cta_axis", "`the layout of 'NAME' names a thread of the CTA (tx, warpid or wgid), but 'F' has scope warpgroup: ...`",
  "The layouts of a warp or warpgroup function name threads relative to the calling warp or warpgroup: laneid, and tid_in_wg and wid_in_wg.",
  "dev", wrong=[("layout REG = S[(128, 32) : (1@tid_in_wg, 1)];", "layout REG = S[(128, 32) : (1@tx, 1)];")], fix=[("1@tx", "1@tid_in_wg")])
E("device_kernel_param", "`kernel parameter 'NAME' is a local tensor; shared, tmem and local parameters belong to device functions, ...`",
  "A kernel's parameters are scalars and global tensors: what the host passes at launch.",
  "tiny", wrong=[("kernel k(A: f32[32], Out: f32[32])", "kernel k(A: f32[32], Out: f32[32], r: local f32[32] layout S[32 : 1@laneid])")],
  fix=[(", r: local f32[32] layout S[32 : 1@laneid])", ")")])
E("device_block_word", "`expected 'block = N' or the function's body, not 'NAME'`",
  "After the scope a device function may state the block size it assumes.",
  "dev", wrong=[("scope warpgroup\n{", "scope warpgroup threads = 128\n{")], fix=[(" threads = 128", " block = 128")])
E("device_reserved", "`function name 'NAME' is reserved in the generated CUDA C; choose another`",
  "Device functions keep their names in the CUDA C, so C++ keywords and the names tilec's code uses are refused.",
  "warpdev", wrong=[("device fill(", "device double("), ("        fill(row, 1.0);", "        double(row, 1.0);")],
  fix=[("device double(", "device fill("), ("        double(row, 1.0);", "        fill(row, 1.0);")])
E("device_view_value", "`'NAME' with .view or .rearrange is a view, not a value; ...`",
  "A view written in place is an argument of a tmem parameter; an element is read from a tensor or a view declared with `view`.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A.view(2, 16)[0, tid % 16];")], fix=[("A.view(2, 16)[0, tid % 16]", "A[tid]")])
E("device_slice_arg", "note: `a slice NAME[a:b] is a view, not a value: ...`",
  "In an expression, including a call's arguments, `NAME[...]` is an element. A slice as an argument is declared with `view` first, or written after `.view(...)`.",
  "dev", wrong=[("    scale(mem, x, 2.0);", "    scale(mem[:, 0:32], x, 2.0);")], fix=[("mem[:, 0:32]", "mem.view(128, 32)[:, 0:32]")])
E("device_in_call", "note: `in this call of 'NAME'`",
  "A call is checked with the function's body in place, for the warps that call it and the tensors they pass: an error inside the body that only this call causes is reported at the body's line, and this note names the call. Here warp 2 passes the first 32 TMEM lanes, but a warp reaches only the 32 lanes of its slab.",
  """layout W32 = S[(32, 32) : (1@TLane, 1@TCol)];
layout WR  = S[(32, 32) : (1@laneid, 1)];

device wload(r: local f32[32, 32] layout WR, acc: tmem f32[32, 32] layout W32) scope warp
{
    apply tcgen05.ld.sync.aligned.32x32b.x32.b32(r, acc) scope warp;
    tcgen05.wait::ld.sync.aligned;
}

kernel k(Out: f32[32, 32]) launch(grid = 1, block = 128)
{
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&address[0], 32);
    }
    cta_sync;
    tmem mem: f32[128, 32] at address[0] layout S[(128, 32) : (1@TLane, 1@TCol)];
    local y: f32[32, 32] layout WR;
    view ys = y.view(32, layout = default);
    view rows = mem[0:32, :];
    if (warp_id == 2) {
        wload(y, rows);
        for j in 0..32 {
            Out[lane_id, j] = ys[j];
        }
    }
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
        tcgen05.dealloc.cta_group::1.sync.aligned.b32(address[0], 32);
    }
}
""", fix=[("mem[0:32, :]", "mem[64:96, :]")])
E("device_alloc", "`tcgen05.alloc.cta_group::1 in device function 'NAME': the caller owns tensor memory ...`",
  "A device function works in tensor memory its caller allocated; allocation, dealloc and relinquish are the kernel's (the hand-written kernel's, for a header).",
  "warpdev", wrong=[("    out[lane_id] = v;", "    out[lane_id] = v;\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;")],
  fix=[("    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n", "")])
