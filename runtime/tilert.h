/* tilert.h: libtilert, a small host library that loads and launches tilec kernels through the CUDA Driver API. */
#ifndef TILERT_H
#define TILERT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every function returns one of these; 0 is success. On failure a message that says what went wrong
 * (and which file, kernel or driver call) is left for tilert_last_error on the calling thread.
 */
enum {
	TILERT_OK = 0,
	TILERT_ERR_ARG = 1,        /* a NULL or otherwise invalid argument */
	TILERT_ERR_NO_DRIVER = 2,  /* libcuda.so.1 could not be loaded or lacks an entry point */
	TILERT_ERR_FILE = 3,       /* a module file is missing, unreadable, empty or not a cubin/PTX */
	TILERT_ERR_CUDA = 4,       /* a Driver API call failed */
	TILERT_ERR_NO_LAUNCH = 5,  /* the kernel carries no tilec_launch_<name> configuration */
	TILERT_ERR_NOMEM = 6,      /* host memory ran out */
};

typedef struct tilert_ctx tilert_ctx;
typedef struct tilert_module tilert_module;
typedef struct tilert_kernel tilert_kernel;
typedef unsigned long long tilert_dev_ptr;

/* The message of the last failure on this thread, "" if none; never NULL. Successful calls leave it alone. */
const char *tilert_last_error(void);

/* Load the driver (once per process), create a context on device `device` and make it current. */
int tilert_init(tilert_ctx **out, int device);
/* Unload the context's remaining modules and destroy it; its device memory goes with it. NULL is a no-op. */
int tilert_destroy(tilert_ctx *ctx);

int tilert_device_name(tilert_ctx *ctx, char *buf, size_t len);
int tilert_device_cc(tilert_ctx *ctx, int *major, int *minor);

/* Load a .cubin (ELF) or .ptx (text) module; the file is read and checked before the driver is touched. */
int tilert_module_load_file(tilert_ctx *ctx, const char *path, tilert_module **out);
/* The same from memory; a PTX image need not be NUL-terminated within `size`. */
int tilert_module_load_data(tilert_ctx *ctx, const void *image, size_t size, tilert_module **out);
/* Unload a module; the kernels taken from it become invalid. NULL is a no-op. */
int tilert_module_unload(tilert_module *module);

/* Find kernel `name` and read its tilec_launch_<name> launch configuration if the module carries one.
 * The kernel belongs to the module: it needs no freeing and lives until the module is unloaded. */
int tilert_kernel_get(tilert_module *module, const char *name, tilert_kernel **out);
/* The carried grid and block; TILERT_ERR_NO_LAUNCH if the module carried none. */
int tilert_kernel_dims(tilert_kernel *kernel, unsigned grid[3], unsigned block[3]);
/* The kernel's thread-block cluster (tilec_cluster_<name>, from `cluster = ...` in its launch), 1, 1, 1 without one. */
int tilert_kernel_cluster(tilert_kernel *kernel, unsigned cluster[3]);
/* Launch with the carried grid and block (and cluster: the grid must be a whole number of clusters, else
 * TILERT_ERR_ARG), no dynamic shared memory but the bytes of tilec_shared_<name> where the module carries it
 * (an emulation build's shared tensors), on the default stream, then synchronize.
 * args is cuLaunchKernel's kernelParams: one pointer to each argument's value; NULL for no arguments. */
int tilert_kernel_launch(tilert_kernel *kernel, void **args);
/* Launch with an explicit grid and block (and the kernel's cluster), then synchronize; shared_bytes raised to
 * tilec_shared_<name> where that is more. */
int tilert_kernel_launch_ex(tilert_kernel *kernel, const unsigned grid[3], const unsigned block[3],
                            unsigned shared_bytes, void **args);

