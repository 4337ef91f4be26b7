/* test_image.c: the tcgen05 image table against the CUTLASS golden file, TCGEN05.md, and the opcode parser;
 * isa.c's table of the other tcgen05 instructions and of the architectures. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

/* Every legal opcode, loads and stores, in table order; returns how many were written. */
static int
all_opcodes(Opcode *ops, int cap)
{
	int k = 0;
	for (int ld = 1; ld >= 0; ld--)
		for (int s = 0; s < SH_COUNT; s++)
			for (int n = 1; n <= shape_max_n((Shape)s); n *= 2)
				for (int pack = 0; pack <= 1; pack++) {
					ck_assert_int_lt(k, cap);
					ops[k++] = (Opcode){.is_ld = ld, .shape = (Shape)s, .n = n, .pack = pack};
				}
	return k;
}

static Opcode
must_parse(const char *text)
{
	Opcode op;
	char why[256] = "";
	ck_assert_msg(opcode_parse(text, &op, why, sizeof why), "'%s' refused: %s", text, why);
	return op;
}

/* Parsing text fails, and the reason contains want. */
static void
expect_refused(const char *text, const char *want)
{
	Opcode op;
	char why[512] = "";
	ck_assert_msg(!opcode_parse(text, &op, why, sizeof why), "'%s' accepted", text);
	ck_assert_msg(strstr(why, want) != NULL, "'%s': reason '%s' lacks '%s'", text, why, want);
	ck_assert_msg(strchr(why, '\n') == NULL, "'%s': reason is more than one line", text);
}

/* ---------------------------------------------------------------- golden file */

/* Reads "ROW.COL" or "ROW.LO|HI" at *p; advances past it. */
static bool
read_cell(const char **p, int *row, int *lo, int *hi, bool pack)
{
	char *end;
	*row = (int)strtol(*p, &end, 10);
	if (end == *p || *end != '.')
		return false;
	const char *q = end + 1;
	*lo = (int)strtol(q, &end, 10);
	if (end == q)
		return false;
	if (pack) {
		if (*end != '|')
			return false;
		q = end + 1;
		*hi = (int)strtol(q, &end, 10);
		if (end == q)
			return false;
	}
	*p = end;
	return true;
}

START_TEST(golden_ld_images)
{
	const char *dir = getenv("TILEC_GOLDEN_DIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/tcgen05_ld_images.tsv", dir && *dir ? dir : "tests/data");
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repository root or set TILEC_GOLDEN_DIR)", path);

	enum { MAXOPS = 128 };
	char names[MAXOPS][64];
	uint32_t lanes_seen[MAXOPS] = {0};
	int nops = 0, lineno = 0;
	static char line[16384];
	while (fgets(line, sizeof line, f)) {
		lineno++;
		size_t len = strlen(line);
		ck_assert_msg(len > 0 && line[len - 1] == '\n', "%s:%d: line too long or unterminated", path, lineno);
		line[--len] = 0;
		if (line[0] == '#' || len == 0)
			continue;

		/* opcode \t imm_half_splitoff \t lane \t cells */
		char *field[4];
		field[0] = line;
		for (int i = 1; i < 4; i++) {
			char *tab = strchr(field[i - 1], '\t');
			ck_assert_msg(tab != NULL, "%s:%d: expected 4 tab-separated fields", path, lineno);
			*tab = 0;
			field[i] = tab + 1;
		}
		Opcode op = must_parse(field[0]);
		ck_assert_msg(op.is_ld, "%s:%d: not a load", path, lineno);
		char canon[96];
		opcode_format(&op, canon, sizeof canon);
		ck_assert_str_eq(canon, field[0]);

		int k = 0;
		while (k < nops && strcmp(names[k], field[0]) != 0)
			k++;
		if (k == nops) {
			ck_assert_int_lt(nops, MAXOPS);
			snprintf(names[nops++], sizeof names[0], "%s", field[0]);
		}

		int imm = 0;
		if (op.shape == SH_16X32BX2)
			imm = atoi(field[1]);
		else
			ck_assert_msg(strcmp(field[1], "-") == 0, "%s:%d: imm_half_splitoff for a one-access shape", path, lineno);
		int lane = atoi(field[2]);
		ck_assert_msg(lane >= 0 && lane < 32, "%s:%d: lane %d", path, lineno, lane);
		ck_assert_msg(!(lanes_seen[k] & (1u << lane)), "%s:%d: lane %d twice", path, lineno, lane);
		lanes_seen[k] |= 1u << lane;

		const char *p = field[3];
		for (int r = 0; r < opcode_regs(&op); r++) {
			int row, lo, hi = 0;
			ck_assert_msg(read_cell(&p, &row, &lo, &hi, op.pack), "%s:%d: bad cell for r%d", path, lineno, r);
			ck_assert_msg(*p == (r + 1 < opcode_regs(&op) ? ' ' : 0), "%s:%d: register count differs from %d",
			              path, lineno, opcode_regs(&op));
			if (*p)
				p++;
			ImageCell c = image_cell(&op, lane, r);
			/* The golden gives access 1 its column from taddr: imm + the column inside the access. */
			int off = c.access ? imm : 0;
			int want_lo = off + (op.pack ? 2 * c.col : c.col);
			ck_assert_msg(row == c.row && lo == want_lo && (!op.pack || hi == want_lo + 1),
			              "%s lane %d r%d: golden %d.%d|%d, image (%d,%d) access %d",
			              field[0], lane, r, row, lo, hi, c.row, c.col, c.access);
		}
	}
	fclose(f);

	/* Every legal ld opcode is in the golden, with all 32 lanes. */
	Opcode ops[512];
	int n = all_opcodes(ops, 512), nld = 0;
	for (int i = 0; i < n; i++) {
		if (!ops[i].is_ld)
			continue;
		nld++;
		char canon[96];
		opcode_format(&ops[i], canon, sizeof canon);
		int k = 0;
		while (k < nops && strcmp(names[k], canon) != 0)
			k++;
		ck_assert_msg(k < nops, "%s missing from the golden", canon);
		ck_assert_msg(lanes_seen[k] == 0xffffffffu, "%s: not all 32 lanes in the golden", canon);
	}
	ck_assert_int_eq(nld, 74);
	ck_assert_int_eq(nops, 74);
}
END_TEST

