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
