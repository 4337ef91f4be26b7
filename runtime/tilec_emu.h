// tilec_emu.h: the tcgen05 emulator that `tilec --target=emu` puts at the top of its CUDA C output.
// One source for the GPU (nvcc, sm_80 and later: no tcgen05 instruction is used) and the CPU (the same
// file compiled as C++: the prelude under #ifndef __CUDACC__ provides what CUDA would). The build turns
// this file into a C string (build/tilec_emu.inc) that src/emit_cu.c copies out verbatim; see
// docs/emulator.md. Everything here is named tl_emu_*, tl_cpu_*, tl_host_* or TL_*; the generated code
// around it owns every other tl_ name.

#ifndef TILEC_EMU_H
#define TILEC_EMU_H

#ifndef __CUDACC__
// ------------------------------------------------------------------ CPU prelude: CUDA on pthreads
// Each thread of a block is a coroutine (a ucontext with a stack of its own) of the one OS thread that
// runs the grid; the clusters of a grid run one after another, the threads of all CTAs of a cluster
// together (a block without `cluster =` is a cluster of one), so a __shared__ variable (a function-level
// static, in the section tl_emu_smem) is the shared memory of the running CTA: when a thread of another
// CTA of the cluster runs, the scheduler swaps the section's bytes with that CTA's copy (never for a
// cluster of one). Barriers count the threads that finished the kernel: a barrier that can no longer
// complete stops the program.
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define __global__
#define __device__
#define __host__
#define __shared__ static __attribute__((section("tl_emu_smem")))
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __cluster_dims__(...) // the CPU runs the CTAs of a cluster together (tl_cpu_launch_cluster)

#define TL_EMU_TRAP_STATUS 70 // the exit status of a CPU program stopped by the emulator

struct TlDim3 {
	unsigned x, y, z;
};
// The running thread's: the scheduler below sets them at each switch.
static TlDim3 threadIdx;
static TlDim3 blockIdx;
static TlDim3 blockDim, gridDim;

// A barrier wakes only its own waiters: with one condition variable for the block, each warp's barrier
// woke every thread of the block (768 threads: 460,000 futex calls in examples/embed/epilogue_test).
struct TlCpuBar {
	int arrived, count;
	unsigned gen;
	pthread_cond_t cv;
};

struct TlCpuBlock {
	pthread_mutex_t mu;
	pthread_cond_t cv; // the named barriers' (bar_sync, bar_arrive)
	int nthreads, waiting, finished;
	int rank;          // %cluster_ctarank: x fastest within the cluster
	int first;         // its threads' place in the cluster's: tl_race_logs, tl_st_queues, the scheduler's
	TlDim3 idx;        // its blockIdx
	unsigned long long race_block; // tl_race_block while it runs
	TlCpuBar warp[32], cta;
	unsigned long long xchg[32][32];
	const char *where[1024]; // what each waiting thread waits at
};

static TlCpuBlock *tl_cpu_block;
static int tl_cpu_tid;
static int tl_cpu_gid; // tl_cpu_block->first + tl_cpu_tid
static unsigned short tl_race_wep; // the warp_syncs this thread passed
static pthread_mutex_t tl_cpu_fail_mu = PTHREAD_MUTEX_INITIALIZER;
static void tl_race_epoch(void);
static FILE *tl_race_out; // tilec run's race report file; NULL: no race detection
static void tl_poison_report(void);

static void tl_cpu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void
tl_cpu_fail(const char *fmt, ...)
{
	pthread_mutex_lock(&tl_cpu_fail_mu); // the first failure speaks; the others wait for the exit
	tl_poison_report(); // a read of poison found before may be why
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	_exit(TL_EMU_TRAP_STATUS);
}

// The threads of a block are coroutines, not pthreads: with one OS thread per CUDA thread (768 in
// examples/embed/epilogue_test) every barrier was a storm of futex calls and context switches (132,000
// a run, 90% of it system time); a switch between coroutines is a swapcontext. Threads run in turn
// from a FIFO of runnable ones, each until it waits at a barrier or ends, so a run is deterministic.
// A thread waits by pthread_cond_wait, which the macros below make a switch: the emulator's barriers
// (and any code written for pthreads that waits on a condition variable with its mutex, as
// tl_cpu_named_bar does) work unchanged; no thread may hold a mutex while it waits otherwise.
struct TlCpuThread {
	ucontext_t ctx;
	const void *cond;      // the condition variable it waits on; NULL: it can run, or it ended
	TlCpuThread *next;     // the next waiter of its bucket
	unsigned short wep;    // tl_race_wep, kept while another thread runs
	int tid;               // in its block
	int cta;               // its block's rank in the cluster
};

#define TL_CPU_STACK (1 << 20)
#define TL_CPU_BUCKETS 64

struct TlCpuSched {
	TlCpuThread *thread;   // [cap]
	char *stacks;          // cap stacks of TL_CPU_STACK bytes, each after a guard page; kept from block to block
	int cap;
	int *queue;            // the runnable threads, a ring of cap + 1 places
	int head, tail;
	TlCpuThread *running;  // NULL: the scheduler runs
	TlCpuThread *bucket[TL_CPU_BUCKETS]; // the waiters, by condition variable
	ucontext_t main;
	void (*entry)(void **);
	void **args;
};
static TlCpuSched tl_cpu_sched;

// The running cluster: the blocks of its CTAs, the copies of the shared memory of those not resident
// (the section tl_emu_smem holds the resident one's), and the cluster barrier (cluster_sync).
#define TL_CPU_CLUSTER_MAX 16
struct TlCpuCluster {
	int nctas;
	int resident;
	unsigned dim[3];
	TlCpuBlock block[TL_CPU_CLUSTER_MAX];
	unsigned char *saved[TL_CPU_CLUSTER_MAX]; // at the section's address modulo 4096 (swizzles see the same bits)
	void *saved_alloc[TL_CPU_CLUSTER_MAX];
	size_t smem_bytes;
	TlCpuBar bar;
	int bar_waiting[TL_CPU_CLUSTER_MAX]; // the threads of each CTA waiting at it
	unsigned long long serial; // clusters started so far: a new one has no mbarrier yet
};
static TlCpuCluster tl_cpu_cluster; // nctas set by the launch
extern char __start_tl_emu_smem[] __attribute__((weak)), __stop_tl_emu_smem[] __attribute__((weak)); // the linker's (unmangled)
static void tl_cpu_cta_switch(int rank);

static inline TlCpuThread **
tl_cpu_bucket(const void *cond)
{
	return &tl_cpu_sched.bucket[((unsigned long long)(size_t)cond >> 4) % TL_CPU_BUCKETS];
}

static inline void
tl_cpu_runnable(TlCpuThread *t)
{
	TlCpuSched *s = &tl_cpu_sched;
	s->queue[s->tail] = (int)(t - s->thread);
	s->tail = s->tail == s->cap ? 0 : s->tail + 1;
}

// Makes t the running thread: its index and race epoch in the globals that the kernel reads.
static inline void
tl_cpu_enter(TlCpuThread *t)
{
	tl_cpu_sched.running = t;
	if (t->cta != tl_cpu_cluster.resident)
		tl_cpu_cta_switch(t->cta);
	tl_cpu_tid = t->tid;
	tl_cpu_gid = (int)(t - tl_cpu_sched.thread);
	threadIdx.x = (unsigned)t->tid % blockDim.x;
	threadIdx.y = (unsigned)t->tid / blockDim.x % blockDim.y;
	threadIdx.z = (unsigned)t->tid / (blockDim.x * blockDim.y);
	tl_race_wep = t->wep;
}

// The next runnable thread, taken from the queue; NULL when none can run.
static inline TlCpuThread *
tl_cpu_next(void)
{
	TlCpuSched *s = &tl_cpu_sched;
	if (s->head == s->tail)
		return NULL;
	TlCpuThread *t = &s->thread[s->queue[s->head]];
	s->head = s->head == s->cap ? 0 : s->head + 1;
	return t;
}

// A waiting thread switches straight to the next runnable one (each switch through the scheduler
// cost two swapcontexts, each a sigprocmask system call); with none, to the scheduler.
static int
tl_cpu_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu)
{
	TlCpuSched *s = &tl_cpu_sched;
	TlCpuThread *self = s->running;
	if (!self)
		tl_cpu_fail("tilec emu: internal error: the scheduler waits on a condition variable\n");
	TlCpuThread **b = tl_cpu_bucket(cv);
	self->cond = cv;
	self->next = *b;
	*b = self;
	self->wep = tl_race_wep;
	pthread_mutex_unlock(mu);
	TlCpuThread *next = tl_cpu_next();
	if (next) {
		tl_cpu_enter(next);
		swapcontext(&self->ctx, &next->ctx);
	} else {
		s->running = NULL;
		swapcontext(&self->ctx, &s->main);
	}
	pthread_mutex_lock(mu); // resumed: whoever switched here made this thread the running one
	return 0;
}

// Makes the waiters of cv runnable, all of them or (one) the first found.
static int
tl_cpu_cond_wake(pthread_cond_t *cv, int one)
{
	TlCpuThread **p = tl_cpu_bucket(cv);
	while (*p) {
		TlCpuThread *t = *p;
		if (t->cond != cv) {
			p = &t->next;
			continue;
		}
		*p = t->next;
		t->cond = NULL;
		tl_cpu_runnable(t);
		if (one)
			break;
	}
	return 0;
}

#define pthread_cond_wait(cv, mu) tl_cpu_cond_wait(cv, mu)
#define pthread_cond_broadcast(cv) tl_cpu_cond_wake(cv, 0)
#define pthread_cond_signal(cv) tl_cpu_cond_wake(cv, 1)

// Called with the block's mutex held, by a thread that found a barrier incomplete: a deadlock when every
// thread of the cluster waits or ended. The report names the block of the first thread that waits.
static void
tl_cpu_check_deadlock(void)
{
	TlCpuCluster *c = &tl_cpu_cluster;
	int waiting = 0, finished = 0, nthreads = 0;
	for (int r = 0; r < c->nctas; r++) {
		waiting += c->block[r].waiting;
		finished += c->block[r].finished;
		nthreads += c->block[r].nthreads;
	}
	if (waiting == 0 || waiting + finished < nthreads)
		return;
	TlCpuBlock *b = tl_cpu_block;
	int first = -1;
	for (int r = 0; r < c->nctas && first < 0; r++)
		for (int t = 0; t < c->block[r].nthreads && first < 0; t++)
			if (c->block[r].where[t]) {
				b = &c->block[r];
				first = t;
			}
	tl_cpu_fail("tilec emu: block (%u, %u, %u): deadlock: %d thread(s) wait at a barrier that can never "
	            "complete (thread %d, warp %d, lane %d waits at %s) and %d finished the kernel%s; a barrier or "
	            "a .sync.aligned tcgen05 instruction was not reached by every thread it needs\n",
	            b->idx.x, b->idx.y, b->idx.z, waiting, first, first / 32, first % 32,
	            first >= 0 ? b->where[first] : "?", finished, c->nctas > 1 ? " (counted over the cluster's CTAs)" : "");
}

static void
tl_cpu_barrier(TlCpuBar *bar, const char *where)
{
	TlCpuBlock *b = tl_cpu_block;
	pthread_mutex_lock(&b->mu);
	unsigned gen = bar->gen;
	if (++bar->arrived == bar->count) {
		b->waiting -= bar->count - 1; // the others are released now, before they run again
		if (bar == &b->cta && tl_race_out)
			tl_race_epoch(); // every other thread waits here: the accesses before this cta_sync are all made
		bar->arrived = 0;
		bar->gen++;
		pthread_cond_broadcast(&bar->cv);
	} else {
		b->waiting++;
		b->where[tl_cpu_tid] = where;
		tl_cpu_check_deadlock();
		while (bar->gen == gen)
			pthread_cond_wait(&bar->cv, &b->mu);
		b->where[tl_cpu_tid] = NULL;
	}
	pthread_mutex_unlock(&b->mu);
}

