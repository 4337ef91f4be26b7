/* test_cp.c: the tcgen05.cp forms of isa.c against the golden file written from the PTX ISA's shapes
 * (tools/cp-image-golden.py, not from tilec), the form parser's refusals, the decompression of a chunk,
 * cp.c's element-by-element check with the descriptor it derives, and the emulator's cp through it. */
#include <stdlib.h>
#include <string.h>

#include "tilec.h"
#include "unit.h"

static CpForm
must_parse_cp(const char *text)
{
	CpForm f;
	char why[256] = "";
	ck_assert_msg(cp_form_parse(text, &f, why, sizeof why), "'%s' refused: %s", text, why);
	return f;
}

static int
form_index(CpForm f)
{
	for (int i = 0; i < CP_FORM_COUNT; i++) {
		CpForm g = cp_form_at(i);
		if (g.route == f.route && g.decomp == f.decomp && g.cta_group == f.cta_group)
			return i;
	}
	ck_abort_msg("form not in cp_form_at");
	return -1;
}

/* Every line of the golden is one (form, row, chunk) with its lanes, sorted, and its columns "a..b";
   every form of the table has each of its rows and chunks there exactly once. */
START_TEST(golden_cp_images)
{
	const char *dir = getenv("TILEC_GOLDEN_DIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/tcgen05_cp_images.tsv", dir && *dir ? dir : "tests/data");
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (run from the repository root or set TILEC_GOLDEN_DIR)", path);
	static unsigned char seen[CP_FORM_COUNT][128][2];
	memset(seen, 0, sizeof seen);
	char line[512];
	int lineno = 0, cells = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		size_t len = strlen(line);
		ck_assert_msg(len > 0 && line[len - 1] == '\n', "%s:%d: line too long or unterminated", path, lineno);
		line[--len] = 0;
		if (line[0] == '#' || len == 0)
			continue;
		char *field[5];
		field[0] = line;
		for (int i = 1; i < 5; i++) {
			char *tab = strchr(field[i - 1], '\t');
			ck_assert_msg(tab != NULL, "%s:%d: expected 5 tab-separated fields", path, lineno);
			*tab = 0;
			field[i] = tab + 1;
		}
		CpForm form = must_parse_cp(field[0]);
		int row = atoi(field[1]), chunk = atoi(field[2]);
		ck_assert_msg(row >= 0 && row < cp_rows(form.route) && chunk >= 0 && chunk < cp_chunks(form.route),
		              "%s:%d: row %d chunk %d outside %s", path, lineno, row, chunk, field[0]);
		int want[CP_MAX_REPLICAS + 1], nwant = 0;
		for (char *p = field[3], *end; *p; p = *end == ',' ? end + 1 : end) {
			ck_assert_int_lt(nwant, CP_MAX_REPLICAS + 1);
			want[nwant++] = (int)strtol(p, &end, 10);
			ck_assert_msg(end != p, "%s:%d: bad lane list", path, lineno);
		}
		ck_assert_msg(nwant == cp_replicas(form.route), "%s:%d: %d lanes, tilec has %d replicas", path, lineno, nwant,
		              cp_replicas(form.route));
		int got[CP_MAX_REPLICAS];
		for (int k = 0; k < nwant; k++)
			got[k] = cp_lane(form.route, row, k);
		for (int a = 0; a < nwant; a++) /* sorted, as the golden writes them */
			for (int b = a + 1; b < nwant; b++)
				if (got[b] < got[a]) {
					int t = got[a];
					got[a] = got[b];
					got[b] = t;
				}
		for (int k = 0; k < nwant; k++)
			ck_assert_msg(got[k] == want[k], "%s row %d chunk %d: golden lane %d, tilec %d", field[0], row, chunk,
			              want[k], got[k]);
		int c0 = -1, c1 = -1;
		ck_assert_msg(sscanf(field[4], "%d..%d", &c0, &c1) == 2, "%s:%d: bad columns", path, lineno);
		ck_assert_msg(cp_col(chunk, 0) == c0 && cp_col(chunk, CP_CHUNK_WORDS - 1) == c1,
		              "%s row %d chunk %d: golden columns %d..%d, tilec %d..%d", field[0], row, chunk, c0, c1,
		              cp_col(chunk, 0), cp_col(chunk, CP_CHUNK_WORDS - 1));
		int i = form_index(form);
		ck_assert_msg(!seen[i][row][chunk], "%s:%d: %s row %d chunk %d twice", path, lineno, field[0], row, chunk);
		seen[i][row][chunk] = 1;
		cells++;
	}
	fclose(f);
	for (int i = 0; i < CP_FORM_COUNT; i++) {
		CpForm form = cp_form_at(i);
		for (int r = 0; r < cp_rows(form.route); r++)
			for (int c = 0; c < cp_chunks(form.route); c++)
				ck_assert_msg(seen[i][r][c], "%s row %d chunk %d missing from the golden", cp_form_spelling(&form), r, c);
	}
	ck_assert_int_eq(cells, 3312);
	pool_free_all();
}
END_TEST

