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
/* Launch with the carried grid and block, no dynamic shared memory, on the default stream, then synchronize.
 * args is cuLaunchKernel's kernelParams: one pointer to each argument's value; NULL for no arguments. */
int tilert_kernel_launch(tilert_kernel *kernel, void **args);
/* Launch with an explicit configuration, then synchronize. */
int tilert_kernel_launch_ex(tilert_kernel *kernel, const unsigned grid[3], const unsigned block[3],
                            unsigned shared_bytes, void **args);

int tilert_alloc(tilert_ctx *ctx, size_t bytes, tilert_dev_ptr *out);
/* Freeing 0 is a no-op. */
int tilert_free(tilert_ctx *ctx, tilert_dev_ptr ptr);
int tilert_copy_to_device(tilert_ctx *ctx, tilert_dev_ptr dst, const void *src, size_t bytes);
int tilert_copy_to_host(tilert_ctx *ctx, void *dst, tilert_dev_ptr src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