/* ---------------------------------------------------------------- table and images */

START_TEST(tcgen05_md_spot_values)
{
	Opcode op = must_parse("tcgen05.ld.sync.aligned.16x64b.x2.b32");
	struct { int lane, reg, row, col; } spots64[] = {
		{1, 0, 8, 0}, {1, 1, 8, 2}, {2, 0, 0, 1}, {2, 1, 0, 3}, {31, 0, 15, 1}, {31, 1, 15, 3},
	};
	for (size_t i = 0; i < sizeof spots64 / sizeof spots64[0]; i++) {
		ImageCell c = image_cell(&op, spots64[i].lane, spots64[i].reg);
		ck_assert_int_eq(c.row, spots64[i].row);
		ck_assert_int_eq(c.col, spots64[i].col);
		ck_assert_int_eq(c.access, 0);
	}
	op = must_parse("tcgen05.ld.sync.aligned.16x128b.x1.b32");
	ck_assert_int_eq(image_cell(&op, 5, 0).row, 1);
	ck_assert_int_eq(image_cell(&op, 5, 0).col, 1);
	ck_assert_int_eq(image_cell(&op, 5, 1).row, 9);
	ck_assert_int_eq(image_cell(&op, 5, 1).col, 1);
	op = must_parse("tcgen05.ld.sync.aligned.16x256b.x1.b32");
	int want256[2][4][2] = {{{0, 2}, {0, 3}, {8, 2}, {8, 3}}, {{7, 6}, {7, 7}, {15, 6}, {15, 7}}};
	int lanes[2] = {1, 31};
	for (int i = 0; i < 2; i++)
		for (int r = 0; r < 4; r++) {
			ImageCell c = image_cell(&op, lanes[i], r);
			ck_assert_int_eq(c.row, want256[i][r][0]);
			ck_assert_int_eq(c.col, want256[i][r][1]);
		}
	/* 16x32bx2: threads 16..31 make access 1 and get no implicit +16 lanes. */
	op = must_parse("tcgen05.ld.sync.aligned.16x32bx2.x4.b32");
	ImageCell c = image_cell(&op, 21, 3);
	ck_assert_int_eq(c.row, 5);
	ck_assert_int_eq(c.col, 3);
	ck_assert_int_eq(c.access, 1);
	ck_assert_int_eq(image_cell(&op, 15, 0).access, 0);
}
END_TEST

