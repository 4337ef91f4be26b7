/* test_tilert.c: libtilert's behaviour where there is no GPU: clean failures, file checks and argument checks. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilert.h"
#include "unit.h"

/* Every failure must leave a message that says it comes from tilert and mentions `needle`. */
static void
expect_error(int status, int want, const char *needle)
{
	const char *msg = tilert_last_error();
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(status == want, "status %d, want %d; message: %s", status, want, msg);
	ck_assert_msg(strncmp(msg, "tilert: ", 8) == 0, "message lacks the tilert: prefix: %s", msg);
	if (needle)
		ck_assert_msg(strstr(msg, needle), "message lacks \"%s\": %s", needle, msg);
}

/* A file in a fresh temporary directory, holding `size` bytes of `data`; the name is static storage. */
static const char *
temp_file(const char *base, const void *data, size_t size)
{
	static char path[512];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/tilert-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(path));
	size_t n = strlen(path);
	snprintf(path + n, sizeof path - n, "/%s", base);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	if (size)
		ck_assert_uint_eq(fwrite(data, 1, size, f), size);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static void
remove_temp(const char *path)
{
	char dir[512];
	snprintf(dir, sizeof dir, "%s", path);
	unlink(path);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
}

/* A 64-bit little-endian ELF file with the given e_machine: the header, one program header and two
 * section headers (the null section and a 4-byte name table at the end): FAKE_ELF bytes. */
#define FAKE_ELF (64 + 56 + 2 * 64 + 4)

static void
put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void
fake_elf(unsigned char file[FAKE_ELF], unsigned machine)
{
	memset(file, 0, FAKE_ELF);
	memcpy(file, "\x7f" "ELF", 4);
	file[4] = 2; /* ELFCLASS64 */
	file[5] = 1; /* ELFDATA2LSB */
	file[6] = 1;
	put_le(file + 18, machine, 2);
	put_le(file + 32, 64, 8);      /* e_phoff */
	put_le(file + 40, 64 + 56, 8); /* e_shoff */
	put_le(file + 52, 64, 2);      /* e_ehsize */
	put_le(file + 54, 56, 2);      /* e_phentsize */
	put_le(file + 56, 1, 2);       /* e_phnum */
	put_le(file + 58, 64, 2);      /* e_shentsize */
	put_le(file + 60, 2, 2);       /* e_shnum */
	put_le(file + 62, 1, 2);       /* e_shstrndx */
	unsigned char *ph = file + 64, *strtab = file + 64 + 56 + 64;
	put_le(ph + 8, FAKE_ELF - 4, 8); /* p_offset */
	put_le(ph + 32, 4, 8);           /* p_filesz */
	put_le(strtab + 4, 3, 4);        /* sh_type SHT_STRTAB */
	put_le(strtab + 24, FAKE_ELF - 4, 8);
	put_le(strtab + 32, 4, 8);
}