/* 36 distinct spellings, each parsed back to its form; the table's sizes as TCGEN05.md 10.1 lists them. */
START_TEST(forms_round_trip)
{
	for (int i = 0; i < CP_FORM_COUNT; i++) {
		CpForm f = cp_form_at(i);
		const char *text = cp_form_spelling(&f);
		ck_assert_int_eq(form_index(must_parse_cp(text)), i);
		for (int j = 0; j < i; j++) {
			CpForm g = cp_form_at(j);
			ck_assert_str_ne(text, cp_form_spelling(&g));
		}
	}
	static const int bytes[CP_ROUTE_COUNT] = {4096, 128, 2048, 1024, 1024, 512};
	for (int r = 0; r < CP_ROUTE_COUNT; r++)
		ck_assert_int_eq(cp_rows((CpRoute)r) * cp_chunks((CpRoute)r) * CP_CHUNK_BYTES, bytes[r]);
	CpForm f = must_parse_cp("tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b4x16_p64");
	ck_assert_int_eq(f.route, CP_32X128B_WARPX4);
	ck_assert_int_eq(f.decomp, CPD_B4X16_P64);
	ck_assert_int_eq(f.cta_group, 2);
	pool_free_all();
}
END_TEST

/* No two (row, chunk, replica, word) of a form on one cell, every cell inside lanes 0..127 and the form's columns. */
START_TEST(image_cells_distinct)
{
	for (int r = 0; r < CP_ROUTE_COUNT; r++) {
		static unsigned char cell[TMEM_LANES][8];
		memset(cell, 0, sizeof cell);
		CpRoute route = (CpRoute)r;
		int n = 0;
		for (int row = 0; row < cp_rows(route); row++)
			for (int k = 0; k < cp_replicas(route); k++)
				for (int c = 0; c < cp_chunks(route); c++)
					for (int w = 0; w < CP_CHUNK_WORDS; w++) {
						int lane = cp_lane(route, row, k), col = cp_col(c, w);
						ck_assert(lane >= 0 && lane < TMEM_LANES && col >= 0 && col < cp_tmem_cols(route));
						ck_assert_msg(!cell[lane][col], "route %d: lane %d col %d twice", r, lane, col);
						cell[lane][col] = 1;
						n++;
					}
		ck_assert_int_eq(n, cp_rows(route) * cp_replicas(route) * cp_tmem_cols(route));
	}
}
END_TEST

static void
expect_cp_refused(const char *text, const char *want)
{
	char why[512] = "";
	ck_assert_msg(!cp_form_parse(text, NULL, why, sizeof why), "'%s' accepted", text);
	ck_assert_msg(strstr(why, want) != NULL, "'%s': reason '%s' lacks '%s'", text, why, want);
	ck_assert_msg(strchr(why, '\n') == NULL, "'%s': reason is more than one line", text);
}

