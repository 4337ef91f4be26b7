BASES["warp_scope"] = strip_comments(open("tests/golden/warp_scope.tile").read())
ST1 = "apply tcgen05.st.sync.aligned.32x32b.x1.b32(t, r)"
T("apply: the opcode", """
The opcode of an `apply` is parsed on its own first; these messages are the same as those of
`tilec --print-image OPCODE` (there, with exit status 2). The shapes and legal `.xN` are those of
[reference.md section 11.2](reference.md#112-load-and-store-shapes) (see [images.md](images.md)).
""")
E("op_not_ldst", "`'OPCODE' is not a load or store: apply takes tcgen05.ld.sync.aligned.SHAPE.xN[.pack::16b].b32 or tcgen05.st.sync.aligned.SHAPE.xN[.unpack::16b].b32`",
  "`apply` is for tcgen05.ld and tcgen05.st only; other tcgen05 instructions are single statements.",
  "small", wrong=[(ST1, "apply tcgen05.cp.sync.aligned.32x32b.x1.b32(t, r)")], fix=[("tcgen05.cp.", "tcgen05.st.")])
E("op_sync_aligned", "`tcgen05.st needs .sync.aligned right after 'st'`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.32x32b.x1.b32(t, r)")], fix=[("tcgen05.st.32x32b", "tcgen05.st.sync.aligned.32x32b")])
E("op_no_shape", "`tcgen05.st.sync.aligned needs a shape: 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned(t, r)")], fix=[("tcgen05.st.sync.aligned(t, r)", "tcgen05.st.sync.aligned.32x32b.x1.b32(t, r)")])
E("op_shape", "`unknown shape 'SHAPE'; the shapes are 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x64b.x1.b32(t, r)")], fix=[("32x64b", "32x32b")])
E("op_no_xn", "`tcgen05.st needs a repetition .xN after SHAPE; legal: ...`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b(t, r)")], fix=[("32x32b(t, r)", "32x32b.x1.b32(t, r)")])
E("op_xn_missing", "`expected a repetition .xN after SHAPE, found '.PART'; legal: ...`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.b32(t, r)")], fix=[("32x32b.b32", "32x32b.x1.b32")])
E("op_xn", "`'.xN' is not legal for SHAPE; legal: ...`",
  "N is a power of two, at most 128 (64 for 16x128b, 32 for 16x256b).",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x3.b32(t, r)")], fix=[(".x3.", ".x1.")])
E("op_pack_dir", "`pack::16b is only for tcgen05.ld; a store takes .unpack::16b` (and the converse)",
  "", "pack_roundtrip", wrong=[("x4.unpack::16b.b32", "x4.pack::16b.b32")], fix=[("x4.pack::16b.b32(tv, rv)", "x4.unpack::16b.b32(tv, rv)")])
E("op_no_b32", "`tcgen05.st needs the type .b32 at the end`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1(t, r)")], fix=[("x1(t, r)", "x1.b32(t, r)")])
E("op_type", "`type '.TYPE' is not allowed: tcgen05.st takes only .b32`",
  "The instructions move bits; the element type is the tensors' business.",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.f32(t, r)")], fix=[("x1.f32(t, r)", "x1.b32(t, r)")])
E("op_unexpected", "`unexpected '.PART' after SHAPE.xN; expected [.unpack::16b].b32`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.wide.b32(t, r)")], fix=[("x1.wide.b32", "x1.b32")])
E("op_pack_after", "`'.pack::16b' must come before .b32`",
  "", "pack_roundtrip", wrong=[("x4.unpack::16b.b32", "x4.b32.unpack::16b")], fix=[("x4.b32.unpack::16b", "x4.unpack::16b.b32")])
E("op_after_b32", "`unexpected '.PART' after .b32; tcgen05.st ends with .b32`",
  "", "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.b32.sync(t, r)")], fix=[("x1.b32.sync(t, r)", "x1.b32(t, r)")])
