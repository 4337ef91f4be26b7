/* view.c: views as index maps: reshape, the per-thread register view, einops rearrange and slices. */
#include <ctype.h>
#include <string.h>

#include "tilec.h"

void
format_list(char *buf, size_t len, char open, const int *values, int n, char close)
{
	size_t at = (size_t)snprintf(buf, len, "%c", open);
	for (int i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? ", " : "", values[i]);
	if (at < len)
		snprintf(buf + at, len - at, "%c", close);
}

void
format_coords(char *buf, size_t len, int rank, const int *dims, int flat)
{
	int coord[MAX_RANK];
	for (int i = rank - 1; i >= 0; i--) {
		coord[i] = flat < 0 ? dims[i] : flat % dims[i];
		if (flat >= 0)
			flat /= dims[i];
	}
	format_list(buf, len, '[', coord, rank, ']');
}

/* Fills r->map by walking n counters (extent ext[k], input stride st[k]) in row-major order from
   input index base: the common core of rearrange and slice, without a division per element. */
static void
gather(View *r, const View *v, int n, const int *ext, const int64_t *st, int64_t base)
{
	int c[MAX_RANK * 2] = {0};
	int64_t in = base;
	for (int f = 0; f < r->count; f++) {
		r->map[f] = v->map[in];
		for (int k = n - 1; k >= 0; k--) {
			if (++c[k] < ext[k]) {
				in += st[k];
				break;
			}
			c[k] = 0;
			in -= st[k] * (ext[k] - 1);
		}
	}
}

/* The maps built while one kernel is checked, by content: views of equal maps share one (a device
 * function's parameter views are the same at every call of it: 10,000 calls kept 10,000 copies). */
enum { MAP_BUCKETS = 4096 };
typedef struct SharedMap {
	struct SharedMap *next;
	uint64_t hash;
	int count;
	int32_t *map;
} SharedMap;
static SharedMap *shared_maps[MAP_BUCKETS];
static unsigned shared_maps_epoch;

/* v's map, just built (the latest scratch allocation), replaced by an equal one built before, if any. */
static View *
share_map(View *v)
{
	scratch_index_fresh(shared_maps, sizeof shared_maps, &shared_maps_epoch);
	uint64_t h = 1469598103934665603ull ^ (uint64_t)v->count;
	for (int i = 0; i < v->count; i++)
		h = (h ^ (uint32_t)v->map[i]) * 1099511628211ull;
	SharedMap **bucket = &shared_maps[(h ^ h >> 29) % MAP_BUCKETS];
	for (SharedMap *m = *bucket; m; m = m->next)
		if (m->hash == h && m->count == v->count && !memcmp(m->map, v->map, (size_t)v->count * sizeof *v->map)) {
			scratch_release(v->map, (size_t)(v->count ? v->count : 1) * sizeof *v->map);
			v->map = m->map;
			return v;
		}
	SharedMap *m = scratch_alloc(sizeof *m);
	*m = (SharedMap){*bucket, h, v->count, v->map};
	*bucket = m;
	return v;
}

static View *
view_new(View *from, int rank, const int *dims)
{
	View *v = pool_alloc(sizeof *v);
	v->base = from ? from->base : NULL;
	v->box = from ? from->box : NULL;
	v->per_thread = from ? from->per_thread : false;
	v->rank = rank;
	v->count = 1;
	for (int i = 0; i < rank; i++) {
		v->dims[i] = dims[i];
		v->count *= dims[i];
	}
	v->map = scratch_alloc((size_t)(v->count ? v->count : 1) * sizeof(int32_t)); /* read only while its kernel is checked */
	return v;
}

View *
view_of_tensor(Tensor *t)
{
	/* the identity view never changes, so each tensor builds it once */
	if (t->identity) {
		View *v = pool_alloc(sizeof *v);
		*v = *t->identity;
		return v;
	}
	View *v = view_new(NULL, t->rank, t->dims);
	t->identity = v;
	v->base = t;
	for (int i = 0; i < v->count; i++)
		v->map[i] = i;
	View *copy = pool_alloc(sizeof *copy);
	*copy = *v;
	return copy;
}

