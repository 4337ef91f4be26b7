/* tilert.c: libtilert, loading libcuda.so.1 at run time and wrapping the few Driver API calls a tilec kernel needs. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilert.h"
#include "tilec_tensormap.h"

/*
 * The Driver API types we use, declared here rather than taken from cuda.h so that the library builds
 * without the CUDA toolkit. The layouts are the driver's stable ABI: handles are opaque pointers,
 * CUdeviceptr is 64 bits on every 64-bit platform, enums are passed as int.
 */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_NOT_FOUND = 500,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
	CU_JIT_ERROR_LOG_BUFFER = 5,
	CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* cuLaunchKernelEx's configuration (CUDA 12.0): an attribute is its id, padding to 8 bytes and a 64-byte union. */
typedef struct {
	int id;
	char pad[4];
	union {
		char pad[64];
		unsigned long long align;
		struct {
			unsigned x, y, z;
		} cluster_dim;
	} value;
} CUlaunchAttribute;

typedef struct {
	unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared;
	CUstream stream;
	CUlaunchAttribute *attrs;
	unsigned nattrs;
} CUlaunchConfig;

/* Above this much dynamic shared memory a kernel must opt in with cuFuncSetAttribute before launching. */
#define DEFAULT_SHARED_LIMIT (48u * 1024u)

#define EM_CUDA 190
#define FATBIN_MAGIC 0xBA55ED50u

typedef struct {
	void *handle;
	CUresult (*cuInit)(unsigned flags);
	CUresult (*cuDeviceGetCount)(int *count);
	CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice dev);
	CUresult (*cuCtxCreate)(CUcontext *ctx, unsigned flags, CUdevice dev);
	CUresult (*cuCtxDestroy)(CUcontext ctx);
	CUresult (*cuCtxSetCurrent)(CUcontext ctx);
	CUresult (*cuCtxSynchronize)(void);
	CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
	CUresult (*cuMemFree)(CUdeviceptr ptr);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*cuModuleLoadData)(CUmodule *mod, const void *image);
	CUresult (*cuModuleLoadDataEx)(CUmodule *mod, const void *image, unsigned nopts, int *opts, void **values);
	CUresult (*cuModuleUnload)(CUmodule mod);
	CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*cuModuleGetGlobal)(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name);
	CUresult (*cuFuncSetAttribute)(CUfunction fn, int attrib, int value);
	CUresult (*cuFuncGetParamInfo)(CUfunction fn, size_t index, size_t *offset, size_t *size);
	CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
	                           unsigned bz, unsigned shared, CUstream stream, void **params, void **extra);
	CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction fn, void **params, void **extra);
	CUresult (*cuGetErrorName)(CUresult r, const char **name);
	CUresult (*cuGetErrorString)(CUresult r, const char **str);
	/* CUDA 12.0; the enums of cuda.h passed as int, the map as its 128 bytes */
	tilec_tensormap_encoder cuTensorMapEncodeTiled;
} Driver;

/* The versioned names are the ones cuda.h maps the plain names to; the plain symbols are the old ABI. */
static const struct {
	const char *name;
	size_t offset;
	bool required;
} symbols[] = {
	{"cuInit", offsetof(Driver, cuInit), true},
	{"cuDeviceGetCount", offsetof(Driver, cuDeviceGetCount), false},
	{"cuDeviceGet", offsetof(Driver, cuDeviceGet), true},
	{"cuDeviceGetName", offsetof(Driver, cuDeviceGetName), true},
	{"cuDeviceGetAttribute", offsetof(Driver, cuDeviceGetAttribute), true},
	{"cuCtxCreate_v2", offsetof(Driver, cuCtxCreate), true},
	{"cuCtxDestroy_v2", offsetof(Driver, cuCtxDestroy), true},
	{"cuCtxSetCurrent", offsetof(Driver, cuCtxSetCurrent), true},
	{"cuCtxSynchronize", offsetof(Driver, cuCtxSynchronize), true},
	{"cuMemAlloc_v2", offsetof(Driver, cuMemAlloc), true},
	{"cuMemFree_v2", offsetof(Driver, cuMemFree), true},
	{"cuMemcpyHtoD_v2", offsetof(Driver, cuMemcpyHtoD), true},
	{"cuMemcpyDtoH_v2", offsetof(Driver, cuMemcpyDtoH), true},
	{"cuModuleLoadData", offsetof(Driver, cuModuleLoadData), true},
	{"cuModuleLoadDataEx", offsetof(Driver, cuModuleLoadDataEx), true},
	{"cuModuleUnload", offsetof(Driver, cuModuleUnload), true},
	{"cuModuleGetFunction", offsetof(Driver, cuModuleGetFunction), true},
	{"cuModuleGetGlobal_v2", offsetof(Driver, cuModuleGetGlobal), true},
	{"cuFuncSetAttribute", offsetof(Driver, cuFuncSetAttribute), false},
	{"cuFuncGetParamInfo", offsetof(Driver, cuFuncGetParamInfo), false},
	{"cuLaunchKernel", offsetof(Driver, cuLaunchKernel), true},
	{"cuLaunchKernelEx", offsetof(Driver, cuLaunchKernelEx), false},
	{"cuGetErrorName", offsetof(Driver, cuGetErrorName), false},
	{"cuGetErrorString", offsetof(Driver, cuGetErrorString), false},
	{"cuTensorMapEncodeTiled", offsetof(Driver, cuTensorMapEncodeTiled), false},
};

/* Storing dlsym's void * into a function pointer slot relies on POSIX's guarantee that they have one size. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function and object pointers differ in size");

struct tilert_ctx {
	Driver *drv;
	CUcontext cu;
	CUdevice dev;
	int ordinal;
	int major, minor;
	char name[256];
	tilert_module *modules;
};

struct tilert_module {
	tilert_ctx *ctx;
	CUmodule cu;
	char *source; /* the file name, or "module image", for messages */
	tilert_kernel *kernels;
	tilert_module *prev, *next;
};

struct tilert_kernel {
	tilert_module *module;
	CUfunction fn;
	char *name;
	bool has_dims;
	unsigned grid[3], block[3];
	unsigned *grid_prog; /* tilec_grid_<name>: the grid dimensions computed at launch, or NULL */
	size_t grid_prog_n;
	size_t nparams; /* the kernel's parameters (cuFuncGetParamInfo), SIZE_MAX where the driver cannot say */
	unsigned *align_prog; /* tilec_align_<name>: the tensor parameters' align promises, or NULL */
	size_t align_prog_n;
	unsigned cluster[3]; /* tilec_cluster_<name>, 1 x 1 x 1 without one */
	bool has_cluster;
	unsigned *tma_prog; /* tilec_tma_<name>: the tensor maps encoded at launch (launch.c's tma_program), or NULL */
	size_t tma_prog_n;
	unsigned dynamic_shared; /* tilec_shared_<name>: the dynamic shared memory every launch needs (emulation builds) */
	tilert_kernel *next;
};

typedef enum { IMG_CUBIN, IMG_PTX, IMG_FATBIN } ImageKind;

/* Per thread, so that concurrent callers (each with its own context) never read each other's message. */
static _Thread_local char last_error[8192];

/* Loaded once and kept for the life of the process; published atomically so racing first calls agree. */
static _Atomic(Driver *) the_driver;

const char *
tilert_last_error(void)
{
	return last_error;
}

static int
fail(int status, const char *fmt, ...)
{
	int n = snprintf(last_error, sizeof last_error, "tilert: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
	va_end(ap);
	return status;
}

static void
append_error(const char *fmt, ...)
{
	size_t n = strlen(last_error);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error + n, sizeof last_error - n, fmt, ap);
	va_end(ap);
}

/* CUDA_ERROR_xxx: text, falling back to the number when the driver cannot name it (or is too old to try). */
static void
describe(CUresult r, char *buf, size_t len)
{
	Driver *d = atomic_load(&the_driver);
	const char *name = NULL, *str = NULL;
	if (d && d->cuGetErrorName && d->cuGetErrorName(r, &name) != CUDA_SUCCESS)
		name = NULL;
	if (d && d->cuGetErrorString && d->cuGetErrorString(r, &str) != CUDA_SUCCESS)
		str = NULL;
	if (name && str)
		snprintf(buf, len, "%s: %s", name, str);
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "CUDA error %d", r);
}

/* "cuXxx failed: CUDA_ERROR_yyy: text (context)"; fmt may be NULL when the call needs no context. */
static int
cuda_fail(CUresult r, const char *call, const char *fmt, ...)
{
	char what[512], context[1024] = "";
	describe(r, what, sizeof what);
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(context, sizeof context, fmt, ap);
		va_end(ap);
	}
	return fail(TILERT_ERR_CUDA, "%s failed: %s%s%s%s", call, what, fmt ? " (" : "", context, fmt ? ")" : "");
}

