for n in ["plan_too_large", "plan_with_alloc", "plan_with_dealloc", "plan_late_size"]:
    golden(n)
T("Tensor memory that tilec allocates", """
A tmem tensor declared without `at` gets its columns from tilec, which writes the allocation
itself (docs/language.md section 14). These messages are about what keeps it from doing so.
""")
E("plan_too_large", "`the tmem tensors of kernel 'NAME' need N columns of tensor memory at the same time, more than the 512 a CTA has`, and `the tmem tensors of kernel 'NAME' do not fit in the 512 columns of tensor memory a CTA has: no placement of the columns they need at the same time fits`",
  "Tensors that are live at the same time in the same lanes need columns of their own; here three of 256 columns are. A note at each tensor gives its columns, its lanes, its live range and the tensors it is live together with.",
  "plan_too_large", wrong=[],
  fix=[('layout ACC = tmem_datapath_layout("A", 128, 256);', 'layout ACC = tmem_datapath_layout("A", 128, 128);'),
       ("tmem a: f32[128, 256]", "tmem a: f32[128, 128]"), ("tmem b: f32[128, 256]", "tmem b: f32[128, 128]"),
       ("tmem c: f32[128, 256]", "tmem c: f32[128, 128]"), ("tmem d: f32[128, 256]", "tmem d: f32[128, 128]")],
  fixtext="make the tensors smaller, or use them one after the other so that they can share columns.")
E("plan_with_alloc", "`kernel 'NAME' declares tmem tensors without 'at', whose tensor memory tilec allocates; it may not also allocate with tcgen05.alloc`, and `'NAME' is declared without 'at' in kernel 'NAME', which allocates tensor memory itself; declare it 'at' the slot that tcgen05.alloc fills`",
  "A kernel either allocates tensor memory itself or leaves it all to tilec. Both places are reported: each alloc, and the first tensor without `at`.",
  "plan_with_alloc", wrong=[], fix=[("tmem mem: f32[64, 128] layout TB;", "tmem mem: f32[64, 128] at address[0] layout TB;")],
  fixtext="declare the tensor `at` the slot the alloc fills (or remove the alloc, its barrier and its dealloc).")
E("plan_with_dealloc", "`kernel 'NAME' declares tmem tensors without 'at': tilec relinquishes and frees the tensor memory it allocates for them; remove this instruction`",
  "tilec writes `relinquish_alloc_permit` after its alloc and the dealloc at the end of the kernel; a dealloc or relinquish of the program's own would be a second one.",
  "plan_with_dealloc", wrong=[],
  fix=[("    cta_sync;\n    if (warp_id == 0) {\n        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n        tcgen05.dealloc.cta_group::1.sync.aligned.b32(0, 64);\n    }\n", "")])
E("plan_late_size", "`the size and layout of 'NAME' must be known when the kernel starts, because tilec allocates its tensor memory there; 'NAME' is declared inside the kernel`",
  "tilec plans the columns before the kernel's first statement, so the dimensions and the layout of a tensor without `at` may use constants, literals and layouts of the file, but no name declared in the kernel (a `let`, a loop variable).",
  "plan_late_size", wrong=[],
  fix=[("    let n = 64;\n", ""), ("kernel late_size", "const n = 64;\n\nkernel late_size")],
  fixtext="make the size a `const`.")