View *
view_per_thread(Tensor *t, int n, Loc loc)
{
	if (t->kind != TK_LOCAL) {
		error(loc, "'%s' is not a local tensor; only local tensors have a per-thread view", t->name);
		return NULL;
	}
	if (n != t->layout->slots) {
		error(loc, "a thread of '%s' holds %d register slots (its own elements), not %d: write %s.view(%d, layout = "
		           "default)", t->name, t->layout->slots, n, t->name, t->layout->slots);
		return NULL;
	}
	View *v = view_new(NULL, 1, &n);
	v->base = t;
	v->per_thread = true;
	for (int i = 0; i < n; i++)
		v->map[i] = i;
	return share_map(v);
}

View *
view_of_box(Tensor *t, const Box *box, int rank, const int *dims)
{
	View *v = view_new(NULL, rank, dims);
	v->base = t;
	v->box = box;
	for (int i = 0; i < v->count; i++)
		v->map[i] = i;
	return share_map(v);
}

View *
view_reshape(View *v, int rank, const int *dims, Loc loc)
{
	long long count = 1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] <= 0) {
			error(loc, "view dimension %d is %d; dimensions must be positive", i, dims[i]);
			return NULL;
		}
		count *= dims[i];
		if (count > (1 << 24))
			break;
	}
	if (count != v->count) {
		error(loc, "view has %lld elements but '%s' has %d", count, v->base->name, v->count);
		return NULL;
	}
	View *r = view_new(v, rank, dims);
	memcpy(r->map, v->map, (size_t)v->count * sizeof(int32_t));
	return share_map(r);
}

/* One side of a rearrange pattern: a sequence of groups, each a list of names. */
typedef struct Side {
	int ngroups;
	int group_start[MAX_RANK + 1];
	int nnames;
	const char *names[MAX_RANK * 2];
	int ellipses; /* how often '...' is written */
} Side;

/* Reads one side. einops' '...' stands for ell dimensions, named ...0, ...1 (no name of the program
   can be spelt so): each its own group, or all in the group around it. With ell < 0 it stands for
   none: the left side is read so to count the dimensions it names. */
static bool
parse_side(const char *s, const char *end, Side *side, int ell, bool left, Loc loc)
{
	side->ngroups = side->nnames = side->ellipses = 0;
	bool in_group = false;
	while (s < end) {
		if (isspace((unsigned char)*s)) {
			s++;
		} else if (end - s >= 3 && !strncmp(s, "...", 3)) {
			if (side->ellipses++) {
				error(loc, "rearrange pattern: '...' twice on one side");
				return false;
			}
			if (in_group && left) {
				error(loc, "rearrange pattern: '...' inside a group on the left; a group splits one dimension");
				return false;
			}
			for (int k = 0; k < ell; k++) {
				if (side->nnames == MAX_RANK * 2 || (!in_group && side->ngroups == MAX_RANK)) {
					error(loc, "rearrange pattern: too many names");
					return false;
				}
				if (!in_group)
					side->group_start[side->ngroups++] = side->nnames;
				side->names[side->nnames++] = pool_printf("...%d", k);
			}
			s += 3;
		} else if (*s == '(') {
			if (in_group) {
				error(loc, "rearrange pattern: groups do not nest");
				return false;
			}
			if (side->ngroups == MAX_RANK) {
				error(loc, "rearrange pattern: too many dimensions");
				return false;
			}
			in_group = true;
			side->group_start[side->ngroups++] = side->nnames;
			s++;
		} else if (*s == ')') {
			if (!in_group) {
				error(loc, "rearrange pattern: ')' without '('");
				return false;
			}
			in_group = false;
			s++;
		} else if (isalnum((unsigned char)*s) || *s == '_') {
			const char *b = s;
			while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
				s++;
			bool unit = s - b == 1 && *b == '1';
			if (isdigit((unsigned char)*b) && !unit) {
				error(loc, "rearrange pattern: '%.*s' is not a name; the only number a pattern may hold is 1, a "
				           "dimension of size 1", (int)(s - b), b);
				return false;
			}
			if (side->nnames == MAX_RANK * 2 || (!in_group && side->ngroups == MAX_RANK)) {
				error(loc, "rearrange pattern: too many names");
				return false;
			}
			if (!in_group)
				side->group_start[side->ngroups++] = side->nnames;
			/* einops' unit axis: a name of its own (no name of the program is spelt so) of size 1 */
			side->names[side->nnames] = unit ? pool_printf("1#%d", side->nnames) : pool_strndup(b, (size_t)(s - b));
			side->nnames++;
		} else if ((unsigned char)*s >= 0x80 || !isprint((unsigned char)*s)) {
			error(loc, "rearrange pattern: unexpected byte 0x%02x; names are ASCII letters, digits and _", (unsigned char)*s);
			return false;
		} else {
			error(loc, "rearrange pattern: unexpected '%c'", *s);
			return false;
		}
	}
	if (in_group) {
		error(loc, "rearrange pattern: '(' without ')'");
		return false;
	}
	side->group_start[side->ngroups] = side->nnames;
	return true;
}