/* Runs first: once a real driver has been loaded the override no longer applies. */
START_TEST(missing_driver)
{
	setenv("TILERT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	tilert_ctx *ctx = (tilert_ctx *)1;
	int status = tilert_init(&ctx, 0);
	unsetenv("TILERT_LIBCUDA");
	expect_error(status, TILERT_ERR_NO_DRIVER, "cannot load /nonexistent/libcuda.so.1: ");
	expect_error(status, TILERT_ERR_NO_DRIVER, "; is an NVIDIA driver installed?");
	ck_assert_ptr_null(ctx);
}
END_TEST

START_TEST(driver_lacks_entry_points)
{
	/* libc is always loadable and has no cu* symbols: the dlsym failure path. */
	setenv("TILERT_LIBCUDA", "libc.so.6", 1);
	tilert_ctx *ctx = NULL;
	int status = tilert_init(&ctx, 0);
	unsetenv("TILERT_LIBCUDA");
	expect_error(status, TILERT_ERR_NO_DRIVER, "libc.so.6 has no entry point cuInit");
	ck_assert_ptr_null(ctx);
}
END_TEST

START_TEST(init_fails_cleanly)
{
	/* No GPU here, probably no driver either; on a GPU machine this simply succeeds. */
	tilert_ctx *ctx = NULL;
	int status = tilert_init(&ctx, 0);
	if (status == TILERT_OK) {
		ck_assert_ptr_nonnull(ctx);
		char name[256];
		ck_assert_int_eq(tilert_device_name(ctx, name, sizeof name), 0);
		ck_assert_int_eq(tilert_destroy(ctx), 0);
		return;
	}
	ck_assert_ptr_null(ctx);
	ck_assert_msg(status == TILERT_ERR_NO_DRIVER || status == TILERT_ERR_CUDA || status == TILERT_ERR_ARG,
	              "unexpected status %d: %s", status, tilert_last_error());
	expect_error(status, status, NULL);
	ck_assert_uint_gt(strlen(tilert_last_error()), strlen("tilert: "));
}
END_TEST

START_TEST(init_negative_device)
{
	tilert_ctx *ctx = NULL;
	expect_error(tilert_init(&ctx, -1), TILERT_ERR_ARG, "device -1 is negative");
	ck_assert_ptr_null(ctx);
}
END_TEST

START_TEST(load_missing_file)
{
	tilert_module *m = (tilert_module *)1;
	expect_error(tilert_module_load_file(NULL, "/nonexistent/dir/k.cubin", &m), TILERT_ERR_FILE,
	             "/nonexistent/dir/k.cubin: cannot open: ");
	ck_assert_ptr_null(m);
}
END_TEST

START_TEST(load_empty_file)
{
	const char *path = temp_file("empty.cubin", "", 0);
	tilert_module *m = NULL;
	int status = tilert_module_load_file(NULL, path, &m);
	expect_error(status, TILERT_ERR_FILE, path);
	expect_error(status, TILERT_ERR_FILE, "is empty");
	ck_assert_ptr_null(m);
	remove_temp(path);
}
END_TEST

START_TEST(load_garbage_file)
{
	static const char garbage[] = "this is not a kernel\n.version 8.0\n";
	const char *path = temp_file("garbage.cubin", garbage, sizeof garbage - 1);
	tilert_module *m = NULL;
	int status = tilert_module_load_file(NULL, path, &m);
	expect_error(status, TILERT_ERR_FILE, path);
	expect_error(status, TILERT_ERR_FILE, "neither a cubin (ELF) nor PTX");
	ck_assert_ptr_null(m);
	remove_temp(path);
}
END_TEST

START_TEST(load_directory)
{
	tilert_module *m = NULL;
	expect_error(tilert_module_load_file(NULL, "/", &m), TILERT_ERR_FILE, "/: cannot ");
}
END_TEST

START_TEST(load_host_elf)
{
	unsigned char header[FAKE_ELF];
	fake_elf(header, 62); /* EM_X86_64 */
	const char *path = temp_file("host.o", header, sizeof header);
	tilert_module *m = NULL;
	int status = tilert_module_load_file(NULL, path, &m);
	expect_error(status, TILERT_ERR_FILE, path);
	expect_error(status, TILERT_ERR_FILE, "not a CUDA cubin (e_machine 62");
	remove_temp(path);
}
END_TEST

START_TEST(load_truncated_elf)
{
	const char *path = temp_file("short.cubin", "\x7f" "ELF\2\1", 6);
	tilert_module *m = NULL;
	int status = tilert_module_load_file(NULL, path, &m);
	expect_error(status, TILERT_ERR_FILE, path);
	expect_error(status, TILERT_ERR_FILE, "truncated ELF file (6 bytes)");
	remove_temp(path);
}
END_TEST

START_TEST(valid_files_need_ctx)
{
	/* A plausible PTX and cubin pass the file checks, so the NULL context is what gets reported. */
	static const char ptx[] = "//\n// Generated by tilec\n/* block\n comment */\n\n.version 8.7\n.target sm_100a\n";
	const char *path = temp_file("k.ptx", ptx, sizeof ptx - 1);
	tilert_module *m = NULL;
	expect_error(tilert_module_load_file(NULL, path, &m), TILERT_ERR_ARG, "ctx is NULL");
	remove_temp(path);
	unsigned char header[FAKE_ELF];
	fake_elf(header, 190);
	path = temp_file("k.cubin", header, sizeof header);
	expect_error(tilert_module_load_file(NULL, path, &m), TILERT_ERR_ARG, "ctx is NULL");
	remove_temp(path);
	ck_assert_ptr_null(m);
}
END_TEST

/* One ELF header field out of range, as in a corrupt download: refused before the driver sees it
 * (the driver crashed on each of these). */
START_TEST(load_corrupt_elf)
{
	static const struct {
		int at, width;
		uint64_t value;
		const char *why;
	} bad[] = {
		{32, 8, 1ull << 50, "program header table"}, {40, 8, 1ull << 40, "section header table"},
		{40, 8, FAKE_ELF - 8, "section header table"}, {56, 2, 60000, "program header table"},
		{58, 2, 65535, "section header table"}, {60, 2, 60000, "section header table"},
		{60, 2, 0, "section header table"}, {62, 2, 60000, "section name table"},
		{64 + 8, 8, FAKE_ELF, "segment 0"}, {64 + 32, 8, 1ull << 62, "segment 0"},
		{64 + 56 + 64 + 24, 8, ~0ull, "section 1"}, {64 + 56 + 64 + 32, 8, 5, "section 1"},
	};
	unsigned char file[FAKE_ELF];
	tilert_module *m = NULL;
	fake_elf(file, 190);
	expect_error(tilert_module_load_data(NULL, file, sizeof file, &m), TILERT_ERR_ARG, "ctx is NULL");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fake_elf(file, 190);
		put_le(file + bad[i].at, bad[i].value, bad[i].width);
		int status = tilert_module_load_data(NULL, file, sizeof file, &m);
		expect_error(status, TILERT_ERR_FILE, "corrupt ELF file");
		expect_error(status, TILERT_ERR_FILE, bad[i].why);
	}
	fake_elf(file, 190);
	file[4] = 7;
	expect_error(tilert_module_load_data(NULL, file, sizeof file, &m), TILERT_ERR_FILE, "corrupt ELF header");
	ck_assert_ptr_null(m);
}
END_TEST

