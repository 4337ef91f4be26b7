/* driver.c: the tilec command: options, includes, the target table of emitters, output files and depfiles. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilec.h"

typedef enum Kind { K_NONE, K_CU, K_PTX, K_CUBIN, K_TOKENS, K_AST, K_IR } Kind;

typedef struct Options {
	const char *input;
	const char *output;
	Kind kind;
	const char *arch;
	List include_dirs;
	bool md, mp;
	const char *mf, *mt;
	bool via_nvcc;
	bool emu;       /* --target=emu: CUDA C for pre-Blackwell GPUs and the CPU, tcgen05 emulated */
	const char *draw; /* --draw OPCODE|FILE:LINE: an SVG picture instead of code */
} Options;

static const struct {
	const char *name, *ext;
	Kind kind;
} kinds[] = {
	{"cu", ".cu", K_CU}, {"ptx", ".ptx", K_PTX}, {"cubin", ".cubin", K_CUBIN},
	{"tokens", NULL, K_TOKENS}, {"ast", NULL, K_AST}, {"ir", ".ir", K_IR},
};

static void
usage(FILE *out)
{
	fputs("usage: tilec [options] FILE.tile\n"
	      "       tilec run FILE.tile [--kernel NAME] [--seed S] [--expect OUT=IN]...   (see tilec run --help)\n"
	      "  -o FILE            output, '-' for stdout; kind from --emit, else from the extension\n"
	      "  --emit=KIND        cu | ptx | cubin | tokens | ast | ir\n",
	      out);
	fprintf(out, "  -arch=ARCH         %s\n", arch_list(" (default)"));
	fputs("  -I DIR             include search directory\n"
	      "  -MD -MF FILE -MT T -MP   make dependency output, as gcc\n"
	      "  -Werror, -w        warnings as errors / no warnings\n"
	      "  --explain          notes on the choices tilec made (the TMEM plan)\n"
	      "  -Wno-NAME, -Werror=NAME   one warning off / as an error (NAME as shown in [-WNAME])\n"
	      "  --via=nvcc         build .ptx and .cubin from the CUDA C with nvcc\n"
	      "  --target=emu       CUDA C that emulates tensor memory (any GPU from sm_80, and the CPU)\n"
	      "  --print-image OPCODE   print the register/TMEM image of a tcgen05.ld or tcgen05.st\n"
	      "  --draw OPCODE|FILE:LINE -o X.svg   an SVG picture of an image, or of the apply at LINE\n"
	      "  --version, --help\n",
	      out);
}

static int
usage_error(const char *fmt, const char *arg)
{
	fputs("tilec: error: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see tilec --help)\n", stderr);
	return 2;
}

/* Reads a whole file into a malloc'd NUL-terminated buffer. */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	if (f != stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *text = malloc(cap);
	if (!text)
		out_of_memory();
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			char *p = realloc(text, cap);
			if (!p)
				out_of_memory();
			text = p;
		}
		size_t got = fread(text + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	bool bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		free(text);
		errno = EIO;
		return NULL;
	}
	text[n] = 0;
	*len = n;
	return text;
}

/* ------------------------------------------------------------------ includes */

typedef struct Includer {
	List *include_dirs;
	List seen;  /* char*: canonical paths already read */
	List deps;  /* char*: paths as found, for -MD */
	List stack; /* char*: canonical paths being read */
} Includer;

static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return pool_strdup(".");
	return pool_strndup(path, (size_t)(slash - path ? slash - path : 1));
}

static bool
file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool load_items(Includer *inc, const char *path, List *out, Loc from);

static bool
splice_includes(Includer *inc, int file, List *items, List *out)
{
	bool ok = true;
	for (int i = 0; i < items->n; i++) {
		Item *it = LIST_AT(*items, Item, i);
		if (it->kind != I_INCLUDE) {
			list_push(out, it);
			continue;
		}
		const char *found = NULL;
		if (it->path[0] == '/') {
			if (file_exists(it->path))
				found = it->path;
		} else {
			const char *local = pool_printf("%s/%s", dir_of(source_path(file)), it->path);
			if (file_exists(local))
				found = local;
			for (int d = 0; !found && d < inc->include_dirs->n; d++) {
				const char *p = pool_printf("%s/%s", LIST_AT(*inc->include_dirs, char, d), it->path);
				if (file_exists(p))
					found = p;
			}
		}
		if (!found) {
			error(it->loc, "cannot find include file \"%s\"", it->path);
			ok = false;
			continue;
		}
		ok &= load_items(inc, found, out, it->loc);
	}
	return ok;
}