E("op_parts", "`'OPCODE...' has too many '.' parts for a tcgen05.ld or tcgen05.st opcode`",
  "More than 16 dot-separated parts.",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1" + ".b32" * 12 + "(t, r)")], fix=[("x1" + ".b32" * 12, "x1.b32")])

T("apply: operands, arguments and scope")
E("apply_nops", "`OPCODE takes N operands (registers, tmem), not M`",
  "A load takes `(registers, tmem)`, a store `(tmem, registers)`; 16x32bx2 takes two tmem operands, low then high.",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.b32(t)")], fix=[("x1.b32(t)", "x1.b32(t, r)")])
E("apply_too_many", "`too many operands`",
  "More than eight operands (no instruction takes more than three).",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.b32(t, r, r, r, r, r, r, r, r)")], fix=[("(t, r, r, r, r, r, r, r, r)", "(t, r)")])
E("apply_reg_operand", "`the register operand of OPCODE must be a view of a local tensor (not a per-thread view)`",
  "Operands are whole tensors or views of them; the per-thread view is for element access only.",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.b32(t, mine)")], fix=[("x1.b32(t, mine)", "x1.b32(t, r)")])
E("apply_tmem_operand", "`the tmem operand of OPCODE must be a view of a tmem tensor; 'NAME' is not`",
  "Operands in PTX order: for a store the TMEM destination comes first.",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.b32(r, r)")], fix=[("x1.b32(r, r)", "x1.b32(t, r)")])
E("apply_types", "`element types differ: register operand 'R' is T1, tmem operand 'M' is T2`",
  "Both operands hold the same element type (the instruction moves bits, tilec keeps the types honest).",
  "small", wrong=[("local r: f32[32, 1]", "local r: i32[32, 1]"), ("mine[0] = A[tid];", "mine[0] = i32(A[tid]);"), ("Out[tid] = mine[0];", "Out[tid] = f32(mine[0]);")],
  fix=[("tmem t: f32[32, 1]", "tmem t: i32[32, 1]")])
E("apply_pack_type", "`.unpack::16b moves 16-bit data: the tmem operand must have a 16-bit type, not TYPE`",
  "With .pack::16b / .unpack::16b each element takes the low half of a 32-bit cell, so the data is 16-bit.",
  "small", wrong=[(ST1, "apply tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32(t, r)")], fix=[("x1.unpack::16b.b32", "x1.b32")])
E("apply_arg", "`unknown apply argument 'NAME'; the only one is imm_half_splitoff (for 16x32bx2)`",
  "", "shape_16x32bx2", wrong=[("(low, high, regs) scope warpgroup, imm_half_splitoff", "(low, high, regs) scope warpgroup, imm")],
  fix=[("(low, high, regs) scope warpgroup, imm =", "(low, high, regs) scope warpgroup, imm_half_splitoff =")])
E("apply_imm_shape", "`imm_half_splitoff belongs to the 16x32bx2 shape; OPCODE has no second access`",
  "", "small", wrong=[(ST1 + " scope warp(0);", ST1 + " scope warp(0), imm_half_splitoff = 8;")], fix=[(", imm_half_splitoff = 8;", ";")])
E("apply_imm_twice", "`imm_half_splitoff is given twice`",
  "", "shape_16x32bx2", wrong=[("(low, high, regs) scope warpgroup, imm_half_splitoff = (16 << 16) + 8;", "(low, high, regs) scope warpgroup, imm_half_splitoff = (16 << 16) + 8, imm_half_splitoff = (16 << 16) + 8;")],
  fix=[(", imm_half_splitoff = (16 << 16) + 8, imm_half_splitoff = (16 << 16) + 8;", ", imm_half_splitoff = (16 << 16) + 8;")])
E("apply_imm_const", "`imm_half_splitoff must be a compile-time integer`",
  "The immediate is part of the instruction.",
  "shape_16x32bx2", wrong=[("(low, high, regs) scope warpgroup, imm_half_splitoff = (16 << 16) + 8;", "(low, high, regs) scope warpgroup, imm_half_splitoff = tid;")],
  fix=[("imm_half_splitoff = tid;", "imm_half_splitoff = (16 << 16) + 8;")])
E("scope_index_const", "`the scope's index must be a compile-time integer`",
  "`warp(K)` and `warpgroup(K)` name one warp or warpgroup at compile time; for run-time choices use `if (warp_id == K)` and plain `warp`.",
  "small", wrong=[(ST1 + " scope warp(0);", ST1 + " scope warp(tid / 32);")], fix=[("scope warp(tid / 32);", "scope warp(0);")])
E("scope_whole_warps", "`apply needs whole warps, but the block has N threads`",
  "tcgen05.ld/st are warp-collective; a block with a partial warp cannot use them.",
  "small", wrong=[("block = 32", "block = 48"), ("    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&slot[0], 32);", "    if (warp_id == 0) {\n        tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&slot[0], 32);\n    }"),
                ("A: f32[32], Out: f32[32]", "A: f32[48], Out: f32[48]"),
                ("    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0], 32);",
                 "    cta_sync;\n    if (warp_id == 0) {\n        tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n        tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0], 32);\n    }")],
  fix=[("block = 48", "block = 64"), ("A: f32[48], Out: f32[48]", "A: f32[64], Out: f32[64]")])
E("scope_plain_warp", "`plain 'warp' scope needs code that fixes the warp, such as if (warp_id == K); or write warp(K)`",
  "Plain `warp` means \"the one warp that reaches this statement\", so tilec must be able to tell which warp that is.",
  "warp_scope", wrong=[("(slab, regs) scope warp(1);", "(slab, regs) scope warp;")], fix=[("(slab, regs) scope warp;", "(slab, regs) scope warp(1);")])
E("scope_warp_exists", "`warp K does not exist: the block has N warps`",
  "", "small", wrong=[(ST1 + " scope warp(0);", ST1 + " scope warp(1);")], fix=[("scope warp(1);", "scope warp(0);")])
E("scope_warp_reach", "`warp K never reaches this apply`",
  "The statement sits in code that warp K does not execute (tilec evaluates `if` conditions on `warp_id` for every warp).",
  "warp_scopes", wrong=[("(acc[32:64, :], r) scope warp;\n    }\n    tcgen05.wait::st", "(acc[32:64, :], r) scope warp(2);\n    }\n    tcgen05.wait::st")],
  fix=[("(acc[32:64, :], r) scope warp(2);\n    }\n    tcgen05.wait::st", "(acc[32:64, :], r) scope warp;\n    }\n    tcgen05.wait::st")])
E("scope_wg_whole", "`warpgroup scope needs whole warpgroups, but the block has N warps`",
  "", "warp_scope", wrong=[("(slab, regs) scope warp(1);", "(slab, regs) scope warpgroup;")], fix=[("(slab, regs) scope warpgroup;", "(slab, regs) scope warp(1);")])
E("scope_wg_exists", "`warpgroup K does not exist: the block has N`",
  "", "tmem_roundtrip", wrong=[("(mv, sv) scope warpgroup;", "(mv, sv) scope warpgroup(1);")], fix=[("(mv, sv) scope warpgroup(1);", "(mv, sv) scope warpgroup(0);")])
E("scope_wg_partial_k", "`not every warp of warpgroup K reaches this apply`",
  "", "tmem_roundtrip", wrong=[("    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;", "    if (warp < 2) {\n        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup(0);\n    }")],
  fix=[("    if (warp < 2) {\n        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup(0);\n    }", "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup(0);")])
E("scope_wg_partial", "`only part of warpgroup K reaches this apply with warpgroup scope`",
  "", "tmem_roundtrip", wrong=[("    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;", "    if (warp < 2) {\n        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n    }")],
  fix=[("    if (warp < 2) {\n        apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;\n    }", "    apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv) scope warpgroup;")])
E("scope_cta_all", "`cta scope needs every warp of the block, but some do not reach this apply`",
  "", "cta_scope_256", wrong=[("    apply tcgen05.st.sync.aligned.32x32b.x32.b32(tv, rv) scope cta;", "    if (warp_id < 4) {\n        apply tcgen05.st.sync.aligned.32x32b.x32.b32(tv, rv) scope cta;\n    }")],
  fix=[("    if (warp_id < 4) {\n        apply tcgen05.st.sync.aligned.32x32b.x32.b32(tv, rv) scope cta;\n    }", "    apply tcgen05.st.sync.aligned.32x32b.x32.b32(tv, rv) scope cta;")])

T("apply: operand shapes and the image checks", """
These are checks 0 to 5 of [reference.md section 9](reference.md#9-apply). Each failure is one error at the apply, naming the
operand, and a note with the first offending element in the operand's own coordinates, what the
image needs and what the layout gives. When a store and the matching load are both wrong, each is
reported. Check 0 (one-to-one layouts) is made when the tensor is declared, see Layouts.
""")
E("shape_atom", "`OPERAND operand 'NAME' has shape (..), but OPCODE takes (G) + [repeat axes...] + (ATOM) (...)`",
  "The operand shape is `[group] + [repeat axes] + atom [+ half]`: here a 32x32b.x32 atom is (32, 32), but the views end in (32, 64). When another `.xN` has the operand's atom, a note names it.",
  "tmem_roundtrip", wrong=[("apply tcgen05.st.sync.aligned.32x32b.x64.b32(mv, sv)", "apply tcgen05.st.sync.aligned.32x32b.x32.b32(mv, sv)")],
  fix=[("32x32b.x32.b32(mv, sv)", "32x32b.x64.b32(mv, sv)")])
E("shape_split", "(the same) with the note `a repeat axis split off the columns gives that shape: NAME.rearrange(...)`",
  "When no `.xN` has an atom as wide as the operand, but its columns are a whole number of atoms, the note shows the rearrange that splits them into a repeat axis (the tmem operand needs the same). Here 96 columns are three atoms of `.x32`.",
  """kernel k(A: f32[32, 96], Out: f32[32, 96]) launch(grid = 1, block = 32)
{
    let tid = thread_idx.x;
    shared slot: u32[1];
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32(&slot[0], 128);
    cta_sync;
    tmem t: f32[32, 96] at slot[0] layout default;
    local r: f32[32, 96] layout S[(32, 96) : (1@laneid, 1)];
    view mine = r.view(96, layout = default);
    for j in 0..96 {
        mine[j] = A[tid, j];
    }
    apply tcgen05.st.sync.aligned.32x32b.x32.b32(t, r) scope warp(0);
    tcgen05.wait::st.sync.aligned;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32(slot[0], 128);
}
""", wrong=[], fix=[("    apply tcgen05.st.sync.aligned.32x32b.x32.b32(t, r)", '    view tv = t.rearrange("a (rep b) -> rep a b", b = 32);\n    view rv = r.rearrange("a (rep b) -> rep a b", b = 32);\n    apply tcgen05.st.sync.aligned.32x32b.x32.b32(tv, rv)')])
E("shape_half", "(the same, for a 16-bit type) `... (the atom with the half axis of f16)`",
  "A 16-bit operand has one more trailing axis of extent 2: element [.., row, col, h] is half h of 32-bit word (row, col).",
  "subword_f16", wrong=[('view rv = r.rearrange("(w l) (c h) -> w l c h", w = 4, h = 2);', 'view rv = r.rearrange("(w l) c -> w l c", w = 4);')],
  fix=[('view rv = r.rearrange("(w l) c -> w l c", w = 4);', 'view rv = r.rearrange("(w l) (c h) -> w l c h", w = 4, h = 2);')])
E("shape_repeat", "`tmem operand 'NAME' has shape (..); its repeat axes must be (..), as in the register operand`",
  "Every operand has the same repeat axes; the instruction is issued once per repeat index.",
  "layout_d_repeat", wrong=[('view tv = acc.rearrange("(w r) (q c) -> w q r c", w = 4, q = 4);', 'view tv = acc.rearrange("(w r) (q h c) -> w q h r c", w = 4, q = 2, h = 2);')],
  fix=[('view tv = acc.rearrange("(w r) (q h c) -> w q h r c", w = 4, q = 2, h = 2);', 'view tv = acc.rearrange("(w r) (q c) -> w q r c", w = 4, q = 4);')])
E("img_owner", "`register operand 'NAME' does not match the image of OPCODE` (owner)",
  "Check 1: the element the image puts in lane l, register r must belong to that lane. Here `REG` gives row i to thread 2i + j/64 instead of thread i.",
  "tmem_roundtrip", wrong=[("layout REG = S[(64, 2, 64) : (1@tid_in_wg, 64@tid_in_wg, 1)];", "layout REG = S[(64, 2, 64) : (2@tid_in_wg, 1@tid_in_wg, 1)];")],
  fix=[("(2@tid_in_wg, 1@tid_in_wg, 1)", "(1@tid_in_wg, 64@tid_in_wg, 1)")])
E("img_owner_x2", "`register operand 'NAME' does not match the image of ...16x32bx2...` (owner, with the access)",
  "For 16x32bx2 the note also names the access (0: lanes 0..15 at the address, 1: lanes 16..31 at the address plus the immediate).",
  "shape_16x32bx2", wrong=[("layout PAIRS = S[(4, 2, 16, 4) : (32@tid_in_wg, 16@tid_in_wg, 1@tid_in_wg, 1)];", "layout PAIRS = S[(4, 2, 16, 4) : (32@tid_in_wg, 1@tid_in_wg, 2@tid_in_wg, 1)];")],
  fix=[("(32@tid_in_wg, 1@tid_in_wg, 2@tid_in_wg, 1)", "(32@tid_in_wg, 16@tid_in_wg, 1@tid_in_wg, 1)")])
E("img_halves", "`register operand 'NAME' does not match the image of OPCODE` (16-bit halves)",
  "16-bit elements travel two to a register: part h of register r must be slot 2w + h of the thread, for one register word w.",
  "subword_f16", wrong=[("layout ROW16 = S[(128, 16) : (1@tid_in_wg, 1)];", "layout ROW16 = S[(128, 8, 2) : (1@tid_in_wg, 1, 8)];")],
  fix=[("S[(128, 8, 2) : (1@tid_in_wg, 1, 8)]", "S[(128, 16) : (1@tid_in_wg, 1)]")])
E("img_one_instruction", "`register operand 'NAME' does not fit one instruction of OPCODE`",
  "The instruction names the same registers in every lane, so register r must be the same register word in all 32 lanes. Here each element lives in two lanes (a replica) and the operand view takes lanes 16..31 from slot 1.",
  "small", wrong=[("local r: f32[32, 1] layout S[32 : 1@laneid];", "local r: f32[2, 16] layout S[(2, 16) : (1@m, 1@laneid)] + R[2 : 16@laneid];"),
                  ("view mine = r.view(1, layout = default);\n    mine[0] = A[tid];", "view rv = r.rearrange(\"h l -> (h l)\").view(32, 1);\n    view mine = r.view(2, layout = default);\n    mine[0] = A[tid];"),
                  ("32x32b.x1.b32(t, r)", "32x32b.x1.b32(t, rv)"), ("32x32b.x1.b32(r, t)", "32x32b.x1.b32(rv, t)")],
  fix=[("local r: f32[2, 16] layout S[(2, 16) : (1@m, 1@laneid)] + R[2 : 16@laneid];", "local r: f32[2, 16] layout S[(2, 16) : (16@laneid, 1@laneid)];"),
       ("view mine = r.view(2, layout = default);", "view mine = r.view(1, layout = default);")])
E("img_tmem", "`tmem operand 'NAME' does not match the image of OPCODE`",
  "Check 2: inside one instruction the rows of the atom are consecutive TMEM lanes and its columns consecutive cells, starting from one base per warp and repeat. Here the layout spreads the rows over every other lane.",
  "small", wrong=[("tmem t: f32[32, 1] at slot[0] layout default;", "tmem t: f32[32, 1] at slot[0] layout S[32 : 2@TLane];")],
  fix=[("S[32 : 2@TLane]", "S[32 : 1@TLane]")])
E("img_tmem_pack", "`tmem operand 'NAME' does not match the image of ...pack::16b...` (packed columns)",
  "With .pack::16b / .unpack::16b element [row, col, h] must be the low half of cell 2*col + h: in 16-bit units the TCol strides are 4 and 2.",
  "pack_roundtrip", wrong=[("layout SPREAD = S[(128, 8) : (1@TLane, 2@TCol)];", "layout SPREAD = S[(128, 8) : (1@TLane, 4@TCol)];")],
  fix=[("(1@TLane, 4@TCol)", "(1@TLane, 2@TCol)")])
E("img_tmem_dense", "`tmem operand 'NAME' does not match the image of ...unpack::16b...` (dense data)",
  "Dense 16-bit data (two elements per cell) is moved without pack/unpack, as in examples/subword_f16.tile.",
  "pack_roundtrip", wrong=[("layout SPREAD = S[(128, 8) : (1@TLane, 2@TCol)];", "layout SPREAD = S[(128, 8) : (1@TLane, 1@TCol)];")],
  fix=[("(1@TLane, 1@TCol)", "(1@TLane, 2@TCol)")])
E("img_slab", "`tmem operand 'NAME' does not match the image of OPCODE` (slab)",
  "Check 3: warp w reaches only lanes 32*(w%4) .. 32*(w%4)+31, and a 32x32b access covers its whole slab. Here the tensor starts at lane 32, but warp 0 executes the apply; the note names the slab.",
  "small", wrong=[("at slot[0] layout default;", "at slot[0] + (32 << 16) layout default;")], fix=[("at slot[0] + (32 << 16) layout default;", "at slot[0] layout default;")])
E("img_cols", "`OPCODE of warp W reaches TMEM columns A..B, past the N columns allocated`",
  "Check 5: columns stay inside the allocation (and below 512). The note shows the allocation.",
  "small", wrong=[("at slot[0] layout default;", "at slot[0] + 32 layout default;")], fix=[("at slot[0] + 32 layout default;", "at slot[0] layout default;")])
E("img_imm", "`imm_half_splitoff is (L << 16) + C, but the tmem operands are (L << 16) + C apart`",
  "Check 4: for 16x32bx2 the high operand's base is the low one's plus the immediate, as a 32-bit TMEM address (lane in the high half). Leave the argument out and tilec computes it.",
  "shape_16x32bx2", wrong=[("(low, high, regs) scope warpgroup, imm_half_splitoff = (16 << 16) + 8;", "(low, high, regs) scope warpgroup, imm_half_splitoff = (16 << 16) + 4;")],
  fix=[("(low, high, regs) scope warpgroup, imm_half_splitoff = (16 << 16) + 4;", "(low, high, regs) scope warpgroup;")])

BASES["img_lane_offset_8"] = strip_comments(open("tests/golden/img_lane_offset_8.tile").read())
E("img_slab16", "`warp W cannot access TMEM lanes A..B with OPCODE`",
  "Check 3 for the 16-row shapes: their access starts at lane 0 or 16 of the warp's slab. Here the tensor is declared 8 lanes down.",
  "img_lane_offset_8", wrong=[], fix=[(" + 8@TLane;", " + 16@TLane;")])