static inline void __syncthreads(void) { tl_cpu_barrier(&tl_cpu_block->cta, "__syncthreads (cta_sync)"); }

// The emulator's own warp barriers (a mask always given) order nothing for the race detection; the
// program's warp_sync (__syncwarp()) orders the accesses of its warp.
static inline void __syncwarp(unsigned mask)
{
	(void)mask;
	tl_cpu_barrier(&tl_cpu_block->warp[tl_cpu_tid >> 5], "__syncwarp");
}
static inline void __syncwarp(void)
{
	__syncwarp(0xffffffffu);
	tl_race_wep++;
}
static inline void __threadfence_block(void) {}
static inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }

// Lanes that stop after another lane reported the failure: wait for its exit.
static inline void
__trap(void)
{
	pthread_mutex_lock(&tl_cpu_fail_mu);
	fprintf(stderr, "tilec emu: trap\n");
	_exit(TL_EMU_TRAP_STATUS);
}

static inline unsigned __activemask(void)
{
	int n = tl_cpu_block->nthreads - (tl_cpu_tid & ~31);
	return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

// Every lane of the warp publishes a value; all then read lane src's.
static inline unsigned long long
tl_cpu_exchange(unsigned long long v, int src)
{
	unsigned long long *x = tl_cpu_block->xchg[tl_cpu_tid >> 5];
	__syncwarp(0xffffffffu);
	x[tl_cpu_tid & 31] = v;
	__syncwarp(0xffffffffu);
	return x[src & 31];
}

template <class T>
static inline T
__shfl_sync(unsigned mask, T v, int src)
{
	(void)mask;
	unsigned long long bits = 0;
	memcpy(&bits, &v, sizeof v);
	bits = tl_cpu_exchange(bits, src);
	T r;
	memcpy(&r, &bits, sizeof r);
	return r;
}

static inline unsigned
__ballot_sync(unsigned mask, int pred)
{
	(void)mask;
	unsigned long long *x = tl_cpu_block->xchg[tl_cpu_tid >> 5];
	tl_cpu_exchange(pred != 0, 0);
	unsigned r = 0, live = __activemask();
	for (int l = 0; l < 32; l++)
		if ((live >> l & 1) && x[l])
			r |= 1u << l;
	return r;
}

static inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }

static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
// The rounding intrinsics the generated code uses for f32 arithmetic: plain IEEE operations here, as the
// program is compiled with -ffp-contract=off, whose NaN results are made the GPU's canonical NaN,
// 0x7fffffff: the GPU's add, sub, mul, div, fma and sqrt give it whatever NaN their operands hold, where the
// CPU keeps an operand's payload (quieted: 0x7fbadbad * 0 is 0x7ffadbad) or makes 0xffc00000 (0 * inf).
static inline float tl_cpu_nan(float r) { return r != r ? __uint_as_float(0x7fffffffu) : r; }
static inline float __fadd_rn(float a, float b) { return tl_cpu_nan(a + b); }
static inline float __fsub_rn(float a, float b) { return tl_cpu_nan(a - b); }
static inline float __fmul_rn(float a, float b) { return tl_cpu_nan(a * b); }
static inline float __fdiv_rn(float a, float b) { return tl_cpu_nan(a / b); }
static inline float __fmaf_rn(float a, float b, float c) { return tl_cpu_nan(fmaf(a, b, c)); }
static inline float __fsqrt_rn(float a) { return tl_cpu_nan(sqrtf(a)); }
static inline float __int2float_rn(int i) { return (float)i; }
// cvt.rni.s32.f32: to nearest even, saturating, NaN to 0
static inline int
__float2int_rn(float a)
{
	if (a != a)
		return 0;
	if (a >= 2147483647.0f)
		return 2147483647;
	if (a <= -2147483648.0f)
		return (-2147483647 - 1);
	return (int)rintf(a);
}

// ---- race detection, for tilec run (docs/emulator.md, "Data races")
// The code tilec run compiles passes every element access of a global or shared tensor through
// tl_emu_race; each thread logs its accesses in a log of its own (no lock). When a cta_sync completes,
// and when the block ends, the thread that completes it sorts all logs by element and looks, element by
// element, for two accesses by different threads, one of them a write, that no barrier orders (only
// cta_sync orders threads of different warps; warp_sync those of one warp). Accesses of global elements
// are also looked up in a table of earlier blocks' accesses, since no barrier orders two blocks. The
// first conflict of each pair of statements (sites) is written to tl_race_out, which tilec run turns
// into warnings. The order of the sort (element, thread, ...) makes the report the same in every run.
struct TlRaceAccess {
	unsigned long long key; // bit 63: shared memory; bits 62..40: the tensor; bits 39..0: the element
	unsigned site;          // site << 1 | write
	unsigned short tid, wep;
};
struct TlRaceLog {
	TlRaceAccess *a;
	size_t n, cap;
};
static TlRaceLog tl_race_logs[TL_CPU_CLUSTER_MAX * 1024]; // by thread of the cluster (tl_cpu_gid)
static unsigned long long tl_race_block; // the running block, linear (x fastest) + 1

static bool
tl_race_before(const TlRaceAccess &a, const TlRaceAccess &b)
{
	if (a.key != b.key)
		return a.key < b.key;
	if (a.tid != b.tid)
		return a.tid < b.tid;
	if (a.wep != b.wep)
		return a.wep < b.wep;
	return a.site < b.site;
}

static bool
tl_race_same(const TlRaceAccess &a, const TlRaceAccess &b)
{
	return a.key == b.key && a.tid == b.tid && a.wep == b.wep && a.site == b.site;
}

static void
tl_race_nomem(void)
{
	fprintf(stderr, "tilec run: out of memory for the race detection\n");
	_exit(4);
}

// Sorts a[0 .. n) by tl_race_before (a merge sort through tmp, n entries; no template for the C++
// compiler to build) and returns the number of distinct entries, now at the start of a.
static size_t
tl_race_sort(TlRaceAccess *a, TlRaceAccess *tmp, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = tl_race_before(a[j], a[i]) ? a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		memcpy(a, tmp, n * sizeof *a);
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!m || !tl_race_same(a[m - 1], a[i]))
			a[m++] = a[i];
	return m;
}

// The offset idx of an element of the tensor in key; the access is logged and idx returned.
static inline __attribute__((unused)) long long
tl_emu_race(unsigned long long key, unsigned site, int write, long long idx)
{
	if (!tl_race_out)
		return idx;
	TlRaceLog *l = &tl_race_logs[tl_cpu_gid];
	TlRaceAccess x = {key | ((unsigned long long)idx & 0xffffffffffull), site << 1 | (unsigned)(write != 0),
	                  (unsigned short)tl_cpu_tid, tl_race_wep};
	if (l->n && tl_race_same(l->a[l->n - 1], x))
		return idx;
	if (l->n == l->cap) {
		if (l->n >= 65536) { // a long loop between two barriers: keep each access once
			TlRaceAccess *tmp = (TlRaceAccess *)malloc(l->n * sizeof *tmp);
			if (!tmp)
				tl_race_nomem();
			l->n = tl_race_sort(l->a, tmp, l->n);
			free(tmp);
		}
		if (!l->cap || l->n * 2 > l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->a = (TlRaceAccess *)realloc(l->a, l->cap * sizeof *l->a);
			if (!l->a)
				tl_race_nomem();
		}
	}
	l->a[l->n++] = x;
	return idx;
}

// An element's accesses by earlier blocks: the first block that wrote it and the first that read it
// (linear + 1, 0 for none), each with its thread << 22 | site. One cell per element of each global tensor,
// in pages of 65536 made when first touched, TL_RACE_SHADOW_MAX bytes in all.
struct TlRaceCell {
	unsigned wblock, rblock, winfo, rinfo;
};
#define TL_RACE_SHADOW_MAX (1ull << 28)
struct TlRaceShadow {
	unsigned long long elements;
	TlRaceCell **pages;
};
static TlRaceShadow *tl_race_shadow; // by tensor number (bits 62..40 of a key)
static unsigned tl_race_ntensors;
static unsigned long long tl_race_bytes;
static bool tl_race_full; // a page found no room: conflicts between blocks past it are not looked for

// Global tensor number `tensor` has `elements` elements (storage): called by tilec run's main.
static __attribute__((unused)) void
tl_race_tensor(unsigned tensor, unsigned long long elements)
{
	if (tensor >= tl_race_ntensors) {
		tl_race_shadow = (TlRaceShadow *)realloc(tl_race_shadow, (tensor + 1) * sizeof *tl_race_shadow);
		if (!tl_race_shadow)
			tl_race_nomem();
		memset(tl_race_shadow + tl_race_ntensors, 0, (tensor + 1 - tl_race_ntensors) * sizeof *tl_race_shadow);
		tl_race_ntensors = tensor + 1;
	}
	tl_race_shadow[tensor].elements = elements;
	tl_race_shadow[tensor].pages = (TlRaceCell **)calloc((size_t)((elements + 65535) >> 16), sizeof(TlRaceCell *));
	if (!tl_race_shadow[tensor].pages)
		tl_race_nomem();
}

static TlRaceCell *
tl_race_cell(unsigned long long key)
{
	unsigned tensor = (unsigned)(key >> 40);
	unsigned long long e = key & 0xffffffffffull;
	if (tensor >= tl_race_ntensors || e >= tl_race_shadow[tensor].elements)
		return NULL;
	TlRaceCell **page = &tl_race_shadow[tensor].pages[e >> 16];
	if (!*page) {
		if (tl_race_bytes + 65536 * sizeof(TlRaceCell) > TL_RACE_SHADOW_MAX) {
			tl_race_full = true;
			return NULL;
		}
		*page = (TlRaceCell *)calloc(65536, sizeof(TlRaceCell));
		if (!*page)
			tl_race_nomem();
		tl_race_bytes += 65536 * sizeof(TlRaceCell);
	}
	return &(*page)[e & 0xffff];
}

struct TlRaceSide {
	unsigned site; // site << 1 | write
	int tid;
	unsigned long long block;
};
static unsigned long long *tl_race_pairs; // the pairs of sites reported
static size_t tl_race_npairs;

static void
tl_race_block_xyz(unsigned long long block, unsigned *x, unsigned *y, unsigned *z)
{
	unsigned long long l = block - 1;
	*x = (unsigned)(l % gridDim.x);
	*y = (unsigned)(l / gridDim.x % gridDim.y);
	*z = (unsigned)(l / gridDim.x / gridDim.y);
}

// A conflict of access p with the earlier (or lower-numbered thread's) access o: reported once per pair of sites.
static void
tl_race_report(unsigned long long key, TlRaceSide p, TlRaceSide o)
{
	unsigned a = p.site >> 1, b = o.site >> 1;
	FILE *out = tl_race_out;
	if (!out)
		return;
	unsigned long long pair = a < b ? (unsigned long long)a << 32 | b : (unsigned long long)b << 32 | a;
	for (size_t i = 0; i < tl_race_npairs; i++)
		if (tl_race_pairs[i] == pair)
			return;
	if ((tl_race_npairs & (tl_race_npairs - 1)) == 0) {
		tl_race_pairs = (unsigned long long *)realloc(tl_race_pairs, 2 * (tl_race_npairs + 1) * sizeof *tl_race_pairs);
		if (!tl_race_pairs)
			tl_race_nomem();
	}
	tl_race_pairs[tl_race_npairs++] = pair;
	unsigned px, py, pz, ox, oy, oz;
	tl_race_block_xyz(p.block, &px, &py, &pz);
	tl_race_block_xyz(o.block, &ox, &oy, &oz);
	fprintf(out, "race %u %u %d %u %u %u %u %u %d %u %u %u %llu %llu\n", a, p.site & 1, p.tid, px, py, pz, b, o.site & 1,
	        o.tid, ox, oy, oz, (key >> 40) & 0x7fffff, key & 0xffffffffffull);
	fflush(out);
}

// Accesses of one element by one site, one warp between two warp_syncs: the two lowest threads.
struct TlRaceClass {
	unsigned site;
	int warp, wep, tid0, tid1;
};
static TlRaceAccess *tl_race_all, *tl_race_tmp;
static size_t tl_race_all_cap;
static TlRaceClass *tl_race_cls;
static size_t tl_race_cls_cap;

