T("Clusters", """
`cluster = ...` in `launch(...)` and the CTA pair of `cta_group::2` ([language.md, clusters](language.md#clusters)).
""")
CLUSTER = """kernel scale(A: f32[128], Out: f32[128]) launch(grid = 4, block = 32, cluster = 2)
{
    let i = block_idx.x * 32 + thread_idx.x;
    Out[i] = 2.0 * A[i];
}
"""
PAIR = """layout TD  = tmem_datapath_layout("D", 128, 32);
layout ROW = S[(128, 32) : (1@tid_in_wg, 1)];

kernel pair(A: f32[256, 32], Out: f32[256, 32]) launch(grid = 2, block = 128, cluster = 2)
{
    let row = block_idx.x * 128 + thread_idx.x;
    shared address: u32[1];
    if (warp_id == 0) {
        tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32(&address[0], 32);
    }
    cta_sync;
    tmem acc: f32[128, 32] at address[0] layout TD;
    local buf: f32[128, 32] layout ROW;
    view mine = buf.view(32, layout = default);
    for j in 0..32 {
        mine[j] = A[row, j];
    }
    copy(acc, buf);
    copy(buf, acc);
    for j in 0..32 {
        Out[row, j] = mine[j];
    }
    cta_sync;
    if (warp_id == 0) {
        tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
        tcgen05.dealloc.cta_group::2.sync.aligned.b32(address[0], 32);
    }
}
"""
E("cluster_grid", "`grid dimension X (N) is not a multiple of the cluster's (M)`",
  "A cluster's CTAs are consecutive in the grid, so each grid dimension is a whole number of clusters. A grid computed at launch is checked at launch, by libtilert and `tilec run`.",
  CLUSTER, wrong=[("grid = 4,", "grid = 3,")], fix=[("grid = 3,", "grid = 4,")])
E("cluster_size", "`a cluster has at most 8 CTAs (the portable size); 'NAME' asks for N`",
  "Every GPU with clusters runs clusters of up to 8 CTAs; larger ones need an opt-in that tilec does not make.",
  CLUSTER, wrong=[("grid = 4, block = 32, cluster = 2", "grid = 16, block = 32, cluster = 16")],
  fix=[("cluster = 16", "cluster = 8")])
E("cta_pair", "`cta_group::2 works on a pair of CTAs of a cluster; kernel 'NAME' needs a cluster whose x extent is even, e.g. cluster = (2, 1, 1) in its launch(...)`",
  "The CTA pair of `cta_group::2` is the CTAs of cluster ranks 2i and 2i + 1. Reported once per kernel, at its first `cta_group::2` instruction; a note shows the cluster when there is one.",
  PAIR, wrong=[(", cluster = 2)", ")")], fix=[("block = 128)", "block = 128, cluster = 2)")])
E("emu_pair", "`the emulator (--target=emu, tilec run) does not emulate cta_group::2, the CTA pair that allocates tensor memory together; kernel 'NAME' runs only on a Blackwell GPU`",
  "The emulator gives each CTA a tensor memory of its own and runs the CTAs independently; it does not model the pair. Run such a kernel on a Blackwell GPU; to try the rest of it on the emulator, use `cta_group::1` (each CTA allocating for itself).",
  PAIR, args="--target=emu", fixargs="--target=emu", wrong=[],
  fix=[("tcgen05.alloc.cta_group::2", "tcgen05.alloc.cta_group::1"),
       ("relinquish_alloc_permit.cta_group::2", "relinquish_alloc_permit.cta_group::1"),
       ("tcgen05.dealloc.cta_group::2", "tcgen05.dealloc.cta_group::1")])