static char *
dup_string(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* Failures are not cached: a later call retries, which lets a test change TILERT_LIBCUDA between calls. */
static int
load_driver(Driver **out)
{
	Driver *d = atomic_load(&the_driver);
	if (d) {
		*out = d;
		return TILERT_OK;
	}
	const char *lib = getenv("TILERT_LIBCUDA");
	if (!lib || !*lib)
		lib = "libcuda.so.1";
	dlerror();
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		return fail(TILERT_ERR_NO_DRIVER, "cannot load %s: %s; is an NVIDIA driver installed?", lib,
		            why ? why : "unknown error");
	}
	d = calloc(1, sizeof *d);
	if (!d) {
		dlclose(h);
		return fail(TILERT_ERR_NOMEM, "out of memory");
	}
	d->handle = h;
	for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
		void *p = dlsym(h, symbols[i].name);
		if (!p && symbols[i].required) {
			dlclose(h);
			free(d);
			return fail(TILERT_ERR_NO_DRIVER, "%s has no entry point %s; is the NVIDIA driver too old?", lib,
			            symbols[i].name);
		}
		memcpy((char *)d + symbols[i].offset, &p, sizeof p);
	}
	Driver *expected = NULL;
	if (!atomic_compare_exchange_strong(&the_driver, &expected, d)) {
		dlclose(h);
		free(d);
		d = expected;
	}
	*out = d;
	return TILERT_OK;
}

/* A context is current per thread; making it current on every call lets callers hop between threads. */
static int
make_current(tilert_ctx *ctx)
{
	CUresult r = ctx->drv->cuCtxSetCurrent(ctx->cu);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuCtxSetCurrent", "device %d", ctx->ordinal);
	return TILERT_OK;
}

int
tilert_init(tilert_ctx **out, int device)
{
	if (!out)
		return fail(TILERT_ERR_ARG, "tilert_init: out is NULL");
	*out = NULL;
	if (device < 0)
		return fail(TILERT_ERR_ARG, "tilert_init: device %d is negative", device);
	Driver *d = NULL;
	int status = load_driver(&d);
	if (status)
		return status;
	CUresult r = d->cuInit(0);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuInit", NULL);
	int count = 0;
	if (d->cuDeviceGetCount && d->cuDeviceGetCount(&count) == CUDA_SUCCESS && device >= count)
		return fail(TILERT_ERR_ARG, "tilert_init: device %d does not exist; this machine has %d CUDA device%s",
		            device, count, count == 1 ? "" : "s");
	tilert_ctx *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return fail(TILERT_ERR_NOMEM, "out of memory");
	ctx->drv = d;
	ctx->ordinal = device;
	if ((r = d->cuDeviceGet(&ctx->dev, device)) != CUDA_SUCCESS) {
		status = cuda_fail(r, "cuDeviceGet", "device %d", device);
		goto out;
	}
	if ((r = d->cuDeviceGetName(ctx->name, (int)sizeof ctx->name, ctx->dev)) != CUDA_SUCCESS) {
		status = cuda_fail(r, "cuDeviceGetName", "device %d", device);
		goto out;
	}
	if ((r = d->cuDeviceGetAttribute(&ctx->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->dev)) ||
	    (r = d->cuDeviceGetAttribute(&ctx->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->dev))) {
		status = cuda_fail(r, "cuDeviceGetAttribute", "compute capability of device %d", device);
		goto out;
	}
	if ((r = d->cuCtxCreate(&ctx->cu, 0, ctx->dev)) != CUDA_SUCCESS) {
		status = cuda_fail(r, "cuCtxCreate", "device %d", device);
		goto out;
	}
	*out = ctx;
	return TILERT_OK;
out:
	free(ctx);
	return status;
}

static void
free_module(tilert_module *m)
{
	while (m->kernels) {
		tilert_kernel *k = m->kernels;
		m->kernels = k->next;
		free(k->name);
		free(k->grid_prog);
		free(k->tma_prog);
		free(k->align_prog);
		free(k);
	}
	if (m->prev)
		m->prev->next = m->next;
	else
		m->ctx->modules = m->next;
	if (m->next)
		m->next->prev = m->prev;
	free(m->source);
	free(m);
}

int
tilert_destroy(tilert_ctx *ctx)
{
	if (!ctx)
		return TILERT_OK;
	Driver *d = ctx->drv;
	int status = make_current(ctx);
	/* Destroying the context unloads its modules with it; only our bookkeeping needs freeing. */
	while (ctx->modules)
		free_module(ctx->modules);
	CUresult r = d->cuCtxDestroy(ctx->cu);
	int ordinal = ctx->ordinal;
	free(ctx);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuCtxDestroy", "device %d", ordinal);
	return status;
}

int
tilert_device_name(tilert_ctx *ctx, char *buf, size_t len)
{
	if (!ctx || !buf || len == 0)
		return fail(TILERT_ERR_ARG, "tilert_device_name: %s", !ctx ? "ctx is NULL" : !buf ? "buf is NULL" : "len is 0");
	snprintf(buf, len, "%s", ctx->name);
	return TILERT_OK;
}

int
tilert_device_cc(tilert_ctx *ctx, int *major, int *minor)
{
	if (!ctx || !major || !minor)
		return fail(TILERT_ERR_ARG, "tilert_device_cc: %s", !ctx ? "ctx is NULL" : !major ? "major is NULL" : "minor is NULL");
	*major = ctx->major;
	*minor = ctx->minor;
	return TILERT_OK;
}

/* Reads the whole file plus a NUL, because the driver takes PTX as a C string. */
static int
read_file(const char *path, char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(TILERT_ERR_FILE, "%s: cannot open: %s", path, strerror(errno));
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			return fail(TILERT_ERR_NOMEM, "%s: out of memory reading the file", path);
		}
		len += fread(buf + len, 1, cap - len - 1, f);
		if (len < cap - 1)
			break;
		cap *= 2;
		char *p = realloc(buf, cap);
		if (!p)
			free(buf);
		buf = p;
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		free(buf);
		return fail(TILERT_ERR_FILE, "%s: cannot read: %s", path, strerror(e));
	}
	fclose(f);
	buf[len] = 0;
	*data = buf;
	*size = len;
	return TILERT_OK;
}

/* PTX must open with .version, after any comments and white space; this is how the driver recognises it too. */
static bool
looks_like_ptx(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
			i++;
		} else if (i + 1 < n && p[i] == '/' && p[i + 1] == '/') {
			while (i < n && p[i] != '\n')
				i++;
		} else if (i + 1 < n && p[i] == '/' && p[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(p[i] == '*' && p[i + 1] == '/'))
				i++;
			i += 2;
		} else {
			break;
		}
	}
	static const char directive[] = ".version";
	size_t len = sizeof directive - 1;
	return i + len < n && memcmp(p + i, directive, len) == 0 && (p[i + len] == ' ' || p[i + len] == '\t');
}

/* An unsigned field of `n` bytes at `off` of an ELF file, in the byte order EI_DATA names. */
static uint64_t
elf_field(const unsigned char *p, size_t off, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[off + (size_t)(p[5] == 2 ? n - 1 - i : i)] << (8 * i);
	return v;
}

/* Whether `count` entries of `entsize` bytes from `off` lie inside a file of `size` bytes. */
static bool
elf_table_fits(uint64_t off, uint64_t count, uint64_t entsize, size_t size)
{
	return off <= size && (entsize == 0 || count <= (size - off) / entsize);
}

/* A section header's fields, in either ELF class. */
typedef struct {
	uint64_t name, type, flags, off, size, link, info, entsize;
} ElfSection;

typedef struct {
	const char *what;
	const unsigned char *p;
	size_t size;
	bool wide;
	int w; /* the size of an offset or address: 8, or 4 in ELFCLASS32 */
	uint64_t shoff, shnum, shentsize;
} Elf;

enum {
	SHT_NULL = 0, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4, SHT_NOBITS = 8, SHT_REL = 9, SHT_DYNSYM = 11,
	SHT_CUDA_INFO = 0x70000000, /* .nv.info and .nv.info.<kernel>: attribute records */
	SHN_LORESERVE = 0xff00,
	SHF_INFO_LINK = 0x40,
};

/* A field of n bytes at offset at of the file, in its byte order. */
static uint64_t
elf_get(const Elf *e, uint64_t at, int n)
{
	return elf_field(e->p, (size_t)at, n);
}

static ElfSection
elf_section(const Elf *e, uint64_t i)
{
	uint64_t sh = e->shoff + i * e->shentsize, w = (uint64_t)e->w;
	ElfSection s = {
		.name = elf_get(e, sh, 4),
		.type = elf_get(e, sh + 4, 4),
		.flags = elf_get(e, sh + 8, e->w),
		.off = elf_get(e, sh + 8 + 2 * w, e->w),
		.size = elf_get(e, sh + 8 + 3 * w, e->w),
		.link = elf_get(e, sh + 8 + 4 * w, 4),
		.info = elf_get(e, sh + 12 + 4 * w, 4),
		.entsize = elf_get(e, sh + 16 + 5 * w, e->w),
	};
	return s;
}

static int
elf_corrupt(const Elf *e, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return fail(TILERT_ERR_FILE, "%s: corrupt ELF file: %s", e->what, text);
}

/* Whether a string table (section strtab) holds a NUL-terminated string at offset `at`. */
static bool
elf_string_ok(const Elf *e, uint64_t strtab, uint64_t at)
{
	ElfSection t = elf_section(e, strtab);
	return t.type == SHT_STRTAB && at < t.size && memchr(e->p + t.off + at, 0, t.size - at) != NULL;
}

