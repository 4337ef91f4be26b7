T("Syntax errors", """
A syntax error names the token tilec did not expect and, when there are at most four, the tokens it
would have accepted (`expression` and `operator` stand for all the tokens that can start or continue
an expression). The parser then skips to the next `;` or `}` and goes on, so one run reports every
syntax error it can find; after 20 in one file it notes `too many syntax errors; the rest of FILE
is skipped` and stops reading that file. A file with syntax errors is not checked further.
""")
E("missing_semicolon", "`expected ';' at the end of the line`",
  "The most common syntax error. When a `;` would have been accepted and the unexpected token starts a later line, the caret points just past the end of the line that lacks it.",
  "tiny", wrong=[("let tid = thread_idx.x;", "let tid = thread_idx.x")], fix=[("thread_idx.x\n", "thread_idx.x;\n")])
E("unexpected_token", "`unexpected TOKEN, expected ...`",
  "Any other token the grammar does not accept where it stands. Only the first syntax error of a line is reported: the rest of the line usually follows from it.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[tid]];")], fix=[("A[tid]];", "A[tid];")])
E("missing_operand", "`unexpected ';', expected expression`",
  "An operator without its right operand.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[tid] * ;")], fix=[("A[tid] * ;", "A[tid] * 2.0;")])
E("builtin_component", "`expected 'x', 'y' or 'z' after 'thread_idx.', not 'NAME'`",
  "`thread_idx` and `block_idx` have the components x, y and z only. For the warp and lane use `warp_id` and `lane_id`.",
  "tiny", wrong=[("thread_idx.x", "thread_idx.lane")], fix=[("thread_idx.lane", "thread_idx.x")])
E("tuple_stride", "`a stride cannot be a tuple`, `an extent cannot be a tuple`, `an offset cannot be a tuple`",
  "Layout extents, strides and offsets are single integers; only the outer list is parenthesised (no nested modes as in CuTe).",
  "small", wrong=[("S[32 : 1@laneid]", "S[(4, 8) : ((1, 2)@laneid, 8@laneid)]")],
  fix=[("((1, 2)@laneid, 8@laneid)", "(8@laneid, 1@laneid)")])
E("unknown_axis", "`unknown axis 'NAME'; the axes are tx, tid_in_wg, laneid, warpid, wid_in_wg, wgid, m, TLane and TCol`",
  "A stride or offset names an axis that does not exist.",
  "small", wrong=[("1@laneid", "1@lane")], fix=[("1@lane]", "1@laneid]")])
E("launch_arg", "`expected 'grid', 'block' or 'cluster', not 'NAME'`",
  "`launch(...)` takes `grid = ...`, `block = ...` and `cluster = ...` only.",
  "tiny", wrong=[("block = 32", "threads = 32")], fix=[("threads = 32", "block = 32")])
E("unknown_scope", "`unknown scope 'NAME'; expected 'warp', 'warpgroup' or 'cta'`",
  "The scope of an apply is `warp`, `warp(K)`, `warpgroup`, `warpgroup(K)` or `cta`.",
  "small", wrong=[("(t, r) scope warp(0);", "(t, r) scope thread;")], fix=[("scope thread;", "scope warp(0);")])
E("cta_scope_arg", "`scope 'cta' takes no argument`",
  "`cta` scope always means every warp of the block.",
  "cta_scope_256", wrong=[("(tv, rv) scope cta;", "(tv, rv) scope cta(0);")], fix=[("scope cta(0);", "scope cta;")])
E("view_method", "`expected 'view' or 'rearrange', not 'NAME'`",
  "A view expression is built from `.view(...)`, `.rearrange(\"...\", ...)` and `[...]` slices only.",
  "small", wrong=[("    view mine", '    view tv = t.transpose("r c -> c r");\n    view mine')], fix=[("t.transpose(", "t.rearrange(")])
E("layout_head", "`expected 'S', 'tmem_datapath_layout', 'default' or a layout name, not 'NAME['`",
  "A strided layout starts with `S[`.",
  "small", wrong=[("S[32 : 1@laneid]", "L[32 : 1@laneid]")], fix=[("L[32", "S[32")])
E("sub_slab_name", "`expected 'sub_slab', not 'NAME'`",
  "The optional fourth argument of `tmem_datapath_layout` is `sub_slab = s`.",
  "layout_f_subslab", wrong=[("sub_slab = 1", "slab = 1")], fix=[("slab = 1", "sub_slab = 1")])
E("replica_head", "`expected 'R[...]' or an offset 'k@axis', not 'NAME['`",
  "After the `S[...]` part a layout takes `+ R[...]` replica terms and `+ k@axis` offsets.",
  "small", wrong=[("S[32 : 1@laneid]", "S[32 : 1@laneid] + Q[1 : 0@m]")], fix=[("+ Q[1 : 0@m]", "+ R[1 : 0@m]")])