/* The bytes of tests/data/modules/NAME (TILEC_GOLDEN_DIR/modules with that set), malloc'd. */
static unsigned char *
module_file(const char *name, size_t *size)
{
	const char *dir = getenv("TILEC_GOLDEN_DIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/modules/%s", dir && *dir ? dir : "tests/data", name);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repository root or set TILEC_GOLDEN_DIR)", path);
	unsigned char *data = malloc(1 << 20);
	ck_assert_ptr_nonnull(data);
	*size = fread(data, 1, 1 << 20, f);
	fclose(f);
	return data;
}

/* Modules that pass the ELF header and table checks yet crashed or hung the host in cuModuleLoadData
 * on an H200 (../shared/repro/robustness3/01: one byte of a relocation or symbol changed, a section's
 * sh_name, sh_type or sh_info, a fatbinary cut short): refused before the driver sees them. k.cubin,
 * the module they were made from (nvcc -cubin -arch=sm_90), passes. */
START_TEST(load_corrupt_modules)
{
	static const struct {
		const char *file, *why;
	} bad[] = {
		{"rela_byte5_0x80.cubin", "relocation 0 of section 11: symbol 9 of 14, offset 140737488355336 in 16 bytes"},
		{"symtab_byte228_0x80.cubin", "symbol 9 (offset 549755813912, 76 bytes) does not fit in its section 15"},
		{"shname_section13_huge.cubin", "the name of section 13 (3645633158) is outside the section name table"},
		{"shtype_section1_zero.cubin", "section name table 1 is no string table (type 0, 315 bytes)"},
		{"shinfo_section16_huge.cubin", "section 16: sh_info 2147483647 is neither a section (of 18) nor a symbol"},
		{"fatbin_first16bytes.fatbin", "corrupt fatbinary: header of 16 bytes and 13056 bytes of entries do not fit"},
		{"fatbin_truncated.fatbin", "corrupt fatbinary: header of 16 bytes and 13056 bytes of entries do not fit"},
	};
	tilert_module *m = NULL;
	size_t size;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		unsigned char *data = module_file(bad[i].file, &size);
		expect_error(tilert_module_load_data(NULL, data, size, &m), TILERT_ERR_FILE, bad[i].why);
		free(data);
	}
	unsigned char *cubin = module_file("k.cubin", &size);
	expect_error(tilert_module_load_data(NULL, cubin, size, &m), TILERT_ERR_ARG, "ctx is NULL");
	/* the same cubin in a fatbinary of one entry (the header nvcc writes: kind 2, sm_90) passes;
	   cut one byte short, or with the cubin corrupt inside, it does not */
	size_t fat = 16 + 64 + size;
	unsigned char *fatbin = calloc(1, fat);
	ck_assert_ptr_nonnull(fatbin);
	put_le(fatbin, 0xBA55ED50u, 4);
	put_le(fatbin + 4, 1, 2);
	put_le(fatbin + 6, 16, 2);
	put_le(fatbin + 8, 64 + size, 8);
	put_le(fatbin + 16, 2, 2);       /* kind: a cubin */
	put_le(fatbin + 16 + 2, 0x101, 2);
	put_le(fatbin + 16 + 4, 64, 4);  /* its header */
	put_le(fatbin + 16 + 8, size, 8);
	put_le(fatbin + 16 + 24, 8, 2);
	put_le(fatbin + 16 + 26, 1, 2);
	put_le(fatbin + 16 + 28, 90, 4); /* sm_90 */
	put_le(fatbin + 16 + 40, 0x11, 8);
	memcpy(fatbin + 80, cubin, size);
	expect_error(tilert_module_load_data(NULL, fatbin, fat, &m), TILERT_ERR_ARG, "ctx is NULL");
	expect_error(tilert_module_load_data(NULL, fatbin, fat - 1, &m), TILERT_ERR_FILE, "corrupt fatbinary");
	put_le(fatbin + 16 + 8, size + 1, 8);
	expect_error(tilert_module_load_data(NULL, fatbin, fat, &m), TILERT_ERR_FILE, "entry at offset 16");
	put_le(fatbin + 16 + 8, size, 8);
	fatbin[80 + 1741] = 0x80; /* rela_byte5_0x80 inside */
	expect_error(tilert_module_load_data(NULL, fatbin, fat, &m), TILERT_ERR_FILE, "(the cubin at offset 80): corrupt ELF");
	free(fatbin);
	/* each field of each section header set to an extreme: refused, or still a consistent file */
	uint64_t shoff = 0;
	for (int b = 0; b < 8; b++)
		shoff |= (uint64_t)cubin[0x28 + b] << (8 * b);
	unsigned shnum = (unsigned)cubin[0x3c] | (unsigned)cubin[0x3d] << 8;
	static const int fields[] = {0, 4, 40, 44, 56}; /* sh_name, sh_type, sh_link, sh_info, sh_entsize */
	int refused = 0;
	for (unsigned sec = 1; sec < shnum; sec++) {
		for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
			unsigned char *copy = malloc(size);
			ck_assert_ptr_nonnull(copy);
			memcpy(copy, cubin, size);
			put_le(copy + shoff + 64 * sec + fields[f], 0x7fffffff, 4);
			int status = tilert_module_load_data(NULL, copy, size, &m);
			ck_assert_msg(status == TILERT_ERR_FILE || status == TILERT_ERR_ARG, "section %u field %d: status %d: %s",
			              sec, fields[f], status, tilert_last_error());
			refused += status == TILERT_ERR_FILE;
			free(copy);
		}
	}
	/* every one names something out of range; sh_entsize of a section without entries may change freely */
	ck_assert_int_ge(refused, (int)(shnum - 1) * 4);
	/* what NVIDIA's own cubins hold passes (cuSPARSE's, on the H200): a .text section's sh_info with a
	   high byte over its symbol index, a symbol table whose symbols are all local, a register count
	   record naming a symbol past the table */
	static const struct {
		size_t at;
		uint64_t value;
	} real[] = {
		{14 * 64 + 44, 0x0400000c}, /* .text.k's sh_info */
		{3 * 64 + 44, 14},          /* .symtab's count of local symbols: all 14 */
		{1452 + 4, 700},            /* .nv.info: the register count of symbol 700 */
	};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		unsigned char *copy = malloc(size);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, cubin, size);
		put_le(copy + (real[i].at < 1452 ? shoff : 0) + real[i].at, real[i].value, 4);
		expect_error(tilert_module_load_data(NULL, copy, size, &m), TILERT_ERR_ARG, "ctx is NULL");
		free(copy);
	}
	free(cubin);
	ck_assert_ptr_null(m);
}
END_TEST