START_TEST(parse_refusals)
{
	expect_cp_refused("tcgen05.cp.128x128b", "needs .cta_group::1 or .cta_group::2");
	expect_cp_refused("tcgen05.cp.cta_group::3.128x128b", "needs .cta_group::1 or .cta_group::2");
	expect_cp_refused("tcgen05.cp.cta_group::1", "needs a shape: 128x256b, 4x256b, 128x128b, 64x128b, 32x128b");
	expect_cp_refused("tcgen05.cp.cta_group::1.128x64b", "unknown tcgen05.cp shape '128x64b'");
	expect_cp_refused("tcgen05.cp.cta_group::1.64x128b", "needs a multicast after 64x128b: .warpx2::02_13 or .warpx2::01_23");
	expect_cp_refused("tcgen05.cp.cta_group::1.64x128b.b8x16.b4x16_p64", "needs a multicast after 64x128b");
	expect_cp_refused("tcgen05.cp.cta_group::1.32x128b", "needs a multicast after 32x128b: .warpx4");
	expect_cp_refused("tcgen05.cp.cta_group::1.64x128b.warpx4", "'.warpx4' is not a multicast of 64x128b");
	expect_cp_refused("tcgen05.cp.cta_group::1.32x128b.warpx2::01_23", "it takes .warpx4");
	expect_cp_refused("tcgen05.cp.cta_group::1.128x128b.warpx4", "128x128b takes no multicast, found '.warpx4'");
	expect_cp_refused("tcgen05.cp.cta_group::1.4x256b.warpx2::02_13", "4x256b takes no multicast");
	expect_cp_refused("tcgen05.cp.cta_group::1.128x256b.b8x16", "a decompression is .b8x16.b6x16_p32 or .b8x16.b4x16_p64");
	expect_cp_refused("tcgen05.cp.cta_group::1.128x256b.b6x16_p32", "unexpected '.b6x16_p32' after 128x256b");
	expect_cp_refused("tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64.b32", "unexpected '.b32' after .b8x16.b4x16_p64");
	expect_cp_refused("tcgen05.ld.sync.aligned.32x32b.x1.b32", "is not a tcgen05.cp opcode");
	expect_cp_refused("tcgen05.cp.cta_group::1.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o", "too many '.' parts");
	pool_free_all();
}
END_TEST

/* The fp6 chunk of 16 values, packed as TCGEN05.md 10.4 says: value k at bits 6k.. of a little-endian integer. */
static void
pack_fp6(const unsigned v[16], uint8_t chunk[16])
{
	memset(chunk, 0xa5, 16); /* the padding: must not reach the output */
	memset(chunk, 0, 12);
	for (int k = 0; k < 16; k++)
		for (int b = 0; b < 6; b++)
			if (v[k] >> b & 1)
				chunk[(6 * k + b) / 8] |= (uint8_t)(1u << ((6 * k + b) % 8));
}

START_TEST(decompress_chunks)
{
	uint8_t in[16], out[16];
	for (int i = 0; i < 16; i++)
		in[i] = (uint8_t)(17 * i + 3);
	cp_decompress_chunk(CPD_NONE, false, in, out);
	ck_assert(memcmp(in, out, 16) == 0);

	/* fp4: byte i holds values 2i (low nibble) and 2i+1; output byte k = value k << 2; padding ignored */
	static const uint8_t fp4[16] = {0x21, 0x43, 0x65, 0x87, 0xa9, 0xcb, 0xed, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t fp4_out[16] = {0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c, 0x20,
	                                    0x24, 0x28, 0x2c, 0x30, 0x34, 0x38, 0x3c, 0x00};
	cp_decompress_chunk(CPD_B4X16_P64, false, fp4, out);
	ck_assert(memcmp(out, fp4_out, 16) == 0);
	cp_decompress_chunk(CPD_B4X16_P64, true, fp4, out); /* the switch is about fp6 alone */
	ck_assert(memcmp(out, fp4_out, 16) == 0);

	/* fp6: every 6-bit value at every place, both placements of the switch */
	for (unsigned base = 0; base < 64; base++) {
		unsigned v[16];
		for (int k = 0; k < 16; k++)
			v[k] = (base + 5 * (unsigned)k) & 63;
		uint8_t chunk[16];
		pack_fp6(v, chunk);
		cp_decompress_chunk(CPD_B6X16_P32, false, chunk, out);
		for (int k = 0; k < 16; k++)
			ck_assert_int_eq(out[k], v[k]);
		cp_decompress_chunk(CPD_B6X16_P32, true, chunk, out);
		for (int k = 0; k < 16; k++)
			ck_assert_int_eq(out[k], v[k] << 1);
	}
	/* a worked value: 0x3f at value 0 only is byte 0 = 0x3f; at value 1 it spans bytes 0 and 1 */
	memset(in, 0, 16);
	in[0] = 0xc0;
	in[1] = 0x0f;
	cp_decompress_chunk(CPD_B6X16_P32, false, in, out);
	ck_assert_int_eq(out[0], 0);
	ck_assert_int_eq(out[1], 0x3f);
	ck_assert_int_eq(out[2], 0);
}
END_TEST

START_TEST(print_format)
{
	CpForm form = must_parse_cp("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23");
	FILE *f = tmpfile();
	ck_assert(f != NULL);
	cp_image_print(f, &form);
	long len = ftell(f);
	char *s = malloc((size_t)len + 1);
	rewind(f);
	ck_assert_int_eq(fread(s, 1, (size_t)len, f), (size_t)len);
	s[len] = 0;
	fclose(f);
	ck_assert(strncmp(s, "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23: 64 rows x 1 chunk of 16 bytes (1024 bytes)", 89) == 0);
	ck_assert(strstr(s, "\nrow 0: c0=lanes 0,32 cols 0..3\n") != NULL);
	ck_assert(strstr(s, "\nrow 33: c0=lanes 65,97 cols 0..3\n") != NULL);
	int lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, 65);
	free(s);
	pool_free_all();
}
END_TEST

