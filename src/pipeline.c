/* pipeline.c: the passes of tilec in their order, and the table of targets (docs/internals.md). */
#include <string.h>

#include "tilec.h"

/* The passes, in the order they run (docs/internals.md says what each reads and writes):
 *
 *   pass              file                what it does                                  through
 *   parse             grammar/parser.y    a file's text into AST items                  pipeline_read
 *   includes          include.c           each include replaced by its file's items     pipeline_read
 *   TMEM plan         tmemplan.c          tmem tensors without `at` placed, their       pipeline_lower
 *                                         alloc / dealloc written into the kernel's AST
 *                                         (lower.c calls it per kernel, its parameters in scope)
 *   checks, lowering  lower.c (sema.c,    the AST checked and lowered into the Program  pipeline_lower
 *                     layout.c, view.c, apply.c, copy.c)
 *   protocol          protocol.c          waits, fences, allocation and uniformity,     pipeline_lower
 *                                         checked as lower.c lowers each statement
 *   code passes       code_passes below   each kernel's statements rewritten for the    pipeline_emit
 *                                         code targets (not for ir: the program as lowered)
 *   TMEM slots        slots.c             the shared slots that hold a TMEM address; the PTX emitter
 *                                         finds them for each kernel (reads, writes nothing)
 *   emission          targets below       the Program as a target's text                pipeline_emit
 */

bool
pipeline_read(const char *path, List *include_dirs, List *items, List *deps)
{
	return include_load(path, include_dirs, items, deps);
}

Program *
pipeline_lower(List *items, const char *source_name, const LowerOptions *opt)
{
	return lower_program_with(items, source_name, opt);
}

/* The code passes, in order (vectorize.c). A new optimisation of the lowered program is one line here. */
static void (*const code_passes[])(KernelIR *k) = {
	drop_dead_stores,   /* register stores that no warp reads */
	per_warp_registers, /* each warp keeps the register words its branches on the warp index use */
	join_dispatches,    /* branches on the warp index joined, and made one code where they differ by the warp */
	vectorize_accesses, /* runs of accesses to consecutive elements made vector accesses */
};

static void
code_passes_over(KernelIR *k)
{
	for (size_t i = 0; i < sizeof code_passes / sizeof code_passes[0]; i++)
		code_passes[i](k);
}

void
pipeline_code_passes(Program *p)
{
	if (p->code_passes_done)
		return;
	for (int i = 0; i < p->kernels.n; i++)
		code_passes_over(LIST_AT(p->kernels, KernelIR, i));
	for (int i = 0; i < p->devices.n; i++)
		code_passes_over(LIST_AT(p->devices, KernelIR, i));
	p->code_passes_done = true;
}

/* The targets. A new target is one row here: its emitter, in a file of its own, takes the Program. */
static const Target targets[] = {
	{"cuda", ".cu", emit_cuda, true, "nvcc"},
	{"cuh", ".cuh", emit_cuh, true, NULL},
	{"emu", ".cu", emit_emu, true, NULL},
	{"emu-cuh", ".cuh", emit_emu_cuh, true, NULL},
	{"ptx", ".ptx", emit_ptx, true, "ptxas"},
	{"ir", ".ir", emit_ir, false, NULL},
};

const Target *
target_named(const char *name)
{
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

bool
pipeline_emit(Program *p, const Target *target, const TargetOptions *opt, Buf *out)
{
	if (target->code_passes)
		pipeline_code_passes(p);
	return target->emit(p, opt, out);
}