START_TEST(load_data_checks)
{
	tilert_module *m = NULL;
	expect_error(tilert_module_load_data(NULL, "", 0, &m), TILERT_ERR_FILE, "module image: is empty");
	expect_error(tilert_module_load_data(NULL, "garbage", 7, &m), TILERT_ERR_FILE, "module image: neither");
	/* PTX without a terminating NUL is still recognised. */
	static const char ptx[] = ".version 8.7";
	expect_error(tilert_module_load_data(NULL, ptx, sizeof ptx - 1, &m), TILERT_ERR_ARG, "ctx is NULL");
	ck_assert_ptr_null(m);
}
END_TEST

/* The thread's own message dies with the thread, so report only whether it was a non-NULL empty string. */
static void *
read_error_in_thread(void *arg)
{
	const char *msg = tilert_last_error();
	*(int *)arg = msg != NULL && msg[0] == 0;
	return NULL;
}

START_TEST(last_error_never_null)
{
	ck_assert_ptr_nonnull(tilert_last_error());
	tilert_init(NULL, 0);
	ck_assert_ptr_nonnull(tilert_last_error());
	ck_assert_str_ne(tilert_last_error(), "");
	/* The message is per thread: a fresh thread has seen no failure. */
	pthread_t t;
	int fresh = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, read_error_in_thread, &fresh), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(fresh, 1);
}
END_TEST