// One element's accesses g[0 .. n), sorted: conflicts within the block, then with earlier blocks.
static void
tl_race_element(const TlRaceAccess *g, size_t n)
{
	size_t nc = 0;
	bool wrote = false;
	for (size_t i = 0; i < n; i++) {
		wrote |= g[i].site & 1;
		size_t c = 0;
		while (c < nc && !(tl_race_cls[c].site == g[i].site && tl_race_cls[c].warp == g[i].tid >> 5 &&
		                   tl_race_cls[c].wep == g[i].wep))
			c++;
		if (c < nc) {
			if (tl_race_cls[c].tid1 < 0 && tl_race_cls[c].tid0 != g[i].tid)
				tl_race_cls[c].tid1 = g[i].tid;
			continue;
		}
		if (nc == tl_race_cls_cap) {
			tl_race_cls_cap = nc ? 2 * nc : 64;
			tl_race_cls = (TlRaceClass *)realloc(tl_race_cls, tl_race_cls_cap * sizeof *tl_race_cls);
			if (!tl_race_cls)
				tl_race_nomem();
		}
		tl_race_cls[nc++] = TlRaceClass{g[i].site, g[i].tid >> 5, g[i].wep, g[i].tid, -1};
	}
	unsigned long long key = g[0].key;
	for (size_t a = 0; wrote && a < nc; a++)
		for (size_t b = a; b < nc; b++) {
			const TlRaceClass &A = tl_race_cls[a], &B = tl_race_cls[b];
			if (!((A.site | B.site) & 1))
				continue;
			int ta = A.tid0, tb = B.tid0;
			if (a == b) {
				tb = A.tid1;
			} else if (A.warp == B.warp && A.wep != B.wep) {
				continue; // a warp_sync between them
			} else if (ta == tb) {
				if (B.tid1 >= 0)
					tb = B.tid1;
				else
					ta = A.tid1;
			}
			if (ta < 0 || tb < 0)
				continue;
			TlRaceSide sa = {A.site, ta, tl_race_block}, sb = {B.site, tb, tl_race_block};
			if (ta > tb)
				tl_race_report(key, sa, sb);
			else
				tl_race_report(key, sb, sa);
		}
	if (key >> 63)
		return; // shared memory is the block's own
	TlRaceCell *c = tl_race_cell(key);
	if (!c)
		return;
	const TlRaceAccess *w = NULL, *r = NULL;
	for (size_t i = 0; i < n && !(w && r); i++) {
		if ((g[i].site & 1) && !w)
			w = &g[i];
		if (!(g[i].site & 1) && !r)
			r = &g[i];
	}
	const TlRaceAccess *first = w ? w : r;
	TlRaceSide p = {first->site, first->tid, tl_race_block};
	unsigned block = (unsigned)tl_race_block;
	if (c->wblock && c->wblock != block)
		tl_race_report(key, p, TlRaceSide{(c->winfo & 0x3fffff) << 1 | 1, (int)(c->winfo >> 22), c->wblock});
	else if (w && c->rblock && c->rblock != block)
		tl_race_report(key, p, TlRaceSide{(c->rinfo & 0x3fffff) << 1, (int)(c->rinfo >> 22), c->rblock});
	if (w && !c->wblock) {
		c->wblock = block;
		c->winfo = (unsigned)w->tid << 22 | w->site >> 1;
	}
	if (r && !c->rblock) {
		c->rblock = block;
		c->rinfo = (unsigned)r->tid << 22 | r->site >> 1;
	}
}

// Every access since the last cta_sync (or the block's start): by then the other threads wait or ended.
static void
tl_race_epoch(void)
{
	size_t n = 0;
	int nthreads = tl_cpu_block->nthreads;
	TlRaceLog *logs = tl_race_logs + tl_cpu_block->first;
	for (int t = 0; t < nthreads; t++)
		n += logs[t].n;
	if (n > tl_race_all_cap) {
		tl_race_all_cap = n;
		free(tl_race_all);
		free(tl_race_tmp);
		tl_race_all = (TlRaceAccess *)malloc(n * sizeof *tl_race_all);
		tl_race_tmp = (TlRaceAccess *)malloc(n * sizeof *tl_race_tmp);
		if (!tl_race_all || !tl_race_tmp)
			tl_race_nomem();
	}
	n = 0;
	for (int t = 0; t < nthreads; t++) {
		memcpy(tl_race_all + n, logs[t].a, logs[t].n * sizeof *tl_race_all);
		n += logs[t].n;
		logs[t].n = 0;
	}
	n = tl_race_sort(tl_race_all, tl_race_tmp, n);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && tl_race_all[j].key == tl_race_all[i].key; j++)
			;
		tl_race_element(tl_race_all + i, j - i);
	}
}

// ---- uninitialised registers and tensor memory, for tilec run (docs/emulator.md, "Poison")
// The code tilec run compiles keeps, next to each register word, a shadow word (tl_ok_<tensor>): bits
// 0..3 say which of the word's elements the program wrote (one bit for f32, two for 16-bit types, four
// for 8-bit ones); bit 4 says the word was loaded from tensor memory, from the cell (lane, column) in bits
// 8..15 and 16..25. Each TMEM cell has a shadow byte too (tl_poison_cells: bit 0 its low 16 bits written,
// bit 1 its high ones). A read of an element not written calls tl_poison_hit, which keeps, for each
// statement (site), the lowest thread of the block that made one; when the block ends (or the run stops
// for another reason) those are written to tl_poison_out, "uninit SITE THREAD X Y Z SLOT SHADOW", which
// tilec run turns into errors (or, with --allow-uninit, warnings: each site once, and the run goes on).
struct TlPoisonHit {
	int tid;
	unsigned slot, ok;
};
static FILE *tl_poison_out;           // NULL: no tracking
static int tl_poison_allow;           // --allow-uninit: report and go on
static unsigned tl_poison_nsites;
static TlPoisonHit *tl_poison_hits;   // per site: the lowest thread of this block (tid -1: none)
static unsigned char *tl_poison_done; // per site: reported by an earlier block
static int tl_poison_any;             // a hit in this block
static unsigned char tl_poison_shadow[TL_CPU_CLUSTER_MAX][128 * 512]; // each CTA's of the running cluster
static unsigned char *tl_poison_cells = tl_poison_shadow[0]; // the shadow of the running block's tensor memory
static pthread_mutex_t tl_poison_mu = PTHREAD_MUTEX_INITIALIZER;

// Called by tilec run's main before the launch: nsites statements read registers.
static __attribute__((unused)) void
tl_poison_start(FILE *out, int allow, unsigned nsites)
{
	tl_poison_out = out;
	tl_poison_allow = allow;
	tl_poison_nsites = nsites;
	tl_poison_hits = (TlPoisonHit *)malloc((nsites + 1) * sizeof *tl_poison_hits);
	tl_poison_done = (unsigned char *)calloc(nsites + 1, 1);
	if (!tl_poison_hits || !tl_poison_done)
		tl_race_nomem();
	for (unsigned i = 0; i <= nsites; i++)
		tl_poison_hits[i].tid = -1;
}

// Thread tl_cpu_tid read register slot `slot` at `site`; ok: the word's shadow.
static __attribute__((noinline)) void
tl_poison_hit(unsigned site, unsigned slot, unsigned ok)
{
	if (site >= tl_poison_nsites || tl_poison_done[site])
		return;
	pthread_mutex_lock(&tl_poison_mu);
	TlPoisonHit *h = &tl_poison_hits[site];
	if (h->tid < 0 || tl_cpu_tid < h->tid)
		*h = TlPoisonHit{tl_cpu_tid, slot, ok};
	tl_poison_any = 1;
	pthread_mutex_unlock(&tl_poison_mu);
}

// The hits of the block, written out; without --allow-uninit the run stops after a block with one.
static void
tl_poison_report(void)
{
	if (!tl_poison_out || !tl_poison_any)
		return;
	pthread_mutex_lock(&tl_poison_mu);
	for (unsigned i = 0; i < tl_poison_nsites; i++) {
		TlPoisonHit *h = &tl_poison_hits[i];
		if (h->tid < 0)
			continue;
		fprintf(tl_poison_out, "uninit %u %d %u %u %u %u %u\n", i, h->tid, blockIdx.x, blockIdx.y, blockIdx.z, h->slot,
		        h->ok);
		h->tid = -1;
		tl_poison_done[i] = 1;
	}
	fflush(tl_poison_out);
	tl_poison_any = 0;
	pthread_mutex_unlock(&tl_poison_mu);
}

// A register word's value v, after the test that the parts in need (of per parts of the word) were
// written; word: the word's number, for the slot reported.
static inline __attribute__((unused)) unsigned
tl_emu_chk(unsigned ok, unsigned need, unsigned site, unsigned word, unsigned per, unsigned v)
{
	if ((ok & need) != need)
		tl_poison_hit(site, word * per + (unsigned)__builtin_ctz(need & ~ok), ok);
	return v;
}

// The shadow of a word loaded from tensor memory (info: tl_emu_access's hw: halves written, origin) for a
// register type of per elements a word.
static inline __attribute__((unused)) unsigned
tl_emu_parts(unsigned info, unsigned per)
{
	unsigned h = info & 3, parts = per == 1 ? (h == 3) : per == 2 ? h : (h & 1 ? 3u : 0u) | (h & 2 ? 12u : 0u);
	return parts | (info & ~15u);
}

// barrier.cluster arrive + wait: every thread of every CTA of the cluster (a cluster of one: __syncthreads).
// Each CTA's accesses before it are all made, as at a cta_sync: the race detection closes each CTA's epoch.
static __attribute__((unused)) void
tl_cpu_cluster_barrier(const char *where)
{
	TlCpuCluster *c = &tl_cpu_cluster;
	if (c->nctas == 1) {
		tl_cpu_barrier(&tl_cpu_block->cta, where);
		return;
	}
	TlCpuBlock *b = tl_cpu_block;
	pthread_mutex_lock(&b->mu);
	unsigned gen = c->bar.gen;
	if (++c->bar.arrived == c->bar.count) {
		for (int r = 0; r < c->nctas; r++) {
			c->block[r].waiting -= c->bar_waiting[r]; // the others are released now, before they run again
			c->bar_waiting[r] = 0;
			if (tl_race_out) {
				tl_cpu_block = &c->block[r];
				tl_race_block = c->block[r].race_block;
				tl_race_epoch();
			}
		}
		tl_cpu_block = b;
		tl_race_block = b->race_block;
		c->bar.arrived = 0;
		c->bar.gen++;
		pthread_cond_broadcast(&c->bar.cv);
	} else {
		b->waiting++;
		c->bar_waiting[b->rank]++;
		b->where[tl_cpu_tid] = where;
		tl_cpu_check_deadlock();
		while (c->bar.gen == gen)
			pthread_cond_wait(&c->bar.cv, &b->mu);
		b->where[tl_cpu_tid] = NULL;
	}
	pthread_mutex_unlock(&b->mu);
}
static void
tl_cpu_thread(void)
{
	TlCpuThread *self = tl_cpu_sched.running;
	tl_cpu_sched.entry(tl_cpu_sched.args);
	self->wep = tl_race_wep;
	TlCpuBlock *b = tl_cpu_block;
	pthread_mutex_lock(&b->mu);
	b->finished++;
	tl_cpu_check_deadlock();
	pthread_mutex_unlock(&b->mu);
} // back to the scheduler (uc_link)