/* A symbol table: its entries' names, sections and extents. *count gets the number of symbols. */
static int
elf_check_symbols(const Elf *e, uint64_t i, const ElfSection *s, uint64_t *count)
{
	uint64_t entsize = e->wide ? 24 : 16;
	if (s->entsize != entsize || s->size % entsize)
		return elf_corrupt(e, "symbol table %llu has entries of %llu bytes (%llu in all), not %llu", (unsigned long long)i,
		                   (unsigned long long)s->entsize, (unsigned long long)s->size, (unsigned long long)entsize);
	if (elf_section(e, s->link).type != SHT_STRTAB)
		return elf_corrupt(e, "symbol table %llu names section %llu as its strings, which is no string table",
		                   (unsigned long long)i, (unsigned long long)s->link);
	*count = s->size / entsize;
	if (s->info > *count)
		return elf_corrupt(e, "symbol table %llu: %llu local symbols of %llu", (unsigned long long)i,
		                   (unsigned long long)s->info, (unsigned long long)*count);
	for (uint64_t k = 0; k < *count; k++) {
		uint64_t sym = s->off + k * entsize;
		uint64_t name = elf_get(e, sym, 4);
		uint64_t shndx = elf_get(e, sym + (e->wide ? 6 : 14), 2);
		uint64_t value = elf_get(e, sym + (e->wide ? 8 : 4), e->w), len = elf_get(e, sym + (e->wide ? 16 : 8), e->w);
		if (name && !elf_string_ok(e, s->link, name))
			return elf_corrupt(e, "symbol %llu: its name (%llu) is outside the string table", (unsigned long long)k,
			                   (unsigned long long)name);
		if (shndx == 0 || shndx >= SHN_LORESERVE)
			continue; /* undefined, absolute or common: no section to hold it */
		if (shndx >= e->shnum)
			return elf_corrupt(e, "symbol %llu is in section %llu of %llu", (unsigned long long)k,
			                   (unsigned long long)shndx, (unsigned long long)e->shnum);
		ElfSection in = elf_section(e, shndx);
		if (in.type == SHT_NULL || value > in.size || len > in.size - value)
			return elf_corrupt(e, "symbol %llu (offset %llu, %llu bytes) does not fit in its section %llu (%llu bytes)",
			                   (unsigned long long)k, (unsigned long long)value, (unsigned long long)len,
			                   (unsigned long long)shndx, (unsigned long long)in.size);
	}
	return TILERT_OK;
}

/* A relocation section: each entry's symbol and the place it patches. */
static int
elf_check_relocations(const Elf *e, uint64_t i, const ElfSection *s)
{
	bool rela = s->type == SHT_RELA;
	uint64_t entsize = (uint64_t)e->w * (rela ? 3 : 2);
	ElfSection symtab = elf_section(e, s->link);
	if (s->entsize != entsize || s->size % entsize)
		return elf_corrupt(e, "relocation section %llu has entries of %llu bytes (%llu in all), not %llu",
		                   (unsigned long long)i, (unsigned long long)s->entsize, (unsigned long long)s->size,
		                   (unsigned long long)entsize);
	if (symtab.type != SHT_SYMTAB && symtab.type != SHT_DYNSYM)
		return elf_corrupt(e, "relocation section %llu names section %llu as its symbols, which is no symbol table",
		                   (unsigned long long)i, (unsigned long long)s->link);
	if (s->info == 0 || s->info >= e->shnum)
		return elf_corrupt(e, "relocation section %llu applies to section %llu of %llu", (unsigned long long)i,
		                   (unsigned long long)s->info, (unsigned long long)e->shnum);
	ElfSection target = elf_section(e, s->info);
	uint64_t nsyms = symtab.entsize ? symtab.size / symtab.entsize : 0;
	for (uint64_t k = 0; k < s->size / entsize; k++) {
		uint64_t r = s->off + k * entsize;
		uint64_t where = elf_get(e, r, e->w), info = elf_get(e, r + (uint64_t)e->w, e->w);
		uint64_t sym = e->wide ? info >> 32 : info >> 8;
		if (sym >= nsyms || where >= target.size)
			return elf_corrupt(e, "relocation %llu of section %llu: symbol %llu of %llu, offset %llu in %llu bytes",
			                   (unsigned long long)k, (unsigned long long)i, (unsigned long long)sym,
			                   (unsigned long long)nsyms, (unsigned long long)where, (unsigned long long)target.size);
	}
	return TILERT_OK;
}

/* The attributes of a .nv.info section: records of a format byte, an attribute byte and 16 bits that
 * are the value, or (format 4) the size of the bytes that follow, each record whole. (What a record
 * names is not checked: the symbol of a register count lay past the symbol table in cuSPARSE's own
 * cubins, which load.) */
static int
elf_check_info(const Elf *e, uint64_t i, const ElfSection *s)
{
	const unsigned char *p = e->p + s->off;
	for (uint64_t at = 0; at < s->size;) {
		if (s->size - at < 4)
			return elf_corrupt(e, "attribute section %llu ends inside a record (offset %llu of %llu)",
			                   (unsigned long long)i, (unsigned long long)at, (unsigned long long)s->size);
		unsigned format = p[at];
		uint64_t len = format == 4 ? elf_get(e, s->off + at + 2, 2) : 0;
		if (format < 1 || format > 4 || len > s->size - at - 4)
			return elf_corrupt(e, "attribute section %llu: record at offset %llu (format %u, %llu bytes) is malformed",
			                   (unsigned long long)i, (unsigned long long)at, format, (unsigned long long)len);
		at += 4 + len;
	}
	return TILERT_OK;
}

/* The driver trusts what it parses: the ELF header's offsets and counts (a wrong e_shoff or e_phnum
 * crashed it in cuModuleLoadData), and the sections it reads, whose one changed byte (a relocation's
 * offset, a symbol's value, a section's name, type or sh_info) crashed it too. So every table and
 * section a cubin names must lie inside the file, and the symbol, relocation and attribute sections
 * must hold what they say. */
static int
elf_check(const char *what, const unsigned char *p, size_t size)
{
	bool wide = p[4] == 2; /* ELFCLASS64 */
	if ((p[4] != 1 && !wide) || (p[5] != 1 && p[5] != 2))
		return fail(TILERT_ERR_FILE, "%s: corrupt ELF header (class %u, data %u)", what, p[4], p[5]);
	size_t ehsize = wide ? 64 : 52;
	if (size < ehsize)
		return fail(TILERT_ERR_FILE, "%s: truncated ELF file (%zu bytes)", what, size);
	int w = wide ? 8 : 4;
	size_t at = 24 + (size_t)w; /* e_phoff follows e_entry */
	uint64_t phoff = elf_field(p, at, w), shoff = elf_field(p, at + (size_t)w, w);
	at += 2 * (size_t)w + 6; /* past e_flags and e_ehsize */
	uint64_t phentsize = elf_field(p, at, 2), phnum = elf_field(p, at + 2, 2);
	uint64_t shentsize = elf_field(p, at + 4, 2), shnum = elf_field(p, at + 6, 2);
	uint64_t shstrndx = elf_field(p, at + 8, 2);
	uint64_t min_ph = wide ? 56 : 32, min_sh = wide ? 64 : 40;
	Elf e = {what, p, size, wide, w, shoff, shnum, shentsize};
	if (phnum && (phentsize < min_ph || !elf_table_fits(phoff, phnum, phentsize, size)))
		return elf_corrupt(&e, "program header table (offset %llu, %llu entries of %llu bytes) does not fit in its %zu "
		                   "bytes", (unsigned long long)phoff, (unsigned long long)phnum,
		                   (unsigned long long)phentsize, size);
	if (!shnum || shentsize < min_sh || !elf_table_fits(shoff, shnum, shentsize, size))
		return elf_corrupt(&e, "section header table (offset %llu, %llu entries of %llu bytes) does not fit in its %zu "
		                   "bytes", (unsigned long long)shoff, (unsigned long long)shnum,
		                   (unsigned long long)shentsize, size);
	if (shstrndx >= shnum)
		return elf_corrupt(&e, "section name table %llu of %llu sections", (unsigned long long)shstrndx,
		                   (unsigned long long)shnum);
	for (uint64_t i = 0; i < shnum; i++) {
		ElfSection s = elf_section(&e, i);
		if (s.type != SHT_NOBITS && s.type != SHT_NULL && !elf_table_fits(s.off, 1, s.size, size))
			return elf_corrupt(&e, "section %llu (offset %llu, %llu bytes) does not fit in its %zu bytes",
			                   (unsigned long long)i, (unsigned long long)s.off, (unsigned long long)s.size, size);
	}
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t ph = phoff + i * phentsize;
		uint64_t off = elf_get(&e, ph + (wide ? 8 : 4), w), len = elf_get(&e, ph + (wide ? 32 : 16), w);
		if (!elf_table_fits(off, 1, len, size))
			return elf_corrupt(&e, "segment %llu (offset %llu, %llu bytes) does not fit in its %zu bytes",
			                   (unsigned long long)i, (unsigned long long)off, (unsigned long long)len, size);
	}
	/* every section is in the file: now what the sections say */
	ElfSection names = elf_section(&e, shstrndx);
	if (names.type != SHT_STRTAB || !names.size || p[names.off + names.size - 1] != 0)
		return elf_corrupt(&e, "section name table %llu is no string table (type %llu, %llu bytes)",
		                   (unsigned long long)shstrndx, (unsigned long long)names.type, (unsigned long long)names.size);
	uint64_t nsyms = 0;
	for (uint64_t i = 0; i < shnum; i++) {
		ElfSection s = elf_section(&e, i);
		if (i == 0 ? s.type != SHT_NULL : s.type == SHT_NULL)
			return elf_corrupt(&e, "section %llu has type %llu (only section 0 is SHT_NULL)", (unsigned long long)i,
			                   (unsigned long long)s.type);
		if (i && !elf_string_ok(&e, shstrndx, s.name))
			return elf_corrupt(&e, "the name of section %llu (%llu) is outside the section name table",
			                   (unsigned long long)i, (unsigned long long)s.name);
		/* sh_info is a section or a symbol index (per type; NVIDIA's sections use both) */
		if (s.link >= shnum || (s.flags & SHF_INFO_LINK && s.info >= shnum))
			return elf_corrupt(&e, "section %llu links section %llu (sh_link) or %llu (sh_info) of %llu",
			                   (unsigned long long)i, (unsigned long long)s.link, (unsigned long long)s.info,
			                   (unsigned long long)shnum);
		if (s.type == SHT_STRTAB && s.size && p[s.off + s.size - 1] != 0)
			return elf_corrupt(&e, "string table %llu does not end with a NUL", (unsigned long long)i);
		if (s.type != SHT_NOBITS && s.entsize && s.size % s.entsize)
			return elf_corrupt(&e, "section %llu (%llu bytes) is no whole number of its %llu-byte entries",
			                   (unsigned long long)i, (unsigned long long)s.size, (unsigned long long)s.entsize);
		if (s.type == SHT_SYMTAB || s.type == SHT_DYNSYM) {
			uint64_t count = 0;
			int status = elf_check_symbols(&e, i, &s, &count);
			if (status)
				return status;
			if (s.type == SHT_SYMTAB)
				nsyms = count;
		}
	}
	for (uint64_t i = 1; i < shnum; i++) {
		ElfSection s = elf_section(&e, i);
		int status = TILERT_OK;
		/* NVIDIA's sections keep a section or symbol index in sh_info's low 24 bits (a .text section's
		   high byte holds more: 0x400000fc in cuSPARSE's cubins); 0x7fffffff crashed the driver. A
		   symbol table's is its count of local symbols, all of them in some (checked above). */
		if (s.type != SHT_SYMTAB && s.type != SHT_DYNSYM && (s.info & 0xffffff) >= (shnum > nsyms ? shnum : nsyms))
			return elf_corrupt(&e, "section %llu: sh_info %llu is neither a section (of %llu) nor a symbol (of %llu)",
			                   (unsigned long long)i, (unsigned long long)s.info, (unsigned long long)shnum,
			                   (unsigned long long)nsyms);
		if (s.type == SHT_REL || s.type == SHT_RELA)
			status = elf_check_relocations(&e, i, &s);
		else if (s.type == SHT_CUDA_INFO)
			status = elf_check_info(&e, i, &s);
		if (status)
			return status;
	}
	return TILERT_OK;
}