START_TEST(null_arguments)
{
	tilert_module *m = NULL;
	tilert_kernel *k = NULL;
	tilert_dev_ptr p = 0;
	unsigned dims[3] = {1, 1, 1};
	char buf[16];
	int major, minor;
	expect_error(tilert_init(NULL, 0), TILERT_ERR_ARG, "out is NULL");
	ck_assert_int_eq(tilert_destroy(NULL), 0);
	ck_assert_int_eq(tilert_module_unload(NULL), 0);
	expect_error(tilert_module_load_file(NULL, NULL, &m), TILERT_ERR_ARG, "path is NULL");
	expect_error(tilert_module_load_file(NULL, "/nonexistent", NULL), TILERT_ERR_ARG, "out is NULL");
	expect_error(tilert_module_load_data(NULL, NULL, 4, &m), TILERT_ERR_ARG, "image is NULL");
	expect_error(tilert_module_load_data(NULL, "x", 1, NULL), TILERT_ERR_ARG, "out is NULL");
	expect_error(tilert_kernel_get(NULL, "k", &k), TILERT_ERR_ARG, "module is NULL");
	expect_error(tilert_kernel_dims(NULL, dims, dims), TILERT_ERR_ARG, "kernel is NULL");
	expect_error(tilert_kernel_cluster(NULL, dims), TILERT_ERR_ARG, "kernel is NULL");
	expect_error(tilert_kernel_launch(NULL, NULL), TILERT_ERR_ARG, "kernel is NULL");
	expect_error(tilert_kernel_launch_ex(NULL, dims, dims, 0, NULL), TILERT_ERR_ARG, "kernel is NULL");
	expect_error(tilert_alloc(NULL, 16, &p), TILERT_ERR_ARG, "ctx is NULL");
	expect_error(tilert_free(NULL, 0), TILERT_ERR_ARG, "ctx is NULL");
	expect_error(tilert_copy_to_device(NULL, 0, buf, sizeof buf), TILERT_ERR_ARG, "ctx is NULL");
	expect_error(tilert_copy_to_host(NULL, buf, 0, sizeof buf), TILERT_ERR_ARG, "ctx is NULL");
	expect_error(tilert_device_name(NULL, buf, sizeof buf), TILERT_ERR_ARG, "ctx is NULL");
	expect_error(tilert_device_cc(NULL, &major, &minor), TILERT_ERR_ARG, "ctx is NULL");
}
END_TEST