static bool
load_items(Includer *inc, const char *path, List *out, Loc from)
{
	char canon[PATH_MAX];
	const char *key = path;
	if (strcmp(path, "-") != 0 && realpath(path, canon))
		key = pool_strdup(canon);
	for (int i = 0; i < inc->stack.n; i++) {
		if (strcmp(LIST_AT(inc->stack, char, i), key) == 0) {
			error(from, "\"%s\" includes itself", path);
			return false;
		}
	}
	for (int i = 0; i < inc->seen.n; i++)
		if (strcmp(LIST_AT(inc->seen, char, i), key) == 0)
			return true; /* each file is read once, as with #pragma once */
	size_t len;
	char *text = read_file(path, &len);
	if (!text) {
		if (from.first_line)
			error(from, "cannot read \"%s\": %s", path, strerror(errno));
		else
			fprintf(stderr, "tilec: error: cannot read '%s': %s\n", path, strerror(errno));
		error_count++;
		return false;
	}
	list_push(&inc->seen, (void *)key);
	if (from.first_line)
		list_push(&inc->deps, (void *)pool_strdup(path));
	int file = source_add(path, text, len);
	List items = {0};
	bool ok = parse_file(file, &items);
	list_push(&inc->stack, (void *)key);
	ok &= splice_includes(inc, file, &items, out);
	inc->stack.n--;
	return ok;
}

bool
load_program(const char *path, List *include_dirs, List *items)
{
	Includer inc = {include_dirs, {0}, {0}, {0}};
	return load_items(&inc, path, items, no_loc) && !error_count;
}

/* ------------------------------------------------------------------ external tools */

/* A CUDA tool (nvcc, ptxas): $CUDA_HOME/bin, $CUDA_PATH/bin, $PATH, /usr/local/cuda/bin. */
static const char *
find_tool(const char *name)
{
	const char *vars[] = {"CUDA_HOME", "CUDA_PATH"};
	for (int i = 0; i < 2; i++) {
		const char *home = getenv(vars[i]);
		if (home && *home) {
			const char *p = pool_printf("%s/bin/%s", home, name);
			if (access(p, X_OK) == 0)
				return p;
		}
	}
	const char *path = getenv("PATH");
	if (path) {
		const char *p = path;
		while (*p) {
			const char *end = strchr(p, ':');
			size_t n = end ? (size_t)(end - p) : strlen(p);
			if (n) {
				const char *cand = pool_printf("%.*s/%s", (int)n, p, name);
				if (access(cand, X_OK) == 0)
					return cand;
			}
			p += n + (end ? 1 : 0);
		}
	}
	const char *fallback = pool_printf("/usr/local/cuda/bin/%s", name);
	if (access(fallback, X_OK) == 0)
		return fallback;
	return NULL;
}


static char *
make_temp(const char *near, int *fd)
{
	char *path = pool_printf("%s/.tilec-XXXXXX", dir_of(near));
	*fd = mkstemp(path);
	return *fd < 0 ? NULL : path;
}

static bool
write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		data += n;
		len -= (size_t)n;
	}
	return true;
}

/* Runs nvcc (CUDA C -> .ptx / .cubin) or ptxas (PTX -> .cubin) in a private temporary directory on
 * input; returns the bytes of what it wrote in result. 0, or 3 when the tool is missing or fails. */
