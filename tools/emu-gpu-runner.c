/* emu-gpu-runner.c: runs a --target=emu kernel on a GPU through libtilert with the inputs that
 * `tilec run --dump DIR` wrote, and writes what the kernel left in each tensor for comparison.
 *
 *   emu-gpu-runner MODULE.cubin DIR
 *
 * DIR/manifest names the kernel and its parameters in order:
 *   kernel NAME
 *   seed S
 *   tensor INDEX NAME TYPE ELEMENT_BYTES COUNT     (its values before the run: DIR/INDEX.in)
 *   scalar INDEX NAME TYPE BYTES 0xBITS            (the bits of its C value, little end first)
 * It writes DIR/INDEX.gpu for each tensor and prints one line per tensor, `NAME: fnv64 HEX`, the
 * FNV-1a hash that `tilec run` prints. Launches with the kernel's carried configuration.
 * Build: cc -std=c11 -Iruntime tools/emu-gpu-runner.c build/libtilert.a -ldl
 * Exit status: 0 ok, 1 a failure (message on stderr). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilert.h"

#define MAX_PARAMS 64

typedef struct Param {
	int is_tensor;
	char name[128], type[16];
	size_t size, count;
	unsigned bits;
	void *host;
	tilert_dev_ptr dev;
	unsigned long long value; /* a scalar's bytes */
} Param;

static void *
read_all(const char *path, size_t want)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "emu-gpu-runner: cannot open %s\n", path);
		return NULL;
	}
	void *p = calloc(want ? want : 1, 1);
	size_t got = p ? fread(p, 1, want, f) : 0;
	fclose(f);
	if (!p || got != want) {
		fprintf(stderr, "emu-gpu-runner: %s: expected %zu bytes, read %zu\n", path, want, got);
		free(p);
		return NULL;
	}
	return p;
}

static unsigned long long
fnv64(const unsigned char *p, size_t n)
{
	unsigned long long h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: emu-gpu-runner MODULE.cubin DIR\n");
		return 2;
	}
	const char *dir = argv[2];
	char path[4096], line[1024], kernel_name[256] = "";
	Param params[MAX_PARAMS];
	int n = 0;
	memset(params, 0, sizeof params);
	snprintf(path, sizeof path, "%s/manifest", dir);
	FILE *m = fopen(path, "r");
	if (!m) {
		fprintf(stderr, "emu-gpu-runner: cannot open %s\n", path);
		return 1;
	}
	while (fgets(line, sizeof line, m)) {
		int index;
		Param p = {0};
		if (sscanf(line, "kernel %255s", kernel_name) == 1)
			continue;
		if (sscanf(line, "tensor %d %127s %15s %zu %zu", &index, p.name, p.type, &p.size, &p.count) == 5)
			p.is_tensor = 1;
		else if (sscanf(line, "scalar %d %127s %15s %zu %x", &index, p.name, p.type, &p.size, &p.bits) != 5)
			continue;
		if (index != n || n >= MAX_PARAMS) {
			fprintf(stderr, "emu-gpu-runner: %s: parameter %d out of order\n", path, index);
			fclose(m);
			return 1;
		}
		params[n++] = p;
	}
	fclose(m);
	if (!kernel_name[0]) {
		fprintf(stderr, "emu-gpu-runner: %s names no kernel\n", path);
		return 1;
	}

	tilert_ctx *ctx = NULL;
	tilert_module *mod;
	tilert_kernel *k;
	int rc = 1;
	void *args[MAX_PARAMS];
	if (tilert_init(&ctx, 0) || tilert_module_load_file(ctx, argv[1], &mod) || tilert_kernel_get(mod, kernel_name, &k)) {
		fprintf(stderr, "%s\n", tilert_last_error());
		goto out;
	}
	for (int i = 0; i < n; i++) {
		Param *p = &params[i];
		if (!p->is_tensor) {
			memcpy(&p->value, &p->bits, p->size); /* the low bytes, on a little-endian host */
			args[i] = &p->value;
			continue;
		}
		size_t bytes = p->size * p->count;
		snprintf(path, sizeof path, "%s/%d.in", dir, i);
		if (!(p->host = read_all(path, bytes)))
			goto out;
		if (tilert_alloc(ctx, bytes, &p->dev) || tilert_copy_to_device(ctx, p->dev, p->host, bytes)) {
			fprintf(stderr, "%s\n", tilert_last_error());
			goto out;
		}
		args[i] = &p->dev;
	}
	if (tilert_kernel_launch(k, n ? args : NULL)) {
		fprintf(stderr, "%s\n", tilert_last_error());
		goto out;
	}
	for (int i = 0; i < n; i++) {
		Param *p = &params[i];
		if (!p->is_tensor)
			continue;
		size_t bytes = p->size * p->count;
		if (tilert_copy_to_host(ctx, p->host, p->dev, bytes)) {
			fprintf(stderr, "%s\n", tilert_last_error());
			goto out;
		}
		snprintf(path, sizeof path, "%s/%d.gpu", dir, i);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(p->host, 1, bytes, f) != bytes || fclose(f) != 0) {
			fprintf(stderr, "emu-gpu-runner: cannot write %s\n", path);
			goto out;
		}
		printf("%s: fnv64 %016llx\n", p->name, fnv64(p->host, bytes));
	}
	rc = 0;
out:
	for (int i = 0; i < n; i++)
		free(params[i].host);
	tilert_destroy(ctx);
	return rc;
}