static uint64_t
little_endian(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A fatbinary: a 16-byte header (magic, version, header size, then the size of what follows) and
 * entries, each a header (kind, header size, payload size, flags) and its payload, the cubins among
 * them ELF files checked as a cubin is. The driver reads the sizes as given: a fatbinary cut short,
 * even its first 16 bytes alone, made cuModuleLoadData hang. */
static int
fatbin_check(const char *what, const unsigned char *p, size_t size)
{
	if (size < 16)
		return fail(TILERT_ERR_FILE, "%s: truncated fatbinary (%zu bytes; its header has 16)", what, size);
	uint64_t header = little_endian(p + 6, 2), body = little_endian(p + 8, 8);
	if (header < 16 || header > size || body > size - header)
		return fail(TILERT_ERR_FILE, "%s: corrupt fatbinary: header of %llu bytes and %llu bytes of entries do not fit "
		            "in its %zu bytes", what, (unsigned long long)header, (unsigned long long)body, size);
	uint64_t at = header, end = header + body;
	if (at == end)
		return fail(TILERT_ERR_FILE, "%s: corrupt fatbinary: no entries", what);
	while (at < end) {
		const unsigned char *entry = p + at;
		if (end - at < 64)
			return fail(TILERT_ERR_FILE, "%s: corrupt fatbinary: entry at offset %llu is cut short", what,
			            (unsigned long long)at);
		uint64_t kind = little_endian(entry, 2), head = little_endian(entry + 4, 4);
		uint64_t len = little_endian(entry + 8, 8), flags = little_endian(entry + 40, 8);
		if (head < 64 || head > end - at || len > end - at - head)
			return fail(TILERT_ERR_FILE, "%s: corrupt fatbinary: entry at offset %llu (header %llu bytes, %llu bytes) "
			            "does not fit in its %zu bytes", what, (unsigned long long)at, (unsigned long long)head,
			            (unsigned long long)len, size);
		const unsigned char *payload = entry + head;
		/* an uncompressed cubin (kind 2; flag 0x2000 marks a compressed payload) is checked as a file of its own */
		if (kind == 2 && !(flags & 0x2000)) {
			if (len < 52 || memcmp(payload, "\x7f" "ELF", 4) != 0)
				return fail(TILERT_ERR_FILE, "%s: corrupt fatbinary: the cubin at offset %llu is no ELF file", what,
				            (unsigned long long)(at + head));
			char inner[600];
			snprintf(inner, sizeof inner, "%s (the cubin at offset %llu)", what, (unsigned long long)(at + head));
			int status = elf_check(inner, payload, (size_t)len);
			if (status)
				return status;
		}
		at += head + len;
	}
	return TILERT_OK;
}

/* Everything that can be said about an image without a driver, so a bad file is reported as such. */
static int
classify(const char *what, const void *image, size_t size, ImageKind *kind)
{
	const unsigned char *p = image;
	if (size == 0)
		return fail(TILERT_ERR_FILE, "%s: is empty", what);
	if (size >= 4 && memcmp(p, "\x7f" "ELF", 4) == 0) {
		if (size < 52)
			return fail(TILERT_ERR_FILE, "%s: truncated ELF file (%zu bytes)", what, size);
		/* EI_DATA (byte 5) says how e_machine (bytes 18-19) is stored. */
		unsigned machine = p[5] == 2 ? (unsigned)p[18] << 8 | p[19] : (unsigned)p[19] << 8 | p[18];
		if (machine != EM_CUDA)
			return fail(TILERT_ERR_FILE, "%s: an ELF file but not a CUDA cubin (e_machine %u; a cubin has %d)",
			            what, machine, EM_CUDA);
		*kind = IMG_CUBIN;
		return elf_check(what, p, size);
	}
	if (size >= 4 && ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24) == FATBIN_MAGIC) {
		*kind = IMG_FATBIN;
		return fatbin_check(what, p, size);
	}
	if (looks_like_ptx(image, size)) {
		*kind = IMG_PTX;
		return TILERT_OK;
	}
	return fail(TILERT_ERR_FILE, "%s: neither a cubin (ELF) nor PTX (text starting with .version)", what);
}

static int
load_image(tilert_ctx *ctx, const char *source, const void *image, ImageKind kind, tilert_module **out)
{
	int status = make_current(ctx);
	if (status)
		return status;
	Driver *d = ctx->drv;
	CUmodule cu = NULL;
	CUresult r;
	if (kind == IMG_PTX) {
		/* The JIT explains a rejection only through its error log, so ask for it. */
		char log[4096] = "";
		int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *values[] = {log, (void *)(uintptr_t)sizeof log};
		r = d->cuModuleLoadDataEx(&cu, image, 2, opts, values);
		if (r != CUDA_SUCCESS) {
			size_t n = (size_t)(uintptr_t)values[1];
			log[n < sizeof log ? n : sizeof log - 1] = 0;
			status = cuda_fail(r, "cuModuleLoadDataEx", "module %s for sm_%d%d", source, ctx->major, ctx->minor);
			if (log[0])
				append_error("\nPTX JIT error log:\n%s", log);
			return status;
		}
	} else {
		r = d->cuModuleLoadData(&cu, image);
		if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
			return cuda_fail(r, "cuModuleLoadData", "module %s was not built for this device, sm_%d%d", source,
			                 ctx->major, ctx->minor);
		if (r != CUDA_SUCCESS)
			return cuda_fail(r, "cuModuleLoadData", "module %s", source);
	}
	tilert_module *m = calloc(1, sizeof *m);
	char *name = dup_string(source);
	if (!m || !name) {
		free(m);
		free(name);
		d->cuModuleUnload(cu);
		return fail(TILERT_ERR_NOMEM, "out of memory");
	}
	m->ctx = ctx;
	m->cu = cu;
	m->source = name;
	m->next = ctx->modules;
	if (m->next)
		m->next->prev = m;
	ctx->modules = m;
	*out = m;
	return TILERT_OK;
}

int
tilert_module_load_file(tilert_ctx *ctx, const char *path, tilert_module **out)
{
	if (!path || !out)
		return fail(TILERT_ERR_ARG, "tilert_module_load_file: %s is NULL", !path ? "path" : "out");
	*out = NULL;
	/* The file is checked before ctx, so a bad file is named even where no driver could give a context. */
	char *data = NULL;
	size_t size = 0;
	ImageKind kind = IMG_CUBIN;
	int status = read_file(path, &data, &size);
	if (status)
		return status;
	status = classify(path, data, size, &kind);
	if (!status && !ctx)
		status = fail(TILERT_ERR_ARG, "tilert_module_load_file: ctx is NULL");
	if (!status)
		status = load_image(ctx, path, data, kind, out);
	free(data);
	return status;
}

int
tilert_module_load_data(tilert_ctx *ctx, const void *image, size_t size, tilert_module **out)
{
	if (!image || !out)
		return fail(TILERT_ERR_ARG, "tilert_module_load_data: %s is NULL", !image ? "image" : "out");
	*out = NULL;
	ImageKind kind = IMG_CUBIN;
	int status = classify("module image", image, size, &kind);
	if (status)
		return status;
	if (!ctx)
		return fail(TILERT_ERR_ARG, "tilert_module_load_data: ctx is NULL");
	if (kind != IMG_PTX || memchr(image, 0, size))
		return load_image(ctx, "module image", image, kind, out);
	/* PTX without its NUL: the driver would read past the end, so give it a terminated copy. */
	char *copy = malloc(size + 1);
	if (!copy)
		return fail(TILERT_ERR_NOMEM, "out of memory");
	memcpy(copy, image, size);
	copy[size] = 0;
	status = load_image(ctx, "module image", copy, kind, out);
	free(copy);
	return status;
}

