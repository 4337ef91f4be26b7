/* driver.c: the tilec command: options, the choice of a target (pipeline.c's table), output files and depfiles. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilec.h"

typedef enum Kind { K_NONE, K_CU, K_CUH, K_PTX, K_CUBIN, K_TOKENS, K_AST, K_IR } Kind;

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
	bool fast_math; /* --fast-math */
	const char *draw; /* --draw OPCODE|FILE:LINE: an SVG picture instead of code */
	List xptxas;    /* char*: -Xptxas options, in order */
} Options;

static const struct {
	const char *name, *ext;
	Kind kind;
} kinds[] = {
	{"cu", ".cu", K_CU}, {"cuh", ".cuh", K_CUH}, {"ptx", ".ptx", K_PTX}, {"cubin", ".cubin", K_CUBIN},
	{"tokens", NULL, K_TOKENS}, {"ast", NULL, K_AST}, {"ir", ".ir", K_IR},
};

static void
usage(FILE *out)
{
	fputs("usage: tilec [options] FILE.tile\n"
	      "       tilec run FILE.tile [--kernel NAME] [--seed S] [--expect OUT=IN]...   (see tilec run --help)\n"
	      "  -o FILE            output, '-' for stdout; kind from --emit, else from the extension\n"
	      "  --emit=KIND        cu | cuh | ptx | cubin | tokens | ast | ir\n",
	      out);
	fprintf(out, "  -arch=ARCH         %s\n", arch_list(" (default)"));
	fputs("  -I DIR             include search directory\n"
	      "  -MD -MF FILE -MT T -MP   make dependency output, as gcc\n"
	      "  -Werror, -w        warnings as errors / no warnings\n"
	      "  --explain          notes on the choices tilec made (the TMEM plan, each copy)\n"
	      "  -Wno-NAME, -Werror=NAME   one warning off / as an error (NAME as shown in [-WNAME])\n"
	      "  --via=nvcc         build .ptx and .cubin from the CUDA C with nvcc\n"
	      "  -Xptxas OPT        pass OPT (a comma-separated list) to ptxas; repeatable\n"
	      "  --target=emu       CUDA C that emulates tensor memory (any GPU from sm_80, and the CPU)\n"
	      "  --fast-math        exp and exp2 by the hardware's ex2.approx (exp_approx, exp2_approx)\n",
	      out);
	fprintf(out, "  --print-image OPCODE   print the register/TMEM image of a %s or %s, or the image of a %s\n",
	        isa_name(TC_LD, 0), isa_name(TC_ST, 0), isa_name(TC_CP, 0));
	fputs("  --draw OPCODE|FILE:LINE -o X.svg   an SVG picture of an image, or of the apply at LINE\n"
	      "  --version, --help\n",
	      out);
}