/*
 * A grid that depends on the kernel's scalar parameters (`grid = ((N + 127) / 128, M)`) is carried as
 * tilec_launch_<name> with 0 in those dimensions and tilec_grid_<name>, a program for each of x, y and
 * z in turn: words of a stack machine on 32-bit values, each dimension's ending with TILERT_GP_END (a
 * constant dimension's program is TILERT_GP_END alone). TILERT_GP_CONST and TILERT_GP_PARAM take
 * one more word: the value, or (parameter index << 8) | TILERT_GP_I32 ... TILERT_GP_U8. Binary
 * operations pop b then a and push a op b with C's 32-bit meaning; SELECT pops c, b, a and pushes a ? b : c.
 * SKIPZ and SKIP take one more word, a count W: SKIPZ pops a value and, when it is 0, skips the next W
 * words; SKIP skips them always. They evaluate only the chosen side of ?:, && and || (as C does: the
 * other side may divide by zero).
 */
#define TILERT_GP_STACK 64 /* the values a grid program may hold at once */
enum {
	TILERT_GP_END, TILERT_GP_CONST, TILERT_GP_PARAM,
	TILERT_GP_NEG, TILERT_GP_NOT, TILERT_GP_BITNOT, TILERT_GP_ABS,
	TILERT_GP_SEXT8, TILERT_GP_ZEXT8, TILERT_GP_SEXT16, TILERT_GP_ZEXT16,
	TILERT_GP_ADD, TILERT_GP_SUB, TILERT_GP_MUL, TILERT_GP_DIV, TILERT_GP_DIVU, TILERT_GP_REM, TILERT_GP_REMU,
	TILERT_GP_SHL, TILERT_GP_SHR, TILERT_GP_SHRU, TILERT_GP_AND, TILERT_GP_OR, TILERT_GP_XOR,
	TILERT_GP_LT, TILERT_GP_LTU, TILERT_GP_LE, TILERT_GP_LEU, TILERT_GP_GT, TILERT_GP_GTU, TILERT_GP_GE,
	TILERT_GP_GEU, TILERT_GP_EQ, TILERT_GP_NE, TILERT_GP_LAND, TILERT_GP_LOR,
	TILERT_GP_MIN, TILERT_GP_MINU, TILERT_GP_MAX, TILERT_GP_MAXU, TILERT_GP_SELECT, TILERT_GP_SKIPZ, TILERT_GP_SKIP,
	TILERT_GP_COUNT
};
/* The kinds of a TILERT_GP_PARAM: how many bytes args[i] points to, and their signedness. */
enum { TILERT_GP_I32, TILERT_GP_U32, TILERT_GP_I16, TILERT_GP_U16, TILERT_GP_I8, TILERT_GP_U8 };

/* Runs a grid program (n words) on cuLaunchKernel-style args, an array of nargs pointers (the kernel's
 * parameters); fills grid[d] for each dimension whose program is not empty. TILERT_ERR_ARG for a
 * malformed program (a parameter index of nargs or more among them), a division by zero, a shift
 * by 32 or more (undefined, as tilec run says), or a dimension that is not from 1 to 2^31 - 1. */
int tilert_grid_eval(const unsigned *prog, size_t n, void **args, size_t nargs, unsigned grid[3]);

/*
 * A kernel whose tensor parameters promise `align N` (tilec's language.md, The alignment promise) carries
 * tilec_align_<name>: per promise the parameter's index, N, the element's bytes, the length of the
 * parameter's name and the name (four bytes a word, the first in the low byte), the number of its outer
 * strides known only at launch and a grid-style program for each (ending with TILERT_GP_END). Before each
 * launch, tilert_kernel_launch and tilert_kernel_launch_ex check the promises against args.
 * tilert_align_check does it alone: TILERT_ERR_ARG, naming the kernel, the parameter and the value, for a
 * pointer (args[index], 8 bytes) that is no multiple of N, a stride whose bytes are not, or a malformed
 * program (a parameter index of nargs or more among them).
 */
int tilert_align_check(const char *kernel, const unsigned *prog, size_t n, void **args, size_t nargs);

int tilert_alloc(tilert_ctx *ctx, size_t bytes, tilert_dev_ptr *out);
/* Freeing 0 is a no-op. */
int tilert_free(tilert_ctx *ctx, tilert_dev_ptr ptr);
int tilert_copy_to_device(tilert_ctx *ctx, tilert_dev_ptr dst, const void *src, size_t bytes);
int tilert_copy_to_host(tilert_ctx *ctx, void *dst, tilert_dev_ptr src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