int
tilert_module_unload(tilert_module *module)
{
	if (!module)
		return TILERT_OK;
	tilert_ctx *ctx = module->ctx;
	int status = make_current(ctx);
	CUresult r = status ? CUDA_SUCCESS : ctx->drv->cuModuleUnload(module->cu);
	char *source = dup_string(module->source);
	free_module(module);
	if (r != CUDA_SUCCESS)
		status = cuda_fail(r, "cuModuleUnload", "module %s", source ? source : "?");
	free(source);
	return status;
}

/* The bytes of symbol `prefix`<name> in a new buffer, or *out NULL when the module has no such symbol. */
static int
read_symbol(tilert_kernel *k, const char *prefix, char *symbol, size_t len, void **out, size_t *bytes)
{
	tilert_module *m = k->module;
	Driver *d = m->ctx->drv;
	snprintf(symbol, len, "%s%s", prefix, k->name);
	CUdeviceptr ptr = 0;
	*out = NULL;
	*bytes = 0;
	CUresult r = d->cuModuleGetGlobal(&ptr, bytes, m->cu, symbol);
	if (r == CUDA_ERROR_NOT_FOUND)
		return TILERT_OK;
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuModuleGetGlobal", "%s in module %s", symbol, m->source);
	if (!(*out = malloc(*bytes ? *bytes : 1)))
		return fail(TILERT_ERR_NOMEM, "out of memory");
	if ((r = d->cuMemcpyDtoH(*out, ptr, *bytes)) != CUDA_SUCCESS) {
		free(*out);
		*out = NULL;
		return cuda_fail(r, "cuMemcpyDtoH", "reading %s in module %s", symbol, m->source);
	}
	return TILERT_OK;
}

/* The kernel's parameter count and sizes, from the driver (CUDA 12.4's cuFuncGetParamInfo), so that a
 * grid program reads only parameters there are (a module naming parameter 65535 of 6 crashed
 * tilert_kernel_launch) and no more bytes than each has. */
static size_t
param_size(tilert_kernel *k, size_t index, bool *known)
{
	Driver *d = k->module->ctx->drv;
	size_t offset = 0, size = 0;
	*known = d->cuFuncGetParamInfo != NULL;
	if (*known && d->cuFuncGetParamInfo(k->fn, index, &offset, &size) != CUDA_SUCCESS)
		return 0;
	return size;
}

/* k->nparams, from the driver; *known: whether it could say. */
static void
count_params(tilert_kernel *k, bool *known)
{
	k->nparams = 0;
	while (k->nparams < 65536 && param_size(k, k->nparams, known))
		k->nparams++;
	if (!*known)
		k->nparams = SIZE_MAX;
}

static int
check_grid_params(tilert_kernel *k, const char *symbol)
{
	static const size_t kind_bytes[] = {4, 4, 2, 2, 1, 1}; /* TILERT_GP_I32 ... TILERT_GP_U8 */
	bool known = false;
	count_params(k, &known);
	for (size_t pc = 0; pc < k->grid_prog_n; pc++) {
		unsigned op = k->grid_prog[pc];
		if (op != TILERT_GP_CONST && op != TILERT_GP_PARAM && op != TILERT_GP_SKIP && op != TILERT_GP_SKIPZ)
			continue;
		if (++pc >= k->grid_prog_n || op != TILERT_GP_PARAM)
			continue; /* a missing word is tilert_grid_eval's to report */
		unsigned index = k->grid_prog[pc] >> 8, kind = k->grid_prog[pc] & 0xff;
		size_t have = known && index < k->nparams ? param_size(k, index, &known) : 0;
		if (known && (index >= k->nparams || kind >= sizeof kind_bytes / sizeof kind_bytes[0] || have < kind_bytes[kind]))
			return fail(TILERT_ERR_FILE, "module %s: %s reads parameter %u (kind %u) of kernel %s, which has %zu "
			            "parameter%s%s", k->module->source, symbol, index, kind, k->name, k->nparams,
			            k->nparams == 1 ? "" : "s", index < k->nparams ? " and not so many bytes there" : "");
	}
	return TILERT_OK;
}

/* The u32 words of symbol PREFIX<name> in a new buffer (*words NULL when the module has none); `what`
 * begins the message about a size that is no whole number of words ("a grid program is"). */
static int
read_words(tilert_kernel *k, const char *prefix, const char *what, char *symbol, size_t len, unsigned **words,
           size_t *n)
{
	void *v;
	size_t bytes;
	*words = NULL;
	*n = 0;
	int status = read_symbol(k, prefix, symbol, len, &v, &bytes);
	if (status || !v)
		return status;
	if (!bytes || bytes % 4) {
		free(v);
		return fail(TILERT_ERR_FILE, "module %s: %s is %zu bytes; %s u32 words", k->module->source, symbol, bytes,
		            what);
	}
	*words = v;
	*n = bytes / 4;
	return TILERT_OK;
}

/* Reads tilec_grid_<name> (tilert.h, TILERT_GP_*) when the module carries it. */
static int
read_grid_program(tilert_kernel *k, bool *found)
{
	char symbol[512];
	int status = read_words(k, "tilec_grid_", "a grid program is", symbol, sizeof symbol, &k->grid_prog,
	                        &k->grid_prog_n);
	*found = k->grid_prog != NULL;
	if (status || !k->grid_prog)
		return status;
	return check_grid_params(k, symbol);
}

/* Reads tilec_align_<name> (tilert.h) when the module carries it. */
static int
read_align_program(tilert_kernel *k)
{
	char symbol[512];
	bool known;
	int status = read_words(k, "tilec_align_", "align promises are", symbol, sizeof symbol, &k->align_prog,
	                        &k->align_prog_n);
	if (!status && k->align_prog)
		count_params(k, &known);
	return status;
}

static int gp_run(const unsigned *prog, size_t n, size_t *pc_io, void **args, size_t nargs, const char *what, int d,
                  uint32_t *value, bool *empty);

/* The next word of an align program, or false at its end (a malformed program). */
static bool
align_word(const unsigned *prog, size_t n, size_t *pc, unsigned *w)
{
	if (*pc >= n)
		return false;
	*w = prog[(*pc)++];
	return true;
}

int
tilert_align_check(const char *kernel, const unsigned *prog, size_t n, void **args, size_t nargs)
{
	size_t pc = 0;
	while (pc < n) {
		unsigned index, align, size, len, outer, w;
		char name[256];
		bool ok = align_word(prog, n, &pc, &index) && align_word(prog, n, &pc, &align) &&
		          align_word(prog, n, &pc, &size) && align_word(prog, n, &pc, &len) && align != 0 &&
		          len < sizeof name;
		for (unsigned c = 0; ok && c < len; c += 4) {
			ok = align_word(prog, n, &pc, &w);
			for (unsigned b = 0; ok && b < 4 && c + b < len; b++)
				name[c + b] = (char)(w >> (8 * b) & 0xff);
		}
		if (!ok || !align_word(prog, n, &pc, &outer) || index >= nargs)
			return fail(TILERT_ERR_ARG, "kernel %s: align program malformed at word %zu", kernel, pc);
		name[len] = 0;
		if (!args || !args[index])
			return fail(TILERT_ERR_ARG, "kernel %s: parameter %u ('%s') is missing from args", kernel, index, name);
		CUdeviceptr ptr;
		memcpy(&ptr, args[index], sizeof ptr);
		if (ptr % align)
			return fail(TILERT_ERR_ARG, "kernel %s: '%s' promises align %u, but its address 0x%llx is no multiple "
			            "of %u", kernel, name, align, ptr, align);
		for (unsigned d = 0; d < outer; d++) {
			uint32_t stride;
			bool empty;
			int status = gp_run(prog, n, &pc, args, nargs, "align program: stride", (int)d, &stride, &empty);
			if (status)
				return status;
			if (((unsigned long long)stride * size) % align)
				return fail(TILERT_ERR_ARG, "kernel %s: '%s' promises align %u, but stride %u is %d elements (%lld "
				            "bytes), which is no multiple of %u", kernel, name, align, d, (int)stride,
				            (long long)(int)stride * (long long)size, align);
		}
	}
	return TILERT_OK;
}

/* Reads tilec_shared_<name> when the module carries it: the bytes of dynamic shared memory that hold the
   kernel's shared tensors (the emulation build's, which may be more than the 48 KB of static shared memory). */
static int
read_dynamic_shared(tilert_kernel *k)
{
	char symbol[512];
	unsigned *words;
	size_t n;
	int status = read_words(k, "tilec_shared_", "a shared-memory size is one of", symbol, sizeof symbol, &words, &n);
	if (status || !words)
		return status;
	if (n != 1)
		status = fail(TILERT_ERR_FILE, "module %s: %s is %zu words; a shared-memory size is one", k->module->source,
		              symbol, n);
	else
		k->dynamic_shared = words[0];
	free(words);
	return status;
}

