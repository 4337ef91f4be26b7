// runtime/tilec_emu_mma.h: tcgen05.mma of --target=emu, written after tilec_emu_cp.h into the programs that issue
// an mma (src/emit_emu.c embeds it), so that no other output changes. The instruction is executed from its
// encoding: the two shared-memory descriptors walked by tilec_mma.h's tl_mma_addr (written before this file), the instruction descriptor's formats, transposes, M and N
// (TCGEN05.md 9 and 15). Arithmetic: D[i, j] = (accumulate ? D[i, j] : -0, the identity of IEEE addition, so
// that a product of -0 keeps its sign), then for k ascending one __fmaf_rn (a fused multiply-add, one rounding) of
// A[i, k] * B[j, k] each (LANGUAGE 11.6; hardware's order and rounding are not documented, docs/emulator.md).
// On the GPU the result is in the cells at once (the static check has placed the commit and wait). On the CPU it
// is asynchronous as on hardware, like a cp: at the issue D's cells become unwritten, at the issuing thread's
// commit the mma is attached to the barrier's phase, and its values land when a wait on that barrier returns
// after the phase completed, together with every earlier mma of the same thread (a commit's arrival means all
// of the thread's earlier mmas completed), oldest first; a tile it read that someone wrote in between stops
// the run (LANGUAGE 11.6: what tilec cannot decide statically, such as a ring's stage chosen at run time). An mma that accumulates reads the newest value its
// thread's earlier mmas left in each cell, landed or not (mma -> mma is pipelined); a cell it accumulates into
// that nothing wrote lands as never written, so that reading it is reported as a read of poison.
#ifndef __CUDACC__
struct TlCpuMma {
	TlCpuMma *next;
	const void *bar;          // the barrier (its TlCpuMbar) its commit arrived on; null: not committed yet
	unsigned phase;           // it lands once the barrier's phase has passed this
	unsigned long long seq;   // issue order in the block
	const void *owner;        // the issuing thread
	unsigned *tmem;
	unsigned char *ok;
	int n;
	unsigned *cell, *value;
	unsigned char *written; // per cell: its value comes from written cells (else it lands as never written)
	// what it read, for the check at its landing that no one wrote the tiles before its barrier completed
	const unsigned char *wa, *wb;
	const unsigned *ta;   // A from TMEM: the block's cells (wa unused), A at a_taddr
	unsigned a_taddr;
	unsigned long long adesc, bdesc;
	unsigned idesc, kind, sum;
	const char *where;
};
static thread_local TlCpuMma *tl_cpu_mma_issued; // this thread's mmas that no commit has attached yet
static thread_local char tl_cpu_mma_me;          // its address names the thread
static TlCpuMma *tl_cpu_mma_committed;           // committed ones not landed yet (the block's mutex)
static unsigned long long tl_cpu_mma_seq;
#endif

// One operand element as f32: kind 0 (kind::f16: format 0 f16, 1 bf16), 1 (kind::tf32: f32 storage, the low 13
// mantissa bits dropped), 2 (kind::f8f6f4: 0 e4m3, 1 e5m2, 3 e2m3, 4 e3m2, 5 e2m1, one byte each).
TL_EMU_INLINE float
tl_mma_value(const unsigned char *p, unsigned kind, unsigned format)
{
	if (kind == 0) {
		unsigned short h = (unsigned short)(p[0] | p[1] << 8);
		return format == 1 ? tl_bf2f(h) : tl_h2f(h);
	}
	if (kind == 1) {
		unsigned w = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
		return __uint_as_float(w & 0xffffe000u);
	}
	switch (format) {
	case 0: return tl_from_e4m3(p[0]);
	case 1: return tl_from_e5m2(p[0]);
	case 3: return tl_from_e2m3(p[0]);
	case 4: return tl_from_e3m2(p[0]);
	default: return tl_from_e2m1(p[0]);
	}
}