// n threads, each with a stack (a guard page below it): made once, larger when a block needs more.
static void
tl_cpu_threads(int n)
{
	TlCpuSched *s = &tl_cpu_sched;
	if (n <= s->cap)
		return;
	long page = sysconf(_SC_PAGESIZE);
	size_t each = TL_CPU_STACK + (size_t)page;
	if (s->stacks)
		munmap(s->stacks, (size_t)s->cap * each);
	free(s->thread);
	free(s->queue);
	s->thread = (TlCpuThread *)calloc((size_t)n, sizeof *s->thread);
	s->queue = (int *)malloc((size_t)(n + 1) * sizeof *s->queue);
	void *m = mmap(NULL, (size_t)n * each, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!s->thread || !s->queue || m == MAP_FAILED)
		tl_cpu_fail("tilec emu: no memory for the stacks of %d threads\n", n);
	s->stacks = (char *)m;
	s->cap = n;
	for (int t = 0; t < n; t++)
		mprotect(s->stacks + (size_t)t * each, (size_t)page, PROT_NONE);
}

// Runs the nctas * n threads of the cluster's blocks until every one ended (thread r * n + t: thread t of
// the CTA of rank r), starting with CTA 0 resident.
static void
tl_cpu_run_cluster(int n, int nctas)
{
	TlCpuSched *s = &tl_cpu_sched;
	TlCpuCluster *c = &tl_cpu_cluster;
	size_t each = TL_CPU_STACK + (size_t)sysconf(_SC_PAGESIZE);
	s->head = s->tail = 0;
	memset(s->bucket, 0, sizeof s->bucket);
	c->resident = 0;
	tl_cpu_cta_switch(0);
	for (int g = 0; g < n * nctas; g++) {
		TlCpuThread *th = &s->thread[g];
		th->tid = g % n;
		th->cta = g / n;
		th->cond = NULL;
		th->wep = 0;
		getcontext(&th->ctx);
		th->ctx.uc_stack.ss_sp = s->stacks + (size_t)g * each + (each - TL_CPU_STACK);
		th->ctx.uc_stack.ss_size = TL_CPU_STACK;
		th->ctx.uc_link = &s->main;
		makecontext(&th->ctx, tl_cpu_thread, 0);
		tl_cpu_runnable(th);
	}
	// back here when a thread ends (uc_link) or waits with no other to run
	for (TlCpuThread *th; (th = tl_cpu_next());) {
		tl_cpu_enter(th);
		swapcontext(&s->main, &th->ctx);
		s->running = NULL;
	}
	for (int r = 0; r < nctas; r++) {
		TlCpuBlock *b = &c->block[r];
		if (b->finished < n)
			tl_cpu_fail("tilec emu: block (%u, %u, %u): deadlock: %d thread(s) wait and none can go on; %d "
			            "finished the kernel\n",
			            b->idx.x, b->idx.y, b->idx.z, n - b->finished, b->finished);
	}
}

// A block of n threads, empty, as the CTA of rank `rank` of the cluster at block idx.
static void
tl_cpu_block_start(TlCpuBlock *b, int n, int rank, TlDim3 idx, const unsigned grid[3])
{
	memset(b, 0, sizeof *b);
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->cv, NULL);
	pthread_cond_init(&b->cta.cv, NULL);
	b->nthreads = n;
	b->cta.count = n;
	for (int w = 0; w < 32; w++) {
		b->warp[w].count = n - 32 * w >= 32 ? 32 : n - 32 * w;
		pthread_cond_init(&b->warp[w].cv, NULL);
	}
	b->rank = rank;
	b->first = rank * n;
	b->idx = idx;
	b->race_block = ((unsigned long long)idx.z * grid[1] + idx.y) * grid[0] + idx.x + 1;
}

static void
tl_cpu_block_end(TlCpuBlock *b)
{
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->cv);
	pthread_cond_destroy(&b->cta.cv);
	for (int w = 0; w < 32; w++)
		pthread_cond_destroy(&b->warp[w].cv);
}

// The copies of shared memory for the CTAs of a cluster of nctas (none for a cluster of one: its CTA
// stays resident), each at the section's address modulo 4096.
static void
tl_cpu_cluster_smem(int nctas)
{
	TlCpuCluster *c = &tl_cpu_cluster;
	for (int r = 0; r < TL_CPU_CLUSTER_MAX; r++) {
		free(c->saved_alloc[r]);
		c->saved_alloc[r] = NULL;
		c->saved[r] = NULL;
	}
	c->smem_bytes = nctas > 1 && __start_tl_emu_smem ? (size_t)(__stop_tl_emu_smem - __start_tl_emu_smem) : 0;
	if (!c->smem_bytes)
		return;
	size_t skew = (size_t)(unsigned long long)__start_tl_emu_smem % 4096;
	for (int r = 0; r < nctas; r++) {
		if (posix_memalign(&c->saved_alloc[r], 4096, c->smem_bytes + 4096))
			tl_cpu_fail("tilec emu: no memory for the shared memory of a cluster of %d CTAs\n", nctas);
		c->saved[r] = (unsigned char *)c->saved_alloc[r] + skew;
		memcpy(c->saved[r], __start_tl_emu_smem, c->smem_bytes);
	}
}

// Runs a grid of clusters of cluster[0] x cluster[1] x cluster[2] blocks (each grid dimension a multiple
// of the cluster's): the clusters in order (x fastest) from the one of block first (each coordinate from
// first's; tilec run's probe of a larger grid runs only its new blocks), the threads of a cluster's CTAs
// together, each a coroutine. A CTA's rank in its cluster is x fastest, as %cluster_ctarank.
static void
tl_cpu_launch_cluster_from(const unsigned grid[3], const unsigned first[3], const unsigned block[3],
                           const unsigned cluster[3], void (*entry)(void **), void **args)
{
	gridDim = TlDim3{grid[0], grid[1], grid[2]};
	blockDim = TlDim3{block[0], block[1], block[2]};
	int n = (int)(block[0] * block[1] * block[2]);
	int nctas = (int)(cluster[0] * cluster[1] * cluster[2]);
	for (int d = 0; d < 3; d++)
		if (grid[d] % cluster[d] || first[d] % cluster[d] || nctas > TL_CPU_CLUSTER_MAX)
			tl_cpu_fail("tilec emu: a grid of (%u, %u, %u) blocks from (%u, %u, %u) is not made of clusters of "
			            "(%u, %u, %u) (at most %d CTAs)\n", grid[0], grid[1], grid[2], first[0], first[1], first[2],
			            cluster[0], cluster[1], cluster[2], TL_CPU_CLUSTER_MAX);
	TlCpuCluster *c = &tl_cpu_cluster;
	c->nctas = nctas;
	memcpy(c->dim, cluster, sizeof c->dim);
	tl_cpu_threads(n * nctas);
	tl_cpu_cluster_smem(nctas);
	tl_cpu_sched.entry = entry;
	tl_cpu_sched.args = args;
	for (unsigned z = first[2]; z < grid[2]; z += cluster[2])
		for (unsigned y = first[1]; y < grid[1]; y += cluster[1])
			for (unsigned x = first[0]; x < grid[0]; x += cluster[0]) {
				for (int r = 0; r < nctas; r++) {
					TlDim3 idx = {x + r % cluster[0], y + r / cluster[0] % cluster[1], z + r / (cluster[0] * cluster[1])};
					tl_cpu_block_start(&c->block[r], n, r, idx, grid);
				}
				memset(&c->bar, 0, sizeof c->bar);
				pthread_cond_init(&c->bar.cv, NULL);
				c->bar.count = n * nctas;
				c->serial++;
				tl_cpu_run_cluster(n, nctas);
				if (tl_poison_any) {
					blockIdx = TlDim3{x, y, z};
					tl_poison_report();
					if (!tl_poison_allow)
						_exit(TL_EMU_TRAP_STATUS);
				}
				for (int r = 0; r < nctas; r++) {
					if (tl_race_out) {
						tl_cpu_block = &c->block[r];
						tl_race_block = c->block[r].race_block;
						tl_race_epoch();
					}
					tl_cpu_block_end(&c->block[r]);
				}
				pthread_cond_destroy(&c->bar.cv);
			}
	c->nctas = 1;
	if (tl_race_out && tl_race_full) {
		fprintf(tl_race_out, "full %llu\n", TL_RACE_SHADOW_MAX / sizeof(TlRaceCell));
		fflush(tl_race_out);
	}
}

// Runs a grid of blocks without a cluster, each a cluster of one.
static void
tl_cpu_launch_from(const unsigned grid[3], const unsigned first[3], const unsigned block[3], void (*entry)(void **),
                   void **args)
{
	const unsigned one[3] = {1, 1, 1};
	tl_cpu_launch_cluster_from(grid, first, block, one, entry, args);
}

static __attribute__((unused)) void
tl_cpu_launch(const unsigned grid[3], const unsigned block[3], void (*entry)(void **), void **args)
{
	const unsigned first[3] = {0, 0, 0};
	tl_cpu_launch_from(grid, first, block, entry, args);
}

static __attribute__((unused)) void
tl_cpu_launch_cluster(const unsigned grid[3], const unsigned block[3], const unsigned cluster[3],
                      void (*entry)(void **), void **args)
{
	const unsigned first[3] = {0, 0, 0};
	tl_cpu_launch_cluster_from(grid, first, block, cluster, entry, args);
}

#define TL_EMU_FAIL(...) tl_cpu_fail(__VA_ARGS__)
#elif defined(__CUDA_ARCH__)
#define TL_EMU_FAIL(...) \
	do { \
		printf(__VA_ARGS__); \
		__trap(); \
	} while (0)
#else
// nvcc's host pass over the device functions (nvcc -c): they never run on the host.
#define TL_EMU_FAIL(...) __trap()
#endif

#if defined(__CUDACC__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 900)
// A GPU before sm_90 has no clusters (nvcc refuses the attribute there): the blocks run alone, as the kernel's
// cluster_sync then synchronises one CTA. The host pass has no __CUDA_ARCH__: launches read the cubin's.
#undef __cluster_dims__
#define __cluster_dims__(...)
#endif

// Every function may go unused by one program: no warning for that, from nvcc or a C++ compiler.
#define TL_EMU_FN static __device__ __attribute__((unused))
#define TL_EMU_INLINE static __device__ __forceinline__ __attribute__((unused))

// ------------------------------------------------------------------ 16-bit floats
// On the GPU the conversion instructions; on the CPU the same rounding (to nearest even) in C.

TL_EMU_INLINE unsigned short
tl_f2h(float x)
{
#ifdef __CUDA_ARCH__
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
	return h;
#else
	unsigned u = __float_as_uint(x);
	unsigned sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu, r, rem;
	if (a > 0x7f800000u)
		return 0x7fff; // NaN: the canonical one, as cvt.rn.f16.f32
	if (a >= 0x477ff000u)
		return (unsigned short)(sign | 0x7c00u); // 65520 and up round to infinity
	if (a < 0x38800000u) { // a half subnormal: units of 2^-24
		if (a <= 0x33000000u)
			return (unsigned short)sign;
		int shift = 126 - (int)(a >> 23);
		unsigned m = (a & 0x7fffffu) | 0x800000u;
		r = m >> shift;
		rem = m & ((1u << shift) - 1);
		unsigned half = 1u << (shift - 1);
		if (rem > half || (rem == half && (r & 1)))
			r++;
		return (unsigned short)(sign | r);
	}
	r = (a - 0x38000000u) >> 13;
	rem = a & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (r & 1)))
		r++;
	return (unsigned short)(sign | r);
#endif
}

TL_EMU_INLINE float
tl_h2f(unsigned short h)
{
#ifdef __CUDA_ARCH__
	float x;
	asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(h));
	return x;
#else
	unsigned sign = (unsigned)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
	if (e == 0x1f)
		return __uint_as_float(m ? 0x7fffffffu : sign | 0x7f800000u);
	if (e == 0) {
		if (m == 0)
			return __uint_as_float(sign);
		unsigned s = 0;
		while (!(m & 0x400u)) {
			m <<= 1;
			s++;
		}
		return __uint_as_float(sign | ((113u - s) << 23) | ((m & 0x3ffu) << 13));
	}
	return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
#endif
}

TL_EMU_INLINE unsigned short
tl_f2bf(float x)
{
#ifdef __CUDA_ARCH__
	unsigned short h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
	return h;
#else
	unsigned u = __float_as_uint(x);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fff;
	return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
}