START_TEST(shape_table)
{
	const char *names[SH_COUNT] = {"32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"};
	int rows[SH_COUNT] = {32, 16, 16, 16, 16};
	int cols[SH_COUNT] = {1, 2, 4, 8, 1};
	int regs_x1[SH_COUNT] = {1, 1, 2, 4, 1};
	int max_n[SH_COUNT] = {128, 128, 64, 32, 128};
	for (int s = 0; s < SH_COUNT; s++) {
		Opcode op = {.is_ld = true, .shape = (Shape)s, .n = 1};
		ck_assert_str_eq(shape_name((Shape)s), names[s]);
		ck_assert_int_eq(shape_rows((Shape)s), rows[s]);
		ck_assert_int_eq(shape_cols_per_rep((Shape)s), cols[s]);
		ck_assert_int_eq(shape_max_n((Shape)s), max_n[s]);
		ck_assert_int_eq(opcode_regs(&op), regs_x1[s]);
		/* A thread never holds more than 128 registers, and the largest N reaches exactly that. */
		op.n = shape_max_n((Shape)s);
		ck_assert_int_eq(opcode_regs(&op), 128);
	}
}
END_TEST

START_TEST(atom_and_tmem_cols)
{
	struct { const char *op; int regs, atom, tmem; } t[] = {
		{"tcgen05.ld.sync.aligned.32x32b.x8.b32", 8, 8, 8},
		{"tcgen05.ld.sync.aligned.16x64b.x8.b32", 8, 16, 16},
		{"tcgen05.ld.sync.aligned.16x128b.x8.b32", 16, 32, 32},
		{"tcgen05.ld.sync.aligned.16x256b.x8.b32", 32, 64, 64},
		{"tcgen05.ld.sync.aligned.16x32bx2.x8.b32", 8, 8, 8},
		{"tcgen05.ld.sync.aligned.16x256b.x8.pack::16b.b32", 32, 64, 128},
		{"tcgen05.st.sync.aligned.16x32bx2.x128.unpack::16b.b32", 128, 128, 256},
		{"tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32", 1, 1, 2},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		Opcode op = must_parse(t[i].op);
		ck_assert_int_eq(opcode_regs(&op), t[i].regs);
		ck_assert_int_eq(opcode_atom_cols(&op), t[i].atom);
		ck_assert_int_eq(opcode_tmem_cols(&op), t[i].tmem);
	}
}
END_TEST

/* Each image is a bijection between (lane, register) and the cells of its atom(s). */
START_TEST(image_covers_atom_once)
{
	Opcode ops[512];
	int n = all_opcodes(ops, 512);
	static unsigned char hits[2][32][256];
	for (int i = 0; i < n; i++) {
		const Opcode *op = &ops[i];
		int rows = shape_rows(op->shape), cols = opcode_atom_cols(op);
		int accesses = op->shape == SH_16X32BX2 ? 2 : 1;
		ck_assert_int_eq(32 * opcode_regs(op), accesses * rows * cols);
		ck_assert_int_le(cols, 256);
		memset(hits, 0, sizeof hits);
		for (int lane = 0; lane < 32; lane++)
			for (int r = 0; r < opcode_regs(op); r++) {
				ImageCell c = image_cell(op, lane, r);
				ck_assert(c.access >= 0 && c.access < accesses);
				ck_assert(c.row >= 0 && c.row < rows && c.col >= 0 && c.col < cols);
				ck_assert_int_eq(hits[c.access][c.row][c.col]++, 0);
			}
	}
}
END_TEST

/* ---------------------------------------------------------------- parse and format */

START_TEST(parse_accepts)
{
	Opcode op = must_parse("tcgen05.ld.sync.aligned.16x64b.x8.pack::16b.b32");
	ck_assert(op.is_ld && op.shape == SH_16X64B && op.n == 8 && op.pack);
	op = must_parse("tcgen05.st.sync.aligned.32x32b.x64.b32");
	ck_assert(!op.is_ld && op.shape == SH_32X32B && op.n == 64 && !op.pack);
	op = must_parse("tcgen05.st.sync.aligned.16x32bx2.x128.unpack::16b.b32");
	ck_assert(!op.is_ld && op.shape == SH_16X32BX2 && op.n == 128 && op.pack);
	op = must_parse("tcgen05.ld.sync.aligned.16x256b.x32.b32");
	ck_assert(op.shape == SH_16X256B && op.n == 32);
	/* out may be NULL: the caller only wants to know whether it parses. */
	ck_assert(opcode_parse("tcgen05.ld.sync.aligned.16x128b.x1.b32", NULL, NULL, 0));
}
END_TEST

START_TEST(parse_unknown_shape)
{
	expect_refused("tcgen05.ld.sync.aligned.16x32b.x1.b32",
	               "unknown shape '16x32b'; the shapes are 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2");
	expect_refused("tcgen05.st.sync.aligned.32X32B.x1.b32", "unknown shape '32X32B'");
	expect_refused("tcgen05.ld.sync.aligned", "needs a shape: 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2");
}
END_TEST