E("reserved_word", "`unexpected keyword 'NAME', ...`",
  "Keywords (`include const layout kernel launch let var shared local tmem view at apply scope if else for in cta_sync warp_sync default`) cannot be names.",
  "tiny", wrong=[("let tid = thread_idx.x;\n    Out[tid] = A[tid];", "let in = thread_idx.x;\n    Out[in] = A[in];")],
  fix=[("let in = thread_idx.x;\n    Out[in] = A[in];", "let i = thread_idx.x;\n    Out[i] = A[i];")])

T("Names, values and types")
E("unknown_name", "`unknown name 'NAME'`",
  "A name that is not declared in an enclosing scope: a kernel parameter, `const`, `layout`, `let`, `var`, tensor or view. Names declared inside `{ }` (including the body of `if` and `for`) end at the `}`.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = B[tid];")], fix=[("B[tid]", "A[tid]")])
E("redefinition", "`redefinition of 'NAME'`",
  "A name declared twice in the same block (a nested block may shadow it). The note shows the first definition.",
  "tiny", wrong=[("    Out[tid]", "    let tid = lane_id;\n    Out[tid]")], fix=[("let tid = lane_id;", "let lane = lane_id;")])
E("not_a_value", "`'NAME' is not a value`",
  "A tensor, view or layout name used where a scalar is needed.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A;")], fix=[("= A;", "= A[tid];")])
E("not_a_tensor", "`'NAME' is not a tensor`",
  "Indexing something that is not a tensor or a view.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = tid[0];")], fix=[("tid[0]", "A[tid]")])
E("not_a_layout", "`unknown layout 'NAME'` and `'NAME' is not a layout`",
  "The name after `layout` in a declaration must be a top-level `layout NAME = ...;`.",
  "small", wrong=[("local r: f32[32, 1] layout S[32 : 1@laneid];", "local r: f32[32, 1] layout LANES;")],
  fix=[("kernel k", "layout LANES = S[32 : 1@laneid];\n\nkernel k")])
E("not_a_layout2", "`'NAME' is not a layout`",
  "The same, for a name that exists but is something else.",
  "small", wrong=[("local r: f32[32, 1] layout S[32 : 1@laneid];", "local r: f32[32, 1] layout tid;")],
  fix=[("layout tid;", "layout S[32 : 1@laneid];")])
E("layout_alias", "`layout 'NAME' names another layout name`",
  "A `layout` item must spell out a layout; it cannot just name another one.",
  "small", wrong=[("kernel k", "layout LANES = S[32 : 1@laneid];\nlayout ROWS = LANES;\n\nkernel k"), ("layout S[32 : 1@laneid];", "layout ROWS;")],
  fix=[("layout ROWS = LANES;\n", ""), ("layout ROWS;", "layout LANES;")])
E("tuple_value", "`a parenthesised list is not a value here`",
  "A tuple `(a, b)` is only a layout's extent or stride list, or a launch dimension.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[(tid, 0)];")], fix=[("A[(tid, 0)]", "A[tid]")])
E("float_operands", "`operator 'OP' needs integer operands`",
  "`%`, `<<`, `>>`, `&`, `|` and `^` are integer operators.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[tid] % 2.0;")], fix=[("A[tid] % 2.0", "A[tid] - 2.0 * f32(i32(A[tid] / 2.0))")],
  fixtext="compute the remainder with integer conversions (or keep the data integral).")
E("float_logical", "`operator 'OP' needs integer operands; compare the float with 0.0`",
  "`&&` and `||` take integers, as conditions.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    if (A[tid] && tid < 16) {\n        Out[tid] = A[tid];\n    }")],
  fix=[("A[tid] && tid", "A[tid] != 0.0 && tid")])
E("float_unary", "`operator 'OP' needs an integer operand`",
  "`!` and `~` take integers.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = f32(~A[tid]);")], fix=[("f32(~A[tid])", "-A[tid]")])
E("const_undefined", "`constant expression OP is undefined (division by zero, overflow or a shift of 32 or more)`",
  "Constant expressions are folded with C's 32-bit rules; where C has undefined behaviour, tilec refuses.",
  "tiny", wrong=[("kernel k", "const SHIFT = 1 << 32;\nkernel k")], fix=[("1 << 32", "1 << 31")])
E("not_const", "`WHAT must be a compile-time integer`",
  "Shapes, layout extents and strides, view and slice bounds, rearrange sizes, launch dimensions, column counts and scope indices are evaluated at compile time: they may use literals, `const` names, `let` names bound to constants and the variables of unrolled loops, but not thread indices or loads.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    shared staging: f32[tid];\n    Out[tid] = A[tid];")], fix=[("f32[tid]", "f32[32]")])
E("global_index_count", "`'NAME' has N dimensions but M indices are given`",
  "Global and shared tensors are indexed with one index per dimension.",
  "index_count_base" if False else "tiny", wrong=[("A: f32[32]", "A: f32[32, 2]")], fix=[("A[tid]", "A[tid, 0]")])
