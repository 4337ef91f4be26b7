/* util.c: pool allocation (and the scratch pool of one kernel's checks), lists, string hash maps, byte buffers and the names of types and axes. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"

/* The pool is a chain of large chunks; everything the compiler builds lives until pool_free_all. */
typedef struct Chunk {
	struct Chunk *next;
	size_t used, size;
	max_align_t data[];
} Chunk;

/* The pool, and the scratch pool: what one kernel's checks need and its code does not (layouts of
 * register tensors, view maps), given back after each kernel so that memory does not grow with the
 * number of kernels in a file. */
static Chunk *pool_head, *scratch_head;

static void *
arena_alloc(Chunk **head, size_t size)
{
	size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!*head || (*head)->size - (*head)->used < size) {
		size_t chunk = 1 << 16;
		if (chunk < size)
			chunk = size;
		Chunk *c = malloc(sizeof(Chunk) + chunk);
		if (!c)
			out_of_memory();
		c->next = *head;
		c->used = 0;
		c->size = chunk;
		*head = c;
	}
	void *p = (char *)(*head)->data + (*head)->used;
	(*head)->used += size;
	memset(p, 0, size);
	return p;
}

static void
arena_free(Chunk **head)
{
	while (*head) {
		Chunk *next = (*head)->next;
		free(*head);
		*head = next;
	}
}

void *
pool_alloc(size_t size)
{
	return arena_alloc(&pool_head, size);
}

void *
scratch_alloc(size_t size)
{
	return arena_alloc(&scratch_head, size);
}

void
scratch_release(void *p, size_t size)
{
	size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (scratch_head && scratch_head->used >= size && (char *)scratch_head->data + scratch_head->used - size == (char *)p)
		scratch_head->used -= size;
}

static bool scratch_held;
static unsigned scratch_frees; /* how many times the scratch pool was given back */

void
scratch_index_fresh(void *buckets, size_t size, unsigned *epoch)
{
	if (*epoch != scratch_frees) {
		memset(buckets, 0, size);
		*epoch = scratch_frees;
	}
}

void
scratch_hold(bool hold)
{
	scratch_held = hold;
}

void
scratch_free_all(void)
{
	if (!scratch_held) {
		arena_free(&scratch_head);
		scratch_frees++;
	}
}