static int
tool_build(const char *tool, Buf *input, Kind kind, const char *arch, Buf *result)
{
	const char *what = kind == K_PTX ? "ptx" : "cubin";
	bool ptxas = strcmp(tool, "ptxas") == 0;
	const char *path = find_tool(tool);
	if (!path) {
		fprintf(stderr, "tilec: error: %s not found (looked in $CUDA_HOME/bin, $CUDA_PATH/bin, $PATH and "
		                "/usr/local/cuda/bin); it is needed for --emit=%s%s\n", tool, what,
		        ptxas ? " (--emit=ptx needs no CUDA tools)" : "");
		return 3;
	}
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = pool_printf("%s/tilec-XXXXXX", tmpdir);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "tilec: error: cannot create a temporary directory in %s: %s\n", tmpdir, strerror(errno));
		return 3;
	}
	char *src = pool_printf("%s/kernel.%s", dir, ptxas ? "ptx" : "cu");
	char *obj = pool_printf("%s/kernel.%s", dir, what);
	FILE *f = fopen(src, "wb");
	bool ok = f && fwrite(input->data ? input->data : "", 1, input->len, f) == input->len;
	if (f)
		ok &= fclose(f) == 0;
	int rc = 0;
	if (!ok) {
		fprintf(stderr, "tilec: error: cannot write %s: %s\n", src, strerror(errno));
		rc = 3;
	} else {
		char *archflag = pool_printf("-arch=%s", arch);
		char *nvcc_argv[] = {(char *)path, kind == K_PTX ? "-ptx" : "-cubin", archflag, "-o", obj, src, NULL};
		char *ptxas_argv[] = {(char *)path, archflag, "-o", obj, src, NULL};
		int st = run_process(ptxas ? ptxas_argv : nvcc_argv, true);
		if (st != 0) {
			if (st < 0)
				fprintf(stderr, "tilec: error: could not run %s\n", path);
			else
				fprintf(stderr, "tilec: error: %s failed (%s %d) on the generated %s\n", path,
				        st >= 1000 ? "signal" : "exit", st >= 1000 ? st - 1000 : st, ptxas ? "PTX" : "CUDA C");
			rc = 3;
		} else {
			size_t n;
			char *bytes = read_file(obj, &n);
			if (!bytes) {
				fprintf(stderr, "tilec: error: cannot read %s: %s\n", obj, strerror(errno));
				rc = 3;
			} else {
				result->data = bytes;
				result->len = n;
				result->cap = n + 1;
			}
		}
	}
	unlink(src);
	unlink(obj);
	rmdir(dir);
	return rc;
}

/* ------------------------------------------------------------------ output */

static void
escape_make(Buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			/* a run of backslashes before a space doubles, as gcc does */
			for (const char *q = s - 1; q >= s - 64 && *q == '\\'; q--)
				buf_putc(b, '\\');
			buf_putc(b, '\\');
		} else if (*s == '$') {
			buf_putc(b, '$');
		} else if (*s == '#') {
			buf_putc(b, '\\');
		}
		buf_putc(b, *s);
	}
}

static char *
replace_ext(const char *path, const char *ext)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
	return pool_printf("%.*s%s", (int)n, path, ext);
}