/* The grid program of `grid = ((N + 127) / 128, min(M, 8))` with N the parameter at index 2 (i32) and
   M at index 3 (u16), as tilec writes it. */
START_TEST(grid_program)
{
	static const unsigned prog[] = {
		TILERT_GP_PARAM, 2u << 8 | TILERT_GP_I32, TILERT_GP_CONST, 127, TILERT_GP_ADD, TILERT_GP_CONST, 128,
		TILERT_GP_DIV, TILERT_GP_END,
		TILERT_GP_PARAM, 3u << 8 | TILERT_GP_U16, TILERT_GP_CONST, 8, TILERT_GP_MIN, TILERT_GP_END,
		TILERT_GP_END,
	};
	int n = 300;
	unsigned short m = 5;
	void *args[] = {NULL, NULL, &n, &m};
	unsigned grid[3] = {0, 0, 7};
	ck_assert_int_eq(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, sizeof args / sizeof args[0], grid), 0);
	ck_assert_uint_eq(grid[0], 3);
	ck_assert_uint_eq(grid[1], 5);
	ck_assert_uint_eq(grid[2], 7);
	n = -500;
	expect_error(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG,
	             "grid dimension x is -2 with these arguments");
	static const unsigned div0[] = {TILERT_GP_CONST, 1, TILERT_GP_CONST, 0, TILERT_GP_DIV, TILERT_GP_END,
	                                TILERT_GP_END, TILERT_GP_END};
	expect_error(tilert_grid_eval(div0, 8, args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG, "division by zero");
	expect_error(tilert_grid_eval(prog, 5, args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG, "does not end");
	static const unsigned under[] = {TILERT_GP_ADD, TILERT_GP_END, TILERT_GP_END, TILERT_GP_END};
	expect_error(tilert_grid_eval(under, 4, args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG, "malformed");
}
END_TEST

/* A parameter index past the caller's args is a malformed program, not a read past the array
 * (../shared/repro/robustness3/02: parameter 200 of a kernel with one, a heap overflow under ASan). */
START_TEST(grid_program_param_bound)
{
	int n = 5;
	void **args = malloc(sizeof *args); /* one parameter: ASan sees a read of args[200] */
	ck_assert_ptr_nonnull(args);
	args[0] = &n;
	unsigned prog[] = {TILERT_GP_PARAM, 200u << 8 | TILERT_GP_I32, TILERT_GP_END, TILERT_GP_END, TILERT_GP_END};
	unsigned grid[3] = {1, 1, 1};
	expect_error(tilert_grid_eval(prog, 5, args, 1, grid), TILERT_ERR_ARG, "malformed at word 0: parameter 200 of 1");
	ck_assert_uint_eq(grid[0], 1);
	prog[1] = 0u << 8 | TILERT_GP_I32;
	ck_assert_int_eq(tilert_grid_eval(prog, 5, args, 1, grid), 0);
	ck_assert_uint_eq(grid[0], 5);
	expect_error(tilert_grid_eval(prog, 5, args, 0, grid), TILERT_ERR_ARG, "parameter 0 of 0");
	free(args);
}
END_TEST

/* grid = (1 << n) | 1: a shift by 32 or more (or a negative count) is undefined, and refused as by tilec
 * run ("a shift of 32 or more"); it launched grid 1 (its SHL gave 0). */
START_TEST(grid_program_wide_shift)
{
	/* as tilec writes it for kernel k(A: f32[1], n: i32) launch(grid = (1 << n) | 1, block = 32) */
	static const unsigned prog[] = {1, 1, 2, 256, 18, 1, 1, 22, 0, 0, 0};
	float a = 0;
	int n = 31;
	void *args[] = {&a, &n};
	unsigned grid[3] = {1, 1, 1};
	n = 32;
	expect_error(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, 2, grid), TILERT_ERR_ARG, "a shift by 32");
	ck_assert_uint_eq(grid[0], 1);
	n = 31;
	ck_assert_int_eq(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, 2, grid), TILERT_ERR_ARG);
	n = 30;
	ck_assert_int_eq(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, 2, grid), 0);
	ck_assert_uint_eq(grid[0], (1u << 30) | 1);
	static const unsigned ops[] = {TILERT_GP_SHL, TILERT_GP_SHR, TILERT_GP_SHRU};
	static const int counts[] = {32, 33, -1};
	for (size_t o = 0; o < 3; o++) {
		for (size_t c = 0; c < 3; c++) {
			unsigned shift[] = {TILERT_GP_CONST, 1, TILERT_GP_PARAM, 1u << 8 | TILERT_GP_I32, ops[o],
			                    TILERT_GP_END, TILERT_GP_END, TILERT_GP_END};
			n = counts[c];
			char why[64];
			snprintf(why, sizeof why, "a shift by %d (not from 0 to 31) is undefined", n);
			expect_error(tilert_grid_eval(shift, 8, args, 2, grid), TILERT_ERR_ARG, why);
		}
	}
}
END_TEST