START_TEST(parse_illegal_n_lists_legal)
{
	expect_refused("tcgen05.ld.sync.aligned.16x64b.x256.b32",
	               "'.x256' is not legal for 16x64b; legal: .x1, .x2, .x4, .x8, .x16, .x32, .x64, .x128");
	expect_refused("tcgen05.ld.sync.aligned.16x256b.x64.b32",
	               "'.x64' is not legal for 16x256b; legal: .x1, .x2, .x4, .x8, .x16, .x32");
	expect_refused("tcgen05.ld.sync.aligned.16x64b.b32", "expected a repetition .xN after 16x64b, found '.b32'; legal: .x1");
	expect_refused("tcgen05.ld.sync.aligned.16x64b", "needs a repetition .xN after 16x64b; legal: .x1");
}
END_TEST

START_TEST(parse_illegal_n_refused)
{
	const char *bad[] = {
		"tcgen05.ld.sync.aligned.32x32b.x0.b32",   "tcgen05.ld.sync.aligned.32x32b.x3.b32",
		"tcgen05.ld.sync.aligned.16x64b.x256.b32", "tcgen05.ld.sync.aligned.16x128b.x128.b32",
		"tcgen05.st.sync.aligned.16x32bx2.x256.b32", "tcgen05.ld.sync.aligned.32x32b.x01.b32",
		"tcgen05.ld.sync.aligned.32x32b.x.b32",    "tcgen05.ld.sync.aligned.32x32b.x-1.b32",
		"tcgen05.ld.sync.aligned.32x32b.x4294967296.b32", "tcgen05.ld.sync.aligned.32x32b.x99999999999999999999.b32",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_refused(bad[i], "is not legal for");
	expect_refused("tcgen05.ld.sync.aligned.16x128b.x128.b32", "legal: .x1, .x2, .x4, .x8, .x16, .x32, .x64");
}
END_TEST

START_TEST(parse_pack_on_store)
{
	expect_refused("tcgen05.st.sync.aligned.32x32b.x4.pack::16b.b32",
	               "pack::16b is only for tcgen05.ld; a store takes .unpack::16b");
}
END_TEST

START_TEST(parse_unpack_on_load)
{
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.unpack::16b.b32",
	               "unpack::16b is only for tcgen05.st; a load takes .pack::16b");
}
END_TEST

START_TEST(parse_missing_sync_aligned)
{
	expect_refused("tcgen05.ld.32x32b.x4.b32", "tcgen05.ld needs .sync.aligned");
	expect_refused("tcgen05.st.sync.32x32b.x4.b32", "tcgen05.st needs .sync.aligned");
	expect_refused("tcgen05.ld.aligned.sync.32x32b.x4.b32", "needs .sync.aligned");
	expect_refused("tcgen05.ld", "needs .sync.aligned");
}
END_TEST

START_TEST(parse_bad_type)
{
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.f32", "type '.f32' is not allowed: tcgen05.ld takes only .b32");
	expect_refused("tcgen05.st.sync.aligned.32x32b.x4.unpack::16b.b16", "type '.b16' is not allowed");
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.bf16", "type '.bf16' is not allowed");
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4", "needs the type .b32");
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.pack::16b", "needs the type .b32");
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.pack::32b.b32", "unexpected '.pack::32b' after 32x32b.x4");
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.b32.pack::16b", "'.pack::16b' must come before .b32");
	expect_refused("tcgen05.ld.sync.aligned.32x32b.x4.b32.", "unexpected '.' after .b32");
}
END_TEST