char *
pool_strndup(const char *s, size_t n)
{
	char *p = pool_alloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
pool_strdup(const char *s)
{
	return pool_strndup(s, strlen(s));
}

char *
pool_printf(const char *fmt, ...)
{
	Buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	char *p = pool_strndup(b.data ? b.data : "", b.len);
	buf_free(&b);
	return p;
}

void
pool_free_all(void)
{
	arena_free(&pool_head);
	arena_free(&scratch_head);
	scratch_frees++;
	scratch_held = false;
}

void
list_push(List *list, void *item)
{
	if (list->n == list->cap) {
		int cap = list->cap ? 2 * list->cap : 4;
		void **v = pool_alloc(cap * sizeof *v);
		if (list->n)
			memcpy(v, list->v, list->n * sizeof *v);
		list->v = v;
		list->cap = cap;
	}
	list->v[list->n++] = item;
}

bool
list_has(const List *list, const void *item)
{
	for (int i = 0; i < list->n; i++)
		if (list->v[i] == item)
			return true;
	return false;
}

uint64_t
str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bits */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t
map_hash(const char *s)
{
	size_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

MapSlot *
map_slot(Map *m, const char *key, bool add)
{
	if (add && 2 * (m->used + 1) > m->cap) {
		MapSlot *old = m->slots;
		size_t old_cap = m->cap;
		m->cap = old_cap ? 2 * old_cap : 64;
		m->slots = pool_alloc(sizeof(MapSlot) * m->cap);
		for (size_t i = 0; i < old_cap; i++) {
			if (!old[i].key)
				continue;
			size_t j = map_hash(old[i].key) & (m->cap - 1);
			while (m->slots[j].key)
				j = (j + 1) & (m->cap - 1);
			m->slots[j] = old[i];
		}
	}
	if (!m->cap)
		return NULL;
	size_t j = map_hash(key) & (m->cap - 1);
	for (; m->slots[j].key; j = (j + 1) & (m->cap - 1))
		if (strcmp(m->slots[j].key, key) == 0)
			return &m->slots[j];
	if (!add)
		return NULL;
	m->used++;
	m->slots[j].key = key;
	return &m->slots[j];
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	fputs("tilec: internal error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(4);
}

void
out_of_memory(void)
{
	/* an input too large for this machine, not a bug: exit 1, as for other errors in the input */
	static const char msg[] = "tilec: error: out of memory\n";
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* nothing more can be said */
	}
	exit(1);
}

static void
buf_reserve(Buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p)
		out_of_memory();
	b->data = p;
	b->cap = cap;
}

void
buf_putc(Buf *b, char c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = 0;
}

void
buf_putn(Buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void
buf_puts(Buf *b, const char *s)
{
	buf_putn(b, s, strlen(s));
}

void
buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		fatal("bad format");
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
buf_free(Buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static const struct {
	const char *name;
	int bits;
	bool is_float, is_signed;
} etypes[T_COUNT] = {
	[T_NONE] = {"void", 0, false, false},
	[T_F32] = {"f32", 32, true, true},
	[T_F16] = {"f16", 16, true, true},
	[T_BF16] = {"bf16", 16, true, true},
	[T_I32] = {"i32", 32, false, true},
	[T_U32] = {"u32", 32, false, false},
	[T_I16] = {"i16", 16, false, true},
	[T_U16] = {"u16", 16, false, false},
	[T_I8] = {"i8", 8, false, true},
	[T_U8] = {"u8", 8, false, false},
	[T_I64] = {"i64", 64, false, true},
	[T_E4M3] = {"e4m3", 8, true, true},
	[T_E5M2] = {"e5m2", 8, true, true},
	[T_E2M3] = {"e2m3", 8, true, true},
	[T_E3M2] = {"e3m2", 8, true, true},
	[T_E2M1] = {"e2m1", 8, true, true},
	[T_UE8M0] = {"ue8m0", 8, true, false},
	[T_UE4M3] = {"ue4m3", 8, true, false},
	[T_MBARRIER] = {"mbarrier", 64, false, false},
};

const char *etype_name(EType t) { return etypes[t].name; }
int etype_bits(EType t) { return etypes[t].bits; }
bool etype_is_float(EType t) { return etypes[t].is_float; }
bool etype_is_signed(EType t) { return etypes[t].is_signed; }

static const char *const axis_names[AX_COUNT] = {
	[AX_TX] = "tx", [AX_TID_IN_WG] = "tid_in_wg", [AX_LANEID] = "laneid",
	[AX_WARPID] = "warpid", [AX_WID_IN_WG] = "wid_in_wg", [AX_WGID] = "wgid",
	[AX_M] = "m", [AX_TLANE] = "TLane", [AX_TCOL] = "TCol",
};

const char *axis_name(Axis a) { return axis_names[a]; }

/* The word of an mbarrier statement as a program writes it (after "mbarrier." for the first four). */
const char *
mbar_op_name(MbarOp op)
{
	static const char *const names[] = {
		[MB_INIT] = "init", [MB_ARRIVE] = "arrive", [MB_EXPECT_TX] = "expect_tx", [MB_WAIT] = "wait",
		[MB_COMMIT] = "commit", [MB_CLUSTER_SYNC] = "cluster_sync", [MB_FENCE_INIT] = "fence_init",
	};
	return names[op];
}

/* An mbarrier statement as written, for messages: "mbarrier.init", "commit", "cluster_sync". */
const char *
mbar_stmt_name(MbarOp op)
{
	if (op == MB_COMMIT || op == MB_CLUSTER_SYNC)
		return mbar_op_name(op);
	return pool_printf("%s.%s", etype_name(T_MBARRIER), mbar_op_name(op));
}

bool
axis_from_name(const char *name, Axis *out)
{
	for (int a = 0; a < AX_COUNT; a++) {
		if (strcmp(axis_names[a], name) == 0) {
			*out = (Axis)a;
			return true;
		}
	}
	return false;
}

int
edit_distance(const char *a, const char *b, int limit)
{
	enum { MAXLEN = 128 };
	int n = (int)strlen(a), m = (int)strlen(b);
	if (n > MAXLEN || m > MAXLEN || abs(n - m) > limit)
		return limit + 1;
	/* three rows of the usual table: two back for the swap of neighbours */
	int rows[3][MAXLEN + 1];
	int *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (int j = 0; j <= m; j++)
		prev[j] = j;
	for (int i = 1; i <= n; i++) {
		cur[0] = i;
		int best = i;
		for (int j = 1; j <= m; j++) {
			int d = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			if (prev[j] + 1 < d)
				d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
			if (d < best)
				best = d;
		}
		if (best > limit)
			return limit + 1;
		int *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m] > limit ? limit + 1 : prev[m];
}

const char *
closest_name(const char *name, const char *const *cands, int n)
{
	/* a name of one or two letters only meets its other case: any other is as near as it is far */
	int limit = (int)strlen(name) / 3;
	const char *best = NULL;
	for (int i = 0; i < n; i++) {
		if (!cands[i] || strcmp(cands[i], name) == 0)
			continue;
		int d = edit_distance(name, cands[i], limit);
		/* a name cut short (lane for laneid) is as near as one edit */
		if (d > 1 && strlen(name) >= 3 && strncmp(cands[i], name, strlen(name)) == 0)
			d = 1;
		if (d <= limit) {
			best = cands[i];
			limit = d - 1; /* a later candidate must be strictly nearer */
			if (limit < 0)
				break;
		}
	}
	return best;
}

/* The C type that stores one element of t: 16-bit floats are kept as their bits. */
const char *
etype_ctype(EType t)
{
	switch (t) {
	case T_F32: return "float";
	case T_F16: case T_BF16: case T_U16: return "unsigned short";
	case T_I32: return "int";
	case T_U32: return "unsigned";
	case T_I16: return "short";
	case T_I8: return "signed char";
	case T_U8: return "unsigned char";
	case T_E4M3: case T_E5M2: case T_E2M3: case T_E3M2: case T_E2M1: case T_UE8M0: case T_UE4M3:
		return "unsigned char";
	case T_I64: return "long long";
	case T_MBARRIER: return "unsigned long long";
	default: return "int";
	}
}

const char *
op_text(Op op)
{
	static const char *const text[] = {
		[OP_NEG] = "-", [OP_NOT] = "!", [OP_BITNOT] = "~", [OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%",
		[OP_ADD] = "+", [OP_SUB] = "-", [OP_SHL] = "<<", [OP_SHR] = ">>", [OP_LT] = "<", [OP_LE] = "<=",
		[OP_GT] = ">", [OP_GE] = ">=", [OP_EQ] = "==", [OP_NE] = "!=", [OP_BITAND] = "&",
		[OP_BITXOR] = "^", [OP_BITOR] = "|", [OP_LAND] = "&&", [OP_LOR] = "||",
	};
	return op < sizeof text / sizeof text[0] && text[op] ? text[op] : "?";
}

const char *
builtin_name(Builtin b)
{
	static const char *const names[] = {
		[B_THREAD_X] = "thread_idx.x", [B_THREAD_Y] = "thread_idx.y", [B_THREAD_Z] = "thread_idx.z",
		[B_BLOCK_X] = "block_idx.x", [B_BLOCK_Y] = "block_idx.y", [B_BLOCK_Z] = "block_idx.z",
		[B_WARP_ID] = "warp_id", [B_LANE_ID] = "lane_id", [B_WARPGROUP_ID] = "warpgroup_id",
	};
	return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "?";
}