// The bytes of A[i, k] (e bytes each): through A's descriptor in its window, or, A from TMEM (ta non-null), in
// lane a_lane + i of the cells, K packed along the 32-bit columns from a_col, lowest byte first (TCGEN05.md 15).
TL_EMU_INLINE const unsigned char *
tl_mma_a_at(const unsigned char *wa, unsigned long long adesc, unsigned amn, const unsigned *ta, unsigned a_taddr,
            unsigned e, unsigned i, unsigned k)
{
	if (!ta)
		return wa + tl_mma_addr(adesc, amn, e, i, k);
	return (const unsigned char *)(ta + ((a_taddr >> 16) + i) * TL_EMU_COLS + (a_taddr & 0xffffu) + k * e / 4) +
	       k * e % 4;
}

#ifndef __CUDACC__
// A hash of the bytes an mma reads (every element of A and B through the descriptors), in walk order.
static unsigned
tl_cpu_mma_sum(const unsigned char *wa, unsigned long long adesc, const unsigned *ta, unsigned a_taddr,
               const unsigned char *wb, unsigned long long bdesc, unsigned idesc, unsigned kind)
{
	unsigned m = (idesc >> 24 & 31u) << 4, n = (idesc >> 17 & 63u) << 3, amn = idesc >> 15 & 1u, bmn = idesc >> 16 & 1u;
	unsigned e = kind == 0 ? 2 : kind == 1 ? 4 : 1, kk = 32 / e, h = 2166136261u;
	for (unsigned r = 0; r < m + n; r++)
		for (unsigned k = 0; k < kk; k++) {
			const unsigned char *p = r < m ? tl_mma_a_at(wa, adesc, amn, ta, a_taddr, e, r, k)
			                               : wb + tl_mma_addr(bdesc, bmn, e, r - m, k);
			for (unsigned b = 0; b < e; b++)
				h = (h ^ p[b]) * 16777619u;
		}
	return h;
}
#endif

// The block scale of row r (of A, or of B for b) for a block-scaled mma (TCGEN05.md 15): the byte SF_ID of the
// cell in lane r % 32 + 32 (r / 32 % 4) (every 32-lane partition holds it), column sf + r / 32; ue8m0 (scale
// format bit 23 set) 2^(e - 127), else ue4m3. 1 for a plain mma (sf = ~0u).
TL_EMU_INLINE float
tl_emu_mma_scale(TlEmuCta *c, unsigned sf, unsigned idesc, unsigned r, unsigned b, const char *where)
{
	if (sf == ~0u)
		return 1.0f;
	if ((sf & 0xffffu) + r / 32 >= TL_EMU_COLS) {
		TL_EMU_FAIL(TL_EMU_AT "the scale factors at TMEM address 0x%08x lie outside TMEM\n", TL_EMU_ARGS(where), sf);
		__trap();
	}
	unsigned id = b ? idesc >> 4 & 3u : idesc >> 29 & 3u;
	unsigned cell = (r % 32 + 32 * (r / 32 % 4)) * TL_EMU_COLS + (sf & 0xffffu) + r / 32;
	unsigned char e = (unsigned char)(tl_emu_cp_cell(c, cell, where) >> 8 * id);
	return idesc >> 23 & 1u ? tl_from_ue8m0(e) : tl_from_ue4m3(e);
}

// One element of D: from its cell's word (f32, or the half `half` of an f16 D), for k ascending one __fmaf_rn of
// A[i, k] * B[j, k] each (f32, one rounding), then back to the cell's format (f16: rounded to nearest even once,
// after the instruction's K: TCGEN05.md 15 leaves the internal width undocumented).
TL_EMU_INLINE unsigned
tl_mma_element(unsigned word, unsigned f16_half, unsigned accumulate, const unsigned char *wa, unsigned long long adesc,
               const unsigned *ta, unsigned a_taddr, const unsigned char *wb, unsigned long long bdesc, unsigned idesc,
               unsigned kind, unsigned i, unsigned j, float sa, float sb)
{
	unsigned afmt = idesc >> 7 & 7u, bfmt = idesc >> 10 & 7u, amn = idesc >> 15 & 1u, bmn = idesc >> 16 & 1u;
	unsigned e = kind == 0 ? 2 : kind == 1 ? 4 : 1, kk = 32 / e, f16 = f16_half < 2;
	unsigned short h = (unsigned short)(word >> 16 * (f16_half & 1));
	float d = !accumulate ? -0.0f : f16 ? tl_h2f(h) : __uint_as_float(word);
	for (unsigned k = 0; k < kk; k++)
		d = __fmaf_rn(tl_mma_value(tl_mma_a_at(wa, adesc, amn, ta, a_taddr, e, i, k), kind, afmt) * sa,
		              tl_mma_value(wb + tl_mma_addr(bdesc, bmn, e, j, k), kind, bfmt) * sb, d);
	if (!f16)
		return __float_as_uint(d);
	unsigned shift = 16 * f16_half;
	return (word & ~(0xffffu << shift)) | (unsigned)tl_f2h(d) << shift;
}