E("index_float", "`index must be an integer`",
  "Indices are integers; convert with `i32(...)`.",
  "tiny", wrong=[("A[tid]", "A[tid * 1.0]")], fix=[("A[tid * 1.0]", "A[tid]")])
E("index_range", "`index N is out of range for dimension D of 'NAME' (size S)`",
  "A constant index outside the tensor or view (indices that vary at run time are not checked).",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[32];")], fix=[("A[32]", "A[31]")])
E("view_index_count", "`view 'NAME' has N dimensions but M indices are given`",
  "A per-thread view is indexed with one index per dimension of the view.",
  "small", wrong=[("mine[0] = A[tid];", "mine[0, 0] = A[tid];")], fix=[("mine[0, 0]", "mine[0]")])
E("register_index", "`registers are not addressable: the index into 'NAME' must be a compile-time constant (a loop over it must have constant bounds)`",
  "A per-thread view names registers, and registers have no addresses: each index must be known when tilec compiles, for example a literal or the variable of an unrolled loop.",
  "small", wrong=[("mine[0] = A[tid];", "mine[tid / 32] = A[tid];")], fix=[("mine[tid / 32]", "mine[0]")])
E("view_not_per_thread", "`'NAME' is a view of local tensor 'T'; elements are read and written only through a per-thread view such as T.view(n, layout = default)`",
  "A plain view of a local or tmem tensor is an operand for `apply`; it cannot be indexed.",
  "small", wrong=[("    view mine = r.view(1, layout = default);\n    mine[0] = A[tid];", "    view rv = r.view(32);\n    rv[tid] = A[tid];")],
  fix=[("    view rv = r.view(32);\n    rv[tid] = A[tid];", "    view mine = r.view(1, layout = default);\n    mine[0] = A[tid];")])
E("local_direct", "`'NAME' is distributed over threads; read and write it through a per-thread view: NAME.view(N, layout = default)`",
  "A local tensor is spread over the threads by its layout; each thread reaches its own part through a per-thread view.",
  "small", wrong=[("mine[0] = A[tid];", "r[tid, 0] = A[tid];")], fix=[("r[tid, 0] = A[tid];", "mine[0] = A[tid];")])
E("tmem_direct", "`'NAME' lives in tensor memory; it is read and written only with apply tcgen05.ld / tcgen05.st`",
  "Tensor memory has no loads or stores of its own: move it into registers with `apply tcgen05.ld` first.",
  "small", wrong=[("Out[tid] = mine[0];", "Out[tid] = t[tid, 0];")], fix=[("t[tid, 0]", "mine[0]")])
E("addr_not_shared", "`'&' takes an element of a shared tensor; 'NAME' is not one`",
  "`&s[i]` is the shared-memory address of a shared element; it exists for `tcgen05.alloc`.",
  "small", wrong=[("(&slot[0], 32)", "(&A[0], 32)")], fix=[("(&A[0], 32)", "(&slot[0], 32)")])
E("alloc_slot_type", "`tcgen05.alloc writes the TMEM address to a shared u32 slot: pass &slot[i]`",
  "The slot must be an element of a `shared` tensor of type u32.",
  "small", wrong=[("shared slot: u32[1];", "shared slot: i32[1];")], fix=[("shared slot: i32[1];", "shared slot: u32[1];")])
E("assign_target", "`cannot assign to 'NAME': only 'var' scalars and elements can be assigned`",
  "`let` binds a value once; use `var` for a scalar that changes.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    let i = tid;\n    i = i + 1;\n    Out[tid] = A[i % 32];")],
  fix=[("let i = tid;", "var i: i32 = tid;")])
E("let_float", "`let binds an i32 or u32 value; for a float write var NAME: f32 = ...`",
  "`let` names an integer (an index, an id, a TMEM address); floating-point scalars are `var`s.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    let x = A[tid] * 2.0;\n    Out[tid] = x;")],
  fix=[("let x = A[tid] * 2.0;", "var x: f32 = A[tid] * 2.0;")])
E("assign_unknown", "`unknown name 'NAME'` (assignment)",
  "Assigning to a name that was never declared; `var` declares it.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    x = A[tid];\n    Out[tid] = x;")], fix=[("    x = A[tid];", "    var x: f32 = A[tid];")])
TOPIC[0] = "Names, values and types"
E("tmem_view_direct", "`'NAME' is a view of tmem tensor 'T'; tensor memory is read and written only with apply tcgen05.ld / tcgen05.st`",
  "The same for a view of a tmem tensor.",
  "small", wrong=[("    view mine", "    view tcol = t[:, 0];\n    view mine"), ("Out[tid] = mine[0];", "Out[tid] = tcol[0];")],
  fix=[("Out[tid] = tcol[0];", "Out[tid] = mine[0];")])