static int
usage_error(const char *fmt, const char *arg)
{
	error(no_loc, "%s (see tilec --help)", pool_printf(fmt, arg));
	return 2;
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
/* Prints what ptxas said (its info lines only when -v was asked for) and warns, at the kernel's
 * line, of every kernel that spills registers (ptxas -v reports it per function). */
static void
ptxas_report(const char *log, const List *xptxas, Program *prog)
{
	bool verbose = false;
	for (int i = 0; i < xptxas->n; i++) {
		const char *o = LIST_AT(*xptxas, char, i);
		verbose |= strcmp(o, "-v") == 0 || strcmp(o, "--verbose") == 0;
	}
	const char *fn = NULL;
	for (const char *line = log; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *text = pool_strndup(line, len);
		const char *q;
		long stores, loads;
		if ((q = strstr(text, "Function properties for ")) != NULL)
			fn = pool_strdup(q + strlen("Function properties for "));
		else if ((q = strstr(text, "Compiling entry function '")) != NULL)
			fn = pool_strndup(q + strlen("Compiling entry function '"), strcspn(q + strlen("Compiling entry function '"), "'"));
		if ((q = strstr(text, "bytes stack frame, ")) != NULL &&
		    sscanf(q, "bytes stack frame, %ld bytes spill stores, %ld bytes spill loads", &stores, &loads) == 2 &&
		    (stores || loads) && fn) {
			for (int k = 0; k < prog->kernels.n; k++) {
				KernelIR *kir = LIST_AT(prog->kernels, KernelIR, k);
				if (strcmp(kir->name, fn) == 0)
					warn(WARN_PTXAS_SPILL, kir->loc, "ptxas spills registers in kernel '%s' (%ld bytes of spill stores, %ld bytes of "
					                  "spill loads): the kernel keeps too many values live", fn, stores, loads);
			}
		}
		bool info = strncmp(text, "ptxas info", 10) == 0 || strstr(text, "bytes stack frame, ") != NULL;
		if (verbose || !info)
			fprintf(stderr, "%s\n", text);
		line += len + (end != NULL);
	}
}

static int
tool_build(const char *tool, Buf *input, Kind kind, const char *arch, const List *xptxas, Program *prog,
           Buf *result)
{
	const char *what = kind == K_PTX ? "ptx" : "cubin";
	bool ptxas = strcmp(tool, "ptxas") == 0;
	const char *path = find_tool(tool);
	if (!path) {
		error(no_loc, "%s not found (looked in $CUDA_HOME/bin, $CUDA_PATH/bin, $PATH and /usr/local/cuda/bin); it "
		              "is needed for --emit=%s%s", tool, what, ptxas ? " (--emit=ptx needs no CUDA tools)" : "");
		return 3;
	}
	char *dir = process_temp_mkdir("tilec");
	if (!dir) {
		error(no_loc, "cannot create a temporary directory: %s", strerror(errno));
		return 3;
	}
	char *src = pool_printf("%s/kernel.%s", dir, ptxas ? "ptx" : "cu");
	char *obj = pool_printf("%s/kernel.%s", dir, what);
	process_temp_file(src);
	process_temp_file(obj);
	FILE *f = fopen(src, "wb");
	bool ok = f && fwrite(input->data ? input->data : "", 1, input->len, f) == input->len;
	if (f)
		ok &= fclose(f) == 0;
	int rc = 0;
	if (!ok) {
		error(no_loc, "cannot write %s: %s", src, strerror(errno));
		rc = 3;
	} else {
		/* ptxas runs with -v (its spill report) wherever it runs: directly, or inside nvcc -cubin */
		bool runs_ptxas = ptxas || kind == K_CUBIN;
		char **argv = pool_alloc(sizeof(char *) * (size_t)(12 + 2 * xptxas->n));
		int n = 0;
		argv[n++] = (char *)path;
		if (!ptxas)
			argv[n++] = kind == K_PTX ? "-ptx" : "-cubin";
		argv[n++] = pool_printf("-arch=%s", arch);
		if (runs_ptxas) {
			if (!ptxas)
				argv[n++] = "-Xptxas";
			argv[n++] = "-v";
			for (int i = 0; i < xptxas->n; i++) {
				if (!ptxas)
					argv[n++] = "-Xptxas";
				argv[n++] = LIST_AT(*xptxas, char, i);
			}
		}
		argv[n++] = "-o";
		argv[n++] = obj;
		argv[n++] = src;
		argv[n] = NULL;
		char *log = pool_printf("%s/tool.log", dir);
		process_temp_file(log);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int st = -1;
		if (fd >= 0) {
			/* the tool's stdout and stderr into the log, for ptxas_report */
			fflush(stdout);
			fflush(stderr);
			int out = dup(1), err = dup(2);
			dup2(fd, 1);
			dup2(fd, 2);
			st = process_run(argv, false);
			dup2(out, 1);
			dup2(err, 2);
			close(out);
			close(err);
			close(fd);
		}
		size_t loglen;
		char *said = include_read_file(log, &loglen);
		if (said) {
			if (runs_ptxas)
				ptxas_report(said, xptxas, prog);
			else
				fputs(said, stderr);
			free(said);
		}
		unlink(log);
		process_forget(log);
		if (st != 0) {
			if (st < 0)
				error(no_loc, "could not run %s", path);
			else
				error(no_loc, "%s failed (%s %d) on the generated %s", path, st >= 1000 ? "signal" : "exit",
				      st >= 1000 ? st - 1000 : st, ptxas ? "PTX" : "CUDA C");
			rc = 3;
		} else {
			size_t n;
			char *bytes = include_read_file(obj, &n);
			if (!bytes) {
				error(no_loc, "cannot read %s: %s", obj, strerror(errno));
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
	process_forget(src);
	process_forget(obj);
	process_forget(dir);
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

/* An output on its way: written to a temporary file next to its target first, renamed into place only
 * when every output of the run was written (a failed run changes no file); devices and pipes are
 * written in place at commit. */
typedef struct Output {
	const char *path;   /* as given; "-" is stdout */
	const char *target; /* what is replaced: path, or the file a symbolic link names */
	const char *tmp;    /* the temporary file, NULL when written in place */
	const char *data;
	size_t len;
} Output;

/* Outputs that must be written in place: devices, pipes and the /dev/stdout kind of link (through
 * /proc/self/fd, a rename would replace the link, not reach the file the shell opened). */
static bool
in_place(const char *path)
{
	struct stat st;
	if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0)
		return true;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

static int
output_stage(Output *o, const char *path, const char *data, size_t len)
{
	*o = (Output){path, path, NULL, data, len};
	/* refused before any output is committed: writing to it would fail after the others were */
	struct stat st;
	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		error(no_loc, "cannot write '%s': %s", path, strerror(EISDIR));
		return 1;
	}
	if (strcmp(path, "-") == 0 || in_place(path))
		return 0;
	/* a symbolic link stays: the file it names is replaced */
	char canon[PATH_MAX];
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, canon))
		o->target = pool_strdup(canon);
	char *tmp = pool_printf("%s/.tilec-XXXXXX", include_dir_of(o->target));
	int fd = process_mkstemp(tmp);
	if (fd < 0) {
		error(no_loc, "cannot create '%s': %s", path, strerror(errno));
		return 1;
	}
	o->tmp = tmp;
	bool ok = write_all(fd, data, len);
	mode_t mask = umask(0); /* mkstemp makes 0600; outputs get the usual 0666 & ~umask */
	umask(mask);
	ok &= fchmod(fd, 0666 & ~mask) == 0;
	ok &= close(fd) == 0;
	if (!ok) {
		error(no_loc, "cannot write '%s': %s", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* Removes a staged output that will not be committed. */
static void
output_drop(Output *o)
{
	if (o->tmp) {
		unlink(o->tmp);
		process_forget(o->tmp);
		o->tmp = NULL;
	}
}

static int
output_commit(Output *o)
{
	if (strcmp(o->path, "-") == 0) {
		fwrite(o->data, 1, o->len, stdout);
		if (fflush(stdout) != 0) {
			error(no_loc, "cannot write to standard output: %s", strerror(errno));
			return 1;
		}
		return 0;
	}
	if (!o->tmp) {
		int out = open(o->path, O_WRONLY | O_TRUNC);
		bool ok = out >= 0 && write_all(out, o->data, o->len);
		if (out >= 0)
			ok &= close(out) == 0;
		if (!ok) {
			error(no_loc, "cannot write '%s': %s", o->path, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (rename(o->tmp, o->target) != 0) {
		error(no_loc, "cannot write '%s': %s", o->path, strerror(errno));
		output_drop(o);
		return 1;
	}
	process_forget(o->tmp);
	o->tmp = NULL;
	return 0;
}

/* The depfile's text: the rule that the output depends on the input and every included file. */
static void
depfile_text(Options *opt, List *deps, const char *output, Buf *b)
{
	const char *target = opt->mt ? opt->mt : output;
	if (opt->mt)
		buf_puts(b, target); /* -MT is used verbatim, as gcc does */
	else
		escape_make(b, target);
	buf_puts(b, ":");
	if (strcmp(opt->input, "-") != 0) { /* stdin is no file make could look at */
		buf_puts(b, " ");
		escape_make(b, opt->input);
	}
	for (int i = 0; i < deps->n; i++) {
		buf_puts(b, " \\\n ");
		escape_make(b, LIST_AT(*deps, char, i));
	}
	buf_puts(b, "\n");
	if (opt->mp) {
		for (int i = 0; i < deps->n; i++) {
			buf_puts(b, "\n");
			escape_make(b, LIST_AT(*deps, char, i));
			buf_puts(b, ":\n");
		}
	}
}



/* Refuses an output that is one of the files read (gcc: "input file is the same as output file"). */
static bool
overwrites_source(const char *path, const char *what, Options *opt, List *deps)
{
	struct stat out;
	if (strcmp(path, "-") == 0 || stat(path, &out) != 0 || !S_ISREG(out.st_mode))
		return false;
	for (int i = -1; i < deps->n; i++) {
		const char *src = i < 0 ? opt->input : LIST_AT(*deps, char, i);
		struct stat in;
		if (strcmp(src, "-") == 0 || stat(src, &in) != 0 || in.st_dev != out.st_dev || in.st_ino != out.st_ino)
			continue;
		if (!opt->output && strcmp(what, "output") == 0)
			error(no_loc, "the output '%s' would replace the input '%s'; name another output with -o", path, src);
		else
			error(no_loc, "the %s '%s' is the %s file '%s'; refusing to overwrite it", what, path,
			      i < 0 ? "input" : "included", src);
		return true;
	}
	return false;
}

static Kind kind_of(Options *opt);
static bool output_kind_unknown(const char *output);
static const char *base_name(const char *path);

/* The extension of a kind's output file: .cu, .ptx, .cubin, .ir; .tokens and .ast for the dumps. */
static const char *
kind_ext(Kind kind)
{
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if (kinds[k].kind == kind)
			return kinds[k].ext ? kinds[k].ext : pool_printf(".%s", kinds[k].name);
	return ".cu";
}

/* One output, staged and committed (--draw). */
static int
write_output(const char *path, const char *data, size_t len)
{
	Output o;
	int rc = output_stage(&o, path, data, len);
	if (!rc)
		rc = output_commit(&o);
	output_drop(&o);
	return rc;
}

/* Writes the output and, with -MD, the depfile: both or neither. */
static int
write_outputs(Options *opt, List *deps, const char *output, const char *data, size_t len)
{
	Buf dep = {0};
	const char *dpath = NULL;
	if (opt->md) {
		/* with -o -, the rule is for the file tilec writes without -o, and sits next to it: ./NAME.d */
		const char *rule = strcmp(output, "-") == 0 ? replace_ext(base_name(opt->input), kind_ext(kind_of(opt))) : output;
		dpath = opt->mf ? opt->mf : replace_ext(rule, ".d");
		depfile_text(opt, deps, rule, &dep);
	}
	if (overwrites_source(output, "output", opt, deps) || (dpath && overwrites_source(dpath, "dependency file", opt, deps))) {
		buf_free(&dep);
		return 1;
	}
	/* after the checks that protect the sources: '-o k.tile' is refused as the input, not as a kind */
	if (opt->kind == K_NONE && strcmp(output, "-") != 0 && output_kind_unknown(output)) {
		buf_free(&dep);
		return 2;
	}
	Output outs[2];
	int n = 0, rc = 0;
	rc = output_stage(&outs[n++], output, data, len);
	if (!rc && dpath)
		rc = output_stage(&outs[n++], dpath, dep.data ? dep.data : "", dep.len);
	for (int i = 0; i < n && !rc; i++)
		rc = output_commit(&outs[i]);
	for (int i = 0; i < n; i++)
		output_drop(&outs[i]);
	buf_free(&dep);
	return rc;
}

/* ------------------------------------------------------------------ main */

static int
print_image(const char *text)
{
	Opcode op;
	char why[256];
	CpForm form;
	int status;
	if (cp_form_of_option(text, &form, &status)) {
		if (status == 0)
			cp_image_print(stdout, &form);
		return status;
	}
	if (!opcode_parse(text, &op, why, sizeof why)) {
		error(no_loc, "%s", why);
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
			else if (strcmp(a, "-MT") == 0) /* several -MT name several targets, as gcc's */
				opt->mt = opt->mt ? pool_printf("%s %s", opt->mt, v) : v;
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
				return usage_error("unknown --emit kind '%s'; expected cu, cuh, ptx, cubin, tokens, ast or ir", a + 7);
		} else if (strcmp(a, "--target=emu") == 0) {
			opt->emu = true;
		} else if (strncmp(a, "--target=", 9) == 0) {
			return usage_error("unknown --target '%s'; the only one is emu (the default is the -arch GPU)", a + 9);
		} else if (strcmp(a, "--via=nvcc") == 0) {
			opt->via_nvcc = true;
		} else if (strncmp(a, "--via=", 6) == 0) {
			return usage_error("unknown --via route '%s'; the only one is nvcc", a + 6);
		} else if (strcmp(a, "-Xptxas") == 0 || strncmp(a, "-Xptxas=", 8) == 0) {
			if (!a[7] && i + 1 >= argc)
				return usage_error("%s needs an argument", a);
			/* as nvcc: a comma-separated list of ptxas options */
			char *list = pool_strdup(a[7] ? a + 8 : argv[++i]);
			for (char *o = strtok(list, ","); o; o = strtok(NULL, ","))
				list_push(&opt->xptxas, o);
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
		} else if (strcmp(a, "--fast-math") == 0) {
			opt->fast_math = true;
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
	/* the picture is the one output: an option that names another would be quietly dropped */
	for (size_t k = 0; opt->draw && opt->kind != K_NONE && k < sizeof kinds / sizeof kinds[0]; k++)
		if (kinds[k].kind == opt->kind)
			return usage_error("--draw writes an SVG picture, not the output of --emit=%s; leave one of them out",
			                   kinds[k].name);
	if (opt->draw && opt->md)
		return usage_error("%s", "--draw writes no dependency file; leave out -MD");
	if (!opt->input && !opt->draw)
		return usage_error("%s", "no input file");
	if (!arch_find(opt->arch)) {
		error(no_loc, "unsupported -arch=%s; tcgen05 needs one of %s", opt->arch, arch_list(""));
		return 2;
	}
	return 0;
}

/* The extension of -o names the output kind (without --emit): an unknown one is refused rather than
 * written as CUDA C under that name (-o k.svg without --draw, -o k.txt). A device (/dev/null,
 * /dev/stdout, even where it is a redirected file) or a pipe takes the default, CUDA C. */
static bool
output_kind_unknown(const char *output)
{
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		const char *ext = kinds[k].ext;
		size_t n = strlen(output), e = ext ? strlen(ext) : 0;
		if (ext && n > e && strcasecmp(output + n - e, ext) == 0)
			return false;
	}
	struct stat st;
	if (strncmp(output, "/dev/", 5) == 0 || (stat(output, &st) == 0 && !S_ISREG(st.st_mode)))
		return false;
	const char *base = base_name(output), *dot = strrchr(base, '.');
	if (dot && strcasecmp(dot, ".svg") == 0)
		usage_error("-o %s: an SVG picture is written only by --draw OPCODE|FILE.tile:LINE; code goes to a .cu, "
		            ".cuh, .ptx, .cubin or .ir file", output);
	else if (dot && dot != base)
		usage_error("-o %s: unknown output kind; the extension names it (.cu, .cuh, .ptx, .cubin, .ir), or "
		            "--emit=KIND does", output);
	else
		usage_error("-o %s: no extension to name the output kind (.cu, .cuh, .ptx, .cubin, .ir); add one, or "
		            "--emit=KIND", output);
	return true;
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
			/* in any case: -o K.PTX is PTX, not CUDA C under a .PTX name */
			if (ext && n > e && strcasecmp(opt->output + n - e, ext) == 0)
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
		return usage_error("--target=emu writes CUDA C only (--emit=cu or cuh, or -o FILE.cu or FILE.cuh), not %s",
		                   kind == K_PTX ? "PTX" : "a cubin");
	/* --emit=tokens and --emit=ast print to stdout unless -o names a file; so does input from stdin */
	const char *output = opt->output;
	if (!output && (kind == K_TOKENS || kind == K_AST || strcmp(opt->input, "-") == 0))
		output = "-";
	List deps = {0};
	if (kind == K_TOKENS || kind == K_AST) {
		char *data = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&data, &len);
		if (!mem)
			out_of_memory();
		bool ok;
		if (kind == K_TOKENS) {
			size_t n;
			char *text = include_read_file(opt->input, &n);
			if (!text) {
				error(no_loc, "cannot read '%s': %s", opt->input, strerror(errno));
				fclose(mem);
				free(data);
				return 1;
			}
			ok = lexer_dump_tokens(source_add(opt->input, text, n), mem) && !error_count;
		} else {
			List items = {0};
			ok = pipeline_read(opt->input, &opt->include_dirs, &items, &deps);
			if (ok)
				ast_dump(mem, &items);
		}
		if (fclose(mem) != 0)
			out_of_memory();
		int rc = ok ? write_outputs(opt, &deps, output, data, len) : 1;
		free(data);
		return rc;
	}
	List items = {0};
	if (!pipeline_read(opt->input, &opt->include_dirs, &items, &deps))
		return 1;
	Program *prog = pipeline_lower(&items, base_name(source_path(0)), &(LowerOptions){.fast_math = opt->fast_math, .arch = arch_find(opt->arch)});
	if (!prog || error_count)
		return 1;
	if (!output)
		output = replace_ext(base_name(opt->input), kind_ext(kind));
	/* the routes: cu: CUDA C; ptx: direct PTX (--via=nvcc: CUDA C through nvcc -ptx); cubin: direct
	 * PTX through ptxas (--via=nvcc: nvcc -cubin); ir: the lowered program, the same for every target */
	if (kind == K_CUH && !prog->devices.n)
		warn(WARN_EMPTY_OUTPUT, no_loc, "%s declares no device function; the header is empty", prog->source_name);
	const Target *target = target_named(kind == K_IR ? "ir"
	                                    : kind == K_CUH ? (opt->emu ? "emu-cuh" : "cuh")
	                                    : opt->emu ? "emu"
	                                    : kind == K_CU || opt->via_nvcc ? "cuda" : "ptx");
	Buf text = {0}, built = {0};
	int rc = 0;
	TargetOptions topt = {.arch = opt->arch};
	if (!pipeline_emit(prog, target, &topt, &text)) {
		buf_free(&text);
		return 1;
	}
	Buf *result = &text;
	/* a cubin, or PTX from the CUDA C target: its output built by the target's tool */
	if (strcmp(target->ext, kind_ext(kind)) != 0) {
		rc = tool_build(target->tool, &text, kind, opt->arch, &opt->xptxas, prog, &built);
		result = &built;
		if (rc == 0 && error_count)
			rc = 1; /* a spill warning under -Werror */
	}
	if (rc == 0)
		rc = write_outputs(opt, &deps, output, result->data ? result->data : "", result->len);
	buf_free(&built);
	buf_free(&text);
	return rc;
}

int
driver_main(int argc, char **argv)
{
	Options opt = {0};
	opt.arch = arch_default()->name;
	diag_setup();
	process_install();
	if (argc > 1 && strcmp(argv[1], "run") == 0) {
		int rc = run_main(argc - 1, argv + 1);
		fflush(stdout);
		pool_free_all();
		return rc;
	}
	int done;
	int rc = parse_args(argc, argv, &opt, &done);
	if (rc == 0 && done < 0 && opt.draw) {
		Buf svg = {0};
		rc = draw_command(opt.draw, &opt.include_dirs, arch_find(opt.arch), &svg);
		if (rc == 0)
			rc = write_output(opt.output, svg.data, svg.len);
		buf_free(&svg);
	} else if (rc == 0 && done < 0)
		rc = compile(&opt);
	else if (rc == 0)
		rc = done;
	fflush(stdout);
	pool_free_all();
	return rc;
}
