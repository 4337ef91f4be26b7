// runtime/tilec_emu_cp.h: the shared-memory to TMEM copies (cp) of --target=emu, written after tilec_cp.h and
// tilec_emu_mbarriers.h into the programs that issue one (src/emit_emu.c embeds it), so that no other output
// changes. On the GPU a cp writes the emulator's cells at once (the static check has placed its commit and
// wait). On the CPU it is asynchronous as on hardware: at the issue its cells become unwritten (a read gets
// poison), at the issuing thread's commit it is attached to the barrier's current phase, and its values land
// in the cells when a thread's wait on that barrier returns after the phase completed; a program that reads
// before that reads poison, which tilec run reports with the line of the read.
#ifndef __CUDACC__
struct TlCpuCp {
	TlCpuCp *next;
	const void *bar;  // the barrier (its TlCpuMbar) its commit arrived on; null: not committed yet
	unsigned phase;   // it lands once the barrier's phase has passed this
	unsigned *tmem;   // the block's cells and their shadow
	unsigned char *ok;
	int n;
	unsigned cell[128 * 8], value[128 * 8]; // the largest footprint: 128 lanes of 8 columns (128x256b)
	const void *owner;       // the issuing thread (a block-scaled mma of that thread reads its cells at once)
	unsigned long long seq;  // issue order
};
static thread_local TlCpuCp *tl_cpu_cp_issued; // this thread's cps that no commit has attached yet
static TlCpuCp *tl_cpu_cp_committed;           // committed ones not landed yet (the block's mutex)
static thread_local char tl_cpu_cp_me;         // its address names the thread
static unsigned long long tl_cpu_cp_seq;
#endif

// One cp: the source through the descriptor (window: the shared tensor's first byte, the descriptor's start
// relative to it; the swizzle, sw_width, sw_mask, sw_at, acts on the absolute shared address, on the GPU the
// window's shared::cta address and on the CPU its address, which the tensor's alignment to the swizzle
// period makes the same below the period), the route's lane rule; a descriptor the emulator cannot walk or
// cells outside the allocation stop the run.
TL_EMU_INLINE void
tl_emu_cp(TlEmuCta *c, const void *window, unsigned long long desc, unsigned sw_width, unsigned sw_mask,
          unsigned sw_at, unsigned taddr, unsigned rows, unsigned chunks, unsigned replicas, unsigned group,
          unsigned group_step, unsigned row_step, unsigned replica_step, unsigned decomp, const char *where)
{
	unsigned col0 = taddr & 0xffffu, last = col0 + 4 * chunks - 1;
	if (last >= TL_EMU_COLS || !(c->used >> (col0 / 32) & 1) || !(c->used >> (last / 32) & 1)) {
		TL_EMU_FAIL(TL_EMU_AT "TMEM columns %u..%u are not allocated (in use: 0x%04x, one bit per 32 columns)\n",
		            TL_EMU_ARGS(where), col0, last, c->used);
		__trap();
	}
#ifdef __CUDACC__
	if (tl_cp_run((const unsigned char *)window, (unsigned)__cvta_generic_to_shared(window), desc, sw_width, sw_mask,
	              sw_at, taddr, rows, chunks, replicas, group, group_step, row_step, replica_step, decomp, 0, c->tmem,
	              TL_EMU_COLS)) {
		TL_EMU_FAIL(TL_EMU_AT "the descriptor 0x%016llx or the address 0x%08x does not fit the cp\n",
		            TL_EMU_ARGS(where), desc, taddr);
		__trap();
	}
#else
	static thread_local unsigned *scratch;
	if (!scratch && !(scratch = (unsigned *)calloc(128 * TL_EMU_COLS, sizeof *scratch)))
		tl_cpu_fail("tilec emu: %s: out of memory\n", where);
	if (tl_cp_run((const unsigned char *)window, (unsigned)(uintptr_t)window, desc, sw_width, sw_mask, sw_at,
	              taddr, rows, chunks, replicas, group, group_step, row_step, replica_step, decomp, 0, scratch,
	              TL_EMU_COLS))
		tl_cpu_fail(TL_EMU_AT "the descriptor 0x%016llx or the address 0x%08x does not fit the cp\n",
		            TL_EMU_ARGS(where), desc, taddr);
	TlCpuCp *p = (TlCpuCp *)calloc(1, sizeof *p);
	if (!p)
		tl_cpu_fail("tilec emu: %s: out of memory\n", where);
	for (unsigned r = 0; r < rows; r++)
		for (unsigned k = 0; k < replicas; k++) {
			unsigned lane = (taddr >> 16) + r / group * group_step + r % group * row_step + k * replica_step;
			for (unsigned col = col0; col <= last; col++) {
				unsigned cell = lane * TL_EMU_COLS + col;
				p->cell[p->n] = cell;
				p->value[p->n++] = scratch[cell];
				if (c->ok)
					c->ok[cell] = 0;
			}
		}
	p->tmem = c->tmem;
	p->ok = c->ok;
	p->owner = &tl_cpu_cp_me;
	p->seq = __atomic_add_fetch(&tl_cpu_cp_seq, 1, __ATOMIC_RELAXED);
	p->next = tl_cpu_cp_issued;
	tl_cpu_cp_issued = p;
#endif
}