TL_EMU_INLINE float
tl_bf2f(unsigned short h)
{
	return __uint_as_float((unsigned)h << 16);
}

// ------------------------------------------------------------------ tensor memory
// Per block: 128 lanes x 512 columns of 32-bit cells in global memory (tl_emu_tmem_<kernel>, one
// slice per block of the grid), and the allocator's state in shared memory (TlEmuCta).

#define TL_EMU_LANES 128
#define TL_EMU_COLS 512
#define TL_EMU_CELLS (TL_EMU_LANES * TL_EMU_COLS)
#define TL_EMU_POISON 0x7fbadbadu // what an allocation holds before it is written (a NaN as f32)
#define TL_EMU_UNPACK_HIGH 0xbad00000u // the high 16 bits of a cell written by .unpack::16b (undefined)

// The cells of the blocks, tl_emu_tmem_<kernel>[TL_EMU_TMEM_BLOCKS(blocks) * TL_EMU_CELLS]: on the CPU, which
// runs one cluster after another, a cluster's (CTA rank r has the r-th); on the GPU one per block up to TL_EMU_SLOTS blocks, and for
// larger grids TL_EMU_SLOTS that blocks take at tl_emu_begin and give back at tl_emu_end (a GPU holds
// far fewer blocks than that at once, and a block never waits for a block that waits for a slot).
#define TL_EMU_SLOTS 1024
#ifdef __CUDACC__
#define TL_EMU_TMEM_BLOCKS(n) ((n) < TL_EMU_SLOTS ? (n) : TL_EMU_SLOTS)
static __device__ int tl_emu_slot_busy[TL_EMU_SLOTS];
#else
#define TL_EMU_TMEM_BLOCKS(n) ((n) < TL_CPU_CLUSTER_MAX ? (n) : (unsigned long long)TL_CPU_CLUSTER_MAX) // a cluster's
#endif

struct TlEmuCta {
	unsigned *tmem;               // this block's cells, lane-major: cell (lane, col) = tmem[lane * 512 + col]
	int slot;                     // the cells' place in tl_emu_tmem_<kernel>; -1 when not taken from the pool
	unsigned used;                // bit k: columns 32k .. 32k+31 allocated
	unsigned short start[16];     // allocation i: first column, columns
	unsigned short ncols[16];
	const char *where[16];        // and the alloc that made it
	int nalloc;
	int last_ncols;               // ncols of the latest alloc (it must not grow)
	const char *relinquished;     // the relinquish_alloc_permit executed, or null
	int lock;
	unsigned char *ok;            // tilec run: the cells' shadow (tl_poison_cells); null: not tracked
};