/* `grid = (M != 0 ? 100 / M : 1, N == 0 || 10 / N > 2)` with M at index 0 and N at index 1 (both
   i32), as tilec writes it: only the chosen side is evaluated, so M = 0 and N = 0 divide by nothing. */
START_TEST(grid_program_lazy)
{
	static const unsigned prog[] = {
		TILERT_GP_PARAM, 0u << 8 | TILERT_GP_I32, TILERT_GP_CONST, 0, TILERT_GP_NE,
		TILERT_GP_SKIPZ, 7, TILERT_GP_CONST, 100, TILERT_GP_PARAM, 0u << 8 | TILERT_GP_I32, TILERT_GP_DIV,
		TILERT_GP_SKIP, 2, TILERT_GP_CONST, 1, TILERT_GP_END,
		TILERT_GP_PARAM, 1u << 8 | TILERT_GP_I32, TILERT_GP_CONST, 0, TILERT_GP_EQ,
		TILERT_GP_SKIPZ, 4, TILERT_GP_CONST, 1, TILERT_GP_SKIP, 10,
		TILERT_GP_CONST, 10, TILERT_GP_PARAM, 1u << 8 | TILERT_GP_I32, TILERT_GP_DIV, TILERT_GP_CONST, 2,
		TILERT_GP_GT, TILERT_GP_NOT, TILERT_GP_NOT, TILERT_GP_END,
		TILERT_GP_END,
	};
	int m = 0, n = 0;
	void *args[] = {&m, &n};
	unsigned grid[3] = {0, 0, 1};
	ck_assert_int_eq(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, sizeof args / sizeof args[0], grid), 0);
	ck_assert_uint_eq(grid[0], 1);
	ck_assert_uint_eq(grid[1], 1);
	m = 7, n = 3;
	ck_assert_int_eq(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, sizeof args / sizeof args[0], grid), 0);
	ck_assert_uint_eq(grid[0], 14);
	ck_assert_uint_eq(grid[1], 1);
	n = 5;
	expect_error(tilert_grid_eval(prog, sizeof prog / sizeof prog[0], args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG,
	             "grid dimension y is 0 with these arguments");
	static const unsigned past[] = {TILERT_GP_SKIP, 5, TILERT_GP_END, TILERT_GP_END, TILERT_GP_END};
	expect_error(tilert_grid_eval(past, 5, args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG, "malformed");
	static const unsigned empty[] = {TILERT_GP_SKIPZ, 0, TILERT_GP_END, TILERT_GP_END, TILERT_GP_END};
	expect_error(tilert_grid_eval(empty, 5, args, sizeof args / sizeof args[0], grid), TILERT_ERR_ARG, "malformed");
}
END_TEST

/* The align promises of a kernel (tilert.h, tilec_align_<name>): 'A' (parameter 0) promises align 16 with
 * its one outer stride parameter 1, as tilec writes tests/golden/align_copy.tile's. */
START_TEST(align_program)
{
	static const unsigned prog[] = {0, 16, 4, 1, 'A', 1, TILERT_GP_PARAM, 1u << 8 | TILERT_GP_I32, TILERT_GP_END};
	unsigned long long ptr = 0x7f0000001000ull;
	int ld = 36;
	void *args[] = {&ptr, &ld};
	size_t n = sizeof prog / sizeof prog[0];
	ck_assert_int_eq(tilert_align_check("k", prog, n, args, 2), 0);
	ld = 74;
	expect_error(tilert_align_check("k", prog, n, args, 2), TILERT_ERR_ARG,
	             "kernel k: 'A' promises align 16, but stride 0 is 74 elements (296 bytes), which is no multiple of 16");
	ld = 36;
	ptr += 4;
	expect_error(tilert_align_check("k", prog, n, args, 2), TILERT_ERR_ARG,
	             "kernel k: 'A' promises align 16, but its address 0x7f0000001004 is no multiple of 16");
	ptr -= 4;
	expect_error(tilert_align_check("k", prog, n - 1, args, 2), TILERT_ERR_ARG, "does not end");
	expect_error(tilert_align_check("k", prog, 4, args, 2), TILERT_ERR_ARG, "malformed");
	expect_error(tilert_align_check("k", prog, n, args, 1), TILERT_ERR_ARG, "malformed");
	void *missing[] = {NULL, &ld};
	expect_error(tilert_align_check("k", prog, n, missing, 2), TILERT_ERR_ARG, "missing");
}
END_TEST

#define CASE(fn)                                 \
	do {                                         \
		TCase *tc = tcase_create(#fn);           \
		tcase_add_test(tc, fn);                  \
		suite_add_tcase(s, tc);                  \
	} while (0)

static Suite *
tilert_suite(void)
{
	Suite *s = suite_create("tilert");
	CASE(missing_driver);
	CASE(driver_lacks_entry_points);
	CASE(init_fails_cleanly);
	CASE(init_negative_device);
	CASE(load_missing_file);
	CASE(load_empty_file);
	CASE(load_garbage_file);
	CASE(load_directory);
	CASE(load_host_elf);
	CASE(load_truncated_elf);
	CASE(load_corrupt_elf);
	CASE(load_corrupt_modules);
	CASE(valid_files_need_ctx);
	CASE(load_data_checks);
	CASE(last_error_never_null);
	CASE(null_arguments);
	CASE(grid_program);
	CASE(grid_program_lazy);
	CASE(grid_program_param_bound);
	CASE(grid_program_wide_shift);
	CASE(align_program);
	return s;
}

UNIT_MAIN(tilert_suite)
