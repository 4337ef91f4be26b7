// The lowered program of copy_reduce.tile for sm_100a (tilec 0.1.0, --emit=ir).

kernel k grid (1, 1, 1) block (128, 1, 1)
	param A: f32[128, 4]
	param Out: f32[128, 4]
	param M: f32[128]
	param B: f32[128]
	param Ok: f32[128]
{
	shared tmem: u32[1]
	if warp_id == 0 {
		tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [&tmem[0]], 32	// allocates columns for the CTA; one warp; not after relinquish_alloc_permit
		tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned	// gives up the CTA's right to allocate
	}
	tcgen05.fence::before_thread_sync	// placed by tilec next to cta_sync
	cta_sync
	tcgen05.fence::after_thread_sync	// placed by tilec next to cta_sync
	let tid: i32 = thread_idx.x
	local r: f32[128, 4] in 4 registers
	local m: f32[128] in 1 register
	r.slot[0] = A[thread_idx.x * 4]
	r.slot[1] = A[1 + (thread_idx.x * 4)]
	r.slot[2] = A[2 + (thread_idx.x * 4)]
	r.slot[3] = A[3 + (thread_idx.x * 4)]
	// copy_reduce.tile:11: copy(t, r);
	tcgen05.st.sync.aligned.32x32b.x4.b32 [tmem[0] + (u32(warp_id) * 2097152u)], {r.word[0..3]}
	tcgen05.wait::st.sync.aligned	// the warp's tcgen05.st writes are in tensor memory
	// copy_reduce.tile:12: copy(r, t) reduce max(m);
	tcgen05.ld.sync.aligned.32x32b.x4.b32 {r.word[0..3]}, [tmem[0] + (u32(warp_id) * 2097152u)]
	tcgen05.wait::ld.sync.aligned	// the warp's tcgen05.ld results are in its registers
	m.slot[0] = max(max(max(r.slot[0], r.slot[1]), r.slot[2]), r.slot[3])
	M[thread_idx.x] = m.slot[0]
	Out[thread_idx.x * 4] = r.slot[0]
	Out[1 + (thread_idx.x * 4)] = r.slot[1]
	Out[2 + (thread_idx.x * 4)] = r.slot[2]
	Out[3 + (thread_idx.x * 4)] = r.slot[3]
	if m.slot[0] == max(max(r.slot[0], r.slot[1]), max(r.slot[2], r.slot[3])) {
		Ok[tid] = B[tid]
	}
	tcgen05.fence::before_thread_sync	// placed by tilec next to cta_sync
	cta_sync
	tcgen05.fence::after_thread_sync	// placed by tilec next to cta_sync
	if warp_id == 0 {
		tcgen05.dealloc.cta_group::1.sync.aligned.b32 tmem[0], 32	// frees an allocation; one warp; its tensors are dead afterwards
	}
}
