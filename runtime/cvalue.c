/* runtime/cvalue.c: C values (struct/union records, arrays, pointers) as
 * text, the way bpftrace prints them:
 *
 *   { .a = 1, .name = hello, .in = { .x = -5, .y = 200 }, .arr = [1,2,3] }
 *   [1,2,3]
 *   0x7ffd1c2a3b40       (a pointer, as bpftrace 0.27; 140725073197888 in JSON.
 *                        0.17 printed values in decimal, keys in hex)
 *
 * Map keys are spelled as bpftrace spells them: {.x=-5,.y=200}. Records
 * ((a=1, b="x"), plan fmt "record") print the same in keys and values, and
 * their tuples as (1, x) ([1,"x"] in JSON).
 * Reports and printf take the text as a string (like timestamps and
 * addresses from ntop), so no report needs to know about C types; -f json
 * takes the JSON spelling ({ "a": 1, "name": "hello", "arr": [1,2,3] }). Layouts
 * come from the plan (codegen's cg_cfields); bitfields are read from the
 * word at their offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cvalue.h"
#include "runtime/format_text.h"

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

static void json_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

enum spelling { TEXT, JSON, KEY };

static void value_text(FILE *f, const struct sp_plan_field *fl, const uint8_t *base,
		       enum spelling how)
{
	bool json = how == JSON, tight;
	const uint8_t *d = base + fl->offset;
	const char *m;

	switch (fl->kind) {
	case SP_F_PTR:
		fprintf(f, json ? "%llu" : "0x%llx", (unsigned long long)load(d, 8));
		return;
	case SP_F_STR:
		if (json)
			json_str(f, (const char *)d, strnlen((const char *)d, fl->size));
		else
			fprintf(f, "%.*s", (int)strnlen((const char *)d, fl->size), (const char *)d);
		return;
	case SP_F_RECORD:
		if (how == KEY && !(fl->fmt && strcmp(fl->fmt, "record") == 0)) {
			/* bpftrace's compact key spelling of a C struct: {.x=1,.y=2} */
			fputc('{', f);
			for (int i = 0; i < fl->nelems; i++) {
				m = fl->elems[i].member ? fl->elems[i].member : "";
				fprintf(f, "%s.%s=", i ? "," : "", m);
				value_text(f, &fl->elems[i], base, how);
			}
			fputc('}', f);
			return;
		}
		tight = json && fl->fmt && strcmp(fl->fmt, "record") == 0; /* 0.27: {"a": 1} */
		fputs(tight ? "{" : "{ ", f);
		for (int i = 0; i < fl->nelems; i++) {
			m = fl->elems[i].member ? fl->elems[i].member : "";
			fprintf(f, json ? "%s\"%s\": " : "%s.%s = ", i ? ", " : "", m);
			value_text(f, &fl->elems[i], base, how);
		}
		fputs(fl->nelems && !tight ? " }" : "}", f);
		return;
	case SP_F_TUPLE: /* in a record (a=1, b=(2, "x")): (2, x), JSON [2,"x"] */
		fputc(json ? '[' : '(', f);
		for (int i = 0; i < fl->nelems; i++) {
			if (i)
				fputs(json ? "," : ", ", f);
			value_text(f, &fl->elems[i], base, how);
		}
		fputc(json ? ']' : ')', f);
		return;
	case SP_F_TEXT: /* a bool or an enum value in an array ((bool[2])x): by name */
		if (fl->fmt && (!strcmp(fl->fmt, "bool") || (!json && !strncmp(fl->fmt, "enum ", 5)))) {
			char *text = sp_format_text(fl->fmt, load(d, fl->size));

			fputs(text ? text : "", f);
			free(text);
			return;
		}
		int_text(f, fl, d);
		return;
	case SP_F_ARRAY:
		fputc('[', f);
		for (int i = 0; i < fl->nelems; i++) {
			if (i)
				fputc(',', f);
			value_text(f, &fl->elems[i], base, how);
		}
		fputc(']', f);
		return;
	default:
		int_text(f, fl, d);
	}
}

static char *spell(const struct sp_plan_field *f, const void *base, enum spelling how)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	value_text(m, f, base, how);
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

char *sp_cvalue_text(const struct sp_plan_field *f, const void *base, bool json)
{
	return spell(f, base, json ? JSON : TEXT);
}

char *sp_cvalue_key_text(const struct sp_plan_field *f, const void *base)
{
	return spell(f, base, KEY);
}