/* Writes data to path through a temporary file renamed into place, so a failure leaves nothing behind. */
static int
commit_output(const char *path, const char *data, size_t len)
{
	if (strcmp(path, "-") == 0) {
		fwrite(data, 1, len, stdout);
		if (fflush(stdout) != 0) {
			fprintf(stderr, "tilec: error: cannot write to standard output: %s\n", strerror(errno));
			return 1;
		}
		return 0;
	}
	/* a device or a pipe (-o /dev/null) is written in place: renaming over it would replace it */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		int out = open(path, O_WRONLY | O_TRUNC);
		bool ok = out >= 0 && write_all(out, data, len);
		if (out >= 0)
			ok &= close(out) == 0;
		if (!ok) {
			fprintf(stderr, "tilec: error: cannot write '%s': %s\n", path, strerror(errno));
			return 1;
		}
		return 0;
	}
	int fd;
	char *tmp = make_temp(path, &fd);
	if (!tmp) {
		fprintf(stderr, "tilec: error: cannot create '%s': %s\n", path, strerror(errno));
		return 1;
	}
	bool ok = write_all(fd, data, len);
	mode_t mask = umask(0); /* mkstemp makes 0600; outputs get the usual 0666 & ~umask */
	umask(mask);
	ok &= fchmod(fd, 0666 & ~mask) == 0;
	ok &= close(fd) == 0;
	if (!ok || rename(tmp, path) != 0) {
		fprintf(stderr, "tilec: error: cannot write '%s': %s\n", path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

static int
write_depfile(Options *opt, Includer *inc, const char *output)
{
	const char *target = opt->mt ? opt->mt : output;
	const char *path = opt->mf ? opt->mf : replace_ext(output, ".d");
	Buf b = {0};
	if (opt->mt)
		buf_puts(&b, target); /* -MT is used verbatim, as gcc does */
	else
		escape_make(&b, target);
	buf_puts(&b, ": ");
	escape_make(&b, opt->input);
	for (int i = 0; i < inc->deps.n; i++) {
		buf_puts(&b, " \\\n ");
		escape_make(&b, LIST_AT(inc->deps, char, i));
	}
	buf_puts(&b, "\n");
	if (opt->mp) {
		for (int i = 0; i < inc->deps.n; i++) {
			buf_puts(&b, "\n");
			escape_make(&b, LIST_AT(inc->deps, char, i));
			buf_puts(&b, ":\n");
		}
	}
	int rc = commit_output(path, b.data ? b.data : "", b.len);
	buf_free(&b);
	return rc;
}

/* ------------------------------------------------------------------ main */

static int
print_image(const char *text)
{
	Opcode op;
	char why[256];
	if (!opcode_parse(text, &op, why, sizeof why)) {
		fprintf(stderr, "tilec: error: %s\n", why);
		return 2;
	}
	image_print(stdout, &op);
	return 0;
}

static int
parse_args(int argc, char **argv, Options *opt, int *done)
{
	*done = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			*done = 0;
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("tilec %s\n", TILEC_VERSION);
			*done = 0;
			return 0;
		} else if (strcmp(a, "--print-image") == 0) {
			if (i + 1 >= argc)
				return usage_error("%s needs an opcode", a);
			*done = print_image(argv[++i]);
			return 0;
		} else if (strcmp(a, "--draw") == 0) {
			if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] != ':'))
				return usage_error("%s needs an opcode or FILE.tile:LINE", a);
			opt->draw = argv[++i];
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "-I") == 0 || strcmp(a, "-MF") == 0 ||
		           strcmp(a, "-MT") == 0 || strcmp(a, "-arch") == 0) {
			if (i + 1 >= argc)
				return usage_error("%s needs an argument", a);
			const char *v = argv[++i];
			if (a[1] == 'o')
				opt->output = v;
			else if (a[1] == 'I')
				list_push(&opt->include_dirs, (void *)v);
			else if (strcmp(a, "-MF") == 0)
				opt->mf = v;
			else if (strcmp(a, "-MT") == 0)
				opt->mt = v;
			else
				opt->arch = v;
		} else if (strncmp(a, "-I", 2) == 0) {
			list_push(&opt->include_dirs, (void *)(a + 2));
		} else if (strncmp(a, "-o", 2) == 0 && a[2]) {
			opt->output = a + 2;
		} else if (strncmp(a, "-arch=", 6) == 0 || strncmp(a, "--arch=", 7) == 0) {
			opt->arch = strchr(a, '=') + 1;
		} else if (strncmp(a, "--emit=", 7) == 0) {
			opt->kind = K_NONE;
			for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
				if (strcmp(a + 7, kinds[k].name) == 0)
					opt->kind = kinds[k].kind;
			if (opt->kind == K_NONE)
				return usage_error("unknown --emit kind '%s'; expected cu, ptx, cubin, tokens, ast or ir", a + 7);
		} else if (strcmp(a, "--target=emu") == 0) {
			opt->emu = true;
		} else if (strncmp(a, "--target=", 9) == 0) {
			return usage_error("unknown --target '%s'; the only one is emu (the default is the -arch GPU)", a + 9);
		} else if (strcmp(a, "--via=nvcc") == 0) {
			opt->via_nvcc = true;
		} else if (strncmp(a, "--via=", 6) == 0) {
			return usage_error("unknown --via route '%s'; the only one is nvcc", a + 6);
		} else if (strcmp(a, "-MD") == 0) {
			opt->md = true;
		} else if (strcmp(a, "-MP") == 0) {
			opt->mp = true;
		} else if (strncmp(a, "-W", 2) == 0 || strcmp(a, "-w") == 0) {
			const char *why = diag_option(a);
			if (why)
				return usage_error("%s", why);
		} else if (strcmp(a, "--explain") == 0) {
			diag_explain = true;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else {
			if (opt->input)
				return usage_error("more than one input file ('%s')", a);
			opt->input = a;
		}
	}
	if (opt->draw && opt->input)
		return usage_error("--draw names its file itself (--draw FILE.tile:LINE); '%s' is one input too many", opt->input);
	if (opt->draw && !opt->output)
		return usage_error("%s", "--draw needs -o FILE.svg (or -o - for standard output)");
	if (!opt->input && !opt->draw)
		return usage_error("%s", "no input file");
	if (!arch_find(opt->arch)) {
		fprintf(stderr, "tilec: error: unsupported -arch=%s; tcgen05 needs one of %s\n", opt->arch, arch_list(""));
		return 2;
	}
	return 0;
}

