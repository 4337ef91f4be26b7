/* include.c: reads a .tile file and splices in the files its includes name (each once), for tilec and tilec run. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tilec.h"

typedef struct Includer {
	List *include_dirs;
	List seen;      /* char*: canonical paths already read */
	List *deps;     /* char*: included paths as found, for -MD */
	List stack;     /* char*: canonical paths being read */
	List names;     /* char*: the same paths as written, for the message about a cycle */
} Includer;

char *
include_read_file(const char *path, size_t *len)
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

char *
include_dir_of(const char *path)
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
			const char *local = pool_printf("%s/%s", include_dir_of(source_path(file)), it->path);
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
			if (i + 1 == inc->stack.n) {
				error(from, "\"%s\" includes itself", path);
				return false;
			}
			Buf chain = {0};
			for (int j = i; j < inc->names.n; j++)
				buf_printf(&chain, "\"%s\" -> ", LIST_AT(inc->names, char, j));
			error(from, "include cycle: %s\"%s\"", chain.data, path);
			buf_free(&chain);
			return false;
		}
	}
	for (int i = 0; i < inc->seen.n; i++)
		if (strcmp(LIST_AT(inc->seen, char, i), key) == 0)
			return true; /* each file is read once, as with #pragma once */
	size_t len;
	char *text = include_read_file(path, &len);
	if (!text) {
		if (from.first_line)
			error(from, "cannot read \"%s\": %s", path, strerror(errno));
		else
			error(no_loc, "cannot read '%s': %s", path, strerror(errno));
		return false;
	}
	list_push(&inc->seen, (void *)key);
	if (from.first_line && inc->deps)
		list_push(inc->deps, (void *)pool_strdup(path));
	int file = source_add(path, text, len);
	List items = {0};
	bool ok = parse_file(file, &items);
	list_push(&inc->stack, (void *)key);
	list_push(&inc->names, (void *)pool_strdup(path));
	ok &= splice_includes(inc, file, &items, out);
	inc->stack.n--;
	inc->names.n--;
	return ok;
}

bool
include_load(const char *path, List *include_dirs, List *items, List *deps)
{
	Includer inc = {include_dirs, {0}, deps, {0}, {0}};
	return load_items(&inc, path, items, no_loc) && !error_count;
}