START_TEST(parse_not_ld_st)
{
	const char *bad[] = {
		"", ".", "tcgen05", "tcgen05.", "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.wait::ld.sync.aligned",
		"tcgen05.cp.cta_group::1.128x256b", "ld.sync.aligned.32x32b.x4.b32", "TCGEN05.ld.sync.aligned.32x32b.x1.b32",
		"tcgen05.ldx.sync.aligned.32x32b.x1.b32",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		expect_refused(bad[i], "is not a load or store");
	expect_refused(NULL, "no opcode");
}
END_TEST

/* Fuzzed text never crashes the parser; a reason is one line; what parses is exactly its canonical spelling. */
START_TEST(parse_fuzz)
{
	Opcode ops[512];
	int nops = all_opcodes(ops, 512);
	static const char alphabet[] = ".:x0123456789abdfgilnpstuk\t \xff";
	uint64_t rng = 0x9e3779b97f4a7c15u;
	char text[160], why[64], canon[96];
	for (int iter = 0; iter < 200000; iter++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		if (iter % 8 == 0) {
			int len = (int)(rng % 60);
			for (int i = 0; i < len; i++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				text[i] = (char)(1 + rng % 255);
			}
			text[len] = 0;
		} else {
			opcode_format(&ops[rng % (uint64_t)nops], text, sizeof text);
			for (int m = 0; m <= (int)(rng >> 60) % 3; m++) {
				rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
				size_t len = strlen(text), at = (size_t)(rng >> 8) % (len + 1);
				char ch = alphabet[(rng >> 32) % (sizeof alphabet - 1)];
				switch (rng % 3) {
				case 0: /* replace */
					if (at < len)
						text[at] = ch;
					break;
				case 1: /* delete */
					if (at < len)
						memmove(text + at, text + at + 1, len - at);
					break;
				default: /* insert */
					if (len + 2 < sizeof text) {
						memmove(text + at + 1, text + at, len - at + 1);
						text[at] = ch;
					}
				}
			}
		}
		size_t whylen = (size_t)(iter % 5 == 0 ? 0 : iter % 5 == 1 ? 1 : sizeof why);
		memset(why, 'Z', sizeof why);
		Opcode op;
		if (opcode_parse(text, &op, why, whylen)) {
			opcode_format(&op, canon, sizeof canon);
			ck_assert_str_eq(canon, text);
		} else if (whylen) {
			ck_assert(memchr(why, 0, whylen) != NULL);
			ck_assert(strchr(why, '\n') == NULL);
			ck_assert(whylen == 1 || why[0] != 0);
		} else {
			ck_assert_int_eq(why[0], 'Z');
		}
	}
	/* Very long text, with and without dots. */
	size_t big = 100000;
	char *s = malloc(big + 1);
	ck_assert(s != NULL);
	memset(s, 'x', big);
	s[big] = 0;
	expect_refused(s, "is not a load or store");
	for (size_t i = 0; i < big; i += 2)
		s[i] = '.';
	expect_refused(s, "too many");
	memcpy(s, "tcgen05.ld.sync.aligned.", 24);
	memset(s + 24, '7', big - 24);
	expect_refused(s, "unknown shape");
	free(s);
}
END_TEST

START_TEST(format_round_trip)
{
	Opcode ops[512];
	int n = all_opcodes(ops, 512);
	ck_assert_int_eq(n, 148); /* 74 loads and 74 stores, as CUTLASS's SM100 atoms */
	for (int i = 0; i < n; i++) {
		char text[96];
		opcode_format(&ops[i], text, sizeof text);
		Opcode back = must_parse(text);
		ck_assert(back.is_ld == ops[i].is_ld && back.shape == ops[i].shape && back.n == ops[i].n &&
		          back.pack == ops[i].pack);
	}
	char text[96];
	opcode_format(&(Opcode){.is_ld = false, .shape = SH_16X256B, .n = 4, .pack = true}, text, sizeof text);
	ck_assert_str_eq(text, "tcgen05.st.sync.aligned.16x256b.x4.unpack::16b.b32");
	opcode_format(&(Opcode){.is_ld = true, .shape = SH_16X32BX2, .n = 2, .pack = true}, text, sizeof text);
	ck_assert_str_eq(text, "tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32");
}
END_TEST

/* ---------------------------------------------------------------- print */

/* Prints op's image into a malloc'd string. */
static char *
print_to_string(const char *text)
{
	Opcode op = must_parse(text);
	FILE *f = tmpfile();
	ck_assert(f != NULL);
	image_print(f, &op);
	long len = ftell(f);
	ck_assert(len > 0);
	char *s = malloc((size_t)len + 1);
	rewind(f);
	ck_assert_int_eq(fread(s, 1, (size_t)len, f), (size_t)len);
	s[len] = 0;
	fclose(f);
	return s;
}

START_TEST(image_print_format)
{
	char *s = print_to_string("tcgen05.ld.sync.aligned.16x64b.x2.b32");
	ck_assert(strncmp(s, "tcgen05.ld.sync.aligned.16x64b.x2.b32", 37) == 0);
	ck_assert(strstr(s, "\nlane 0: r0=(0,0) r1=(0,2)\n") != NULL);
	ck_assert(strstr(s, "\nlane 1: r0=(8,0) r1=(8,2)\n") != NULL);
	ck_assert(strstr(s, "\nlane 31: r0=(15,1) r1=(15,3)\n") != NULL);
	int lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 33);
	char *again = print_to_string("tcgen05.ld.sync.aligned.16x64b.x2.b32");
	ck_assert_str_eq(s, again);
	free(again);
	free(s);

	s = print_to_string("tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32");
	ck_assert(strstr(s, "\nlane 1: r0=(0,4|5) r1=(0,6|7) r2=(8,4|5) r3=(8,6|7)\n") != NULL);
	free(s);
	s = print_to_string("tcgen05.st.sync.aligned.16x32bx2.x2.b32");
	ck_assert(strstr(s, "\nlane 3: r0=a0:(3,0) r1=a0:(3,1)\n") != NULL);
	ck_assert(strstr(s, "\nlane 16: r0=a1:(0,0) r1=a1:(0,1)\n") != NULL);
	free(s);
}
END_TEST

