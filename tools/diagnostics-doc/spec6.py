T("Includes")
E("include_missing", "`cannot find include file \"PATH\"`",
  "An include path is looked up relative to the including file, then in each `-I` directory in order.",
  "tiny", wrong=[("kernel k", 'include "layouts/common.tile";\n\nkernel k')], fix=[('include "layouts/common.tile";\n\n', '')],
  fixtext="give the right path, or add the directory with `-I` (here the include is removed).")
E("include_self", "`\"PATH\" includes itself`",
  "An include cycle. A file that is included twice without a cycle is read once (as with `#pragma once`), so diamond-shaped includes are fine.",
  "tiny", wrong=[("kernel k", 'include "include_self.tile";\n\nkernel k')], fix=[('include "include_self.tile";\n\n', '')])
E("no_kernel", "`FILE declares no kernel; the output is empty [-Wempty-output]`",
  "A warning (`-Wno-empty-output` turns it off): a file of constants and layouts is meant to be included by another; compiled on its own it gives an output with nothing in it. An empty file gets the same warning.",
  'const X = 1;\nlayout L = S[32 : 1@laneid];\n', kind="warning",
  fix=[('layout L = S[32 : 1@laneid];\n', 'layout L = S[32 : 1@laneid];\n\nkernel k(A: f32[32]) launch(block = 32)\n{\n    A[lane_id] = f32(X);\n}\n')],
  fixtext="compile the file that includes it, or give the file a kernel.")
T("Code generation", """
Messages about the code built from a correct program: they come from ptxas's report on tilec's
PTX (or, with `--via=nvcc`, on nvcc's), so they appear only with a `.cubin` output.
""")
E("ptxas_spill", "`ptxas spills registers in kernel 'NAME' (N bytes of spill stores, M bytes of spill loads): the kernel keeps too many values live` (warning)",
  "ptxas had to keep some values in local memory: more values are live at some point of the kernel than the registers a thread may use (255, or fewer when the block is large: 65536 registers are shared by the threads of a block). Here 1024 threads leave 64 registers per thread, and each thread holds 64 values across the barrier. The warning is at the kernel's line, and `-Xptxas -v` shows the figures of every kernel.",
  'layout REG = S[(1024, 64) : (1@tx, 1)];\n\nkernel reverse_rows(A: f32[1024, 64]) launch(grid = 1, block = 1024)\n{\n    let tid = thread_idx.x;\n    local row: f32[1024, 64] layout REG;\n    view v = row.view(64, layout = default);\n    for j in 0..64 {\n        v[j] = A[tid, j];\n    }\n    cta_sync;\n    for j in 0..64 {\n        A[1023 - tid, j] = v[63 - j];\n    }\n}\n',
  kind="warning", args="--emit=cubin", fixargs="--emit=cubin",
  fix=[('S[(1024, 64)', 'S[(512, 64)'), ('A: f32[1024, 64]) launch(grid = 1, block = 1024)', 'A: f32[512, 64]) launch(grid = 1, block = 512)'),
       ('local row: f32[1024, 64]', 'local row: f32[512, 64]'), ('A[1023 - tid, j]', 'A[511 - tid, j]')],
  fixtext="fewer threads per block (here 512, which leaves 128 registers a thread), or fewer values live at once.")
