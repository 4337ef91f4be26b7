// runtime/tilec_emu_mbarriers.h: the mbarriers of --target=emu (commit, cluster_sync and the statements
// mbarrier.init / arrive / expect_tx / wait). tilec writes this text after tilec_emu.h into the programs
// that use mbarriers only (src/emit_emu.c embeds it), so the output of every other program stays as it was.
// On the GPU (sm_90 and later) these are the GPU's own mbarrier instructions; on the CPU a barrier has the
// phase semantics of the PTX ISA: a phase completes when its pending arrivals and its expected bytes are
// both zero, then the phase advances and the arrivals start again from the init count. A wait for parity
// P returns once the phase of that parity has completed (the current phase's parity is not P). A run that
// cannot go on (every thread waiting) stops with the state of each barrier and the .tile lines. Each CTA of a
// cluster has its barriers; a thread may arrive on, and complete bytes of, another CTA's (its rank's), as a
// multicast TMA load or a remote arrive (tl_emu_mbar_arrive_cta) does.
// tcgen05.commit arrives at once: the emulator has no tcgen05.mma or tcgen05.cp pending.
#ifndef __CUDACC__
struct TlCpuMbar {
	const void *addr;     // the barrier's 8 bytes in shared memory, its identity
	const char *name;     // the shared tensor and the element
	int index;
	unsigned phase;       // the phases completed since the init
	int expected, pending; // arrivals per phase, and those still to come in the current one
	long long tx;         // bytes the current phase still waits for (expect_tx adds them)
	int waiters;          // threads blocked on it now
	unsigned wait_parity; // the parity of the latest wait that blocked
	const char *init_at, *arrive_at, *expect_at, *wait_at; // the .tile lines of the latest of each (a wait: that blocked)
	int rank;             // the CTA whose barrier it is
};

struct TlCpuMbars {
	unsigned long long serial; // the cluster whose barriers these are (tl_cpu_cluster.serial): a new one starts with none
	int n;
	TlCpuMbar bar[256];
};
static TlCpuMbars tl_cpu_mbars[TL_CPU_CLUSTER_MAX]; // by CTA rank
// The state of every barrier of a CTA, as its waiting threads' place in tilec_emu.h's deadlock report;
// rewritten whenever a barrier changes while a thread waits.
static char tl_cpu_mbar_text[TL_CPU_CLUSTER_MAX][4096];

static void
tl_cpu_mbar_describe(int rank, char *out, size_t size)
{
	size_t len = (size_t)snprintf(out, size, "an mbarrier wait; the block's mbarriers:");
	for (int i = 0; i < tl_cpu_mbars[rank].n && len < size; i++) {
		const TlCpuMbar *m = &tl_cpu_mbars[rank].bar[i];
		len += (size_t)snprintf(out + len, size - len,
		                        "\n  %s[%d]: phase %u (parity %u), %d of %d arrivals and %lld bytes pending; init at %s",
		                        m->name, m->index, m->phase, m->phase & 1, m->pending, m->expected, m->tx, m->init_at);
		if (len < size && m->arrive_at)
			len += (size_t)snprintf(out + len, size - len, ", last arrive at %s", m->arrive_at);
		if (len < size && m->expect_at)
			len += (size_t)snprintf(out + len, size - len, ", last expect_tx at %s", m->expect_at);
		if (len < size && m->waiters)
			len += (size_t)snprintf(out + len, size - len, "; %d thread(s) wait at %s for the phase of parity %u",
			                        m->waiters, m->wait_at, m->wait_parity);
	}
	if (len < size)
		snprintf(out + len, size - len, "\n ");
}

// The barrier at addr of CTA rank, with that CTA's mutex held; init: create it (or start it again).
static TlCpuMbar *
tl_cpu_mbar(int rank, const void *addr, const char *name, int index, const char *where, bool init)
{
	TlCpuMbars *s = &tl_cpu_mbars[rank];
	if (s->serial != tl_cpu_cluster.serial) {
		memset(s, 0, sizeof *s);
		s->serial = tl_cpu_cluster.serial;
	}
	for (int i = 0; i < s->n; i++)
		if (s->bar[i].addr == addr)
			return &s->bar[i];
	if (!init)
		tl_cpu_fail("tilec emu: block (%u, %u, %u): thread %d: %s: %s[%d] is used before its init\n", blockIdx.x,
		            blockIdx.y, blockIdx.z, tl_cpu_tid, where, name, index);
	if (s->n == 256)
		tl_cpu_fail("tilec emu: %s: more than 256 mbarriers in one block\n", where);
	TlCpuMbar *m = &s->bar[s->n++];
	memset(m, 0, sizeof *m);
	m->rank = rank;
	m->addr = addr;
	m->name = name;
	m->index = index;
	return m;
}