/* ---------------------------------------------------------------- cp_match */

/* Where the shared operand holds source row r's byte b (of its chunks * 16), by arrangement. */
typedef enum Arrangement { ROW_MAJOR, CHUNK_MAJOR, ROWS_SWAPPED_3_4, START_8 } Arrangement;

static uint32_t
shared_byte(Arrangement a, CpRoute route, int r, int b)
{
	int chunks = cp_chunks(route), c = b / 16, j = b % 16;
	switch (a) {
	case ROW_MAJOR:
		return (uint32_t)(r * chunks * 16 + b);
	case CHUNK_MAJOR:
		return (uint32_t)(c * cp_rows(route) * 16 + r * 16 + j);
	case ROWS_SWAPPED_3_4:
		return (uint32_t)((r == 3 ? 4 : r == 4 ? 3 : r) * chunks * 16 + b);
	case START_8:
		return (uint32_t)(8 + r * chunks * 16 + b);
	}
	return 0;
}

/* The elements of a cp of form text moving elem_bytes-byte values: source row r's byte b at
   shared_byte(a, ...) (for a decompression, value b at bit 8 * chunk start + value_bits * (b % 16)),
   in TMEM at the image's lanes from lane0 and byte column 4 * col0 + b. Returns their number. */
static int
elements(const char *text, int elem_bytes, Arrangement a, int value_bits, int lane0, int col0, CpElem *out)
{
	CpForm f = must_parse_cp(text);
	int n = 0, per_row = cp_chunks(f.route) * 16;
	for (int r = 0; r < cp_rows(f.route); r++)
		for (int b = 0; b < per_row; b += elem_bytes) {
			CpElem *e = &out[n++];
			uint32_t chunk_start = shared_byte(a, f.route, r, b - b % 16);
			e->smem_bit = value_bits == 8 ? 8 * shared_byte(a, f.route, r, b) : 8 * chunk_start + (uint32_t)(value_bits * (b % 16));
			e->nplaces = cp_replicas(f.route);
			for (int k = 0; k < e->nplaces; k++) {
				e->lane[k] = lane0 + cp_lane(f.route, r, k);
				e->byte[k] = 4 * col0 + b;
			}
		}
	return n;
}

static CpElem cp_elems[4096];

static CpMismatch
expect_fault(const char *text, int n, int elem_bytes, CpFault want)
{
	CpForm f = must_parse_cp(text);
	CpPlan plan;
	CpMismatch mm;
	ck_assert_msg(!cp_match(&f, cp_elems, n, elem_bytes, SW_NONE, &plan, &mm), "%s accepted", text);
	ck_assert_msg(mm.fault == want, "%s: fault %d, want %d", text, (int)mm.fault, (int)want);
	return mm;
}