// D's cell (row i, 32-bit column cj from its first) from its word: each element of D it holds (two for f16, dfmt
// 0); sa the scale of row i, sb the scales of D's columns (1 for a plain mma).
TL_EMU_INLINE unsigned
tl_mma_cell(unsigned word, unsigned accumulate, const unsigned char *wa, unsigned long long adesc, const unsigned *ta,
            unsigned a_taddr, const unsigned char *wb, unsigned long long bdesc, unsigned idesc, unsigned kind,
            unsigned dfmt, unsigned i, unsigned cj, float sa, const float *sb)
{
	if (dfmt == 1u)
		return tl_mma_element(word, 2, accumulate, wa, adesc, ta, a_taddr, wb, bdesc, idesc, kind, i, cj, sa, sb[cj]);
	for (unsigned half = 0; half < 2; half++)
		word = tl_mma_element(word, half, accumulate, wa, adesc, ta, a_taddr, wb, bdesc, idesc, kind, i, 2 * cj + half,
		                      sa, sb[2 * cj + half]);
	return word;
}

// One tcgen05.mma.cta_group::1 of kind (0 f16, 1 tf32, 2 f8f6f4): A through its descriptor (window wa: the shared
// tensor's first bytes) or, where a_taddr is not ~0u, from TMEM at a_taddr (the ts form); B through its
// descriptor; D at taddr (f32, or f16 two to a cell: the D format field); the instruction descriptor idesc,
// accumulate the predicate; sfa and sfb the TMEM addresses of a block-scaled mma's scale factors (~0u: a plain
// mma): each product of A[i, k] B[j, k] times the scales of row i and column j, as fmaf(a * sa, b * sb, d) (the
// scaling exact for ue8m0 in f32's normal range, LANGUAGE 11.6); a block-scaled instruction descriptor has no D
// format field (D is f32).
TL_EMU_INLINE void
tl_emu_mma_run(TlEmuCta *c, unsigned a_taddr, const void *wa, unsigned long long adesc, const void *wb,
               unsigned long long bdesc, unsigned taddr, unsigned idesc, unsigned kind, unsigned accumulate,
               unsigned sfa, unsigned sfb, const char *where)
{
	unsigned scaled = sfa != ~0u;
	unsigned m = (idesc >> 24 & 31u) << 4, n = (idesc >> 17 & 63u) << 3, amn = idesc >> 15 & 1u;
	unsigned dfmt = scaled ? 1u : idesc >> 4 & 3u;
	float sa[128 + 256], *sb = sa + m; // M and N are at most 128 and 256 (checked below)
	for (unsigned r = 0; r < m + n && m <= 128 && n <= 256; r++)
		sa[r] = tl_emu_mma_scale(c, r < m ? sfa : sfb, idesc, r < m ? r : r - m, r >= m, where);
	unsigned e = kind == 0 ? 2 : kind == 1 ? 4 : 1, ncols = dfmt == 0 ? n / 2 : n;
	unsigned lane0 = taddr >> 16, col0 = taddr & 0xffffu, last = col0 + ncols - 1;
	const unsigned *ta = a_taddr == ~0u ? 0 : c->tmem;
	unsigned a_col0 = a_taddr & 0xffffu, a_last = a_col0 + 8 - 1;
	if (last >= TL_EMU_COLS || !(c->used >> (col0 / 32) & 1) || !(c->used >> (last / 32) & 1) ||
	    (ta && (a_last >= TL_EMU_COLS || !(c->used >> (a_col0 / 32) & 1) || !(c->used >> (a_last / 32) & 1)))) {
		TL_EMU_FAIL(TL_EMU_AT "TMEM columns %u..%u%s are not allocated (in use: 0x%04x, one bit per 32 columns)\n",
		            TL_EMU_ARGS(where), ta ? a_col0 : col0, ta ? a_last : last, ta ? " (D, or A)" : "", c->used);
		__trap();
	}
	if ((m != 64 && m != 128) || n > 256 || lane0 + tl_mma_lane(m, m - 1) >= 128 || dfmt > 1u || (kind == 1 && dfmt != 1u) ||
	    (ta && (m != 128 || amn || (a_taddr >> 16) != 0)) ||
	    (!ta && tl_mma_addr(adesc, amn, e, 0, 0) == 0xffffffffu) || tl_mma_addr(bdesc, idesc >> 16 & 1u, e, 0, 0) == 0xffffffffu) {
		TL_EMU_FAIL(TL_EMU_AT "the instruction descriptor 0x%08x or a shared descriptor (0x%016llx, 0x%016llx) does "
		                      "not fit the mma\n", TL_EMU_ARGS(where), idesc, adesc, bdesc);
		__trap();
	}
	const unsigned char *pa = (const unsigned char *)wa, *pb = (const unsigned char *)wb;
#ifdef __CUDACC__
	for (unsigned i = 0; i < m; i++)
		for (unsigned cj = 0; cj < ncols; cj++) {
			unsigned cell = (lane0 + tl_mma_lane(m, i)) * TL_EMU_COLS + col0 + cj;
			c->tmem[cell] = tl_mma_cell(c->tmem[cell], accumulate, pa, adesc, ta, a_taddr, pb, bdesc, idesc, kind, dfmt, i,
			                            cj, sa[i], sb);
		}
#else
	// A from TMEM: every cell it reads holds a completed value (LANGUAGE 11.6: st waited, cp or mma committed and
	// waited); what tilec could not decide statically stops here
	for (unsigned i = 0; ta && i < m; i++)
		for (unsigned cj = 0; cj < 8; cj++) {
			unsigned cell = i * TL_EMU_COLS + a_col0 + cj;
			if (tl_st_count[cell])
				tl_cpu_fail("tilec emu: %s: the mma reads A from TMEM (lane %u, column %u), which has a store of %s that "
				            "no tcgen05.wait::st has completed\n", where, i, a_col0 + cj,
				            tl_st_where[cell] ? tl_st_where[cell] : "?");
			if (c->ok && c->ok[cell] != 3)
				tl_cpu_fail("tilec emu: %s: the mma reads A from TMEM (lane %u, column %u), which holds no completed "
				            "value (never written, or written by an mma or cp whose commit no wait has seen)\n", where,
				            i, a_col0 + cj);
		}
#ifdef TL_CPU_TMA_CHECK_READ
	// operands that a TMA load brings in a phase not yet completed (tilec_emu_tma.h, in programs with TMA)
	for (unsigned k = 0, kk = 32 / e, bmn = idesc >> 16 & 1u; k < kk; k++) {
		for (unsigned i = 0; !ta && i < m; i++)
			TL_CPU_TMA_CHECK_READ(pa + tl_mma_addr(adesc, amn, e, i, k), e, where);
		for (unsigned j = 0; j < n; j++)
			TL_CPU_TMA_CHECK_READ(pb + tl_mma_addr(bdesc, bmn, e, j, k), e, where);
	}
#endif
	TlCpuMma *p = (TlCpuMma *)calloc(1, sizeof *p);
	unsigned *base = (unsigned *)malloc(sizeof(unsigned) * m * ncols);
	unsigned long long *newest = (unsigned long long *)calloc(m * ncols, sizeof *newest);
	unsigned char *known = (unsigned char *)malloc(m * ncols);
	if (!p || !base || !newest || !known || !(p->cell = (unsigned *)malloc(sizeof(unsigned) * m * ncols)) ||
	    !(p->value = (unsigned *)malloc(sizeof(unsigned) * m * ncols)) || !(p->written = (unsigned char *)malloc(m * ncols)))
		tl_cpu_fail("tilec emu: %s: out of memory\n", where);
	pthread_mutex_lock(&tl_cpu_block->mu);
	p->seq = ++tl_cpu_mma_seq;
	for (unsigned i = 0; i < m; i++)
		for (unsigned j = 0; j < ncols; j++) {
			unsigned cell = (lane0 + tl_mma_lane(m, i)) * TL_EMU_COLS + col0 + j;
			base[i * ncols + j] = c->tmem[cell];
			known[i * ncols + j] = !c->ok || c->ok[cell] == 3;
		}
	// the newest value this thread's earlier mmas left in each cell of D, landed or not
	TlCpuMma *lists[2] = {tl_cpu_mma_issued, tl_cpu_mma_committed};
	for (int l = 0; l < 2; l++)
		for (TlCpuMma *q = lists[l]; q; q = q->next) {
			if (q->owner != &tl_cpu_mma_me || q->tmem != c->tmem)
				continue;
			for (int x = 0; x < q->n; x++) {
				unsigned lane = q->cell[x] / TL_EMU_COLS, col = q->cell[x] % TL_EMU_COLS;
				if (lane < lane0 || col < col0 || col > last)
					continue;
				unsigned r = lane - lane0, i = m == 128 ? r : r / 32 * 16 + r % 32;
				if ((m != 128 && r % 32 >= 16) || i >= m || newest[i * ncols + col - col0] > q->seq)
					continue;
				newest[i * ncols + col - col0] = q->seq;
				base[i * ncols + col - col0] = q->value[x];
				known[i * ncols + col - col0] = q->written[x];
			}
		}
	pthread_mutex_unlock(&tl_cpu_block->mu);
	for (unsigned i = 0; i < m; i++)
		for (unsigned j = 0; j < ncols; j++) {
			unsigned cell = (lane0 + tl_mma_lane(m, i)) * TL_EMU_COLS + col0 + j;
			p->cell[p->n] = cell;
			p->written[p->n] = !accumulate || known[i * ncols + j];
			p->value[p->n++] = tl_mma_cell(base[i * ncols + j], accumulate, pa, adesc, ta, a_taddr, pb, bdesc, idesc, kind,
			                               dfmt, i, j, sa[i], sb);
			if (c->ok)
				c->ok[cell] = 0;
		}
	free(base);
	free(newest);
	free(known);
	p->wa = pa;
	p->wb = pb;
	p->ta = ta;
	p->a_taddr = a_taddr;
	p->adesc = adesc;
	p->bdesc = bdesc;
	p->idesc = idesc;
	p->kind = kind;
	p->where = where;
	p->sum = tl_cpu_mma_sum(pa, adesc, ta, a_taddr, pb, bdesc, idesc, kind);
	p->owner = &tl_cpu_mma_me;
	p->tmem = c->tmem;
	p->ok = c->ok;
	p->next = tl_cpu_mma_issued;
	tl_cpu_mma_issued = p;
#endif
}