// The cell a block-scaled mma reads a scale factor from (LANGUAGE 11.6): on the GPU the cell itself; on the CPU
// the newest value a cp of this thread left there, landed or not (cp -> mma of one thread is pipelined), else
// the landed value; a cell no completed cp or st wrote stops the run.
TL_EMU_INLINE unsigned
tl_emu_cp_cell(TlEmuCta *c, unsigned cell, const char *where)
{
#ifndef __CUDACC__
	unsigned long long best = 0;
	unsigned value = 0;
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuCp *lists[2] = {tl_cpu_cp_issued, tl_cpu_cp_committed};
	for (int l = 0; l < 2; l++)
		for (TlCpuCp *p = lists[l]; p; p = p->next) {
			if (p->owner != &tl_cpu_cp_me || p->tmem != c->tmem || p->seq < best)
				continue;
			for (int i = 0; i < p->n; i++)
				if (p->cell[i] == cell) {
					best = p->seq;
					value = p->value[i];
				}
		}
	pthread_mutex_unlock(&tl_cpu_block->mu);
	if (best)
		return value;
	if (c->ok && c->ok[cell] != 3)
		tl_cpu_fail("tilec emu: %s: the mma reads a scale factor in TMEM lane %u, column %u, which no completed cp "
		            "or st wrote (a cp of another thread is complete only once a wait on its commit's barrier "
		            "returned)\n", where, cell / TL_EMU_COLS, cell % TL_EMU_COLS);
#else
	(void)where;
#endif
	return c->tmem[cell];
}

// commit in a program with cps: the thread's cps attach to the barrier's current phase, then it arrives.
TL_EMU_INLINE void
tl_emu_cp_commit(unsigned long long *b, const char *name, int index, const char *where)
{
#ifndef __CUDACC__
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, b, name, index, where, false);
	while (tl_cpu_cp_issued) {
		TlCpuCp *p = tl_cpu_cp_issued;
		tl_cpu_cp_issued = p->next;
		p->bar = m; // the model, not the address: each CTA of a cluster has a barrier at that address
		p->phase = m->phase;
		p->next = tl_cpu_cp_committed;
		tl_cpu_cp_committed = p;
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
#endif
	tl_emu_mbar_commit(b, name, index, where);
}

// A wait in a program with cps: once it returns, the cps committed to a phase of the barrier that has
// completed land in their cells.
TL_EMU_INLINE void
tl_emu_cp_wait(unsigned long long *b, const char *name, int index, unsigned parity, const char *where)
{
	tl_emu_mbar_wait(b, name, index, parity, where);
#ifndef __CUDACC__
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, b, name, index, where, false);
	for (TlCpuCp **at = &tl_cpu_cp_committed; *at;) {
		TlCpuCp *p = *at;
		if (p->bar != m || m->phase <= p->phase) {
			at = &p->next;
			continue;
		}
		for (int i = 0; i < p->n; i++) {
			p->tmem[p->cell[i]] = p->value[i];
			if (p->ok)
				p->ok[p->cell[i]] = 3;
		}
		*at = p->next;
		free(p);
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
#endif
}

// tcgen05.cp.cta_group::2, issued by the even CTA of the pair: each CTA's rows, read from its own shared memory
// through the same descriptor, land in its own tensor memory (TCGEN05.md 10.2), so the cp is the one of each
// CTA (tl_emu_cta_smem gives the other's allocator and window). On the GPU a window of another CTA's shared
// memory does not fit the cp walk's shared address: the run stops there.
TL_EMU_INLINE void
tl_emu_cp_pair(TlEmuCta *c, const void *window, unsigned long long desc, unsigned sw_width, unsigned sw_mask,
               unsigned sw_at, unsigned taddr, unsigned rows, unsigned chunks, unsigned replicas, unsigned group,
               unsigned group_step, unsigned row_step, unsigned replica_step, unsigned decomp, const char *where)
{
	unsigned rank = tl_emu_cluster_rank();
#ifdef __CUDACC__
	(void)c, (void)window, (void)desc, (void)sw_width, (void)sw_mask, (void)sw_at, (void)taddr, (void)rows;
	(void)chunks, (void)replicas, (void)group, (void)group_step, (void)row_step, (void)replica_step, (void)decomp;
	TL_EMU_FAIL(TL_EMU_AT "the GPU build of the emulator does not emulate cta_group::2 cp (tilec run does)\n",
	            TL_EMU_ARGS(where));
	__trap();
#else
	for (unsigned q = 0; q < 2; q++)
		tl_emu_cp(tl_emu_cta_smem(rank + q, c), tl_emu_cta_smem(rank + q, window), desc, sw_width, sw_mask, sw_at,
		          taddr, rows, chunks, replicas, group, group_step, row_step, replica_step, decomp, where);
#endif
}

// The pair commit in a program with cps: the thread's cps attach to the current phase of the barrier of the
// CTA whose tensor memory they write (c's or the other CTA's of the pair), then it arrives on both.
TL_EMU_INLINE void
tl_emu_cp_commit_pair(TlEmuCta *c, unsigned long long *b, const char *name, int index, const char *where)
{
#ifndef __CUDACC__
	pthread_mutex_lock(&tl_cpu_block->mu);
	int rank = tl_cpu_block->rank;
	TlCpuMbar *mine = tl_cpu_mbar(rank, b, name, index, where, false);
	TlCpuMbar *other = tl_cpu_mbar(rank ^ 1, b, name, index, where, false);
	while (tl_cpu_cp_issued) {
		TlCpuCp *p = tl_cpu_cp_issued;
		tl_cpu_cp_issued = p->next;
		TlCpuMbar *m = p->tmem == c->tmem ? mine : other;
		p->bar = m;
		p->phase = m->phase;
		p->next = tl_cpu_cp_committed;
		tl_cpu_cp_committed = p;
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
#else
	(void)c;
#endif
	tl_emu_mbar_commit_pair(b, name, index, where);
}