static bool
is_unit(const char *name)
{
	return name[0] == '1';
}

static int
find_name(const Side *side, const char *name)
{
	for (int i = 0; i < side->nnames; i++)
		if (strcmp(side->names[i], name) == 0)
			return i;
	return -1;
}

View *
view_rearrange(View *v, const char *pattern, Loc loc, const char **names, const int *sizes, const Loc *locs,
               int nbind)
{
	const char *arrow = strstr(pattern, "->");
	if (!arrow) {
		error(loc, "rearrange pattern needs '->' between its two sides");
		return NULL;
	}
	Side lhs, rhs;
	int ell = 0;
	if (!parse_side(pattern, arrow, &lhs, -1, true, loc))
		return NULL;
	if (lhs.ellipses) {
		ell = v->rank - lhs.ngroups;
		if (ell < 0) {
			error(loc, "rearrange pattern has %d input dimensions besides '...' but the operand has %d", lhs.ngroups,
			      v->rank);
			return NULL;
		}
		if (!parse_side(pattern, arrow, &lhs, ell, true, loc))
			return NULL;
	}
	if (!parse_side(arrow + 2, pattern + strlen(pattern), &rhs, ell, false, loc))
		return NULL;
	if (lhs.ellipses != rhs.ellipses) {
		error(loc, "rearrange pattern: '...' on the %s only; it must be on both sides or on neither",
		      lhs.ellipses ? "left" : "right");
		return NULL;
	}
	if (lhs.ngroups != v->rank) {
		error(loc, "rearrange pattern has %d input dimensions but the operand has %d", lhs.ngroups, v->rank);
		return NULL;
	}
	for (int i = 0; i < lhs.nnames; i++) {
		if (find_name(&lhs, lhs.names[i]) != i) {
			error(loc, "rearrange pattern names '%s' twice on the left", lhs.names[i]);
			return NULL;
		}
	}
	for (int i = 0; i < rhs.nnames; i++) {
		if (find_name(&rhs, rhs.names[i]) != i) {
			error(loc, "rearrange pattern names '%s' twice on the right", rhs.names[i]);
			return NULL;
		}
		if (!is_unit(rhs.names[i]) && find_name(&lhs, rhs.names[i]) < 0) {
			error(loc, "rearrange pattern: '%s' is on the right but not on the left", rhs.names[i]);
			return NULL;
		}
	}
	for (int i = 0; i < lhs.nnames; i++) {
		if (!is_unit(lhs.names[i]) && find_name(&rhs, lhs.names[i]) < 0) {
			error(loc, "rearrange pattern: '%s' is on the left but not on the right", lhs.names[i]);
			return NULL;
		}
	}
	int size[MAX_RANK * 2];
	for (int i = 0; i < lhs.nnames; i++)
		size[i] = is_unit(lhs.names[i]) ? 1 : -1;
	for (int b = 0; b < nbind; b++) {
		int k = find_name(&lhs, names[b]);
		if (k < 0) {
			error(locs[b], "'%s' does not appear in the rearrange pattern", names[b]);
			return NULL;
		}
		if (size[k] >= 0) {
			error(locs[b], "'%s' is given twice", names[b]);
			return NULL;
		}
		if (sizes[b] <= 0) {
			error(locs[b], "'%s' must be positive, got %d", names[b], sizes[b]);
			return NULL;
		}
		size[k] = sizes[b];
	}
	for (int g = 0; g < lhs.ngroups; g++) {
		int known = 1, unknown = -1;
		for (int k = lhs.group_start[g]; k < lhs.group_start[g + 1]; k++) {
			if (size[k] < 0) {
				if (unknown >= 0) {
					Buf group = {0};
					for (int j = lhs.group_start[g]; j < lhs.group_start[g + 1]; j++)
						buf_printf(&group, "%s%s", j > lhs.group_start[g] ? " " : "",
						           is_unit(lhs.names[j]) ? "1" : lhs.names[j]);
					error(loc, "rearrange: group (%s) of dimension %d has two names without a size, '%s' and '%s'; "
					           "give a size for one of them", group.data, g, lhs.names[unknown], lhs.names[k]);
					buf_free(&group);
					return NULL;
				}
				unknown = k;
			} else {
				known *= size[k];
			}
		}
		int dim = v->dims[g];
		if (unknown >= 0) {
			if (dim % known) {
				error(loc, "rearrange: dimension %d has size %d, not divisible by %d", g, dim, known);
				return NULL;
			}
			size[unknown] = dim / known;
		} else if (known != dim) {
			error(loc, "rearrange: dimension %d has size %d but the pattern gives %d", g, dim, known);
			return NULL;
		}
	}
	int out_dims[MAX_RANK];
	for (int g = 0; g < rhs.ngroups; g++) {
		out_dims[g] = 1;
		for (int k = rhs.group_start[g]; k < rhs.group_start[g + 1]; k++)
			if (!is_unit(rhs.names[k]))
				out_dims[g] *= size[find_name(&lhs, rhs.names[k])];
	}
	View *r = view_new(v, rhs.ngroups, out_dims);
	/* the input stride of each name is the product of the sizes after it on the left */
	int64_t lhs_stride[MAX_RANK * 2], st[MAX_RANK * 2];
	int ext[MAX_RANK * 2];
	for (int k = lhs.nnames - 1, prod = 1; k >= 0; k--) {
		lhs_stride[k] = prod;
		prod *= size[k];
	}
	for (int k = 0; k < rhs.nnames; k++) {
		int li = is_unit(rhs.names[k]) ? -1 : find_name(&lhs, rhs.names[k]);
		ext[k] = li < 0 ? 1 : size[li];
		st[k] = li < 0 ? 0 : lhs_stride[li];
	}
	gather(r, v, rhs.nnames, ext, st, 0);
	return share_map(r);
}