/* Every statement row's spelling parses back to the row, with each cta_group it takes; others are refused. */
START_TEST(isa_round_trip)
{
	ck_assert_int_ge(isa_count(), 9);
	for (int i = 0; i < isa_count(); i++) {
		const IsaInstr *in = isa_at(i);
		ck_assert_ptr_eq(isa_instr(in->kind), in);
		ck_assert_int_le(in->noperands, ISA_MAX_OPERANDS);
		ck_assert_int_le(in->nquals, ISA_MAX_QUALS);
		if (in->use != ISA_STATEMENT)
			continue;
		bool takes = isa_takes_cta_group(in);
		for (int g = takes ? 1 : 0; g <= (takes ? 2 : 0); g++) {
			int got = -1;
			const char *text = isa_spelling(in->kind, g);
			ck_assert_msg(isa_parse(text, &got) == in, "'%s' not parsed back", text);
			ck_assert_int_eq(got, g);
			ck_assert_ptr_null(isa_parse(pool_printf("%s.b32", text), NULL));
			ck_assert_ptr_null(isa_parse(pool_strndup(text, strlen(text) - 1), NULL));
		}
		if (takes) {
			const char *one = isa_spelling(in->kind, 1), *at = strstr(one, "::1");
			ck_assert_ptr_null(isa_parse(pool_printf("%.*s::3%s", (int)(at - one), one, at + 3), NULL));
		}
		ck_assert_msg(in->effect != 0, "%s has no protocol effect", in->name);
	}
	pool_free_all();
}
END_TEST

/* The synchronisation rows (mbarriers, commit, the cluster barrier): their PTX spellings (TCGEN05.md 9 and
   14.4), and they are no instruction statements: neither parsed nor a family an opcode names. */
START_TEST(isa_sync_rows)
{
	ck_assert_str_eq(isa_spelling(TC_MB_INIT, 0), "mbarrier.init.shared::cta.b64");
	ck_assert_str_eq(isa_spelling(TC_MB_ARRIVE, 0), "mbarrier.arrive.shared::cta.b64");
	ck_assert_str_eq(isa_spelling(TC_MB_EXPECT_TX, 0), "mbarrier.expect_tx.relaxed.cta.shared::cta.b64");
	ck_assert_str_eq(isa_spelling(TC_MB_TRY_WAIT, 0), "mbarrier.try_wait.parity.shared::cta.b64");
	ck_assert_str_eq(isa_spelling(TC_MB_FENCE_INIT, 0), "fence.mbarrier_init.release.cluster");
	ck_assert_str_eq(isa_spelling(TC_COMMIT, 1), "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64");
	ck_assert_str_eq(isa_spelling(TC_COMMIT, 2), "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64");
	ck_assert_str_eq(isa_spelling(TC_COMMIT_PAIR, 2),
	                 "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64");
	ck_assert_str_eq(isa_spelling(TC_CLUSTER_ARRIVE, 0), "barrier.cluster.arrive.release");
	ck_assert_str_eq(isa_spelling(TC_CLUSTER_WAIT, 0), "barrier.cluster.wait.acquire");
	ck_assert_ptr_null(isa_parse("mbarrier.init.shared::cta.b64", NULL));
	ck_assert_ptr_null(isa_parse("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", NULL));
	ck_assert_ptr_null(isa_family("tcgen05.commit.cta_group::1"));
	ck_assert_ptr_eq(isa_family("tcgen05.alloc.x"), isa_instr(TC_ALLOC));
	ck_assert(strstr(isa_known(), "commit") == NULL && strstr(isa_known(), "init") == NULL);
	pool_free_all();
}
END_TEST

