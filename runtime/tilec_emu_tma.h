// runtime/tilec_emu_tma.h: the CPU model of the TMA copies of --target=emu (LANGUAGE 11.4). tilec writes this
// text after tilec_emu_mbarriers.h into the programs with a TMA copy only (src/emit_emu.c embeds it). The
// issuing thread moves the box itself, element by element, with the byte placement of TCGEN05.md 14.1 (box
// element (i0, i1, ...) at dst + i0 * e + P * (i1 + B1 * (i2 + ...)), the swizzle applied to the address,
// zeros for the elements outside the tensor), then completes the bytes of the box on the barrier's model
// (tilec_emu_mbarriers.h). The GPU build has none of this: there a TMA copy is the GPU's own
// cp.async.bulk.tensor with the kernel's tensor map, as the cuda target writes it (LANGUAGE 11.9), so that
// tools/gpu-emu-check.sh compares this model with the hardware.

#ifndef __CUDACC__
// The bytes of a TMA load that have landed in CTA rank (the issuing thread's, or one of a multicast's mask):
// the phase of that CTA's barrier at addr completes once its arrivals have come too.
static void
tl_cpu_mbar_complete_tx(int rank, const void *addr, const char *name, int index, int bytes, const char *where)
{
	TlCpuBlock *owner = &tl_cpu_cluster.block[rank];
	pthread_mutex_lock(&owner->mu);
	TlCpuMbar *m = tl_cpu_mbar(rank, addr, name, index, where, false);
	m->tx -= bytes;
	tl_cpu_mbar_changed(m);
	pthread_mutex_unlock(&owner->mu);
}

// The TMA loads of the running block whose phase may not have completed: the bytes they wrote (from lo to
// hi, host addresses) and the phase of their barrier that completes them. A thread's read of those bytes
// before that phase completes (a missing wait, or a wait for the wrong phase, that tilec could not see
// statically) stops the run: on the GPU it would read the tile before the data lands (LANGUAGE 11.4).
struct TlCpuTmaPending {
	const unsigned char *lo, *hi;
	const void *bar;
	unsigned phase;
	const char *where; // the copy's .tile line
};
struct TlCpuTmaPendingList {
	TlDim3 at; // the block whose loads these are
	int n;
	TlCpuTmaPending load[256];
};
static TlCpuTmaPendingList tl_cpu_tma_pending_of[TL_CPU_CLUSTER_MAX]; // by the CTA's rank in its cluster
#define tl_cpu_tma_pending tl_cpu_tma_pending_of[tl_cpu_block->rank]

// Drops the loads of another block and those whose phase has completed; false when none is left.
static bool
tl_cpu_tma_prune(void)
{
	if (tl_cpu_tma_pending.at.x != blockIdx.x || tl_cpu_tma_pending.at.y != blockIdx.y ||
	    tl_cpu_tma_pending.at.z != blockIdx.z) {
		tl_cpu_tma_pending.n = 0;
		tl_cpu_tma_pending.at = blockIdx;
	}
	int n = 0;
	for (int i = 0; i < tl_cpu_tma_pending.n; i++) {
		TlCpuTmaPending *p = &tl_cpu_tma_pending.load[i];
		TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, p->bar, "?", 0, p->where, false);
		if (m->phase == p->phase)
			tl_cpu_tma_pending.load[n++] = *p;
	}
	tl_cpu_tma_pending.n = n;
	return n > 0;
}

// A TMA load of the bytes lo .. hi completing on b: pending until b's current phase completes.
static void
tl_cpu_tma_issued(const unsigned char *lo, const unsigned char *hi, const void *b, const char *where)
{
	pthread_mutex_lock(&tl_cpu_block->mu);
	tl_cpu_tma_prune();
	if (tl_cpu_tma_pending.n < 256) { // more than 256 loads in flight: the later ones are not followed
		TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, b, "?", 0, where, false);
		tl_cpu_tma_pending.load[tl_cpu_tma_pending.n++] = TlCpuTmaPending{lo, hi, b, m->phase, where};
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
}

