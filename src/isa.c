/* isa.c: the one table of the tcgen05 instructions other than ld / st (image.c has those) and of the
 * architectures tilec compiles for; every spelling of them in the compiler comes from here. */
#include <string.h>

#include "tilec.h"

/* TCGEN05.md sections 4 and 5. The spelling is "tcgen05." NAME [".cta_group::" 1|2] SUFFIX. */
static const IsaInstr instrs[] = {
	{TC_ALLOC, "alloc", true, ".sync.aligned.shared::cta.b32", 2, {IO_SHARED_SLOT, IO_NCOLS}, true, true,
	 EFF_ALLOCATES, "allocates columns for the CTA; one warp; not after relinquish_alloc_permit"},
	{TC_DEALLOC, "dealloc", true, ".sync.aligned.b32", 2, {IO_TMEM_ADDR, IO_NCOLS}, true, true,
	 EFF_FREES, "frees an allocation; one warp; its tensors are dead afterwards"},
	{TC_RELINQUISH, "relinquish_alloc_permit", true, ".sync.aligned", 0, {0}, true, false,
	 EFF_RELINQUISHES, "gives up the CTA's right to allocate"},
	{TC_WAIT_LD, "wait::ld", false, ".sync.aligned", 0, {0}, true, false,
	 EFF_COMPLETES_LOADS, "the warp's tcgen05.ld results are in its registers"},
	{TC_WAIT_ST, "wait::st", false, ".sync.aligned", 0, {0}, true, false,
	 EFF_COMPLETES_STORES, "the warp's tcgen05.st writes are in tensor memory"},
	{TC_FENCE_BEFORE, "fence::before_thread_sync", false, "", 0, {0}, false, false,
	 EFF_ORDERS, "orders the tcgen05 work before it against a following thread sync"},
	{TC_FENCE_AFTER, "fence::after_thread_sync", false, "", 0, {0}, false, false,
	 EFF_ORDERS, "orders the tcgen05 work after it against a preceding thread sync"},
};

/* The lowest PTX ISA version that ptxas (CUDA 13.0) accepts for each target with every tcgen05
 * instruction tilec emits: tcgen05 needs 8.6; the f variants of sm_100 and both of sm_103 need 8.8;
 * sm_110 needs 9.0 (each checked with `ptxas -arch=...` on the lower versions, which it rejects).
 * The first row is the default. */
static const Arch archs[] = {
	{"sm_100a", "8.6"}, {"sm_100f", "8.8"}, {"sm_103a", "8.8"},
	{"sm_103f", "8.8"}, {"sm_110a", "9.0"}, {"sm_110f", "9.0"},
};

int isa_count(void) { return (int)(sizeof instrs / sizeof instrs[0]); }
const IsaInstr *isa_at(int i) { return &instrs[i]; }

const IsaInstr *
isa_instr(TcKind kind)
{
	for (int i = 0; i < isa_count(); i++)
		if (instrs[i].kind == kind)
			return &instrs[i];
	fatal("isa_instr: tcgen05 kind %d has no row", (int)kind);
}

const IsaInstr *
isa_parse(const char *text, int *cta_group)
{
	static const char prefix[] = "tcgen05.";
	size_t np = sizeof prefix - 1;
	if (strncmp(text, prefix, np) != 0)
		return NULL;
	for (int i = 0; i < isa_count(); i++) {
		const IsaInstr *in = &instrs[i];
		const char *p = text + np;
		size_t n = strlen(in->name);
		if (strncmp(p, in->name, n) != 0)
			continue;
		p += n;
		int group = 0;
		if (in->cta_group) {
			static const char cg[] = ".cta_group::";
			if (strncmp(p, cg, sizeof cg - 1) != 0 || (p[sizeof cg - 1] != '1' && p[sizeof cg - 1] != '2'))
				continue;
			group = p[sizeof cg - 1] - '0';
			p += sizeof cg;
		}
		if (strcmp(p, in->suffix) == 0) {
			if (cta_group)
				*cta_group = group;
			return in;
		}
	}
	return NULL;
}

/* "alloc, dealloc, ... and the two thread_sync fences": the names of the rows, the fences summed up. */
const char *
isa_known(void)
{
	static const char *const count[] = {"no", "one", "two", "three", "four"};
	Buf b = {0};
	int fences = 0;
	for (int i = 0; i < isa_count(); i++) {
		if (instrs[i].effect == EFF_ORDERS)
			fences++;
		else
			buf_printf(&b, "%s%s", b.len ? ", " : "", instrs[i].name);
	}
	if (fences)
		buf_printf(&b, " and the %s thread_sync fence%s", fences < 5 ? count[fences] : "several", fences == 1 ? "" : "s");
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}

const char *
isa_name(TcKind kind, int cta_group)
{
	const IsaInstr *in = isa_instr(kind);
	if (in->cta_group && cta_group)
		return pool_printf("tcgen05.%s.cta_group::%d", in->name, cta_group);
	return pool_printf("tcgen05.%s", in->name);
}

const char *
isa_spelling(TcKind kind, int cta_group)
{
	return pool_printf("%s%s", isa_name(kind, cta_group), isa_instr(kind)->suffix);
}

const Arch *
arch_find(const char *name)
{
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		if (strcmp(name, archs[i].name) == 0)
			return &archs[i];
	return NULL;
}

const Arch *
arch_default(void)
{
	return &archs[0];
}

const char *
arch_list(const char *after_default)
{
	Buf b = {0};
	for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
		buf_printf(&b, "%s%s%s", i ? ", " : "", archs[i].name, i ? "" : after_default);
	const char *r = pool_strdup(b.data);
	buf_free(&b);
	return r;
}
