T("Expressions of version 1", "Compound assignments, `?:` and the functions of [language.md section 13](language.md#13-epilogue-arithmetic).")
E("func_arity", "`'NAME' takes N argument(s), not M`",
  "`min` and `max` take two arguments, `fma` three, every other function one.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = max(A[tid]);")], fix=[("max(A[tid])", "max(A[tid], 0.0)")])
E("func_float_only", "`'NAME' takes float arguments; this one is TYPE: convert it with f32(...)`",
  "`fma`, `exp` to `cos`, `sqrt` and `rsqrt` work on floats only (an f16 or bf16 value is one); `min`, `max` and `abs` take integers too.",
  "kernel k(A: i32[32], Out: f32[32]) launch(grid = 1, block = 32)\n{\n    let tid = thread_idx.x;\n    Out[tid] = exp(A[tid]);\n}\n",
  fix=[("exp(A[tid])", "exp(f32(A[tid]))")])
E("func_unknown", "`unknown function 'NAME'; the functions are ...`",
  "Only the functions of the language can be called in an expression; a name declared in the program is not one (`'NAME' is not a function`).",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = pow(A[tid], 2.0);")], fix=[("pow(A[tid], 2.0)", "A[tid] * A[tid]")])
E("func_redeclare", "`'NAME' is a builtin function and cannot be redeclared; choose another name`",
  "The function names are predeclared in every scope: a `const`, `layout`, kernel, parameter, `let`, `var`, tensor or view may not take one.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    var exp: f32 = A[tid];\n    Out[tid] = exp;")],
  fix=[("var exp: f32 = A[tid];\n    Out[tid] = exp;", "var e: f32 = A[tid];\n    Out[tid] = e;")])
E("func_not_called", "`'NAME' is a builtin function; call it: NAME(...)`",
  "A function name used as a value.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = sqrt;")], fix=[("Out[tid] = sqrt;", "Out[tid] = sqrt(A[tid]);")])
E("compound_int_only", "`operator 'OP=' needs integer operands`",
  "A compound assignment keeps its operator's rules: `%=`, `<<=`, `>>=`, `&=`, `|=` and `^=` need integers on both sides.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    var x: f32 = A[tid];\n    x %= 2.0;\n    Out[tid] = x;")],
  fix=[("x %= 2.0;", "x -= 2.0 * f32(i32(x / 2.0));")])
E("keyword_v1", "`unexpected keyword 'device', 'copy', 'stride' or 'cluster'`",
  "These four words are keywords of version 1 and cannot name anything.",
  "tiny", wrong=[("let tid = thread_idx.x;\n    Out[tid] = A[tid];", "let copy = thread_idx.x;\n    Out[copy] = A[copy];")],
  fix=[("let copy = thread_idx.x;\n    Out[copy] = A[copy];", "let c = thread_idx.x;\n    Out[c] = A[c];")])
T("Runtime sizes", "Dims, strides and grids over scalar parameters ([language.md section 15](language.md#15-runtime-sizes-strides-and-grids)).")
E("param_size", "`a dimension (stride) of 'NAME' is a constant or an integer expression over scalar parameters`",
  "A global tensor's dimensions and strides may use only constants and the kernel's integer scalar parameters.",
  "kernel k(A: f32[n, thread_idx.x], n: i32) launch(grid = 1, block = 32)\n{\n    A[0, 0] = 1.0;\n}\n",
  fix=[("f32[n, thread_idx.x]", "f32[n, 32]")])
E("stride_count", "`'NAME' has N dimensions but M strides`",
  "`stride (...)` gives one stride per dimension.",
  "kernel k(A: f32[m, n] stride (ld), m: i32, n: i32, ld: i32) launch(grid = 1, block = 32)\n{\n    A[0, 0] = 1.0;\n}\n",
  fix=[("stride (ld)", "stride (ld, 1)")])
E("wide_view", "`'NAME' has a shape known only at run time, strides, or 2^31 elements or more: it is indexed element by element, not viewed`",
  "Views are tables of elements built at compile time, which a runtime shape does not allow outside a `copy`; the note shows the slice a copy's operand may take (see `copy_runtime_dim`).",
  "kernel k(A: f32[m, 32], m: i32) launch(grid = 1, block = 32)\n{\n    view row = A[0, :];\n    row[thread_idx.x] = 1.0;\n}\n",
  fix=[("    view row = A[0, :];\n    row[thread_idx.x] = 1.0;", "    A[0, thread_idx.x] = 1.0;")])