// A read of the size bytes at `at` by the statement at `where` (a thread's load, or the operands of a
// tcgen05.mma): stops the run where a pending TMA load wrote them. Takes the block's mutex.
static void
tl_cpu_tma_check_read(const unsigned char *at, unsigned size, const char *where)
{
	pthread_mutex_lock(&tl_cpu_block->mu);
	if (tl_cpu_tma_prune())
		for (int i = 0; i < tl_cpu_tma_pending.n; i++) {
			const TlCpuTmaPending *p = &tl_cpu_tma_pending.load[i];
			if (at + size <= p->lo || at >= p->hi)
				continue;
			const TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, p->bar, "?", 0, where, false);
			tl_cpu_fail("tilec emu: block (%u, %u, %u): thread %d: %s: reads shared bytes that the TMA load at %s "
			            "brings in phase %u of %s[%d] (parity %u), which has not completed (%d of %d arrivals and %lld "
			            "bytes pending): no mbarrier.wait for that phase came before the read\n",
			            blockIdx.x, blockIdx.y, blockIdx.z, tl_cpu_tid, where, p->where, m->phase, m->name,
			            m->index, m->phase & 1, m->pending, m->expected, m->tx);
		}
	pthread_mutex_unlock(&tl_cpu_block->mu);
}
// tilec_emu_mma.h checks the bytes an mma reads with it
#define TL_CPU_TMA_CHECK_READ(at, size, where) \
	do { \
		if (tl_cpu_tma_pending.n) \
			tl_cpu_tma_check_read(at, size, where); \
	} while (0)
#endif

// A thread's read of element idx (size bytes) of the shared tensor at base, which TMA loads: the offset idx,
// after the CPU's test that no pending load wrote it.
TL_EMU_INLINE long long
tl_emu_tma_read(const void *base, size_t size, const char *where, long long idx)
{
#ifndef __CUDACC__
	TL_CPU_TMA_CHECK_READ((const unsigned char *)base + idx * (long long)size, (unsigned)size, where);
#else
	(void)base, (void)size, (void)where;
#endif
	return idx;
}

#ifndef __CUDACC__
// The byte offset in the shared tile of box element `at` (innermost first) of a box of `rank` dimensions
// box[], element size e, inner pitch P, swizzle XOR mask of address bits 7.. into bits 4..
TL_EMU_INLINE unsigned
tl_emu_tma_place(unsigned dst, int e, int pitch, int xor_mask, int rank, const int *box, const int *at)
{
	unsigned line = 0;
	for (int d = rank - 1; d >= 1; d--)
		line = line * (unsigned)box[d] + (unsigned)at[d];
	unsigned u = dst + (unsigned)(at[0] * e) + (unsigned)pitch * line;
	return u ^ (((u >> 7) & (unsigned)xor_mask) << 4);
}

// The box at coordinates c (innermost first) of the global tensor g (dims and strides in elements,
// innermost first) moved between g and the shared tile smem: a load writes zeros for the elements outside
// the tensor, a store (whose coordinates tilec proves >= 0) skips those past its end. The CPU refuses a
// stride that is not a multiple of 16 bytes, as the driver's encoding of the tensor map would.
TL_EMU_INLINE void
tl_emu_tma_move(bool store, unsigned char *smem, unsigned dst, int e, int pitch, int xor_mask, int rank,
                const int *box, unsigned char *g, const long long *dim, const long long *stride, const int *c,
                const char *tensor, const char *where)
{
	for (int d = 1; d < rank; d++)
		if (stride[d] * e % 16)
			tl_cpu_fail("tilec emu: %s: the tensor map of %s: dimension %d's stride is %lld bytes, not a multiple "
			            "of 16 (cuTensorMapEncodeTiled refuses it)\n", where, tensor, d, stride[d] * e);
	if ((unsigned long long)(size_t)g % 16)
		tl_cpu_fail("tilec emu: %s: the tensor map of %s: its address is not a multiple of 16 bytes\n", where,
		            tensor);
	long long total = 1;
	for (int d = 0; d < rank; d++)
		total *= box[d];
	for (long long i = 0; i < total; i++) {
		int at[5];
		long long rest = i, off = 0;
		bool inside = true;
		for (int d = 0; d < rank; d++) {
			at[d] = (int)(rest % box[d]);
			rest /= box[d];
			long long x = (long long)c[d] + at[d];
			inside = inside && x >= 0 && x < dim[d];
			off += x * stride[d];
		}
		unsigned a = tl_emu_tma_place(dst, e, pitch, xor_mask, rank, box, at);
		for (int k = 0; k < e && (inside || !store); k++) {
			if (store)
				g[off * e + k] = smem[a + k];
			else
				smem[a + k] = inside ? g[off * e + k] : 0;
		}
	}
}