/* Reads tilec_cluster_<name> when the module carries it: the kernel's __cluster_dims__. */
static int
read_cluster(tilert_kernel *k)
{
	char symbol[512];
	void *v;
	size_t bytes;
	int status = read_symbol(k, "tilec_cluster_", symbol, sizeof symbol, &v, &bytes);
	if (status || !v)
		return status;
	if (bytes == sizeof k->cluster)
		memcpy(k->cluster, v, sizeof k->cluster);
	free(v);
	if (bytes != sizeof k->cluster)
		return fail(TILERT_ERR_FILE, "module %s: %s is %zu bytes; a cluster is 3 u32 (%zu bytes)", k->module->source,
		            symbol, bytes, sizeof k->cluster);
	if (!k->cluster[0] || !k->cluster[1] || !k->cluster[2])
		return fail(TILERT_ERR_FILE, "module %s: %s has a zero dimension (%ux%ux%u)", k->module->source, symbol,
		            k->cluster[0], k->cluster[1], k->cluster[2]);
	k->has_cluster = true;
	return TILERT_OK;
}

/* Reads tilec_launch_<name>: absent means a kernel from elsewhere, malformed means a compiler bug worth reporting. */
static int
read_launch_config(tilert_kernel *k)
{
	tilert_module *m = k->module;
	Driver *d = m->ctx->drv;
	static const char prefix[] = "tilec_launch_";
	size_t n = sizeof prefix + strlen(k->name);
	char *symbol = malloc(n);
	if (!symbol)
		return fail(TILERT_ERR_NOMEM, "out of memory");
	snprintf(symbol, n, "%s%s", prefix, k->name);
	CUdeviceptr ptr = 0;
	size_t bytes = 0;
	unsigned v[6];
	int status = TILERT_OK;
	bool found = false;
	CUresult r = d->cuModuleGetGlobal(&ptr, &bytes, m->cu, symbol);
	if (r == CUDA_ERROR_NOT_FOUND) {
		k->has_dims = false;
	} else if (r != CUDA_SUCCESS) {
		status = cuda_fail(r, "cuModuleGetGlobal", "%s in module %s", symbol, m->source);
	} else if (bytes != sizeof v) {
		status = fail(TILERT_ERR_FILE, "module %s: %s is %zu bytes; a launch configuration is 6 u32 (%zu bytes)",
		              m->source, symbol, bytes, sizeof v);
	} else if ((r = d->cuMemcpyDtoH(v, ptr, sizeof v)) != CUDA_SUCCESS) {
		status = cuda_fail(r, "cuMemcpyDtoH", "reading %s in module %s", symbol, m->source);
	} else if ((status = read_grid_program(k, &found)) != TILERT_OK || (status = read_cluster(k)) != TILERT_OK ||
	           (status = read_align_program(k)) != TILERT_OK || (status = read_dynamic_shared(k)) != TILERT_OK) {
		/* reported */
	} else if ((!found && (!v[0] || !v[1] || !v[2])) || !v[3] || !v[4] || !v[5]) {
		status = fail(TILERT_ERR_FILE, "module %s: %s has a zero dimension (grid %ux%ux%u, block %ux%ux%u)",
		              m->source, symbol, v[0], v[1], v[2], v[3], v[4], v[5]);
	} else {
		k->has_dims = true;
		memcpy(k->grid, v, sizeof k->grid);
		memcpy(k->block, v + 3, sizeof k->block);
	}
	free(symbol);
	return status;
}

/* The counts that open tilec_tma_<name>: the maps, then the kernel's own parameters, after which the maps
   are passed. The parameter count is tilec's, as a driver before CUDA 12.4 cannot say it (no
   cuFuncGetParamInfo); where the driver can, the two must agree. */
static int
check_tma_counts(tilert_kernel *k, const char *symbol)
{
	if (k->tma_prog_n < 2)
		return fail(TILERT_ERR_FILE, "module %s: %s is %zu words; a tensor-map table starts with two counts",
		            k->module->source, symbol, k->tma_prog_n);
	bool known = false;
	count_params(k, &known);
	size_t nmaps = k->tma_prog[0], nuser = k->tma_prog[1];
	if (known && k->nparams != nuser + nmaps)
		return fail(TILERT_ERR_FILE, "module %s: %s says kernel %s takes %zu parameters and %zu tensor maps, but the "
		            "driver says it has %zu parameters", k->module->source, symbol, k->name, nuser, nmaps, k->nparams);
	return TILERT_OK;
}

int
tilert_kernel_get(tilert_module *module, const char *name, tilert_kernel **out)
{
	if (!module || !name || !out)
		return fail(TILERT_ERR_ARG, "tilert_kernel_get: %s is NULL", !module ? "module" : !name ? "name" : "out");
	*out = NULL;
	for (tilert_kernel *k = module->kernels; k; k = k->next) {
		if (strcmp(k->name, name) == 0) {
			*out = k;
			return TILERT_OK;
		}
	}
	int status = make_current(module->ctx);
	if (status)
		return status;
	CUfunction fn = NULL;
	CUresult r = module->ctx->drv->cuModuleGetFunction(&fn, module->cu, name);
	if (r == CUDA_ERROR_NOT_FOUND)
		return fail(TILERT_ERR_CUDA, "module %s has no kernel %s (a CUDA C kernel needs extern \"C\" to keep "
		            "its name unmangled)", module->source, name);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuModuleGetFunction", "kernel %s in module %s", name, module->source);
	tilert_kernel *k = calloc(1, sizeof *k);
	if (!k || !(k->name = dup_string(name))) {
		free(k);
		return fail(TILERT_ERR_NOMEM, "out of memory");
	}
	k->module = module;
	k->fn = fn;
	k->cluster[0] = k->cluster[1] = k->cluster[2] = 1;
	status = read_launch_config(k);
	if (!status) {
		void *words;
		size_t bytes;
		char symbol[512];
		status = read_symbol(k, "tilec_tma_", symbol, sizeof symbol, &words, &bytes);
		k->tma_prog = words;
		k->tma_prog_n = bytes / 4;
		if (!status && words)
			status = check_tma_counts(k, symbol);
	}
	if (status) {
		free(k->name);
		free(k->grid_prog);
		free(k->tma_prog);
		free(k->align_prog);
		free(k);
		return status;
	}
	k->next = module->kernels;
	module->kernels = k;
	*out = k;
	return TILERT_OK;
}

static int
no_launch_config(tilert_kernel *kernel)
{
	return fail(TILERT_ERR_NO_LAUNCH, "kernel %s carries no launch configuration (was it compiled by tilec?); "
	            "launch it with tilert_kernel_launch_ex", kernel->name);
}

int
tilert_kernel_dims(tilert_kernel *kernel, unsigned grid[3], unsigned block[3])
{
	if (!kernel || !grid || !block)
		return fail(TILERT_ERR_ARG, "tilert_kernel_dims: %s is NULL", !kernel ? "kernel" : !grid ? "grid" : "block");
	if (!kernel->has_dims)
		return no_launch_config(kernel);
	memcpy(grid, kernel->grid, sizeof kernel->grid);
	memcpy(block, kernel->block, sizeof kernel->block);
	return TILERT_OK;
}

/* One CUtensorMap: 128 bytes, 64-byte aligned. */
typedef struct {
	_Alignas(64) unsigned char bytes[128];
} TensorMap;

/* The tensor maps of tilec_tma_<name> (launch.c's tma_program) encoded for args: each tensor's device
   address, its dimensions and strides from the arguments, the box and swizzle tilec chose; each argument is
   checked as cuTensorMapEncodeTiled would (it says only CUDA_ERROR_INVALID_VALUE), the message naming the
   tensor and the value. *out gets args with the maps after them (free it and *maps). */
