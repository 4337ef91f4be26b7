// The lowered program of order_copy_st_after_ld.tile for sm_100a (tilec 0.1.0, --emit=ir).

kernel after_apply grid (1, 1, 1) block (128, 1, 1)
	param A: f32[128, 1]
	param C: f32[128, 1]
	param OA: f32[128, 1]
{
	shared tmem: u32[1]
	if warp_id == 0 {
		tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [&tmem[0]], 32	// allocates columns for the CTA; one warp; not after relinquish_alloc_permit
		tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned	// gives up the CTA's right to allocate
	}
	tcgen05.fence::before_thread_sync	// placed by tilec next to cta_sync
	cta_sync
	tcgen05.fence::after_thread_sync	// placed by tilec next to cta_sync
	local ra: f32[128, 1] in 1 register
	local rb: f32[128, 1] in 1 register
	local rc: f32[128, 1] in 1 register
	ra.slot[0] = A[thread_idx.x]
	rc.slot[0] = C[thread_idx.x]
	// order_copy_st_after_ld.tile:16: copy(a[:, 0:1], ra);
	tcgen05.st.sync.aligned.32x32b.x1.b32 [tmem[0] + (u32(warp_id & 3) * 2097152u)], {ra.word[0]}
	tcgen05.wait::st.sync.aligned	// the warp's tcgen05.st writes are in tensor memory
	// order_copy_st_after_ld.tile:17: apply tcgen05.ld.sync.aligned.32x32b.x1.b32(rb[:, 0:1].view(4, 32, 1), a[:, 0:1].view(4, 32, 1)) scope warpgroup;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {rb.word[0]}, [tmem[0] + (u32(warp_id & 3) * 2097152u)]
	tcgen05.wait::ld.sync.aligned	// the warp's tcgen05.ld results are in its registers
	// order_copy_st_after_ld.tile:18: copy(a[:, 0:1], rc);
	tcgen05.st.sync.aligned.32x32b.x1.b32 [tmem[0] + (u32(warp_id & 3) * 2097152u)], {rc.word[0]}
	tcgen05.wait::ld.sync.aligned	// the warp's tcgen05.ld results are in its registers
	OA[thread_idx.x] = rb.slot[0]
	tcgen05.wait::st.sync.aligned	// the warp's tcgen05.st writes are in tensor memory
	tcgen05.fence::before_thread_sync	// placed by tilec next to cta_sync
	cta_sync
	tcgen05.fence::after_thread_sync	// placed by tilec next to cta_sync
	if warp_id == 0 {
		tcgen05.dealloc.cta_group::1.sync.aligned.b32 tmem[0], 32	// frees an allocation; one warp; its tensors are dead afterwards
	}
}

kernel after_copy grid (1, 1, 1) block (128, 1, 1)
	param A: f32[128, 1]
	param C: f32[128, 1]
	param OA: f32[128, 1]
{
	shared tmem: u32[1]
	if warp_id == 0 {
		tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [&tmem[0]], 32	// allocates columns for the CTA; one warp; not after relinquish_alloc_permit
		tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned	// gives up the CTA's right to allocate
	}
	tcgen05.fence::before_thread_sync	// placed by tilec next to cta_sync
	cta_sync
	tcgen05.fence::after_thread_sync	// placed by tilec next to cta_sync
	local ra: f32[128, 1] in 1 register
	local rb: f32[128, 1] in 1 register
	local rc: f32[128, 1] in 1 register
	ra.slot[0] = A[thread_idx.x]
	rc.slot[0] = C[thread_idx.x]
	// order_copy_st_after_ld.tile:31: copy(a[:, 0:1], ra);
	tcgen05.st.sync.aligned.32x32b.x1.b32 [tmem[0] + (u32(warp_id & 3) * 2097152u)], {ra.word[0]}
	tcgen05.wait::st.sync.aligned	// the warp's tcgen05.st writes are in tensor memory
	// order_copy_st_after_ld.tile:32: copy(rb, a[:, 0:1]);
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {rb.word[0]}, [tmem[0] + (u32(warp_id & 3) * 2097152u)]
	tcgen05.wait::ld.sync.aligned	// the warp's tcgen05.ld results are in its registers
	// order_copy_st_after_ld.tile:33: copy(a[:, 0:1], rc);
	tcgen05.st.sync.aligned.32x32b.x1.b32 [tmem[0] + (u32(warp_id & 3) * 2097152u)], {rc.word[0]}
	OA[thread_idx.x] = rb.slot[0]
	tcgen05.wait::st.sync.aligned	// the warp's tcgen05.st writes are in tensor memory
	tcgen05.fence::before_thread_sync	// placed by tilec next to cta_sync
	cta_sync
	tcgen05.fence::after_thread_sync	// placed by tilec next to cta_sync
	if warp_id == 0 {
		tcgen05.dealloc.cta_group::1.sync.aligned.b32 tmem[0], 32	// frees an allocation; one warp; its tensors are dead afterwards
	}
}