E("copy_runtime_bound", "`a slice bound must be a compile-time integer`, with the note `only an operand of copy may slice a global tensor at run-time bounds`",
  "A slice whose bounds are known only at run time (`block_idx.y * 128`, a scalar parameter) is allowed in a `copy`'s operand, where coordinates outside the tensor are skipped; a `view` declaration or an `apply` operand needs compile-time bounds.",
  "kernel k(A: f32[256, 32], Out: f32[256, 32]) launch(grid = 8, block = 32)\n{\n    let top = block_idx.x * 32;\n    local r: f32[32, 32] layout S[(32, 32) : (1@laneid, 1)];\n    view tile = A[top : top + 32, :];\n    copy(r, tile);\n    copy(Out[top : top + 32, :], r);\n}\n",
  fix=[("    view tile = A[top : top + 32, :];\n    copy(r, tile);", "    copy(r, A[top : top + 32, :]);")])
E("copy_slice_extent", "`the slice of dimension D of 'NAME' needs a compile-time extent: write its end as its start plus a constant (lo : lo + 128)`",
  "A copy moves a tile whose shape is known at compile time, so the end of a slice with a run-time start is that start plus a constant; the part of the tile outside the tensor is skipped, so the last tile of a matrix needs no shorter slice.",
  "kernel k(A: f32[m, 32], Out: f32[m, 32], m: i32) launch(grid = (m + 31) / 32, block = 32)\n{\n    let top = block_idx.x * 32;\n    local r: f32[32, 32] layout S[(32, 32) : (1@laneid, 1)];\n    copy(r, A[top : m, :]);\n    copy(Out[top : top + 32, :], r);\n}\n",
  fix=[("A[top : m, :]", "A[top : top + 32, :]")])
E("copy_runtime_dim", "`dimension D of 'NAME' is known only at run time: a copy takes a slice of it with a compile-time extent, such as NAME[lo : lo + 128, ...]`",
  "A copy's operand over a tensor of run-time shape is a slice of it with compile-time extents: each dimension that is not constant gets a slice `lo : lo + K` or an index. The same message says `is sliced from a run-time start to its end` for a slice `lo :` whose start is known only at run time.",
  "kernel k(A: f32[m, 32], Out: f32[m, 32], m: i32) launch(grid = 1, block = 32)\n{\n    local r: f32[32, 32] layout S[(32, 32) : (1@laneid, 1)];\n    copy(r, A);\n    copy(Out[0 : 32, :], r);\n}\n",
  fix=[("copy(r, A);", "copy(r, A[0 : 32, :]);")])
E("copy_slice_below_zero", "`the slice of dimension D of 'NAME' starts at K, below 0` (an index: `index K of dimension D of 'NAME' is below 0`)",
  "A constant start is checked at compile time; a start known only at run time may be negative, and the coordinates below 0 are then skipped.",
  "kernel k(A: f32[m, 32], Out: f32[m, 32], m: i32) launch(grid = 1, block = 32)\n{\n    local r: f32[32, 32] layout S[(32, 32) : (1@laneid, 1)];\n    copy(r, A[-1 : 31, :]);\n    copy(Out[0 : 32, :], r);\n}\n",
  fix=[("A[-1 : 31, :]", "A[0 : 32, :]")])
E("copy_slice_empty", "`the slice of dimension D of 'NAME' has K elements; a slice has 1 to 16777216`",
  "The end of a slice with a run-time start is that start plus a positive constant.",
  "kernel k(A: f32[m, 32], Out: f32[m, 32], m: i32) launch(grid = (m + 31) / 32, block = 32)\n{\n    let top = block_idx.x * 32;\n    local r: f32[32, 32] layout S[(32, 32) : (1@laneid, 1)];\n    copy(r, A[top : top - 32, :]);\n    copy(Out[top : top + 32, :], r);\n}\n",
  fix=[("A[top : top - 32, :]", "A[top : top + 32, :]")])
E("copy_slice_too_large", "`a copy's slice of 'NAME' is too large (more than 2^24 elements)`",
  "A copy's operand is a tile that tilec maps element by element at compile time, like a view; tiles have at most 2^24 elements (a copy moves a tile of registers, which is far smaller).",
  "kernel k(A: f32[m, n], Out: f32[m, n], m: i32, n: i32) launch(grid = 1, block = 32)\n{\n    local r: f32[32, 32] layout S[(32, 32) : (1@laneid, 1)];\n    copy(r, A[0 : 8192, 0 : 8192]);\n    copy(Out[0 : 32, 0 : 32], r);\n}\n",
  fix=[("A[0 : 8192, 0 : 8192]", "A[0 : 32, 0 : 32]")])
E("grid_params", "`a grid dimension is a constant or an integer expression over scalar parameters`",
  "`grid` may use the integer scalar parameters; `block` must be a compile-time integer.",
  "kernel k(A: f32[n], n: i32, s: f32) launch(grid = s, block = 32)\n{\n    A[0] = 1.0;\n}\n",
  fix=[("grid = s,", "grid = (n + 31) / 32,")])