/* Spot values from TCGEN05.md and the PTX ISA. */
START_TEST(isa_spellings)
{
	ck_assert_str_eq(isa_spelling(TC_ALLOC, 2), "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32");
	ck_assert_str_eq(isa_spelling(TC_DEALLOC, 1), "tcgen05.dealloc.cta_group::1.sync.aligned.b32");
	ck_assert_str_eq(isa_spelling(TC_RELINQUISH, 1), "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned");
	ck_assert_str_eq(isa_spelling(TC_WAIT_LD, 0), "tcgen05.wait::ld.sync.aligned");
	ck_assert_str_eq(isa_spelling(TC_WAIT_ST, 0), "tcgen05.wait::st.sync.aligned");
	ck_assert_str_eq(isa_spelling(TC_FENCE_BEFORE, 0), "tcgen05.fence::before_thread_sync");
	ck_assert_str_eq(isa_spelling(TC_FENCE_AFTER, 0), "tcgen05.fence::after_thread_sync");
	ck_assert_str_eq(isa_name(TC_ALLOC, 1), "tcgen05.alloc.cta_group::1");
	ck_assert(isa_instr(TC_ALLOC)->one_warp && isa_instr(TC_DEALLOC)->one_warp);
	ck_assert(!isa_aligned(isa_instr(TC_FENCE_AFTER)) && isa_aligned(isa_instr(TC_WAIT_LD)));
	ck_assert(isa_aligned(isa_instr(TC_LD)) && isa_aligned(isa_instr(TC_ST)));
	ck_assert_str_eq(isa_name(TC_LD, 0), "tcgen05.ld");
	ck_assert_str_eq(isa_name(TC_ST, 0), "tcgen05.st");
	/* ld / st are written through apply, never as instruction statements */
	ck_assert_ptr_null(isa_parse("tcgen05.ld.sync.aligned.32x32b.x1.b32", NULL));
	Opcode st = {.is_ld = false, .shape = SH_16X32BX2, .n = 4, .pack = true};
	ck_assert_str_eq(isa_format(isa_instr(TC_ST), 0, &st), "tcgen05.st.sync.aligned.16x32bx2.x4.unpack::16b.b32");
	Opcode ld = {.is_ld = true, .shape = SH_32X32B, .n = 128};
	ck_assert_str_eq(isa_format(isa_instr(TC_LD), 0, &ld), "tcgen05.ld.sync.aligned.32x32b.x128.b32");
	/* the operands in PTX order: ld r, [taddr], imm; st [taddr], imm, r */
	ck_assert_int_eq(isa_instr(TC_LD)->operands[0].kind, IO_REG_VECTOR);
	ck_assert(isa_instr(TC_LD)->operands[1].bracketed && isa_instr(TC_LD)->operands[2].split_only);
	ck_assert_int_eq(isa_instr(TC_ST)->operands[2].kind, IO_REG_VECTOR);
	ck_assert_int_eq(isa_instr(TC_LD)->completes, COMPLETES_AT_WAIT_LD);
	ck_assert_int_eq(isa_instr(TC_ST)->completes, COMPLETES_AT_WAIT_ST);
	pool_free_all();
}
END_TEST

START_TEST(arch_table)
{
	ck_assert_str_eq(arch_default()->name, "sm_100a");
	ck_assert_str_eq(arch_find("sm_100a")->ptx_version, "8.6");
	ck_assert_str_eq(arch_find("sm_103f")->ptx_version, "8.8");
	ck_assert_str_eq(arch_find("sm_110a")->ptx_version, "9.0");
	ck_assert_ptr_null(arch_find("sm_90a"));
	ck_assert_ptr_null(arch_find("sm_100"));
	ck_assert_str_eq(arch_list(" (default)"), "sm_100a (default), sm_100f, sm_103a, sm_103f, sm_110a, sm_110f");
	pool_free_all();
}
END_TEST

/* tcgen05.ld.red (TCGEN05.md section 13): every spelling ptxas accepts in the order LANGUAGE.md 11.7 writes
   it parses to its fields and prints back the same; the forms ptxas refuses or that have nothing to reduce
   are refused; only sm_103a/f and sm_110a/f have it. */
