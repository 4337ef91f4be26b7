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
	List names;     /* char*: the same files as the user wrote them, for the message about a cycle */
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

/* Each level of includes is a parse and two calls deep in C's stack: a chain of a few thousand files
   overflowed it. */
enum { MAX_INCLUDE_DEPTH = 200 };

static bool load_items(Includer *inc, const char *path, const char *name, List *out, Loc from);

/* path written in a file of directory dir, or found in -I dir: dir/path, with one slash between however
   many dir ends with (-I inc/ gives inc/k.tile in messages, not inc//k.tile), or path alone when dir is
   "." or empty */
static const char *
relative_to(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 0 || (n == 1 && dir[0] == '.'))
		return path;
	return pool_printf("%.*s%s%s", (int)n, dir, dir[n - 1] == '/' ? "" : "/", path);
}

/* dir/path for a message: "./" and "x/../" dropped, as the user would write it (the file is opened by the path
   as joined, which differs only through a symbolic link) */
static const char *
name_relative_to(const char *dir, const char *path)
{
	char *r = pool_strdup(relative_to(dir, path));
	for (char *dot; (dot = strstr(r, "/./")) != NULL;)
		memmove(dot, dot + 2, strlen(dot + 2) + 1);
	for (char *up; (up = strstr(r, "/../")) != NULL;) {
		char *seg = up;
		while (seg > r && seg[-1] != '/')
			seg--;
		if (up - seg == 2 && seg[0] == '.' && seg[1] == '.')
			break; /* ../../: nothing left to drop */
		memmove(seg, up + 4, strlen(up + 4) + 1);
	}
	return r;
}

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
		if (!it->path) { /* a path with a bad escape, reported: looking for what is left would only fail again */
			ok = false;
			continue;
		}
		/* name: the file as the user wrote it, relative to the includer's name when it is found next to
		   it (a cycle is named the same from any directory), else the include's text */
		const char *found = NULL, *name = it->path;
		if (it->path[0] == '/') {
			if (file_exists(it->path))
				found = it->path;
		} else {
			const char *local = relative_to(include_dir_of(source_path(file)), it->path);
			if (file_exists(local)) {
				found = local;
				name = name_relative_to(include_dir_of(LIST_AT(inc->names, char, inc->names.n - 1)), it->path);
			}
			for (int d = 0; !found && d < inc->include_dirs->n; d++) {
				const char *p = relative_to(LIST_AT(*inc->include_dirs, char, d), it->path);
				if (file_exists(p))
					found = p;
			}
		}
		if (!found) {
			error(it->loc, "cannot find include file \"%s\"", it->path);
			ok = false;
			continue;
		}
		ok &= load_items(inc, found, name, out, it->loc);
	}
	return ok;
}

static bool
load_items(Includer *inc, const char *path, const char *name, List *out, Loc from)
{
	char canon[PATH_MAX];
	const char *key = path;
	if (strcmp(path, "-") != 0 && realpath(path, canon))
		key = pool_strdup(canon);
	for (int i = 0; i < inc->stack.n; i++) {
		if (strcmp(LIST_AT(inc->stack, char, i), key) == 0) {
			if (i + 1 == inc->stack.n) {
				error(from, "\"%s\" includes itself", LIST_AT(inc->names, char, i));
				return false;
			}
			Buf chain = {0};
			for (int j = i; j < inc->names.n; j++)
				buf_printf(&chain, "\"%s\" -> ", LIST_AT(inc->names, char, j));
			error(from, "include cycle: %s\"%s\"", chain.data, LIST_AT(inc->names, char, i));
			buf_free(&chain);
			return false;
		}
	}
	for (int i = 0; i < inc->seen.n; i++)
		if (strcmp(LIST_AT(inc->seen, char, i), key) == 0)
			return true; /* each file is read once, as with #pragma once */
	if (inc->stack.n >= MAX_INCLUDE_DEPTH) {
		error(from, "includes nested more than %d deep", MAX_INCLUDE_DEPTH);
		return false;
	}
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
	list_push(&inc->names, (void *)pool_strdup(name));
	ok &= splice_includes(inc, file, &items, out);
	inc->stack.n--;
	inc->names.n--;
	return ok;
}

bool
include_load(const char *path, List *include_dirs, List *items, List *deps)
{
	Includer inc = {include_dirs, {0}, deps, {0}, {0}};
	return load_items(&inc, path, path, items, no_loc) && !error_count;
}
