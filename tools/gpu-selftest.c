/* gpu-selftest.c: load a tilec module, show its launch configuration and the device, and launch one kernel. */
#include <stdio.h>
#include <stdlib.h>

#include "tilert.h"

/* Exit codes: 0 the kernel ran, 1 something failed (the message says what), 2 usage. */
static int
failed(tilert_ctx *ctx)
{
	fflush(stdout); /* keep what was printed before the message when both go to one pipe */
	fprintf(stderr, "gpu-selftest: %s\n", tilert_last_error());
	tilert_destroy(ctx);
	return 1;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gpu-selftest FILE.cubin|FILE.ptx KERNEL\n");
		return 2;
	}
	const char *path = argv[1], *name = argv[2];
	tilert_ctx *ctx = NULL;
	tilert_module *module;
	tilert_kernel *kernel;
	char device[256];
	int major, minor;
	unsigned grid[3], block[3];
	if (tilert_init(&ctx, 0) || tilert_device_name(ctx, device, sizeof device) ||
	    tilert_device_cc(ctx, &major, &minor))
		return failed(ctx);
	printf("device 0: %s (sm_%d%d)\n", device, major, minor);
	if (tilert_module_load_file(ctx, path, &module) || tilert_kernel_get(module, name, &kernel) ||
	    tilert_kernel_dims(kernel, grid, block))
		return failed(ctx);
	printf("kernel %s: grid %u x %u x %u, block %u x %u x %u\n", name, grid[0], grid[1], grid[2], block[0],
	       block[1], block[2]);
	fflush(stdout);
	if (tilert_kernel_launch(kernel, NULL))
		return failed(ctx);
	printf("kernel %s: launched and synchronized\n", name);
	if (tilert_destroy(ctx)) {
		fprintf(stderr, "gpu-selftest: %s\n", tilert_last_error());
		return 1;
	}
	return 0;
}