View *
view_slice(View *v, const SliceSpec *spec, int n)
{
	if (n > v->rank) {
		error(spec[v->rank].loc, "%d indices for a view of rank %d", n, v->rank);
		return NULL;
	}
	int lo[MAX_RANK], step_dims[MAX_RANK], out_dims[MAX_RANK], rank = 0;
	for (int i = 0; i < v->rank; i++) {
		if (i >= n) {
			lo[i] = 0;
			step_dims[i] = v->dims[i];
			out_dims[rank++] = v->dims[i];
			continue;
		}
		const SliceSpec *s = &spec[i];
		if (s->is_range) {
			if (s->lo < 0 || s->hi > v->dims[i] || s->lo >= s->hi) {
				if (s->lo >= s->hi && s->lo >= 0 && s->hi <= v->dims[i])
					error(s->loc, "slice %d:%d of dimension %d is empty; a slice keeps at least one element", s->lo,
					      s->hi, i);
				else
					error(s->loc, "slice %d:%d is out of range for dimension %d of size %d", s->lo, s->hi, i,
					      v->dims[i]);
				return NULL;
			}
			lo[i] = s->lo;
			step_dims[i] = s->hi - s->lo;
			out_dims[rank++] = step_dims[i];
		} else {
			if (s->lo < 0 || s->lo >= v->dims[i]) {
				error(s->loc, "index %d is out of range for dimension %d of size %d", s->lo, i, v->dims[i]);
				return NULL;
			}
			lo[i] = s->lo;
			step_dims[i] = 1;
		}
	}
	View *r = view_new(v, rank, out_dims);
	int64_t st[MAX_RANK], base = 0;
	for (int i = v->rank - 1, mul = 1; i >= 0; i--) {
		st[i] = mul;
		base += (int64_t)lo[i] * mul;
		mul *= v->dims[i];
	}
	gather(r, v, v->rank, step_dims, st, base);
	return share_map(r);
}

bool
view_same(const View *a, const View *b)
{
	if (a->base != b->base || a->box != b->box || a->rank != b->rank || a->count != b->count || a->per_thread != b->per_thread)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return a->map == b->map || memcmp(a->map, b->map, sizeof(int32_t) * (size_t)a->count) == 0;
}

bool
view_strides(const View *v, int64_t *stride)
{
	int64_t unit = 1;
	for (int i = v->rank - 1; i >= 0; i--) {
		stride[i] = v->dims[i] > 1 ? (int64_t)v->map[unit] - v->map[0] : 0;
		unit *= v->dims[i];
	}
	for (int f = 0; f < v->count; f++) {
		int64_t want = v->map[0];
		for (int i = v->rank - 1, rest = f; i >= 0; rest /= v->dims[i], i--)
			want += rest % v->dims[i] * stride[i];
		if (want != v->map[f])
			return false;
	}
	return true;
}
