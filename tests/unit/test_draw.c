/* test_draw.c: the pictures of tilec --draw for opcodes: every legal opcode is drawn, once per cell
 * of its image, the same twice; the lane palette stays apart in grey and readable under black text. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"
#include "unit.h"

/* The next NEEDLE in HAY, or NULL. Not strstr: under ASan each strstr call measures the whole rest
 * of the string, which made a scan of a large SVG quadratic (80 s of asan/unit/test_draw's 81). */
static const char *
find(const char *hay, const char *needle)
{
	size_t len = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (*p == *needle && strncmp(p, needle, len) == 0)
			return p;
	return NULL;
}

static int
count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = find(hay, needle); p; p = find(p + 1, needle))
		n++;
	return n;
}

/* The cells labelled with a lane: "<text x=".." y="..">lN</text>". */
static int
lane_labels(const char *svg)
{
	int n = 0;
	for (const char *p = find(svg, "\">l"); p; p = find(p + 1, "\">l")) {
		const char *q = p + 3;
		if (*q < '0' || *q > '9')
			continue;
		while (*q >= '0' && *q <= '9')
			q++;
		n += strncmp(q, "</text>", 7) == 0;
	}
	return n;
}

static char *
draw(const char *what, int *rc)
{
	Buf b = {0};
	*rc = draw_command(what, NULL, NULL, &b);
	buf_putc(&b, 0);
	return b.data;
}

START_TEST(every_opcode)
{
	static const char *const shapes[] = {"32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2"};
	int drawn = 0;
	for (int s = 0; s < 5; s++) {
		for (int n = 1; n <= 128; n *= 2) {
			for (int v = 0; v < 4; v++) {
				bool ld = v & 1, pack = v & 2;
				char text[96];
				snprintf(text, sizeof text, "tcgen05.%s.sync.aligned.%s.x%d%s.b32", ld ? "ld" : "st", shapes[s], n,
				         pack ? (ld ? ".pack::16b" : ".unpack::16b") : "");
				Opcode op;
				if (!opcode_parse(text, &op, NULL, 0))
					continue;
				int rc;
				char *svg = draw(text, &rc);
				ck_assert_int_eq(rc, 0);
				ck_assert_msg(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0, "%s: no SVG", text);
				ck_assert_msg(strcmp(svg + strlen(svg) - 7, "</svg>\n") == 0, "%s: not closed", text);
				ck_assert_int_eq(lane_labels(svg), 32 * opcode_regs(&op) * (pack ? 2 : 1));
				ck_assert_int_eq(count(svg, "<text"), count(svg, "</text>"));
				ck_assert_int_eq(count(svg, "<g"), count(svg, "</g>"));
				ck_assert_msg(strstr(svg, "<script") == NULL && strstr(svg, "href") == NULL, "%s: not self-contained", text);
				char title[128];
				snprintf(title, sizeof title, "<title>%s</title>", text);
				ck_assert_msg(strstr(svg, title) != NULL, "%s: no title", text);
				char *again = draw(text, &rc);
				ck_assert_msg(strcmp(svg, again) == 0, "%s: not deterministic", text);
				free(svg);
				free(again);
				drawn++;
			}
		}
	}
	ck_assert_int_eq(drawn, 2 * 2 * (8 + 8 + 7 + 6 + 8));
}
END_TEST

START_TEST(bad_opcode)
{
	int rc;
	/* its message goes to stderr: not to the test's output */
	fflush(stderr);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	char *svg = draw("tcgen05.ld.sync.aligned.16x64b.x3.b32", &rc);
	dup2(saved, 2);
	close(null);
	close(saved);
	ck_assert_int_eq(rc, 2);
	ck_assert_str_eq(svg ? svg : "", "");
	free(svg);
}
END_TEST

/* CIELAB lightness of an sRGB colour "#rrggbb", and its relative luminance. */
static double
channel(const char *hex)
{
	char two[3] = {hex[0], hex[1], 0};
	double c = strtol(two, NULL, 16) / 255.0;
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double
luminance(const char *hex)
{
	return 0.2126 * channel(hex) + 0.7152 * channel(hex + 2) + 0.0722 * channel(hex + 4);
}

static double
lightness(double y)
{
	return y > 0.008856 ? 116 * cbrt(y) - 16 : 903.3 * y;
}

START_TEST(palette)
{
	int rc;
	char *svg = draw("tcgen05.ld.sync.aligned.32x32b.x1.b32", &rc);
	ck_assert_int_eq(rc, 0);
	char colour[32][8];
	for (int lane = 0; lane < 32; lane++) {
		char key[16];
		snprintf(key, sizeof key, ".c%d{fill:#", lane);
		const char *p = strstr(svg, key);
		ck_assert_msg(p != NULL, "no colour for lane %d", lane);
		memcpy(colour[lane], p + strlen(key), 6);
		colour[lane][6] = 0;
		for (int other = 0; other < lane; other++)
			ck_assert_msg(strcmp(colour[lane], colour[other]) != 0, "lanes %d and %d share a colour", other, lane);
		double y = luminance(colour[lane]);
		/* black text on it: at least the 4.5:1 contrast of WCAG AA */
		ck_assert_msg((y + 0.05) / 0.05 >= 4.5, "lane %d: contrast %.2f", lane, (y + 0.05) / 0.05);
		/* in grey, each lane differs from the one before it (within a group of four) */
		if (lane % 4)
			ck_assert_msg(fabs(lightness(y) - lightness(luminance(colour[lane - 1]))) >= 8,
			              "lanes %d and %d have about the same lightness", lane - 1, lane);
	}
	free(svg);
}
END_TEST

static Suite *
draw_suite(void)
{
	Suite *s = suite_create("draw");
	struct {
		const char *name;
		const TTest *test;
	} tests[] = {
		{"draw_every_opcode", every_opcode},
		{"draw_bad_opcode", bad_opcode},
		{"draw_palette", palette},
	};
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
		TCase *tc = tcase_create(tests[i].name);
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, tests[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

UNIT_MAIN(draw_suite)