static int
encode_maps(tilert_kernel *k, void **args, void ***out, TensorMap **maps)
{
	const unsigned *w = k->tma_prog;
	size_t n = k->tma_prog_n, pc = 2;
	/* read_tma_program checked that both counts are there */
	unsigned nmaps = w[0];
	size_t nuser = w[1];
	*out = NULL;
	*maps = NULL;
	if (!k->module->ctx->drv->cuTensorMapEncodeTiled)
		return fail(TILERT_ERR_CUDA, "kernel %s takes tensor maps, and the driver has no cuTensorMapEncodeTiled "
		            "(CUDA 12.0)", k->name);
	void **all = calloc(nuser + nmaps ? nuser + nmaps : 1, sizeof *all);
	TensorMap *tm = calloc(nmaps ? nmaps : 1, sizeof *tm);
	if (!all || !tm) {
		free(all);
		free(tm);
		return fail(TILERT_ERR_NOMEM, "out of memory");
	}
	memcpy(all, args, nuser * sizeof *all);
	int status = TILERT_OK;
	for (unsigned i = 0; i < nmaps && !status; i++) {
		if (pc + 10 > n) {
			status = fail(TILERT_ERR_FILE, "kernel %s: tilec_tma_%s ends early", k->name, k->name);
			break;
		}
		unsigned param = w[pc], rank = w[pc + 1], dtype = w[pc + 2], swizzle = w[pc + 3], elem = w[pc + 4];
		uint32_t box[5];
		for (int d = 0; d < 5; d++)
			box[d] = w[pc + 5 + d];
		pc += 10;
		/* nine programs in three groups of three, as grid programs: dimensions, then strides */
		unsigned v[9] = {0};
		int evaluated = TILERT_OK;
		for (int g = 0; g < 3 && !evaluated; g++) {
			size_t start = pc;
			for (int e = 0; e < 3; e++)
				while (pc < n && w[pc++] != TILERT_GP_END)
					if (w[pc - 1] == TILERT_GP_CONST || w[pc - 1] == TILERT_GP_PARAM)
						pc++;
			evaluated = tilert_grid_eval(w + start, pc - start, args, nuser, v + 3 * g);
		}
		if (pc >= n) {
			status = fail(TILERT_ERR_FILE, "kernel %s: tilec_tma_%s ends early", k->name, k->name);
			break;
		}
		unsigned len = w[pc++];
		char name[256] = {0};
		for (unsigned c = 0; c < len && c < sizeof name - 1 && pc + c / 4 < n; c++)
			name[c] = (char)(w[pc + c / 4] >> (8 * (c % 4)));
		pc += (len + 3) / 4;
		if (evaluated) {
			/* the evaluator words a value out of range as a grid dimension: say whose it is */
			status = fail(evaluated, "kernel %s: the tensor map of '%s': a dimension or stride is out of range (%s)",
			              k->name, name, tilert_last_error());
			break;
		}
		if (param >= nuser || !args[param] || rank < 1 || rank > 5) {
			status = fail(TILERT_ERR_FILE, "kernel %s: tensor map %u of '%s' names parameter %u of %zu, rank %u",
			              k->name, i, name, param, nuser, rank);
			break;
		}
		uint64_t gaddr, dims[5], strides[4];
		memcpy(&gaddr, args[param], sizeof gaddr);
		for (unsigned d = 0; d < rank; d++)
			dims[d] = v[d];
		for (unsigned d = 0; d + 1 < rank; d++)
			strides[d] = (uint64_t)v[5 + d] * elem;
		if (gaddr % 16)
			status = fail(TILERT_ERR_ARG, "kernel %s: the tensor map of '%s' (parameter %u): its address 0x%llx is not "
			              "a multiple of 16 bytes", k->name, name, param, (unsigned long long)gaddr);
		for (unsigned d = 0; d < rank && !status; d++)
			if (dims[d] < 1 || dims[d] > (1ull << 32))
				status = fail(TILERT_ERR_ARG, "kernel %s: the tensor map of '%s' (parameter %u): dimension %u (innermost "
				              "first) is %llu; a tensor map's dimensions are 1 to 2^32", k->name, name, param, d,
				              (unsigned long long)dims[d]);
		for (unsigned d = 0; d + 1 < rank && !status; d++)
			if (strides[d] % 16 || strides[d] >= (1ull << 40))
				status = fail(TILERT_ERR_ARG, "kernel %s: the tensor map of '%s' (parameter %u): the stride of dimension "
				              "%u (innermost first) is %llu bytes; a tensor map's strides are multiples of 16 below 2^40",
				              k->name, name, param, d + 1, (unsigned long long)strides[d]);
		if (status)
			break;
		CUresult r = tilec_tensormap_encode(k->module->ctx->drv->cuTensorMapEncodeTiled, tm[i].bytes, (int)dtype, rank,
		                                    (void *)(uintptr_t)gaddr, dims, strides, box, (int)swizzle);
		if (r != CUDA_SUCCESS)
			status = cuda_fail(r, "cuTensorMapEncodeTiled", "kernel %s, the tensor map of '%s' (parameter %u): type %u, "
			                   "rank %u, address 0x%llx, dimensions %llu %llu %llu %llu %llu, box %u %u %u %u %u, swizzle %u",
			                   k->name, name, param, dtype, rank, (unsigned long long)gaddr,
			                   (unsigned long long)dims[0], rank > 1 ? (unsigned long long)dims[1] : 0ull,
			                   rank > 2 ? (unsigned long long)dims[2] : 0ull, rank > 3 ? (unsigned long long)dims[3] : 0ull,
			                   rank > 4 ? (unsigned long long)dims[4] : 0ull, box[0], box[1], box[2], box[3], box[4],
			                   swizzle);
		all[nuser + i] = tm[i].bytes;
	}
	if (status) {
		free(all);
		free(tm);
		return status;
	}
	*out = all;
	*maps = tm;
	return TILERT_OK;
}

static int launch_args(tilert_kernel *k, const unsigned grid[3], const unsigned block[3], unsigned shared,
                       void **args);

/* A launch, with the tensor maps the kernel takes encoded and passed after its parameters. */
static int
launch(tilert_kernel *k, const unsigned grid[3], const unsigned block[3], unsigned shared, void **args)
{
	if (shared < k->dynamic_shared)
		shared = k->dynamic_shared;
	if (!k->tma_prog)
		return launch_args(k, grid, block, shared, args);
	int status = make_current(k->module->ctx);
	if (status)
		return status;
	void **all;
	TensorMap *maps;
	if ((status = encode_maps(k, args, &all, &maps)) != TILERT_OK)
		return status;
	status = launch_args(k, grid, block, shared, all);
	free(all);
	free(maps);
	return status;
}

static int
launch_args(tilert_kernel *k, const unsigned grid[3], const unsigned block[3], unsigned shared, void **args)
{
	tilert_ctx *ctx = k->module->ctx;
	Driver *d = ctx->drv;
	int status = make_current(ctx);
	if (!status && k->align_prog)
		status = tilert_align_check(k->name, k->align_prog, k->align_prog_n, args, k->nparams);
	if (status)
		return status;
	CUresult r;
	if (shared > DEFAULT_SHARED_LIMIT && d->cuFuncSetAttribute &&
	    (r = d->cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared)) != CUDA_SUCCESS)
		return cuda_fail(r, "cuFuncSetAttribute", "kernel %s, %u bytes of dynamic shared memory", k->name, shared);
	for (int i = 0; i < 3 && k->has_cluster; i++)
		if (grid[i] % k->cluster[i])
			return fail(TILERT_ERR_ARG, "kernel %s: grid %ux%ux%u is not a whole number of its clusters of %ux%ux%u CTAs "
			            "(dimension %c)", k->name, grid[0], grid[1], grid[2], k->cluster[0], k->cluster[1],
			            k->cluster[2], "xyz"[i]);
	const char *call = "cuLaunchKernel";
	if (k->has_cluster && d->cuLaunchKernelEx) {
		/* the cluster is also compiled into the kernel (__cluster_dims__); saying it again here makes a driver
		   that cannot honour it fail at the launch rather than run CTAs unpaired */
		CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
		attr.value.cluster_dim.x = k->cluster[0];
		attr.value.cluster_dim.y = k->cluster[1];
		attr.value.cluster_dim.z = k->cluster[2];
		CUlaunchConfig config = {grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, NULL, &attr, 1};
		call = "cuLaunchKernelEx";
		r = d->cuLaunchKernelEx(&config, k->fn, args, NULL);
	} else {
		r = d->cuLaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, NULL, args, NULL);
	}
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, call, "kernel %s, grid %ux%ux%u, block %ux%ux%u, cluster %ux%ux%u, %u bytes of shared memory",
		                 k->name, grid[0], grid[1], grid[2], block[0], block[1], block[2], k->cluster[0], k->cluster[1],
		                 k->cluster[2], shared);
	/* Faults inside the kernel surface only here; synchronizing pins them to this launch. */
	if ((r = d->cuCtxSynchronize()) != CUDA_SUCCESS)
		return cuda_fail(r, "cuCtxSynchronize", "after launching kernel %s", k->name);
	return TILERT_OK;
}

int
tilert_kernel_cluster(tilert_kernel *kernel, unsigned cluster[3])
{
	if (!kernel || !cluster)
		return fail(TILERT_ERR_ARG, "tilert_kernel_cluster: %s is NULL", !kernel ? "kernel" : "cluster");
	memcpy(cluster, kernel->cluster, sizeof kernel->cluster);
	return TILERT_OK;
}

int
tilert_kernel_launch(tilert_kernel *kernel, void **args)
{
	if (!kernel)
		return fail(TILERT_ERR_ARG, "tilert_kernel_launch: kernel is NULL");
	if (!kernel->has_dims)
		return no_launch_config(kernel);
	unsigned grid[3];
	memcpy(grid, kernel->grid, sizeof grid);
	if (kernel->grid_prog) {
		int status = tilert_grid_eval(kernel->grid_prog, kernel->grid_prog_n, args, kernel->nparams, grid);
		if (status)
			return status;
	}
	return launch(kernel, grid, kernel->block, 0, args);
}