START_TEST(match_fits)
{
	const char *sf = "tcgen05.cp.cta_group::1.32x128b.warpx4";
	CpForm f = must_parse_cp(sf);
	CpPlan plan;
	CpMismatch mm;
	/* scale factors: u8 [32, 16] row-major into column 8: SBO 128, LBO 0, start 0 */
	int n = elements(sf, 1, ROW_MAJOR, 8, 0, 8, cp_elems);
	ck_assert(cp_match(&f, cp_elems, n, 1, SW_NONE, &plan, &mm));
	ck_assert_int_eq(plan.lane0, 0);
	ck_assert_int_eq(plan.col0, 8);
	ck_assert_int_eq(plan.desc.start, 0);
	ck_assert_int_eq(plan.desc.sbo, 128);
	ck_assert_int_eq(plan.desc.lbo, 0);
	uint64_t bits;
	ck_assert(smem_desc_encode(&plan.desc, &bits));
	ck_assert_uint_eq(bits, UINT64_C(8) << 32 | UINT64_C(1) << 46);
	/* the same bytes as f32 [32, 4] */
	n = elements(sf, 4, ROW_MAJOR, 8, 0, 8, cp_elems);
	ck_assert(cp_match(&f, cp_elems, n, 4, SW_NONE, &plan, &mm));
	/* 128x256b reads a row's second chunk at LBO: chunk-major [2][128][16] gives LBO 2048 */
	f = must_parse_cp("tcgen05.cp.cta_group::2.128x256b");
	n = elements("tcgen05.cp.cta_group::2.128x256b", 2, CHUNK_MAJOR, 8, 0, 0, cp_elems);
	ck_assert(cp_match(&f, cp_elems, n, 2, SW_NONE, &plan, &mm));
	ck_assert_int_eq(plan.desc.lbo, 2048);
	ck_assert_int_eq(plan.desc.sbo, 128);
	/* 4 rows: SBO the canonical 128 (unused), LBO 64 */
	f = must_parse_cp("tcgen05.cp.cta_group::1.4x256b");
	n = elements("tcgen05.cp.cta_group::1.4x256b", 4, CHUNK_MAJOR, 8, 0, 4, cp_elems);
	ck_assert(cp_match(&f, cp_elems, n, 4, SW_NONE, &plan, &mm));
	ck_assert_int_eq(plan.desc.lbo, 64);
	ck_assert_int_eq(plan.col0, 4);
	/* both warpx2 routes from a row-major [64, 16] tile, from lane 0 */
	const char *x2[] = {"tcgen05.cp.cta_group::1.64x128b.warpx2::02_13", "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23"};
	for (int i = 0; i < 2; i++) {
		f = must_parse_cp(x2[i]);
		n = elements(x2[i], 1, ROW_MAJOR, 8, 0, 0, cp_elems);
		ck_assert(cp_match(&f, cp_elems, n, 1, SW_NONE, &plan, &mm));
	}
	/* fp4 values packed 16 to 8 bytes, one byte each in TMEM */
	const char *b4 = "tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64";
	f = must_parse_cp(b4);
	n = elements(b4, 1, ROW_MAJOR, 4, 0, 0, cp_elems);
	ck_assert(cp_match(&f, cp_elems, n, 1, SW_NONE, &plan, &mm));
	pool_free_all();
}
END_TEST