START_TEST(ld_red_opcodes)
{
	static const char *const shapes[] = {"32x32b", "16x32bx2"};
	static const char *const tails[] = {"min.f32", "max.f32", "max.abs.f32", "min.NaN.f32", "max.abs.NaN.f32",
	                                    "min.u32", "max.s32"};
	for (int sh = 0; sh < 2; sh++)
		for (int n = 2; n <= 128; n *= 2)
			for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
				char text[128], back[128], why[256];
				snprintf(text, sizeof text, "tcgen05.ld.red.sync.aligned.%s.x%d.%s", shapes[sh], n, tails[t]);
				Opcode op;
				ck_assert_msg(opcode_parse(text, &op, why, sizeof why), "%s: %s", text, why);
				ck_assert(op.is_ld && op.n == n && !op.pack);
				ck_assert_int_eq(op.shape, sh ? SH_16X32BX2 : SH_32X32B);
				ck_assert_int_eq(op.red, tails[t][1] == 'i' ? RED_MIN : RED_MAX);
				ck_assert_int_eq(op.red_abs, strstr(tails[t], "abs") != NULL);
				ck_assert_int_eq(op.red_nan, strstr(tails[t], "NaN") != NULL);
				opcode_format(&op, back, sizeof back);
				ck_assert_str_eq(back, text);
				ck_assert_str_eq(isa_format(isa_instr(TC_LD_RED), 0, &op), text);
			}
	static const char *const refused[] = {
		"tcgen05.ld.red.sync.aligned.32x32b.x1.max.f32",   "tcgen05.ld.red.sync.aligned.16x64b.x2.max.f32",
		"tcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.u32", "tcgen05.ld.red.sync.aligned.32x32b.x2.min.NaN.s32",
		"tcgen05.ld.red.sync.aligned.32x32b.x2.max.b32",   "tcgen05.ld.red.sync.aligned.32x32b.x2.f32",
		"tcgen05.ld.red.sync.aligned.32x32b.x2.max",       "tcgen05.ld.red.sync.aligned.32x32b.x2.max.f32.f32",
		"tcgen05.ld.red.sync.aligned.32x32b.x2.pack::16b.max.f32", "tcgen05.st.red.sync.aligned.32x32b.x2.max.f32",
		"tcgen05.ld.red.32x32b.x2.max.f32"};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		char why[256] = "";
		ck_assert_msg(!opcode_parse(refused[i], NULL, why, sizeof why), "%s accepted", refused[i]);
		ck_assert(why[0]);
	}
	ck_assert_int_eq(isa_instr(TC_LD_RED)->completes, COMPLETES_AT_WAIT_LD);
	ck_assert_int_eq(isa_instr(TC_LD_RED)->operands[1].kind, IO_REG);
	ck_assert(isa_instr(TC_LD_RED)->operands[1].written && isa_instr(TC_LD_RED)->operands[3].split_only);
	ck_assert(!arch_find("sm_100a")->ld_red && !arch_find("sm_100f")->ld_red);
	ck_assert(arch_find("sm_103a")->ld_red && arch_find("sm_103f")->ld_red && arch_find("sm_110a")->ld_red &&
	          arch_find("sm_110f")->ld_red);
	ck_assert_str_eq(arch_list_ld_red(), "sm_103a, sm_103f, sm_110a or sm_110f");
	pool_free_all();
}
END_TEST

/* One TCase per test, named after the test. */
#define ADD_CASE(suite, test)                     \
	do {                                          \
		TCase *tc = tcase_create(#test);          \
		tcase_set_timeout(tc, 60);                \
		tcase_add_test(tc, test);                 \
		suite_add_tcase(suite, tc);               \
	} while (0)

static Suite *
image_suite(void)
{
	Suite *s = suite_create("image");
	ADD_CASE(s, golden_ld_images);
	ADD_CASE(s, tcgen05_md_spot_values);
	ADD_CASE(s, shape_table);
	ADD_CASE(s, atom_and_tmem_cols);
	ADD_CASE(s, image_covers_atom_once);
	ADD_CASE(s, parse_accepts);
	ADD_CASE(s, parse_unknown_shape);
	ADD_CASE(s, parse_illegal_n_lists_legal);
	ADD_CASE(s, parse_illegal_n_refused);
	ADD_CASE(s, parse_pack_on_store);
	ADD_CASE(s, parse_unpack_on_load);
	ADD_CASE(s, parse_missing_sync_aligned);
	ADD_CASE(s, parse_bad_type);
	ADD_CASE(s, parse_not_ld_st);
	ADD_CASE(s, parse_fuzz);
	ADD_CASE(s, format_round_trip);
	ADD_CASE(s, image_print_format);
	ADD_CASE(s, isa_round_trip);
	ADD_CASE(s, ld_red_opcodes);
	ADD_CASE(s, isa_spellings);
	ADD_CASE(s, isa_sync_rows);
	ADD_CASE(s, arch_table);
	return s;
}

UNIT_MAIN(image_suite)
