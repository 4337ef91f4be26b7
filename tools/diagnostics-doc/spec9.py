T("Spelling and CUDA habits", """
Where a name, keyword, type, scope, axis or instruction is unknown but one that exists is near it in
spelling (a third of its letters or fewer differ, case aside), the error is followed by a note
`did you mean '...'?`. A misspelt single tcgen05 instruction is then taken as the one it nearly
spells, so no second error follows from it. Where the input looks like CUDA C++, a note says how
.tile writes it. These notes follow the errors of the earlier sections; the entries here show them.
""")
E("did_you_mean_name", "note: `did you mean 'NAME'?` (a name or builtin)",
  "The names in scope and the builtins are the candidates.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[tid] * f32(warp_idx);")], fix=[("warp_idx", "warp_id")])
E("did_you_mean_keyword", "note: `did you mean 'KEYWORD'?` (a keyword or type)",
  "A word next to a syntax error is compared with the keywords, builtins and element types.",
  "tiny", wrong=[("let tid = thread_idx.x;", "lte tid = thread_idx.x;")], fix=[("lte tid", "let tid")])
E("did_you_mean_layout", "note: `did you mean 'tmem_datapath_layout'?`",
  "A misspelt `tmem_datapath_layout` reads as a layout name followed by `(`.",
  "tmem_roundtrip", wrong=[('tmem_datapath_layout("B"', 'tmem_datapath_layut("B"')], fix=[('tmem_datapath_layut("B"', 'tmem_datapath_layout("B"')])
E("did_you_mean_instr", "note: `did you mean 'tcgen05...'?` (an instruction)",
  "Single instructions take their exact PTX spelling; the qualifiers `.sync.aligned`, `.shared::cta`, `.b32` and `.cta_group::N` are what is most often left out.",
  "small", wrong=[("tcgen05.wait::ld.sync.aligned;", "tcgen05.wait::ld;")], fix=[("tcgen05.wait::ld;", "tcgen05.wait::ld.sync.aligned;")])
E("cuda_syncthreads", "note: `CUDA's __syncthreads() is the statement 'cta_sync;'`",
  "The block barrier is a statement of its own; `warp_sync;` is CUDA's `__syncwarp()`.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    __syncthreads();\n    Out[tid] = A[tid];")], fix=[("__syncthreads();", "cta_sync;")])
E("cuda_threadidx", "note: `CUDA's threadIdx is 'thread_idx' (...)`",
  "The builtins are `thread_idx`, `block_idx` (with `.x`, `.y`, `.z`), `warp_id`, `lane_id` and `warpgroup_id`. The block and grid sizes are the constants of `launch(...)`.",
  "tiny", wrong=[("let tid = thread_idx.x;", "let tid = threadIdx.x;")], fix=[("threadIdx.x", "thread_idx.x")])
E("cuda_float", "note: `the 32-bit float type is 'f32' (...)`",
  "The element types are f32, f16, bf16, i32, u32, i16, u16, i8 and u8; `float`, `int`, `unsigned`, `half` and `__nv_bfloat16` get a note with their name here.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    var x: float = A[tid];\n    Out[tid] = x;")], fix=[("var x: float", "var x: f32")])
E("cuda_float_suffix", "`invalid number 'TEXT'` with the note `a float literal has no 'f' suffix (...)`",
  "Every float constant is an f32; the number is read without its `f`, so nothing else is reported.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = A[tid] * 2.0f;")], fix=[("2.0f", "2.0")])
E("cuda_for", "note: `a loop is written 'for i in LO..HI { ... }' (HI excluded)`",
  "A C `for (...)` loop: the parser resumes at its body.",
  "tiny", wrong=[("    Out[tid] = A[tid];", "    for (let i = 0; i < 2; i++) {\n        Out[tid] = A[tid];\n    }")],
  fix=[("for (let i = 0; i < 2; i++)", "for i in 0..2")])
E("cuda_mathf", "note: `did you mean 'exp'?` (a function)",
  "CUDA's float functions with an `f` (`expf`, `sqrtf`, ...) are written without it; `fmaxf`, `fminf` and `fabsf` get a note naming `max`, `min` and `abs`.",
  "tiny", wrong=[("Out[tid] = A[tid];", "Out[tid] = expf(A[tid]);")], fix=[("expf(", "exp(")])
