/* runtime/cvalue.c: C values (struct/union records, arrays, pointers) as
 * text, the way bpftrace prints them:
 *
 *   { .a = 1, .name = hello, .in = { .x = -5, .y = 200 }, .arr = [1,2,3] }
 *   [1,2,3]
 *   0x7ffd1c2a3b40
 *
 * Reports and printf take the text as a string (like timestamps and
 * addresses from ntop), so no report needs to know about C types. Layouts
 * come from the plan (codegen's cg_cfields); bitfields are read from the
 * word at their offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvalue.h"

static uint64_t load(const uint8_t *d, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, d, size < 8 ? size : 8); /* little-endian */
	return v;
}

static void int_text(FILE *f, const struct sp_plan_field *fl, const uint8_t *d)
{
	uint64_t v = load(d, fl->size);
	uint32_t bits = fl->bit_size ? fl->bit_size : fl->size * 8;

	if (fl->bit_size)
		v >>= fl->bit_off;
	if (bits < 64)
		v &= (1ull << bits) - 1;
	if (fl->is_signed && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;
	if (fl->is_signed)
		fprintf(f, "%lld", (long long)v);
	else
		fprintf(f, "%llu", (unsigned long long)v);
}

static void value_text(FILE *f, const struct sp_plan_field *fl, const uint8_t *base)
{
	const uint8_t *d = base + fl->offset;

	switch (fl->kind) {
	case SP_F_PTR:
		fprintf(f, "0x%llx", (unsigned long long)load(d, 8));
		return;
	case SP_F_STR:
		fprintf(f, "%.*s", (int)strnlen((const char *)d, fl->size), (const char *)d);
		return;
	case SP_F_RECORD:
		fputs("{ ", f);
		for (int i = 0; i < fl->nelems; i++) {
			fprintf(f, "%s.%s = ", i ? ", " : "", fl->elems[i].member ? fl->elems[i].member : "");
			value_text(f, &fl->elems[i], base);
		}
		fputs(fl->nelems ? " }" : "}", f);
		return;
	case SP_F_ARRAY:
		fputc('[', f);
		for (int i = 0; i < fl->nelems; i++) {
			if (i)
				fputc(',', f);
			value_text(f, &fl->elems[i], base);
		}
		fputc(']', f);
		return;
	default:
		int_text(f, fl, d);
	}
}

char *sp_cvalue_text(const struct sp_plan_field *f, const void *base)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	value_text(m, f, base);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}