int
tilert_kernel_launch_ex(tilert_kernel *kernel, const unsigned grid[3], const unsigned block[3], unsigned shared_bytes,
                        void **args)
{
	if (!kernel || !grid || !block)
		return fail(TILERT_ERR_ARG, "tilert_kernel_launch_ex: %s is NULL", !kernel ? "kernel" : !grid ? "grid" : "block");
	if (!grid[0] || !grid[1] || !grid[2] || !block[0] || !block[1] || !block[2])
		return fail(TILERT_ERR_ARG, "tilert_kernel_launch_ex: kernel %s: zero dimension (grid %ux%ux%u, block %ux%ux%u)",
		            kernel->name, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
	return launch(kernel, grid, block, shared_bytes, args);
}

int
tilert_alloc(tilert_ctx *ctx, size_t bytes, tilert_dev_ptr *out)
{
	if (!ctx || !out)
		return fail(TILERT_ERR_ARG, "tilert_alloc: %s is NULL", !ctx ? "ctx" : "out");
	*out = 0;
	if (bytes == 0)
		return fail(TILERT_ERR_ARG, "tilert_alloc: cannot allocate 0 bytes");
	int status = make_current(ctx);
	if (status)
		return status;
	CUdeviceptr p = 0;
	CUresult r = ctx->drv->cuMemAlloc(&p, bytes);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuMemAlloc", "%zu bytes on device %d", bytes, ctx->ordinal);
	*out = p;
	return TILERT_OK;
}

int
tilert_free(tilert_ctx *ctx, tilert_dev_ptr ptr)
{
	if (!ctx)
		return fail(TILERT_ERR_ARG, "tilert_free: ctx is NULL");
	if (!ptr)
		return TILERT_OK;
	int status = make_current(ctx);
	if (status)
		return status;
	CUresult r = ctx->drv->cuMemFree(ptr);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuMemFree", "0x%llx", ptr);
	return TILERT_OK;
}

int
tilert_copy_to_device(tilert_ctx *ctx, tilert_dev_ptr dst, const void *src, size_t bytes)
{
	if (!ctx || (bytes && (!dst || !src)))
		return fail(TILERT_ERR_ARG, "tilert_copy_to_device: %s", !ctx ? "ctx is NULL" : !dst ? "dst is 0" : "src is NULL");
	if (!bytes)
		return TILERT_OK;
	int status = make_current(ctx);
	if (status)
		return status;
	CUresult r = ctx->drv->cuMemcpyHtoD(dst, src, bytes);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuMemcpyHtoD", "%zu bytes to 0x%llx", bytes, dst);
	return TILERT_OK;
}

int
tilert_copy_to_host(tilert_ctx *ctx, void *dst, tilert_dev_ptr src, size_t bytes)
{
	if (!ctx || (bytes && (!dst || !src)))
		return fail(TILERT_ERR_ARG, "tilert_copy_to_host: %s", !ctx ? "ctx is NULL" : !dst ? "dst is NULL" : "src is 0");
	if (!bytes)
		return TILERT_OK;
	int status = make_current(ctx);
	if (status)
		return status;
	CUresult r = ctx->drv->cuMemcpyDtoH(dst, src, bytes);
	if (r != CUDA_SUCCESS)
		return cuda_fail(r, "cuMemcpyDtoH", "%zu bytes from 0x%llx", bytes, src);
	return TILERT_OK;
}

/* Runs one program of prog (from *pc to its TILERT_GP_END) on args: *value is what it leaves, *empty
 * whether it was TILERT_GP_END alone. what ("grid program: dimension") and d name it in messages. */
static int
gp_run(const unsigned *prog, size_t n, size_t *pc_io, void **args, size_t nargs, const char *what, int d,
       uint32_t *value, bool *empty)
{
	uint32_t st[TILERT_GP_STACK];
	int sp = 0;
	size_t pc = *pc_io;
	*empty = true;
	for (;;) {
		if (pc >= n)
			return fail(TILERT_ERR_ARG, "%s %d does not end", what, d);
		unsigned op = prog[pc++];
		if (op == TILERT_GP_END)
			break;
		*empty = false;
		if (op == TILERT_GP_CONST || op == TILERT_GP_PARAM) {
			if (pc >= n || sp >= TILERT_GP_STACK)
				return fail(TILERT_ERR_ARG, "grid program: malformed at word %zu", pc);
			unsigned w = prog[pc++];
			if (op == TILERT_GP_CONST) {
				st[sp++] = w;
				continue;
			}
			if ((w >> 8) >= nargs)
				return fail(TILERT_ERR_ARG, "grid program: malformed at word %zu: parameter %u of %zu", pc - 2,
				            w >> 8, nargs);
			if (!args || !args[w >> 8])
				return fail(TILERT_ERR_ARG, "grid program: parameter %u is missing from args", w >> 8);
			const void *a = args[w >> 8];
			int32_t i32;
			int16_t i16;
			int8_t i8;
			switch (w & 0xff) {
			case TILERT_GP_I32: case TILERT_GP_U32: memcpy(&i32, a, 4); st[sp++] = (uint32_t)i32; break;
			case TILERT_GP_I16: memcpy(&i16, a, 2); st[sp++] = (uint32_t)(int32_t)i16; break;
			case TILERT_GP_U16: memcpy(&i16, a, 2); st[sp++] = (uint16_t)i16; break;
			case TILERT_GP_I8: memcpy(&i8, a, 1); st[sp++] = (uint32_t)(int32_t)i8; break;
			case TILERT_GP_U8: memcpy(&i8, a, 1); st[sp++] = (uint8_t)i8; break;
			default: return fail(TILERT_ERR_ARG, "grid program: parameter kind %u", w & 0xff);
			}
			continue;
		}
		if (op == TILERT_GP_SKIPZ || op == TILERT_GP_SKIP) {
			if (pc >= n || (op == TILERT_GP_SKIPZ && sp < 1) || prog[pc] > n - pc - 1)
				return fail(TILERT_ERR_ARG, "grid program: malformed at word %zu", pc - 1);
			unsigned w = prog[pc++];
			if (op == TILERT_GP_SKIP || st[--sp] == 0)
				pc += w;
			continue;
		}
		int need = op == TILERT_GP_SELECT ? 3 : op <= TILERT_GP_ZEXT16 ? 1 : 2;
		if (op >= TILERT_GP_COUNT || sp < need)
			return fail(TILERT_ERR_ARG, "grid program: malformed at word %zu", pc - 1);
		uint32_t b = st[sp - 1], a = need > 1 ? st[sp - 2] : b, r = 0;
		int32_t sa = (int32_t)a, sb = (int32_t)b;
		if ((op == TILERT_GP_DIV || op == TILERT_GP_DIVU || op == TILERT_GP_REM || op == TILERT_GP_REMU) &&
		    (b == 0 || ((op == TILERT_GP_DIV || op == TILERT_GP_REM) && sa == INT32_MIN && sb == -1)))
			return fail(TILERT_ERR_ARG, "grid program: division by zero or overflow");
		/* undefined in C and refused by tilec run: launching grid 1 for (1 << 32) | 1 would differ */
		if ((op == TILERT_GP_SHL || op == TILERT_GP_SHR || op == TILERT_GP_SHRU) && b >= 32)
			return fail(TILERT_ERR_ARG, "grid program: a shift by %d (not from 0 to 31) is undefined", sb);
		switch (op) {
		case TILERT_GP_NEG: r = 0u - b; break;
		case TILERT_GP_NOT: r = !b; break;
		case TILERT_GP_BITNOT: r = ~b; break;
		case TILERT_GP_ABS: r = sb < 0 ? 0u - b : b; break;
		case TILERT_GP_SEXT8: r = (uint32_t)(int32_t)(int8_t)b; break;
		case TILERT_GP_ZEXT8: r = b & 0xffu; break;
		case TILERT_GP_SEXT16: r = (uint32_t)(int32_t)(int16_t)b; break;
		case TILERT_GP_ZEXT16: r = b & 0xffffu; break;
		case TILERT_GP_ADD: r = a + b; break;
		case TILERT_GP_SUB: r = a - b; break;
		case TILERT_GP_MUL: r = a * b; break;
		case TILERT_GP_DIV: r = (uint32_t)(sa / sb); break;
		case TILERT_GP_DIVU: r = a / b; break;
		case TILERT_GP_REM: r = (uint32_t)(sa % sb); break;
		case TILERT_GP_REMU: r = a % b; break;
		case TILERT_GP_SHL: r = a << b; break;
		case TILERT_GP_SHR: r = (uint32_t)(sa < 0 ? ~(~sa >> b) : sa >> b); break;
		case TILERT_GP_SHRU: r = a >> b; break;
		case TILERT_GP_AND: r = a & b; break;
		case TILERT_GP_OR: r = a | b; break;
		case TILERT_GP_XOR: r = a ^ b; break;
		case TILERT_GP_LT: r = sa < sb; break;
		case TILERT_GP_LTU: r = a < b; break;
		case TILERT_GP_LE: r = sa <= sb; break;
		case TILERT_GP_LEU: r = a <= b; break;
		case TILERT_GP_GT: r = sa > sb; break;
		case TILERT_GP_GTU: r = a > b; break;
		case TILERT_GP_GE: r = sa >= sb; break;
		case TILERT_GP_GEU: r = a >= b; break;
		case TILERT_GP_EQ: r = a == b; break;
		case TILERT_GP_NE: r = a != b; break;
		case TILERT_GP_LAND: r = a && b; break;
		case TILERT_GP_LOR: r = a || b; break;
		case TILERT_GP_MIN: r = sb < sa ? b : a; break;
		case TILERT_GP_MINU: r = b < a ? b : a; break;
		case TILERT_GP_MAX: r = sb > sa ? b : a; break;
		case TILERT_GP_MAXU: r = b > a ? b : a; break;
		case TILERT_GP_SELECT: r = st[sp - 3] ? a : b; break;
		}
		sp -= need;
		st[sp++] = r;
	}
	*pc_io = pc;
	*value = sp == 1 ? st[0] : 0; /* 0 for a malformed program: no grid dimension, a multiple of every alignment */
	return TILERT_OK;
}

int
tilert_grid_eval(const unsigned *prog, size_t n, void **args, size_t nargs, unsigned grid[3])
{
	size_t pc = 0;
	for (int d = 0; d < 3; d++) {
		uint32_t v;
		bool empty;
		int status = gp_run(prog, n, &pc, args, nargs, "grid program: dimension", d, &v, &empty);
		if (status)
			return status;
		if (empty)
			continue;
		if (v == 0 || v > 0x7fffffffu)
			return fail(TILERT_ERR_ARG, "grid dimension %c is %d with these arguments; it must be from 1 to 2^31 - 1",
			            "xyz"[d], (int)v);
		grid[d] = v;
	}
	return TILERT_OK;
}
