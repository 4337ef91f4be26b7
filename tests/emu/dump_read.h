/* dump_read.h: reading what `tilec run --dump DIR` wrote, for the *_dump_check.c programs that include it
 * (define DUMP_TEST, the name their PASS and FAIL lines give, first): a file's bytes, a scalar's bits, a bf16's
 * value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *
load(const char *dir, const char *file, size_t bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "rb");
	void *p = malloc(bytes ? bytes : 1);
	if (!f || !p || fread(p, 1, bytes, f) != bytes) {
		printf("FAIL " DUMP_TEST ": cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

/* The value of scalar NAME in DIR/manifest ("scalar INDEX NAME TYPE BYTES 0xBITS"). */
static __attribute__((unused)) long
scalar(const char *dir, const char *name)
{
	char path[4096], line[512], word[64];
	snprintf(path, sizeof path, "%s/manifest", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("FAIL " DUMP_TEST ": cannot read %s\n", path);
		exit(1);
	}
	while (fgets(line, sizeof line, f)) {
		unsigned index, bytes, bits;
		char type[16];
		if (sscanf(line, "scalar %u %63s %15s %u %x", &index, word, type, &bytes, &bits) == 5 &&
		    strcmp(word, name) == 0) {
			fclose(f);
			return (long)(int32_t)bits;
		}
	}
	printf("FAIL " DUMP_TEST ": no scalar %s in %s\n", name, path);
	exit(1);
}

/* bf16 is the upper half of an f32 */
static __attribute__((unused)) float
bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}