// A TMA load into smem, crediting the box's bytes to barrier b.
TL_EMU_INLINE void
tl_emu_tma_load(unsigned char *smem, unsigned dst, int e, int pitch, int xor_mask, int rank, const int *box,
                const unsigned char *g, const long long *dim, const long long *stride, const int *c,
                unsigned long long *b, const char *name, int index, const char *tensor, const char *where)
{
	tl_emu_tma_move(false, smem, dst, e, pitch, xor_mask, rank, box, (unsigned char *)g, dim, stride, c, tensor,
	                where);
	long long bytes = e;
	for (int d = 0; d < rank; d++)
		bytes *= box[d];
	// the box's bytes: the swizzle moves 16-byte chunks within their 128-byte line
	unsigned first = xor_mask ? dst & ~127u : dst;
	unsigned last = xor_mask ? (dst + (unsigned)bytes + 127u) & ~127u : dst + (unsigned)bytes;
	tl_cpu_tma_issued(smem + first, smem + last, b, where);
	tl_cpu_mbar_complete_tx(tl_cpu_block->rank, b, name, index, (int)bytes, where);
}

// A multicast TMA load (LANGUAGE 11.4): every CTA of mask runs the statement (its expect_tx before this);
// the elected lane of the CTA of lowest rank in mask writes the box into the shared memory of each CTA of
// mask at smem's offset (tilec_emu.h's tl_emu_cta_smem) and completes the box's bytes on each one's barrier
// at b's offset, as TCGEN05.md 14.1 says the hardware does; the others' lanes do nothing. A mask naming a
// CTA outside the cluster, or a CTA that runs the statement without being in its mask, stops the run.
TL_EMU_INLINE void
tl_emu_tma_load_multicast(unsigned mask, unsigned char *smem, unsigned dst, int e, int pitch, int xor_mask, int rank,
                          const int *box, const unsigned char *g, const long long *dim, const long long *stride,
                          const int *c, unsigned long long *b, const char *name, int index, const char *tensor,
                          const char *where)
{
	unsigned me = tl_emu_cluster_rank(), n = tl_emu_cluster_ctas();
	if (!mask || (n < 32 && mask >> n) || mask >> 16)
		tl_cpu_fail("tilec emu: block (%u, %u, %u): %s: the multicast mask 0x%x of the TMA load of %s names no CTA or "
		            "one outside the cluster of %u CTA(s)\n", blockIdx.x, blockIdx.y, blockIdx.z, where, mask, tensor, n);
	if (!(mask >> me & 1))
		tl_cpu_fail("tilec emu: block (%u, %u, %u): %s: the CTA of rank %u runs the multicast TMA load of %s, but its "
		            "mask 0x%x does not name it: its barrier %s[%d] would wait for bytes that no copy brings\n",
		            blockIdx.x, blockIdx.y, blockIdx.z, where, me, tensor, mask, name, index);
	if (me != (unsigned)__builtin_ctz(mask))
		return;
	long long bytes = e;
	for (int d = 0; d < rank; d++)
		bytes *= box[d];
	for (unsigned r = 0; r < n; r++)
		if (mask >> r & 1) {
			tl_emu_tma_move(false, tl_emu_cta_smem(r, smem), dst, e, pitch, xor_mask, rank, box, (unsigned char *)g,
			                dim, stride, c, tensor, where);
			tl_cpu_mbar_complete_tx((int)r, b, name, index, (int)bytes, where);
		}
}

// A TMA store from smem: complete at once, so the wait_group.read tilec places after it has nothing to wait for.
TL_EMU_INLINE void
tl_emu_tma_store(unsigned char *smem, unsigned dst, int e, int pitch, int xor_mask, int rank, const int *box,
                 unsigned char *g, const long long *dim, const long long *stride, const int *c, const char *tensor,
                 const char *where)
{
	tl_emu_tma_move(true, smem, dst, e, pitch, xor_mask, rank, box, g, dim, stride, c, tensor, where);
}
#endif