// A and B through their descriptors (the ss form).
TL_EMU_INLINE void
tl_emu_mma(TlEmuCta *c, const void *wa, unsigned long long adesc, const void *wb, unsigned long long bdesc,
           unsigned taddr, unsigned idesc, unsigned kind, unsigned accumulate, const char *where)
{
	tl_emu_mma_run(c, ~0u, wa, adesc, wb, bdesc, taddr, idesc, kind, accumulate, ~0u, ~0u, where);
}

// The block-scaled kind::mxf8f6f4 (scale_vec::1X, kind 2's operands), A and B through their descriptors, with its
// scale factors at TMEM addresses sfa and sfb.
TL_EMU_INLINE void
tl_emu_mma_scaled(TlEmuCta *c, const void *wa, unsigned long long adesc, const void *wb, unsigned long long bdesc,
                  unsigned taddr, unsigned idesc, unsigned kind, unsigned accumulate, unsigned sfa, unsigned sfb,
                  const char *where)
{
	tl_emu_mma_run(c, ~0u, wa, adesc, wb, bdesc, taddr, idesc, kind, accumulate, sfa, sfb, where);
}

// A from TMEM at a_taddr, B through its descriptor (the ts form).
TL_EMU_INLINE void
tl_emu_mma_ts(TlEmuCta *c, unsigned a_taddr, const void *wb, unsigned long long bdesc, unsigned taddr, unsigned idesc,
              unsigned kind, unsigned accumulate, const char *where)
{
	tl_emu_mma_run(c, a_taddr, 0, 0, wb, bdesc, taddr, idesc, kind, accumulate, ~0u, ~0u, where);
}