START_TEST(match_faults)
{
	const char *sf = "tcgen05.cp.cta_group::1.32x128b.warpx4";
	int n = elements(sf, 1, ROW_MAJOR, 8, 0, 8, cp_elems);
	CpMismatch mm = expect_fault(sf, n - 1, 1, CP_SIZE);
	ck_assert_int_eq(mm.have, 511);
	ck_assert_int_eq(mm.want, 512);

	n = elements(sf, 1, ROW_MAJOR, 8, 0, 2, cp_elems);
	mm = expect_fault(sf, n, 1, CP_COLUMN);
	ck_assert_int_eq(mm.have, 2);

	const char *full = "tcgen05.cp.cta_group::1.128x128b";
	n = elements(full, 4, ROW_MAJOR, 8, 32, 0, cp_elems);
	mm = expect_fault(full, n, 4, CP_LANES);
	ck_assert_int_eq(mm.have, 32);

	n = elements(sf, 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	cp_elems[17].nplaces = 1;
	mm = expect_fault(sf, n, 1, CP_REPLICAS);
	ck_assert_int_eq(mm.elem, 17);
	ck_assert_int_eq(mm.have, 1);
	ck_assert_int_eq(mm.want, 4);

	n = elements(sf, 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	cp_elems[20].byte[2] += 16; /* replica 2 one chunk right: outside the 4 columns */
	mm = expect_fault(sf, n, 1, CP_TMEM_PLACE);
	ck_assert_int_eq(mm.elem, 20);
	ck_assert_int_eq(mm.replica, 2);

	n = elements(sf, 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	cp_elems[21].byte[1] = cp_elems[21].byte[0] + 1; /* replica 1 on another byte of the chunk */
	mm = expect_fault(sf, n, 1, CP_SPLIT);
	ck_assert_int_eq(mm.elem, 21);

	n = elements(sf, 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	for (int k = 0; k < 4; k++)
		cp_elems[5].byte[k] = cp_elems[4].byte[k];
	mm = expect_fault(sf, n, 1, CP_TMEM_TWICE);
	ck_assert_int_eq(mm.elem, 5);
	ck_assert_int_eq(mm.other, 4);

	/* rows 3 and 4 swapped in shared memory: the walk reads row 3 at 48, the operand has it at 64 */
	n = elements(sf, 1, ROWS_SWAPPED_3_4, 8, 0, 0, cp_elems);
	mm = expect_fault(sf, n, 1, CP_SHARED);
	ck_assert_int_eq(mm.elem, 3 * 16);
	ck_assert_int_eq(mm.row, 3);
	ck_assert_int_eq(mm.have, 8 * 64);
	ck_assert_int_eq(mm.want, 8 * 48);

	/* a row-major [128, 32] tile: rows are 32 bytes apart, the walk's rows 0..7 16 */
	const char *wide = "tcgen05.cp.cta_group::1.128x256b";
	n = elements(wide, 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	mm = expect_fault(wide, n, 1, CP_SHARED);
	ck_assert_int_eq(mm.row, 1);
	ck_assert_int_eq(mm.chunk, 0);
	ck_assert_int_eq(mm.have, 8 * 32);
	ck_assert_int_eq(mm.want, 8 * 16);

	n = elements(sf, 1, START_8, 8, 0, 0, cp_elems);
	mm = expect_fault(sf, n, 1, CP_DESC);
	ck_assert_int_eq(mm.field, 0);
	ck_assert_int_eq(mm.have, 8);

	/* fp4 data read as fp6: value 1 of each chunk at bit 4, the b6 walk reads it at bit 6 */
	const char *b6 = "tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32";
	n = elements(b6, 1, ROW_MAJOR, 4, 0, 0, cp_elems);
	mm = expect_fault(b6, n, 1, CP_SHARED);
	ck_assert_int_eq(mm.elem, 1);
	ck_assert_int_eq(mm.have, 4);
	ck_assert_int_eq(mm.want, 6);
	n = elements(b6, 2, ROW_MAJOR, 8, 0, 0, cp_elems);
	expect_fault(b6, n, 2, CP_DECOMP_SIZE);

	/* the 02_13 image checked as 01_23: row 0's replicas at lanes 0 and 64 are rows 0 and 32 there */
	n = elements("tcgen05.cp.cta_group::1.64x128b.warpx2::02_13", 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	mm = expect_fault("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23", n, 1, CP_SPLIT);
	ck_assert_int_eq(mm.elem, 0);
	ck_assert_int_eq(mm.replica, 1);
	ck_assert_int_eq(mm.row, 32);
	pool_free_all();
}
END_TEST

/* A shared-memory window of n pseudo-random bytes from seed (a linear congruential sequence). */
static void
fill_window(uint8_t *window, int n, uint32_t seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		window[i] = (uint8_t)(seed >> 16);
	}
}

/* The emulator's cp (runtime/tilec_cp.h) through the descriptor cp_match derives, for every form: each
   TMEM byte of every replica is the source value of the element the image puts there (decompressed as
   TCGEN05.md 10.4 says, written out here), and no cell outside the footprint changes. */
START_TEST(run_every_form)
{
	enum { WINDOW = 1 << 16, BASE = 4096, NCOLS = 64, COL0 = 8 };
	static uint8_t window[WINDOW];
	static uint32_t cells[TMEM_LANES * NCOLS];
	fill_window(window, WINDOW, 12345u);
	for (int i = 0; i < CP_FORM_COUNT; i++) {
		CpForm f = cp_form_at(i);
		const char *text = cp_form_spelling(&f);
		int vb = f.decomp == CPD_B4X16_P64 ? 4 : f.decomp == CPD_B6X16_P32 ? 6 : 8;
		int n = elements(text, 1, cp_chunks(f.route) > 1 ? CHUNK_MAJOR : ROW_MAJOR, vb, 0, COL0, cp_elems);
		CpPlan plan;
		CpMismatch mm;
		ck_assert_msg(cp_match(&f, cp_elems, n, 1, SW_NONE, &plan, &mm), "%s: fault %d", text, (int)mm.fault);
		plan.desc.start += BASE;
		uint64_t desc;
		ck_assert(smem_desc_encode(&plan.desc, &desc));
		for (int c = 0; c < TMEM_LANES * NCOLS; c++)
			cells[c] = 0xdeadbeefu;
		uint32_t taddr = (uint32_t)plan.lane0 << 16 | (uint32_t)plan.col0;
		ck_assert_msg(cp_run_cells(&f, window, 0, desc, taddr, false, cells, NCOLS), "%s refused", text);
		int changed = 0;
		for (int c = 0; c < TMEM_LANES * NCOLS; c++)
			changed += cells[c] != 0xdeadbeefu;
		ck_assert_int_eq(changed, cp_rows(f.route) * cp_replicas(f.route) * cp_tmem_cols(f.route));
		for (int e = 0; e < n; e++) {
			uint32_t bit = 8 * BASE + cp_elems[e].smem_bit;
			unsigned pair = window[bit / 8] | (unsigned)window[bit / 8 + 1] << 8;
			unsigned value = (pair >> (bit % 8)) & ((1u << vb) - 1);
			unsigned want = vb == 4 ? value << 2 : value;
			for (int k = 0; k < cp_elems[e].nplaces; k++) {
				int lane = cp_elems[e].lane[k], byte = cp_elems[e].byte[k];
				unsigned got = cells[lane * NCOLS + byte / 4] >> (8 * (byte % 4)) & 0xffu;
				ck_assert_msg(got == want, "%s element %d replica %d: lane %d byte %d holds 0x%02x, want 0x%02x", text, e,
				              k, lane, byte, got, want);
			}
		}
	}
	/* a base offset, a footprint past lane 127: refused, nothing written */
	CpForm f = must_parse_cp("tcgen05.cp.cta_group::1.128x128b");
	SmemDesc d = {.start = BASE, .sbo = 128, .swizzle = SW_128B, .base_offset = 1};
	uint64_t desc;
	ck_assert(smem_desc_encode(&d, &desc));
	ck_assert(!cp_run_cells(&f, window, 0, desc, 0, false, cells, NCOLS));
	d.base_offset = 0;
	ck_assert(smem_desc_encode(&d, &desc));
	ck_assert(cp_run_cells(&f, window, 0, desc, 0, false, cells, NCOLS));
	d.swizzle = SW_NONE;
	ck_assert(smem_desc_encode(&d, &desc));
	ck_assert(cp_run_cells(&f, window, 0, desc, 0, false, cells, NCOLS));
	ck_assert(!cp_run_cells(&f, window, 0, desc, 1u << 16, false, cells, NCOLS));
	ck_assert(!cp_run_cells(&f, window, 0, desc, NCOLS - 2, false, cells, NCOLS));
	pool_free_all();
}
END_TEST

/* A cp from a u8 shared tile in each swizzle, both majors, for every route, from the first chunks of an
   atom line and from its last ones: cp_match derives a descriptor of the tile's swizzle, and the emulator's
   walk of it (the swizzle on absolute addresses: the window's first byte at shared address BASE, a
   multiple of every period) puts in each TMEM byte of every replica the tile's byte at smem_tile_addr of
   the element the image puts there. K-major: cp row r is tile row r, its bytes columns; MN-major: cp row r
   is tile column r (k), its bytes 16 consecutive rows (mn). The no-swizzle walk does not read a swizzled
   tile (CP_SHARED). */
START_TEST(run_swizzled_tiles)
{
	enum { WINDOW = 1 << 16, BASE = 8192, NCOLS = 16 };
	static uint8_t window[WINDOW];
	static uint32_t cells[TMEM_LANES * NCOLS];
	fill_window(window, WINDOW, 777u);
	static const SmemSwizzle sws[] = {SW_NONE, SW_32B, SW_64B, SW_128B};
	int runs = 0;
	for (size_t si = 0; si < sizeof sws / sizeof sws[0]; si++)
		for (int major = 0; major < SMEM_MAJOR_COUNT; major++)
			for (int r = 0; r < CP_ROUTE_COUNT; r++)
				for (int last = 0; last < 2; last++) {
					CpForm f = {.route = (CpRoute)r, .decomp = CPD_NONE, .cta_group = 1};
					int width = smem_swizzle_info(sws[si])->width, chunks = cp_chunks(f.route);
					/* without swizzle the line is one chunk: the tile has 2 atoms along the contiguous
					   dimension, 4 chunks, so that both ends exist for 2-chunk routes */
					int line_chunks = width == 16 ? 4 : width / 16;
					SmemTile t = {.major = (SmemMajor)major, .swizzle = sws[si], .elem_bytes = 1};
					t.rows = major == SMEM_K ? 128 : 16 * line_chunks;
					t.cols = major == SMEM_K ? 16 * line_chunks : 128;
					ck_assert_int_eq(smem_tile_check(&t), SMEM_TILE_FITS);
					int j0 = last ? line_chunks - chunks : 0, n = 0;
					for (int row = 0; row < cp_rows(f.route); row++)
						for (int b = 0; b < 16 * chunks; b++) {
							CpElem *e = &cp_elems[n++];
							int contiguous = 16 * j0 + b;
							uint32_t at = major == SMEM_K ? smem_tile_addr(&t, row, contiguous)
							                              : smem_tile_addr(&t, contiguous, row);
							e->smem_bit = 8 * at;
							e->nplaces = cp_replicas(f.route);
							for (int k = 0; k < e->nplaces; k++) {
								e->lane[k] = cp_lane(f.route, row, k);
								e->byte[k] = 16 + b; /* column 4 */
							}
						}
					const char *what = pool_printf("%s %s-major %s from chunk %d", cp_form_spelling(&f),
					                               smem_major_name(t.major), smem_swizzle_info(t.swizzle)->name, j0);
					CpPlan plan;
					CpMismatch mm;
					if (sws[si] != SW_NONE)
						ck_assert_msg(!cp_match(&f, cp_elems, n, 1, SW_NONE, &plan, &mm) && mm.fault == CP_SHARED,
						              "%s: read without swizzle (fault %d)", what, (int)mm.fault);
					ck_assert_msg(cp_match(&f, cp_elems, n, 1, sws[si], &plan, &mm), "%s: fault %d", what,
					              (int)mm.fault);
					ck_assert_int_eq(plan.desc.swizzle, sws[si]);
					uint64_t desc;
					ck_assert(smem_desc_encode(&plan.desc, &desc));
					for (int c = 0; c < TMEM_LANES * NCOLS; c++)
						cells[c] = 0xdeadbeefu;
					uint32_t taddr = (uint32_t)plan.lane0 << 16 | (uint32_t)plan.col0;
					ck_assert_msg(cp_run_cells(&f, window + BASE, BASE, desc, taddr, false, cells, NCOLS),
					              "%s refused", what);
					for (int e = 0; e < n; e++)
						for (int k = 0; k < cp_elems[e].nplaces; k++) {
							int lane = cp_elems[e].lane[k], byte = cp_elems[e].byte[k];
							unsigned got = cells[lane * NCOLS + byte / 4] >> (8 * (byte % 4)) & 0xffu;
							unsigned want = window[BASE + cp_elems[e].smem_bit / 8];
							ck_assert_msg(got == want, "%s element %d replica %d: 0x%02x, want 0x%02x", what, e, k,
							              got, want);
						}
					runs++;
				}
	ck_assert_int_eq(runs, 4 * 2 * CP_ROUTE_COUNT * 2);
	pool_free_all();
}
END_TEST

/* Each route's own elements choose that route, with its multicast; a footprint no form has, none. */
START_TEST(choose_route)
{
	for (int r = 0; r < CP_ROUTE_COUNT; r++) {
		CpForm want = {.route = (CpRoute)r, .decomp = CPD_NONE, .cta_group = 1}, got;
		const char *text = cp_form_spelling(&want);
		int n = elements(text, 1, cp_chunks(want.route) > 1 ? CHUNK_MAJOR : ROW_MAJOR, 8, 0, 4, cp_elems);
		CpPlan plan;
		ck_assert_msg(cp_choose(cp_elems, n, 1, SW_NONE, CPD_NONE, 1, &got, &plan), "%s: no form chosen", text);
		ck_assert_msg(got.route == want.route, "%s: chose %s", text, cp_form_spelling(&got));
		ck_assert_int_eq(plan.col0, 4);
	}
	int n = elements("tcgen05.cp.cta_group::1.32x128b.warpx4", 1, ROW_MAJOR, 8, 0, 0, cp_elems);
	for (int e = 0; e < n; e++)
		cp_elems[e].nplaces = 3; /* three replicas: no route has them */
	CpForm got;
	CpPlan plan;
	ck_assert(!cp_choose(cp_elems, n, 1, SW_NONE, CPD_NONE, 1, &got, &plan));
	pool_free_all();
}
END_TEST

#define ADD_CASE(suite, test)                     \
	do {                                          \
		TCase *tc = tcase_create(#test);          \
		tcase_set_timeout(tc, 60);                \
		tcase_add_test(tc, test);                 \
		suite_add_tcase(suite, tc);               \
	} while (0)

static Suite *
cp_suite(void)
{
	Suite *s = suite_create("cp");
	ADD_CASE(s, golden_cp_images);
	ADD_CASE(s, forms_round_trip);
	ADD_CASE(s, image_cells_distinct);
	ADD_CASE(s, parse_refusals);
	ADD_CASE(s, decompress_chunks);
	ADD_CASE(s, print_format);
	ADD_CASE(s, match_fits);
	ADD_CASE(s, match_faults);
	ADD_CASE(s, run_every_form);
	ADD_CASE(s, run_swizzled_tiles);
	ADD_CASE(s, choose_route);
	return s;
}

UNIT_MAIN(cp_suite)