static Kind
kind_of(Options *opt)
{
	if (opt->kind != K_NONE)
		return opt->kind;
	if (opt->output) {
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			const char *ext = kinds[k].ext;
			size_t n = strlen(opt->output), e = ext ? strlen(ext) : 0;
			if (ext && n > e && strcmp(opt->output + n - e, ext) == 0)
				return kinds[k].kind;
		}
	}
	return K_CU;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int
compile(Options *opt)
{
	Kind kind = kind_of(opt);
	if (opt->emu && (kind == K_PTX || kind == K_CUBIN))
		return usage_error("--target=emu writes CUDA C only (--emit=cu or -o FILE.cu), not %s",
		                   kind == K_PTX ? "PTX" : "a cubin");
	if (kind == K_TOKENS) {
		size_t len;
		char *text = read_file(opt->input, &len);
		if (!text) {
			fprintf(stderr, "tilec: error: cannot read '%s': %s\n", opt->input, strerror(errno));
			return 1;
		}
		int file = source_add(opt->input, text, len);
		return lexer_dump_tokens(file, stdout) && !error_count ? 0 : 1;
	}
	Includer inc = {&opt->include_dirs, {0}, {0}, {0}};
	List items = {0};
	bool ok = load_items(&inc, opt->input, &items, no_loc);
	if (!ok || error_count)
		return 1;
	if (kind == K_AST) {
		ast_dump(stdout, &items);
		return 0;
	}
	Program *prog = lower_program(&items, base_name(source_path(0)));
	if (!prog || error_count)
		return 1;
	const char *ext = kind == K_PTX ? ".ptx" : kind == K_CUBIN ? ".cubin" : kind == K_IR ? ".ir" : ".cu";
	const char *output = opt->output ? opt->output : replace_ext(base_name(opt->input), ext);
	/* the routes: cu: CUDA C; ptx: direct PTX (--via=nvcc: CUDA C through nvcc -ptx); cubin: direct
	 * PTX through ptxas (--via=nvcc: nvcc -cubin); ir: the lowered program, the same for every target */
	const Target *target = kind == K_IR ? &target_ir
	                       : opt->emu ? &target_emu
	                       : kind == K_CU || opt->via_nvcc ? &target_cuda : &target_ptx;
	Buf text = {0}, built = {0};
	int rc = 0;
	target->emit(prog, opt->arch, &text);
	Buf *result = &text;
	if (kind == K_CUBIN || (kind == K_PTX && target != &target_ptx)) {
		rc = tool_build(target->tool, &text, kind, opt->arch, &built);
		result = &built;
	}
	if (rc == 0)
		rc = commit_output(output, result->data ? result->data : "", result->len);
	buf_free(&built);
	buf_free(&text);
	/* with -o -, the rule is for the file tilec writes without -o, and sits next to it: ./NAME.d */
	if (rc == 0 && opt->md)
		rc = write_depfile(opt, &inc, strcmp(output, "-") == 0 ? replace_ext(base_name(opt->input), ext) : output);
	return rc;
}

int
tilec_main(int argc, char **argv)
{
	Options opt = {0};
	opt.arch = arch_default()->name;
	diag_setup();
	if (argc > 1 && strcmp(argv[1], "run") == 0) {
		int rc = tilec_run(argc - 1, argv + 1);
		fflush(stdout);
		pool_free_all();
		return rc;
	}
	int done;
	int rc = parse_args(argc, argv, &opt, &done);
	if (rc == 0 && done < 0 && opt.draw) {
		Buf svg = {0};
		rc = draw_command(opt.draw, &opt.include_dirs, &svg);
		if (rc == 0)
			rc = commit_output(opt.output, svg.data, svg.len);
		buf_free(&svg);
	} else if (rc == 0 && done < 0)
		rc = compile(&opt);
	else if (rc == 0)
		rc = done;
	fflush(stdout);
	pool_free_all();
	return rc;
}