// commit in a program with mmas: the thread's mmas (and cps) attach to the barrier's current phase (those
// attached to another one earlier through a marker), then it arrives.
TL_EMU_INLINE void
tl_emu_mma_commit(unsigned long long *b, const char *name, int index, const char *where)
{
#ifndef __CUDACC__
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, b, name, index, where, false);
	while (tl_cpu_mma_issued) {
		TlCpuMma *p = tl_cpu_mma_issued;
		tl_cpu_mma_issued = p->next;
		p->bar = m; // the model, not the address: each CTA of a cluster has a barrier at that address
		p->phase = m->phase;
		p->next = tl_cpu_mma_committed;
		tl_cpu_mma_committed = p;
	}
	// mmas of this thread committed earlier to another barrier (or phase) and not landed: this commit's arrival
	// also means they completed, so a marker (no cells) on this phase lands them with it when a wait returns
	// (a mainloop's commits to each stage's barrier, then one commit to the accumulator's barrier)
	bool older = false;
	for (TlCpuMma *p = tl_cpu_mma_committed; p; p = p->next)
		older |= p->owner == &tl_cpu_mma_me && (p->bar != m || p->phase != m->phase);
	if (older) {
		TlCpuMma *mark = (TlCpuMma *)calloc(1, sizeof *mark);
		if (!mark)
			tl_cpu_fail("tilec emu: %s: out of memory\n", where);
		mark->seq = ++tl_cpu_mma_seq;
		mark->owner = &tl_cpu_mma_me;
		mark->bar = m;
		mark->phase = m->phase;
		mark->next = tl_cpu_mma_committed;
		tl_cpu_mma_committed = mark;
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
#endif
	tl_emu_cp_commit(b, name, index, where);
}