TL_EMU_INLINE int
tl_emu_tid(void)
{
	return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

TL_EMU_INLINE unsigned
tl_emu_lanes_mask(void)
{
	int n = (int)(blockDim.x * blockDim.y * blockDim.z) - (tl_emu_tid() & ~31);
	return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

#define TL_EMU_AT "tilec emu: %s: block (%u, %u, %u), warp %d: "
#define TL_EMU_ARGS(where) where, blockIdx.x, blockIdx.y, blockIdx.z, tl_emu_tid() >> 5

// nslots: 0 when tmem_all has room for every block of the grid, or TL_EMU_SLOTS of a larger one; else
// its number of blocks (a grid known only at launch). The CPU runs one block at a time and reuses
// them; on the GPU, when the grid has more blocks than there are cells, blocks take the cells of a
// slot from the pool at tl_emu_begin and give them back at tl_emu_end, as for a large grid.
#define TL_EMU_GRID_SLOTS 64

// A block's allocator, empty, over its cells.
TL_EMU_FN void
tl_emu_init(TlEmuCta *c, unsigned *cells)
{
	c->tmem = cells;
	c->slot = -1;
	c->used = 0;
	c->nalloc = 0;
	c->last_ncols = 0;
	c->relinquished = 0;
	c->lock = 0;
#ifdef __CUDACC__
	c->ok = 0;
#else
	c->ok = tl_poison_out ? tl_poison_cells : 0;
#endif
}

TL_EMU_FN void
tl_emu_begin(TlEmuCta *c, unsigned *tmem_all, unsigned nslots = 0)
{
	if (tl_emu_tid() == 0) {
		unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
		int slot_taken = -1;
#ifdef __CUDACC__
		unsigned long long n = (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
		unsigned cap = nslots ? nslots : TL_EMU_SLOTS;
		if (n > cap) {
			int slot = (int)(b % cap);
			while (atomicCAS(&tl_emu_slot_busy[slot], 0, 1) != 0)
				slot = (slot + 1) % (int)cap;
			__threadfence();
			slot_taken = slot;
			b = (unsigned long long)slot;
		}
#else
		b = nslots ? b % nslots : (unsigned long long)tl_cpu_block->rank; // one cluster at a time: a grid known at compile time has a cluster's cells
#endif
		tl_emu_init(c, tmem_all + b * TL_EMU_CELLS);
		c->slot = slot_taken;
	}
	__syncthreads();
}

// A .sync.aligned instruction: every lane of the warp executes it, together. On the CPU a lane that
// never arrives makes the barrier's deadlock report; on the GPU (independent thread scheduling makes
// __activemask() no test of convergence) it is undefined, as on the hardware.
#ifndef __CUDACC__
// ---- tcgen05.st completes late on the CPU (docs/emulator.md, "Asynchronous completion")
// A thread's stores wait in its queue until its tcgen05.wait::st; with tilec run --seed, each lands
// instead after a number (0 to 3, from the seed) of the thread's next tcgen05 instructions, or at the
// wait if that comes first. tl_st_count[cell] counts the stores to a cell not landed yet, so that a
// load of the cell, or a dealloc of it, stops the run: on hardware it would find the old value or the
// new one. On the GPU a store lands at once: a program the static checks accept cannot tell.
static inline unsigned long long
tl_host_splitmix_st(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct TlStPending {
	unsigned *cell;
	unsigned char *ok; // its shadow (tilec run), or null
	unsigned value, index;
	unsigned char shadow, countdown; // countdown 255: at the wait
	const char *where;
};
struct TlStQueue {
	TlStPending *q;
	int n, cap;
	unsigned long long seq;
};
// By thread of the block; the arrays (and seq) are kept from block to block, but no store is left in
// them at a block's end: it was to columns allocated then, tl_emu_end stops a block that exits with
// columns allocated, and tl_emu_dealloc stops at a dealloc of columns with a store not landed.
static TlStQueue tl_st_queues[TL_CPU_CLUSTER_MAX * 1024]; // by thread of the cluster (tl_cpu_gid)
static unsigned short tl_st_counts[TL_CPU_CLUSTER_MAX][128 * 512];
static unsigned short *tl_st_count = tl_st_counts[0]; // the running block's
static unsigned tl_st_total; // the stores of the cluster not landed yet
static const char *tl_st_wheres[TL_CPU_CLUSTER_MAX][128 * 512];
static const char **tl_st_where = tl_st_wheres[0]; // the latest store to the cell not landed yet
static unsigned long long tl_st_seed;      // tilec run --seed S: S + 1; 0: stores land at their wait
static __attribute__((unused)) void tl_st_seeded(unsigned long long seed) { tl_st_seed = seed + 1; }

// When the thread's next tcgen05.st lands: 255, at its wait::st; with --seed, after 0 to 3 of the
// thread's next tcgen05 instructions, the same for every lane of a warp (its stores land together).
static unsigned char
tl_st_countdown(void)
{
	if (!tl_st_seed)
		return 255;
	unsigned long long s = tl_st_seed ^ (0x9e3779b97f4a7c15ull * (unsigned long long)((tl_cpu_tid >> 5) + 1)) ^
	                       (tl_st_queues[tl_cpu_gid].seq++ << 20);
	return (unsigned char)(tl_host_splitmix_st(&s) % 4);
}

static void
tl_st_push(unsigned *cell, unsigned char *ok, unsigned index, unsigned value, unsigned char shadow,
           unsigned char countdown, const char *where)
{
	TlStQueue *sq = &tl_st_queues[tl_cpu_gid];
	if (sq->n == sq->cap) {
		sq->cap = sq->cap ? 2 * sq->cap : 256;
		sq->q = (TlStPending *)realloc(sq->q, (size_t)sq->cap * sizeof *sq->q);
		if (!sq->q)
			tl_race_nomem();
	}
	sq->q[sq->n++] = TlStPending{cell, ok, value, index, shadow, countdown, where};
	__atomic_fetch_add(&tl_st_count[index], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&tl_st_total, 1, __ATOMIC_RELAXED);
	tl_st_where[index] = where;
}

// all: the thread's tcgen05.wait::st; else one of its tcgen05 instructions passes (--seed).
static void
tl_st_land(int all)
{
	TlStQueue *sq = &tl_st_queues[tl_cpu_gid];
	int n = 0;
	for (int i = 0; i < sq->n; i++) {
		TlStPending *p = &sq->q[i];
		if (all || p->countdown == 0) {
			*p->cell = p->value;
			if (p->ok)
				*p->ok = p->shadow;
			__atomic_fetch_sub(&tl_st_count[p->index], 1, __ATOMIC_RELAXED);
			__atomic_fetch_sub(&tl_st_total, 1, __ATOMIC_RELAXED);
		} else {
			if (p->countdown != 255)
				p->countdown--;
			sq->q[n++] = *p;
		}
	}
	sq->n = n;
}

// Makes CTA rank of the cluster the running one: its shared memory into the section (the resident one's
// saved), its block, blockIdx and shadows in the globals the emulator reads.
static void
tl_cpu_cta_switch(int rank)
{
	TlCpuCluster *c = &tl_cpu_cluster;
	if (c->smem_bytes) {
		memcpy(c->saved[c->resident], __start_tl_emu_smem, c->smem_bytes);
		memcpy(__start_tl_emu_smem, c->saved[rank], c->smem_bytes);
	}
	c->resident = rank;
	tl_cpu_block = &c->block[rank];
	blockIdx = tl_cpu_block->idx;
	tl_race_block = tl_cpu_block->race_block;
	tl_poison_cells = tl_poison_shadow[rank];
	tl_st_count = tl_st_counts[rank];
	tl_st_where = tl_st_wheres[rank];
}
#endif

TL_EMU_FN void
tl_emu_collective(const char *where)
{
#ifdef __CUDACC__
	(void)where;
	__syncwarp(tl_emu_lanes_mask());
#else
	if (tl_st_queues[tl_cpu_gid].n)
		tl_st_land(0);
	tl_cpu_barrier(&tl_cpu_block->warp[tl_cpu_tid >> 5], where);
#endif
}

// The TMEM address of a collective instruction: the same in every lane.
TL_EMU_FN void
tl_emu_uniform(unsigned addr, const char *where)
{
	unsigned live = tl_emu_lanes_mask();
	unsigned a0 = __shfl_sync(live, addr, 0);
	unsigned bad = __ballot_sync(live, addr != a0);
	if (bad) {
		if ((tl_emu_tid() & 31) == __ffs(bad) - 1)
			TL_EMU_FAIL(TL_EMU_AT "TMEM address not uniform across the warp: lane 0 passes 0x%08x (lane %u, column "
			                      "%u), lane %d passes 0x%08x (lane %u, column %u)\n", TL_EMU_ARGS(where), a0,
			            a0 >> 16, a0 & 0xffffu, tl_emu_tid() & 31, addr, addr >> 16, addr & 0xffffu);
		__syncwarp(live);
		__trap();
	}
}

TL_EMU_FN void
tl_emu_lock(TlEmuCta *c)
{
#ifdef __CUDACC__
	while (atomicCAS(&c->lock, 0, 1) != 0)
		;
	__threadfence_block();
#else
	(void)c; // the CPU runs tcgen05.alloc bookkeeping under the block's barrier mutex
	pthread_mutex_lock(&tl_cpu_block->mu);
#endif
}

TL_EMU_FN void
tl_emu_unlock(TlEmuCta *c)
{
#ifdef __CUDACC__
	__threadfence_block();
	atomicExch(&c->lock, 0);
#else
	(void)c;
	pthread_mutex_unlock(&tl_cpu_block->mu);
#endif
}

#ifndef __CUDACC__
// tilec run --tmem: called by lane 0 once a warp has made an allocation (cells of the block, its first
// column, the alloc's where); fills tensors the program reads before it writes them.
static void (*tl_emu_alloc_hook)(unsigned *cells, int start, const char *where) __attribute__((unused));
#endif

// tcgen05.alloc: lane 0 takes the lowest free run of ncols columns (in 32-column steps) and writes its
// address (lane 0, column 32k) to the shared slot; the whole warp fills the columns with TL_EMU_POISON.
TL_EMU_FN void
tl_emu_alloc(TlEmuCta *c, unsigned *slot, int ncols, const char *where)
{
	tl_emu_collective(where);
	unsigned live = tl_emu_lanes_mask();
	int start = -1;
	if ((tl_emu_tid() & 31) == 0) {
		tl_emu_lock(c);
		if (c->relinquished) {
			tl_emu_unlock(c);
			TL_EMU_FAIL(TL_EMU_AT "tcgen05.alloc after this block gave up its allocation permit (%s)\n",
			            TL_EMU_ARGS(where), c->relinquished);
		}
		if (ncols < 32 || ncols > TL_EMU_COLS || (ncols & (ncols - 1))) {
			tl_emu_unlock(c);
			TL_EMU_FAIL(TL_EMU_AT "tcgen05.alloc of %d columns; ncols must be a power of two from 32 to 512\n",
			            TL_EMU_ARGS(where), ncols);
		}
		if (c->last_ncols && ncols > c->last_ncols) {
			tl_emu_unlock(c);
			TL_EMU_FAIL(TL_EMU_AT "tcgen05.alloc of %d columns after one of %d; ncols must not grow between two "
			                      "allocations of a block\n", TL_EMU_ARGS(where), ncols, c->last_ncols);
		}
		unsigned need = ncols >= TL_EMU_COLS ? 0xffffu : (1u << (ncols / 32)) - 1;
		for (int k = 0; k + ncols / 32 <= 16 && start < 0; k++)
			if (!(c->used & (need << k)))
				start = k * 32;
		if (start < 0) {
			tl_emu_unlock(c);
			TL_EMU_FAIL(TL_EMU_AT "tcgen05.alloc of %d columns: no %d free consecutive columns (in use: 0x%04x, "
			                      "one bit per 32 columns); the hardware would wait for a dealloc, which no "
			                      "other warp of this block is known to do: a deadlock\n",
			            TL_EMU_ARGS(where), ncols, ncols, c->used);
		}
		c->used |= need << (start / 32);
		c->start[c->nalloc] = (unsigned short)start;
		c->ncols[c->nalloc] = (unsigned short)ncols;
		c->where[c->nalloc] = where;
		c->nalloc++;
		c->last_ncols = ncols;
		*slot = (unsigned)start; // lane 0, column start
		tl_emu_unlock(c);
	}
	start = __shfl_sync(live, start, 0);
	for (int i = tl_emu_tid() & 31; i < TL_EMU_LANES * ncols; i += 32) {
		c->tmem[(i / ncols) * TL_EMU_COLS + start + i % ncols] = TL_EMU_POISON;
		if (c->ok)
			c->ok[(i / ncols) * TL_EMU_COLS + start + i % ncols] = 0;
	}
	__syncwarp(live);
#ifndef __CUDACC__
	if ((tl_emu_tid() & 31) == 0 && tl_emu_alloc_hook)
		tl_emu_alloc_hook(c->tmem, start, where);
	__syncwarp(live);
#endif
}

TL_EMU_FN void
tl_emu_dealloc(TlEmuCta *c, unsigned addr, int ncols, const char *where)
{
	tl_emu_collective(where);
	tl_emu_uniform(addr, where);
	if ((tl_emu_tid() & 31) == 0) {
		tl_emu_lock(c);
		int i = 0;
		while (i < c->nalloc && !(addr >> 16 == 0 && c->start[i] == (addr & 0xffffu)))
			i++;
		if (i == c->nalloc) {
			unsigned used = c->used;
			tl_emu_unlock(c);
			TL_EMU_FAIL(TL_EMU_AT "tcgen05.dealloc of address 0x%08x (lane %u, column %u): no allocation starts "
			                      "there (in use: 0x%04x, one bit per 32 columns)\n",
			            TL_EMU_ARGS(where), addr, addr >> 16, addr & 0xffffu, used);
		}
		if (c->ncols[i] != ncols) {
			int had = c->ncols[i];
			const char *w = c->where[i];
			tl_emu_unlock(c);
			TL_EMU_FAIL(TL_EMU_AT "tcgen05.dealloc of %d columns at column %u, but %s allocated %d there\n",
			            TL_EMU_ARGS(where), ncols, addr & 0xffffu, w, had);
		}
#ifndef __CUDACC__
		for (int cell = 0; tl_st_total && cell < TL_EMU_CELLS; cell++)
			if (tl_st_count[cell] && cell % TL_EMU_COLS >= c->start[i] && cell % TL_EMU_COLS < c->start[i] + ncols) {
				tl_emu_unlock(c);
				const char *st = tl_st_where[cell];
				TL_EMU_FAIL(TL_EMU_AT "tcgen05.dealloc frees TMEM (lane %d, column %d), which %s stored to and no "
				                      "tcgen05.wait::st has completed; on hardware the store may land after the "
				                      "dealloc\n", TL_EMU_ARGS(where), cell / TL_EMU_COLS, cell % TL_EMU_COLS,
				            st ? st : "?");
			}
#endif
		unsigned need = ncols >= TL_EMU_COLS ? 0xffffu : (1u << (ncols / 32)) - 1;
		c->used &= ~(need << (c->start[i] / 32));
		c->nalloc--;
		c->start[i] = c->start[c->nalloc];
		c->ncols[i] = c->ncols[c->nalloc];
		c->where[i] = c->where[c->nalloc];
		tl_emu_unlock(c);
	}
	__syncwarp(tl_emu_lanes_mask());
}

TL_EMU_FN void
tl_emu_relinquish(TlEmuCta *c, const char *where)
{
	tl_emu_collective(where);
	if ((tl_emu_tid() & 31) == 0) {
		tl_emu_lock(c);
		c->relinquished = where;
		tl_emu_unlock(c);
	}
	__syncwarp(tl_emu_lanes_mask());
}

// wait::ld, wait::st: ld and st complete at once here; what is left is the collective check. The
// generated code clears its pending-register masks after wait::ld.
// st: a wait::st, which lands the thread's stores on the CPU.
TL_EMU_FN void
tl_emu_wait(const char *where, int st = 0)
{
	tl_emu_collective(where);
#ifndef __CUDACC__
	if (st)
		tl_st_land(1);
#else
	(void)st;
#endif
	__syncwarp(tl_emu_lanes_mask());
}

// The kernel's end: every allocation must have been freed.
TL_EMU_FN void
tl_emu_end(TlEmuCta *c, const char *kernel)
{
	__syncthreads();
	if (tl_emu_tid() == 0 && c->nalloc)
		TL_EMU_FAIL("tilec emu: kernel %s: block (%u, %u, %u) exits with %d column(s) at column %u still "
		            "allocated (by %s); every allocation must be freed with tcgen05.dealloc before the kernel "
		            "exits%s\n", kernel, blockIdx.x, blockIdx.y, blockIdx.z, (int)c->ncols[0], (unsigned)c->start[0],
		            c->where[0], c->nalloc > 1 ? " (and more)" : "");
#ifdef __CUDACC__
	if (tl_emu_tid() == 0 && c->slot >= 0) {
		__threadfence();
		atomicExch(&tl_emu_slot_busy[c->slot], 0);
	}
#endif
}

// Where register r of this lane goes: image entry = row | access << 5 | column << 6 (from image_cell()
// in tilec, one table per shape and .xN). Returns 0, or a reason code for the first bad cell.
TL_EMU_FN int
tl_emu_cell(const TlEmuCta *c, const unsigned short *img, int nregs, int pack, unsigned addr, unsigned imm,
            int r, unsigned *cell, unsigned *tlane, unsigned *tcol)
{
	unsigned e = img[(tl_emu_tid() & 31) * nregs + r];
	unsigned base = (e >> 5 & 1) ? addr + imm : addr;
	unsigned lane = (base >> 16) + (e & 31), col = (base & 0xffffu) + (pack ? 2 : 1) * (e >> 6);
	unsigned slab = 32u * (unsigned)((tl_emu_tid() >> 5) % 4);
	*tlane = lane;
	*tcol = col;
	*cell = lane * TL_EMU_COLS + col;
	if (lane < slab || lane >= slab + 32)
		return 1;
	if (col + (pack ? 1 : 0) >= TL_EMU_COLS)
		return 2;
	if (!(c->used >> (col / 32) & 1) || !(c->used >> ((col + (pack ? 1 : 0)) / 32) & 1))
		return 3;
	return 0;
}

// hw (tilec run, for a load; else null): per register, its shadow from the cells' (tl_emu_parts).
TL_EMU_FN void
tl_emu_access(TlEmuCta *c, const unsigned short *img, int nregs, int pack, unsigned addr, unsigned imm, int is_ld,
              unsigned *regs, const char *where, unsigned *hw = 0)
{
	tl_emu_collective(where);
	tl_emu_uniform(addr, where);
	unsigned live = tl_emu_lanes_mask();
	int bad = 0, bad_r = 0;
	unsigned cell, tlane = 0, tcol = 0;
	for (int r = 0; r < nregs && !bad; r++) {
		bad = tl_emu_cell(c, img, nregs, pack, addr, imm, r, &cell, &tlane, &tcol);
		bad_r = r;
#ifndef __CUDACC__
		if (!bad && (tl_st_count[cell] || (pack && tl_st_count[cell + 1])))
			bad = is_ld ? 4 : 5;
#endif
	}
	unsigned who = __ballot_sync(live, bad != 0);
	if (who) {
		if ((tl_emu_tid() & 31) == __ffs(who) - 1) {
			int w = tl_emu_tid() >> 5;
			if (bad == 1)
				TL_EMU_FAIL(TL_EMU_AT "lane %d, register %d: TMEM lane %u is outside warp %d's slab (lanes %d..%d); "
				                      "warp w may touch only lanes 32*(w%%4) .. 32*(w%%4)+31\n",
				            TL_EMU_ARGS(where), tl_emu_tid() & 31, bad_r, tlane, w, 32 * (w % 4), 32 * (w % 4) + 31);
			else if (bad == 2)
				TL_EMU_FAIL(TL_EMU_AT "lane %d, register %d: TMEM column %u is beyond the 512 columns\n",
				            TL_EMU_ARGS(where), tl_emu_tid() & 31, bad_r, tcol);
#ifndef __CUDACC__
			else if (bad >= 4) {
				const char *st = tl_st_where[tl_st_count[cell] ? cell : cell + 1];
				TL_EMU_FAIL(TL_EMU_AT "lane %d, register %d: TMEM (lane %u, column %u) has a store of %s that no "
				                      "tcgen05.wait::st has completed; on hardware this %s may come %s it\n",
				            TL_EMU_ARGS(where), tl_emu_tid() & 31, bad_r, tlane, tcol, st ? st : "?",
				            bad == 4 ? "load" : "store", bad == 4 ? "before or after" : "before");
			}
#endif
			else
				TL_EMU_FAIL(TL_EMU_AT "lane %d, register %d: TMEM column %u (lane %u) is not allocated (in use: "
				                      "0x%04x, one bit per 32 columns)\n", TL_EMU_ARGS(where), tl_emu_tid() & 31,
				            bad_r, tcol, tlane, c->used);
		}
		__syncwarp(live);
		__trap();
	}
#ifndef __CUDACC__
	unsigned char countdown = is_ld ? 0 : tl_st_countdown();
#endif
	for (int r = 0; r < nregs; r++) {
		tl_emu_cell(c, img, nregs, pack, addr, imm, r, &cell, &tlane, &tcol);
		unsigned *t = c->tmem + cell;
		if (is_ld) {
			regs[r] = pack ? (t[0] & 0xffffu) | t[1] << 16 : t[0];
			if (hw) {
				// no shadow (a --save-temps program run without its report files): every cell counts as written
				unsigned h = !c->ok  ? 3u
				             : pack ? (c->ok[cell] & 1u) | (c->ok[cell + 1] & 1u) << 1
				                    : c->ok[cell] & 3u;
				hw[r] = h == 3 ? 3 : h | 16u | tlane << 8 | tcol << 16;
			}
		} else if (pack) {
#ifdef __CUDACC__
			t[0] = TL_EMU_UNPACK_HIGH | (regs[r] & 0xffffu);
			t[1] = TL_EMU_UNPACK_HIGH | regs[r] >> 16;
#else
			tl_st_push(t, c->ok ? c->ok + cell : 0, cell, TL_EMU_UNPACK_HIGH | (regs[r] & 0xffffu), 1, countdown, where);
			tl_st_push(t + 1, c->ok ? c->ok + cell + 1 : 0, cell + 1, TL_EMU_UNPACK_HIGH | regs[r] >> 16, 1, countdown,
			           where);
#endif
		} else {
#ifdef __CUDACC__
			t[0] = regs[r];
#else
			tl_st_push(t, c->ok ? c->ok + cell : 0, cell, regs[r], 3, countdown, where);
#endif
		}
	}
	__syncwarp(live);
}

// A read of (or a write to) a register that a tcgen05.ld has loaded and no tcgen05.wait::ld has waited
// for yet: pending is the register's bit of the generated code's tl_pend_<tensor> mask.
TL_EMU_FN void
tl_emu_wr(unsigned pending, const char *what, const char *ld)
{
	if (pending)
		TL_EMU_FAIL("tilec emu: %s before tcgen05.wait::ld; it was loaded by %s (thread %d of block (%u, %u, %u))\n",
		            what, ld, tl_emu_tid(), blockIdx.x, blockIdx.y, blockIdx.z);
}

TL_EMU_INLINE unsigned
tl_emu_rd(unsigned pending, unsigned v, const char *what, const char *ld)
{
	tl_emu_wr(pending, what, ld);
	return v;
}

// ------------------------------------------------------------------ hand-written kernels
// A header that tilec writes with --target=emu --emit=cuh defines TILEC_EMU_HEADER: its device functions
// find the emulator of the calling CTA in tl_emu_hdr, which a hand-written kernel sets up and uses through
// these functions, in place of the tcgen05 instructions it would write for the GPU (docs/emulator.md).
#ifdef TILEC_EMU_HEADER
#ifdef __CUDACC__
static __shared__ TlEmuCta tl_emu_hdr;
#else
static TlEmuCta tl_emu_hdr; // the CPU runs one block at a time
#endif
#define TILEC_EMU_CELLS TL_EMU_CELLS

// At the kernel's start, by every thread: the CTA's tensor memory is cells[0 .. TILEC_EMU_CELLS), 128 lanes
// of 512 columns (cell (lane, column) = cells[lane * 512 + column]), in global memory of the caller's.
TL_EMU_INLINE void
tilec_emu_begin(uint32_t *cells)
{
	if (tl_emu_tid() == 0)
		tl_emu_init(&tl_emu_hdr, cells);
	__syncthreads();
}

// tcgen05.alloc.cta_group::1 (one warp): the address of ncols columns into the shared slot.
TL_EMU_INLINE void
tilec_emu_alloc(uint32_t *slot, int ncols)
{
	tl_emu_alloc(&tl_emu_hdr, slot, ncols, "tilec_emu_alloc");
}

// tcgen05.dealloc.cta_group::1 (one warp).
TL_EMU_INLINE void
tilec_emu_dealloc(uint32_t addr, int ncols)
{
	tl_emu_dealloc(&tl_emu_hdr, addr, ncols, "tilec_emu_dealloc");
}

// tcgen05.relinquish_alloc_permit.cta_group::1 (one warp).
TL_EMU_INLINE void
tilec_emu_relinquish(void)
{
	tl_emu_relinquish(&tl_emu_hdr, "tilec_emu_relinquish");
}

// The 32-bit cell at a TMEM address (lane in bits 31..16, column in 15..0): what tcgen05.mma or
// tcgen05.cp would write, written by the kernel's own code.
TL_EMU_INLINE uint32_t *
tilec_emu_cell(uint32_t addr)
{
	return &tl_emu_hdr.tmem[(addr >> 16) * TL_EMU_COLS + (addr & 0xffffu)];
}

// At the kernel's end, by every thread: every allocation must have been freed.
TL_EMU_INLINE void
tilec_emu_end(void)
{
	tl_emu_end(&tl_emu_hdr, "(hand-written)");
}
#endif

// ------------------------------------------------------------------ global tensor bounds
// Every element access of a global tensor passes its coordinates and the tensor's shape (computed from
// the scalar parameters where the shape is); one outside stops the run, which the hardware would not.

TL_EMU_FN void
tl_emu_oob(const char *where, const char *name, int rank, const long long *c, const long long *n)
{
#if defined(__CUDA_ARCH__)
	printf("tilec emu: %s: element [", where);
	for (int d = 0; d < rank; d++)
		printf("%s%lld", d ? ", " : "", c[d]);
	printf("] of %s is outside its shape [", name);
	for (int d = 0; d < rank; d++)
		printf("%s%lld", d ? ", " : "", n[d]);
	printf("] (thread %d of block (%u, %u, %u))\n", tl_emu_tid(), blockIdx.x, blockIdx.y, blockIdx.z);
	__trap();
#elif defined(__CUDACC__)
	// nvcc's host pass over the device functions: they never run on the host
	(void)where, (void)name, (void)rank, (void)c, (void)n;
	__trap();
#else
	char coord[400] = "", shape[400] = "";
	size_t a = 0, b = 0;
	for (int d = 0; d < rank && a < sizeof coord && b < sizeof shape; d++) {
		a += (size_t)snprintf(coord + a, sizeof coord - a, "%s%lld", d ? ", " : "", c[d]);
		b += (size_t)snprintf(shape + b, sizeof shape - b, "%s%lld", d ? ", " : "", n[d]);
	}
	tl_cpu_fail("tilec emu: %s: element [%s] of %s is outside its shape [%s] (thread %d of block (%u, %u, %u))\n",
	            where, coord, name, shape, tl_emu_tid(), blockIdx.x, blockIdx.y, blockIdx.z);
#endif
}

// Returns 0, to be added to the element's offset.
template <int R>
TL_EMU_INLINE long long
tl_emu_bounds(const char *where, const char *name, const long long (&c)[R], const long long (&n)[R])
{
	for (int d = 0; d < R; d++)
		if (c[d] < 0 || c[d] >= n[d])
			tl_emu_oob(where, name, R, c, n);
	return 0;
}

// ------------------------------------------------------------------ float to integer
// As the GPU's cvt.rzi.s32.f32 and cvt.rzi.u32.f32: toward zero, saturated to the type's range, NaN to 0,
// where a C cast leaves values out of range undefined (x86 gives 0x80000000). A narrower integer type
// keeps the low bits of the result, as both GPU routes store them.

TL_EMU_INLINE int
tl_emu_f2s32(float x)
{
#ifdef __CUDA_ARCH__
	return __float2int_rz(x);
#else
	return x != x ? 0 : x >= 2147483648.0f ? 2147483647 : x <= -2147483648.0f ? (-2147483647 - 1) : (int)x;
#endif
}

TL_EMU_INLINE unsigned
tl_emu_f2u32(float x)
{
#ifdef __CUDA_ARCH__
	return __float2uint_rz(x);
#else
	return x != x || x <= 0.0f ? 0u : x >= 4294967296.0f ? 4294967295u : (unsigned)x;
#endif
}

// ------------------------------------------------------------------ f32 negation
// The GPU's negation of a NaN gives 0x7fffffff (nvcc makes it an add: measured on an H200), where C's -
// on the CPU flips the sign bit of the NaN; abs, min and max keep an operand's bits on both.

TL_EMU_INLINE float
tl_emu_fneg(float x)
{
#ifdef __CUDACC__
	return -x;
#else
	return tl_cpu_nan(-x);
#endif
}

// ------------------------------------------------------------------ integer operations C leaves undefined
// Division by zero, INT_MIN / -1 and a shift count outside 0..31 are errors in a constant expression;
// at run time they stop the run here (the hardware gives some value, a CPU may die of SIGFPE).

TL_EMU_FN void
tl_emu_undef(const char *where, long long a, const char *op, long long b, const char *why)
{
	TL_EMU_FAIL("tilec emu: %s: %lld %s %lld is undefined: %s (thread %d of block (%u, %u, %u))\n", where, a, op, b,
	            why, tl_emu_tid(), blockIdx.x, blockIdx.y, blockIdx.z);
}

// Whether a / b and a % b are defined for a signed type whose minimum is lo; stops the run when not.
#define TL_EMU_SDIV_OK(lo, a, op, b, where) \
	((b) == 0 ? (tl_emu_undef(where, a, op, b, "division by zero"), 0) \
	 : (b) == -1 && (a) == (lo) ? (tl_emu_undef(where, a, op, b, "the quotient overflows"), 0) : 1)

TL_EMU_INLINE int
tl_emu_div_s32(int a, int b, const char *where)
{
	return TL_EMU_SDIV_OK(-2147483647 - 1, a, "/", b, where) ? a / b : 0;
}

TL_EMU_INLINE int
tl_emu_mod_s32(int a, int b, const char *where)
{
	return TL_EMU_SDIV_OK(-2147483647 - 1, a, "%", b, where) ? a % b : 0;
}

TL_EMU_INLINE long long
tl_emu_div_s64(long long a, long long b, const char *where)
{
	return TL_EMU_SDIV_OK(-9223372036854775807ll - 1, a, "/", b, where) ? a / b : 0;
}

TL_EMU_INLINE long long
tl_emu_mod_s64(long long a, long long b, const char *where)
{
	return TL_EMU_SDIV_OK(-9223372036854775807ll - 1, a, "%", b, where) ? a % b : 0;
}

TL_EMU_INLINE unsigned
tl_emu_div_u32(unsigned a, unsigned b, const char *where)
{
	return b ? a / b : (tl_emu_undef(where, a, "/", b, "division by zero"), 0u);
}

TL_EMU_INLINE unsigned
tl_emu_mod_u32(unsigned a, unsigned b, const char *where)
{
	return b ? a % b : (tl_emu_undef(where, a, "%", b, "division by zero"), 0u);
}

// n, the count as the program wrote it (i32 or u32, widened without change), when it lies in 0..31
TL_EMU_INLINE unsigned
tl_emu_count(long long a, const char *op, long long n, const char *where)
{
	if (n < 0 || n > 31)
		tl_emu_undef(where, a, op, n, "a shift count outside 0..31");
	return (unsigned)n & 31;
}

TL_EMU_INLINE int
tl_emu_shl_s32(int a, long long n, const char *where)
{
	return (int)((unsigned)a << tl_emu_count(a, "<<", n, where));
}

TL_EMU_INLINE unsigned
tl_emu_shl_u32(unsigned a, long long n, const char *where)
{
	return a << tl_emu_count(a, "<<", n, where);
}

TL_EMU_INLINE int
tl_emu_shr_s32(int a, long long n, const char *where)
{
	return a >> tl_emu_count(a, ">>", n, where);
}

TL_EMU_INLINE unsigned
tl_emu_shr_u32(unsigned a, long long n, const char *where)
{
	return a >> tl_emu_count(a, ">>", n, where);
}

TL_EMU_INLINE unsigned
tl_emu_saddr(const void *p)
{
#ifdef __CUDACC__
	return (unsigned)__cvta_generic_to_shared(p);
#else
	return (unsigned)(unsigned long long)p;
#endif
}

// ------------------------------------------------------------------ clusters
// The API of the cluster model for the emulator's other parts (TMA multicast, the CTA pair): a CTA's rank
// in its cluster (%cluster_ctarank, x fastest), the cluster's size (%cluster_nctarank), and the address of
// a byte of another CTA's shared memory (mapa): p points into this CTA's shared memory (a __shared__
// variable), the result to the same byte of CTA rank's. On the CPU that CTA's copy is where its shared
// memory lies while a thread of another CTA runs (tl_cpu_cta_switch), and a thread runs until it waits,
// so the pointer is good until the calling thread next waits at a barrier. sm_90 and later on the GPU.
TL_EMU_INLINE unsigned
tl_emu_cluster_rank(void)
{
#ifdef __CUDACC__
	unsigned r = 0;
#if __CUDA_ARCH__ >= 900
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
	return r;
#else
	return (unsigned)tl_cpu_block->rank;
#endif
}

TL_EMU_INLINE unsigned
tl_emu_cluster_ctas(void)
{
#ifdef __CUDACC__
	unsigned n = 1;
#if __CUDA_ARCH__ >= 900
	asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#endif
	return n;
#else
	return (unsigned)tl_cpu_cluster.nctas;
#endif
}

template <class T>
TL_EMU_INLINE T *
tl_emu_cta_smem(unsigned rank, T *p)
{
#ifdef __CUDACC__
#if __CUDA_ARCH__ >= 900
	unsigned long long r;
	asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"((unsigned long long)p), "r"(rank));
	return (T *)r;
#else
	(void)rank;
	return p;
#endif
#else
	TlCpuCluster *c = &tl_cpu_cluster;
	if ((int)rank == c->resident)
		return p;
	unsigned char *b = (unsigned char *)(void *)p;
	if ((int)rank >= c->nctas || !c->smem_bytes || b < (unsigned char *)__start_tl_emu_smem ||
	    b >= (unsigned char *)__stop_tl_emu_smem)
		tl_cpu_fail("tilec emu: block (%u, %u, %u): thread %d: shared memory of CTA rank %u of a cluster of %d asked "
		            "for an address that is not a __shared__ variable's\n", blockIdx.x, blockIdx.y, blockIdx.z,
		            tl_cpu_tid, rank, c->nctas);
	return (T *)(void *)(c->saved[rank] + (b - (unsigned char *)__start_tl_emu_smem));
#endif
}

#if !defined(__CUDACC__) && defined(TILEC_EMU_HOST)
// ------------------------------------------------------------------ host side of `tilec run`
// Tensors filled from a seeded generator, one-line summaries, comparisons and dumps.

enum { TL_F32, TL_F16, TL_BF16, TL_I32, TL_U32, TL_I16, TL_U16, TL_I8, TL_U8 };
static const char *const tl_host_type_names[] = {"f32", "f16", "bf16", "i32", "u32", "i16", "u16", "i8", "u8"};
static const int tl_host_sizes[] = {4, 2, 2, 4, 4, 2, 2, 1, 1};

struct TlHostTensor {
	const char *name;
	int type, rank;
	long long dims[16];
	long long strides[16]; // in elements
	size_t count;          // elements: the product of dims
	size_t storage;        // elements allocated: the largest offset + 1
	void *data; // what the kernel gets, 16-byte aligned
	void *init; // the values before the run
};

// The offset of logical (row-major) element i.
static size_t
tl_host_offset(const TlHostTensor *t, size_t i)
{
	size_t off = 0;
	for (int d = t->rank - 1; d >= 0; d--) {
		off += (i % (size_t)t->dims[d]) * (size_t)t->strides[d];
		i /= (size_t)t->dims[d];
	}
	return off;
}

static unsigned long long
tl_host_splitmix(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

// Floats: k / 2^23 - 1 for k < 2^24, in [-1, 1), exact in f32; integers: [-100, 100) or [0, 200).
static void
tl_host_fill(TlHostTensor *t, unsigned long long seed, int index)
{
	size_t bytes = t->storage * (size_t)tl_host_sizes[t->type], rounded = (bytes + 15) / 16 * 16;
	t->data = aligned_alloc(16, rounded ? rounded : 16);
	t->init = aligned_alloc(16, rounded ? rounded : 16);
	if (!t->data || !t->init) {
		fprintf(stderr, "tilec run: out of memory for %s\n", t->name);
		exit(4);
	}
	unsigned long long s = seed ^ (0x632be59bd9b4e019ull * (unsigned long long)(index + 1));
	for (size_t i = 0; i < t->storage; i++) {
		unsigned long long r = tl_host_splitmix(&s);
		float f = (float)(int)(r >> 40) / 8388608.0f - 1.0f;
		int k = (int)(r % 200);
		unsigned char *p = (unsigned char *)t->data + i * (size_t)tl_host_sizes[t->type];
		unsigned u32;
		unsigned short u16;
		unsigned char u8;
		switch (t->type) {
		case TL_F32: memcpy(p, &f, 4); break;
		case TL_F16: u16 = tl_f2h(f); memcpy(p, &u16, 2); break;
		case TL_BF16: u16 = tl_f2bf(f); memcpy(p, &u16, 2); break;
		case TL_I32: u32 = (unsigned)(k - 100); memcpy(p, &u32, 4); break;
		case TL_U32: u32 = (unsigned)k; memcpy(p, &u32, 4); break;
		case TL_I16: u16 = (unsigned short)(k - 100); memcpy(p, &u16, 2); break;
		case TL_U16: u16 = (unsigned short)k; memcpy(p, &u16, 2); break;
		case TL_I8: u8 = (unsigned char)(k - 100); *p = u8; break;
		default: u8 = (unsigned char)k; *p = u8; break;
		}
	}
	memcpy(t->init, t->data, bytes);
}

static void
tl_host_format(const TlHostTensor *t, const void *data, size_t i, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)data + i * (size_t)tl_host_sizes[t->type];
	float f;
	unsigned u = 0;
	unsigned short h;
	switch (t->type) {
	case TL_F32: memcpy(&f, p, 4); snprintf(buf, len, "%.9g", (double)f); return;
	case TL_F16: memcpy(&h, p, 2); snprintf(buf, len, "%.9g", (double)tl_h2f(h)); return;
	case TL_BF16: memcpy(&h, p, 2); snprintf(buf, len, "%.9g", (double)tl_bf2f(h)); return;
	case TL_I32: memcpy(&u, p, 4); snprintf(buf, len, "%d", (int)u); return;
	case TL_U32: memcpy(&u, p, 4); snprintf(buf, len, "%u", u); return;
	case TL_I16: memcpy(&h, p, 2); snprintf(buf, len, "%d", (int)(short)h); return;
	case TL_U16: memcpy(&h, p, 2); snprintf(buf, len, "%u", (unsigned)h); return;
	case TL_I8: snprintf(buf, len, "%d", (int)(signed char)*p); return;
	default: snprintf(buf, len, "%u", (unsigned)*p); return;
	}
}

static void
tl_host_index(const TlHostTensor *t, size_t i, char *buf, size_t len)
{
	size_t used = 0, idx[16] = {0}, rest = i;
	for (int d = t->rank - 1; d >= 0; d--) {
		idx[d] = rest % (size_t)t->dims[d];
		rest /= (size_t)t->dims[d];
	}
	buf[0] = 0;
	for (int d = 0; d < t->rank && used < len; d++)
		used += (size_t)snprintf(buf + used, len - used, "%s%zu", d ? ", " : "", idx[d]);
}

// FNV-1a, 64 bits, over the tensor's bytes (tools/emu-gpu-runner.c computes the same).
static unsigned long long
tl_host_fnv(const TlHostTensor *t)
{
	unsigned long long h = 0xcbf29ce484222325ull;
	const unsigned char *p = (const unsigned char *)t->data;
	for (size_t i = 0; i < t->storage * (size_t)tl_host_sizes[t->type]; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void
tl_host_summary(const TlHostTensor *t)
{
	printf("%s: %s[", t->name, tl_host_type_names[t->type]);
	for (int d = 0; d < t->rank; d++)
		printf("%s%lld", d ? ", " : "", t->dims[d]);
	printf("] fnv64 %016llx:", tl_host_fnv(t));
	for (size_t i = 0; i < t->count && i < 4; i++) {
		char v[64];
		tl_host_format(t, t->data, tl_host_offset(t, i), v, sizeof v);
		printf(" %s", v);
	}
	printf("%s\n", t->count > 4 ? " ..." : "");
}

// How far apart two elements are: for floats in units in the last place (the count of representable
// values between them; +0 and -0 are 0 apart, NaN is as far as it gets unless both are the same NaN),
// for integers the difference.
static unsigned long long
tl_host_distance(int type, const unsigned char *a, const unsigned char *b)
{
	size_t size = (size_t)tl_host_sizes[type];
	if (memcmp(a, b, size) == 0)
		return 0;
	unsigned u = 0, v = 0;
	memcpy(&u, a, size);
	memcpy(&v, b, size);
	if (type == TL_F32 || type == TL_F16 || type == TL_BF16) {
		int bits = (int)size * 8;
		unsigned sign = 1u << (bits - 1), exp_mask = type == TL_F32 ? 0x7f800000u : type == TL_F16 ? 0x7c00u : 0x7f80u;
		unsigned mant_mask = (sign - 1) & ~exp_mask;
		if (((u & exp_mask) == exp_mask && (u & mant_mask)) || ((v & exp_mask) == exp_mask && (v & mant_mask)))
			return ~0ull; // a NaN
		// sign and magnitude to a line of integers: -0 and +0 meet at 0
		long long x = u & sign ? -(long long)(u & ~sign) : (long long)u;
		long long y = v & sign ? -(long long)(v & ~sign) : (long long)v;
		return (unsigned long long)(x > y ? x - y : y - x);
	}
	long long x, y;
	switch (type) {
	case TL_I32: x = (int)u, y = (int)v; break;
	case TL_I16: x = (short)u, y = (short)v; break;
	case TL_I8: x = (signed char)u, y = (signed char)v; break;
	default: x = u, y = v; break;
	}
	return (unsigned long long)(x > y ? x - y : y - x);
}

// --expect OUT=IN[~ULPS]: after the run, OUT holds IN's values from before the run, bit for bit, or
// within ULPS units in the last place (integers: within ULPS).
static int
tl_host_expect(const TlHostTensor *out, const TlHostTensor *in, unsigned long long ulps)
{
	size_t size = (size_t)tl_host_sizes[out->type], ndiff = 0, first = 0;
	unsigned long long worst = 0;
	for (size_t i = 0; i < out->count; i++) {
		unsigned long long d = tl_host_distance(out->type, (const unsigned char *)out->data + tl_host_offset(out, i) * size,
		                                        (const unsigned char *)in->init + tl_host_offset(in, i) * size);
		if (d > worst)
			worst = d;
		if (d > ulps && !ndiff++)
			first = i;
	}
	char tol[64] = "";
	if (ulps)
		snprintf(tol, sizeof tol, "~%llu", ulps);
	if (!ndiff) {
		if (ulps)
			printf("expect %s = %s%s: all %zu elements within %llu%s (the largest difference: %llu)\n", out->name,
			       in->name, tol, out->count, ulps, out->type <= TL_BF16 ? " ulps" : "", worst);
		else
			printf("expect %s = %s: all %zu elements equal\n", out->name, in->name, out->count);
		return 0;
	}
	char idx[256], a[64], b[64];
	tl_host_index(out, first, idx, sizeof idx);
	tl_host_format(out, out->data, tl_host_offset(out, first), a, sizeof a);
	tl_host_format(in, in->init, tl_host_offset(in, first), b, sizeof b);
	printf("expect %s = %s%s: %s[%s] = %s but %s[%s] = %s (%zu of %zu elements differ%s)\n", out->name, in->name, tol,
	       out->name, idx, a, in->name, idx, b, ndiff, out->count, ulps ? " by more" : "");
	return 1;
}

static void
tl_host_dump(const char *dir, int index, const char *ext, const void *data, size_t bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%d.%s", dir, index, ext);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0) {
		fprintf(stderr, "tilec run: cannot write %s\n", path);
		exit(4);
	}
}
#endif

#endif