// After a change of m, with the mutex held: the phase completes when nothing is pending.
static void
tl_cpu_mbar_changed(TlCpuMbar *m)
{
	TlCpuBlock *b = &tl_cpu_cluster.block[m->rank];
	if (m->pending == 0 && m->tx == 0) {
		m->phase++;
		m->pending = m->expected;
		b->waiting -= m->waiters; // released now, before they run again
		m->waiters = 0;
		pthread_cond_broadcast(&b->cv);
	}
	if (b->waiting)
		tl_cpu_mbar_describe(m->rank, tl_cpu_mbar_text[m->rank], sizeof tl_cpu_mbar_text[m->rank]);
}

static void
tl_cpu_mbar_init(const void *addr, const char *name, int index, int count, const char *where)
{
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, addr, name, index, where, true);
	if (m->waiters)
		tl_cpu_fail("tilec emu: block (%u, %u, %u): %s: init of %s[%d] while %d thread(s) wait on it\n", blockIdx.x,
		            blockIdx.y, blockIdx.z, where, name, index, m->waiters);
	m->phase = 0;
	m->expected = m->pending = count;
	m->tx = 0;
	m->init_at = where;
	m->arrive_at = m->expect_at = m->wait_at = NULL;
	pthread_mutex_unlock(&tl_cpu_block->mu);
}

// count arrivals on the barrier at addr of CTA rank (the arriving thread's own or another of its cluster).
static void
tl_cpu_mbar_arrive_at(int rank, const void *addr, const char *name, int index, int count, const char *where)
{
	TlCpuBlock *owner = &tl_cpu_cluster.block[rank];
	pthread_mutex_lock(&owner->mu);
	TlCpuMbar *m = tl_cpu_mbar(rank, addr, name, index, where, false);
	if (count > m->pending)
		tl_cpu_fail("tilec emu: block (%u, %u, %u): thread %d: %s: %d arrival(s) on %s[%d]%s in phase %u, which has "
		            "only %d of its %d pending: more arrivals than its init counts per phase\n",
		            blockIdx.x, blockIdx.y, blockIdx.z, tl_cpu_tid, where, count, name, index,
		            rank == tl_cpu_block->rank ? "" : " of another CTA", m->phase, m->pending, m->expected);
	m->pending -= count;
	m->arrive_at = where;
	tl_cpu_mbar_changed(m);
	pthread_mutex_unlock(&owner->mu);
}

static void
tl_cpu_mbar_arrive(const void *addr, const char *name, int index, int count, const char *where)
{
	tl_cpu_mbar_arrive_at(tl_cpu_block->rank, addr, name, index, count, where);
}

static void
tl_cpu_mbar_expect_tx(const void *addr, const char *name, int index, int bytes, const char *where)
{
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, addr, name, index, where, false);
	m->tx += bytes;
	m->expect_at = where;
	tl_cpu_mbar_changed(m);
	pthread_mutex_unlock(&tl_cpu_block->mu);
}

static void
tl_cpu_mbar_wait(const void *addr, const char *name, int index, unsigned parity, const char *where)
{
	TlCpuBlock *b = tl_cpu_block;
	pthread_mutex_lock(&b->mu);
	TlCpuMbar *m = tl_cpu_mbar(b->rank, addr, name, index, where, false);
	while ((m->phase & 1) == (parity & 1)) {
		unsigned start = m->phase;
		b->waiting++;
		m->waiters++;
		m->wait_at = where;
		m->wait_parity = parity & 1;
		tl_cpu_mbar_describe(b->rank, tl_cpu_mbar_text[b->rank], sizeof tl_cpu_mbar_text[b->rank]);
		b->where[tl_cpu_tid] = tl_cpu_mbar_text[b->rank];
		tl_cpu_check_deadlock();
		while (m->phase == start)
			pthread_cond_wait(&b->cv, &b->mu);
		b->where[tl_cpu_tid] = NULL;
	}
	pthread_mutex_unlock(&b->mu);
}
#endif

// One lane of the warp's threads that run the statement: the lowest, on the GPU of the active lanes; on the
// CPU, whose threads do not see each other's branches, lane, the lowest that tilec found reaches it.
TL_EMU_INLINE bool
tl_emu_elect(unsigned lane)
{
#ifdef __CUDACC__
	(void)lane;
	unsigned active = __activemask();
	return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32 == (unsigned)(__ffs(active) - 1);
#else
	return (tl_cpu_tid & 31) == lane;
#endif
}