// A wait in a program with mmas: once it returns, the mmas committed to a completed phase of the barrier land,
// each with every earlier mma of its thread, oldest first.
TL_EMU_INLINE void
tl_emu_mma_wait(unsigned long long *b, const char *name, int index, unsigned parity, const char *where)
{
	tl_emu_cp_wait(b, name, index, parity, where);
#ifndef __CUDACC__
	pthread_mutex_lock(&tl_cpu_block->mu);
	TlCpuMbar *m = tl_cpu_mbar(tl_cpu_block->rank, b, name, index, where, false);
	for (;;) {
		// the newest completed mma on b; then the oldest pending one of its thread up to it lands, one at a time
		TlCpuMma *top = 0;
		for (TlCpuMma *p = tl_cpu_mma_committed; p; p = p->next)
			if (p->bar == m && m->phase > p->phase && (!top || p->seq > top->seq))
				top = p;
		if (!top)
			break;
		for (;;) {
			TlCpuMma **oldest = 0;
			for (TlCpuMma **at = &tl_cpu_mma_committed; *at; at = &(*at)->next)
				if ((*at)->owner == top->owner && (*at)->seq <= top->seq && (!oldest || (*at)->seq < (*oldest)->seq))
					oldest = at;
			if (!oldest)
				break;
			TlCpuMma *p = *oldest;
			if (p->n && (p->wa || p->ta) && tl_cpu_mma_sum(p->wa, p->adesc, p->ta, p->a_taddr, p->wb, p->bdesc, p->idesc, p->kind) != p->sum)
				tl_cpu_fail("tilec emu: %s: %s written after its issue and before a wait on its commit's barrier "
				            "returned (waiting at %s); the tensor core may still have been reading it\n", p->where,
				            p->ta ? "TMEM cells this mma reads as A were" : "a shared tile this mma reads was", where);
			for (int i = 0; i < p->n; i++) {
				p->tmem[p->cell[i]] = p->value[i];
				if (p->ok)
					p->ok[p->cell[i]] = p->written[i] ? 3 : 0;
			}
			*oldest = p->next;
			free(p->cell);
			free(p->value);
			free(p->written);
			free(p);
		}
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
#endif
}

// tcgen05.mma.cta_group::2 with M = 256, issued by the even CTA of the pair (LANGUAGE 11.6): A is the two CTAs'
// [128, K] tiles stacked, B their [N / 2, K] halves, and each CTA's D [128, N] (layout "A", as "D") is its rows of
// the product. That is four mmas of M = 128 and N / 2 (CTA q's rows of D by CTA r's half of B, into columns
// r * N / 2 on), each on the windows and allocator of the CTAs it names (tl_emu_cta_smem), so that the
// arithmetic, the asynchrony and the landing are tl_emu_mma's. The tiles of another CTA are read at the issue:
// the check at the landing that no one wrote them in between is not made for a pair's mma.
TL_EMU_INLINE void
tl_emu_mma_pair(TlEmuCta *c, const void *wa, unsigned long long adesc, const void *wb, unsigned long long bdesc,
                unsigned taddr, unsigned idesc, unsigned kind, unsigned accumulate, const char *where)
{
	unsigned m = (idesc >> 24 & 31u) << 4, n = (idesc >> 17 & 63u) << 3, rank = tl_emu_cluster_rank();
	if (m != 256 || n < 16 || n % 16 || (rank & 1u)) {
		TL_EMU_FAIL(TL_EMU_AT "a cta_group::2 mma with M %u and N %u from CTA rank %u; the emulator runs M = 256, N a "
		                      "multiple of 16, from the even CTA of the pair\n", TL_EMU_ARGS(where), m, n, rank);
		__trap();
	}
	unsigned half = (idesc & ~(31u << 24 | 63u << 17)) | (128u >> 4) << 24 | (n / 2 >> 3) << 17;
	for (unsigned q = 0; q < 2; q++)
		for (unsigned r = 0; r < 2; r++) {
			tl_emu_mma(tl_emu_cta_smem(rank + q, c), tl_emu_cta_smem(rank + q, wa), adesc, tl_emu_cta_smem(rank + r, wb),
			           bdesc, taddr + r * (n / 2), half, kind, accumulate, where);
#ifndef __CUDACC__
			tl_cpu_mma_issued->wa = 0;
#endif
		}
}

// The pair commit in a program with mmas: the thread's mmas attach to the current phase of the barrier of the
// CTA whose tensor memory they write, then its cps do and it arrives on the barrier of both CTAs.
TL_EMU_INLINE void
tl_emu_mma_commit_pair(TlEmuCta *c, unsigned long long *b, const char *name, int index, const char *where)
{
#ifndef __CUDACC__
	pthread_mutex_lock(&tl_cpu_block->mu);
	int rank = tl_cpu_block->rank;
	TlCpuMbar *mine = tl_cpu_mbar(rank, b, name, index, where, false);
	TlCpuMbar *other = tl_cpu_mbar(rank ^ 1, b, name, index, where, false);
	while (tl_cpu_mma_issued) {
		TlCpuMma *p = tl_cpu_mma_issued;
		tl_cpu_mma_issued = p->next;
		TlCpuMbar *m = p->tmem == c->tmem ? mine : other;
		p->bar = m;
		p->phase = m->phase;
		p->next = tl_cpu_mma_committed;
		tl_cpu_mma_committed = p;
	}
	pthread_mutex_unlock(&tl_cpu_block->mu);
#endif
	tl_emu_cp_commit_pair(c, b, name, index, where);
}