TL_EMU_INLINE void
tl_emu_mbar_init(unsigned long long *b, const char *name, int index, unsigned count, const char *where)
{
#ifdef __CUDACC__
	(void)name, (void)index, (void)where;
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tl_emu_saddr(b)), "r"(count) : "memory");
#else
	tl_cpu_mbar_init(b, name, index, (int)count, where);
#endif
}

TL_EMU_INLINE void
tl_emu_mbar_arrive(unsigned long long *b, const char *name, int index, unsigned count, const char *where)
{
#ifdef __CUDACC__
	(void)name, (void)index, (void)where;
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" ::"r"(tl_emu_saddr(b)), "r"(count) : "memory");
#else
	tl_cpu_mbar_arrive(b, name, index, (int)count, where);
#endif
}

TL_EMU_INLINE void
tl_emu_mbar_expect_tx(unsigned long long *b, const char *name, int index, unsigned bytes, const char *where)
{
#ifdef __CUDACC__
	(void)name, (void)index, (void)where;
	asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(tl_emu_saddr(b)), "r"(bytes)
	             : "memory");
#else
	tl_cpu_mbar_expect_tx(b, name, index, (int)bytes, where);
#endif
}

TL_EMU_INLINE void
tl_emu_mbar_wait(unsigned long long *b, const char *name, int index, unsigned parity, const char *where)
{
#ifdef __CUDACC__
	(void)name, (void)index, (void)where;
	asm volatile("{\n\t.reg .pred p;\n\tTL_WAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
	             "@!p bra TL_WAIT;\n\t}" ::"r"(tl_emu_saddr(b)), "r"(parity) : "memory");
#else
	tl_cpu_mbar_wait(b, name, index, parity, where);
#endif
}

// count arrivals on the barrier of CTA rank of the cluster at b's place (b: this CTA's barrier at that offset),
// with release semantics at cluster scope: what the thread wrote before (to any CTA's shared memory) is
// visible to the threads that wait on that barrier's phase. The cluster model's remote arrive (sm_90).
TL_EMU_INLINE void
tl_emu_mbar_arrive_cta(unsigned long long *b, unsigned rank, const char *name, int index, unsigned count,
                       const char *where)
{
#ifdef __CUDACC__
	(void)name, (void)index, (void)where;
#if __CUDA_ARCH__ >= 900
	unsigned remote;
	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(tl_emu_saddr(b)), "r"(rank));
	asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(remote), "r"(count)
	             : "memory");
#else
	(void)b, (void)rank, (void)count;
	__trap();
#endif
#else
	if ((int)rank >= tl_cpu_cluster.nctas)
		tl_cpu_fail("tilec emu: block (%u, %u, %u): thread %d: %s: an arrival on %s[%d] of CTA rank %u, outside the "
		            "cluster of %d CTA(s)\n", blockIdx.x, blockIdx.y, blockIdx.z, tl_cpu_tid, where, name, index, rank,
		            tl_cpu_cluster.nctas);
	tl_cpu_mbar_arrive_at((int)rank, b, name, index, (int)count, where);
#endif
}

// tcgen05.commit: one arrival once the thread's earlier mma and cp have completed; none is pending here.
TL_EMU_INLINE void
tl_emu_mbar_commit(unsigned long long *b, const char *name, int index, const char *where)
{
	tl_emu_mbar_arrive(b, name, index, 1u, where);
}

// The pair commit (tcgen05.commit.cta_group::2 ... multicast::cluster with the pair's mask): one arrival on
// the barrier at b's offset in each CTA of the pair. On the GPU the issuing thread's global writes (the
// emulated tensor memory of the other CTA, which a pair's mma or cp wrote) are made visible first.
TL_EMU_INLINE void
tl_emu_mbar_commit_pair(unsigned long long *b, const char *name, int index, const char *where)
{
	unsigned rank = tl_emu_cluster_rank();
#ifdef __CUDACC__
	__threadfence();
#endif
	tl_emu_mbar_arrive_cta(b, rank & ~1u, name, index, 1u, where);
	tl_emu_mbar_arrive_cta(b, rank | 1u, name, index, 1u, where);
}

// The fence that publishes inits to the barrier after it (tilec places it at the next cta_sync).
TL_EMU_INLINE void
tl_emu_mbar_fence_init(void)
{
#ifdef __CUDACC__
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// cluster_sync: on the GPU the cluster barrier; on the CPU the barrier of every thread of the cluster's CTAs
// (of a cluster of one: __syncthreads).
TL_EMU_INLINE void
tl_emu_cluster_sync(void)
{
#ifdef __CUDACC__
	asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#else
	tl_cpu_cluster_barrier("cluster_sync");
#endif
}

