/* parser/intlit.c: integer literals (see intlit.h for the forms).
 *
 * bpftrace 0.27 reads a literal in two steps: its parser takes digits,
 * '_', an exponent and a suffix (src/parser.cpp, consume_integer_str), and
 * util/int_parser.cpp converts, multiplies durations and checks the range
 * a suffix allows. Both steps are here, so a bad literal gets one message
 * with the caret under the part that is wrong. sprof is laxer in one
 * place: any coefficient may take an exponent (10e3), not only 1..9.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parser/intlit.h"

static const struct suffix {
	const char *name;
	uint64_t max;       /* largest value before multiplying */
	uint64_t mult;      /* nanoseconds per unit for durations, else 1 */
	bool duration;
} suffixes[] = {
	{ "", UINT64_MAX, 1, false },
	{ "u", UINT32_MAX, 1, false },
	{ "ul", UINT64_MAX, 1, false },
	{ "ull", UINT64_MAX, 1, false },
	{ "l", INT64_MAX, 1, false },
	{ "ll", INT64_MAX, 1, false },
	{ "ns", UINT64_MAX, 1, true },
	{ "us", UINT64_MAX / 1000ull, 1000ull, true },
	{ "ms", UINT64_MAX / 1000000ull, 1000000ull, true },
	{ "s", UINT64_MAX / 1000000000ull, 1000000000ull, true },
	{ "m", UINT64_MAX / 60000000000ull, 60000000000ull, true },
	{ "h", UINT64_MAX / 3600000000000ull, 3600000000000ull, true },
	{ "d", UINT64_MAX / 86400000000000ull, 86400000000000ull, true },
};

/* Set the error message, about s[off..off+len). */
__attribute__((format(printf, 4, 5)))
static bool fail(struct sp_intlit *lit, uint32_t off, uint32_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lit->msg, sizeof(lit->msg), fmt, ap);
	va_end(ap);
	lit->err_off = off;
	lit->err_len = len ? len : 1;
	return false;
}

static unsigned digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (unsigned)((c | 0x20) - 'a' + 10);
	return 99;
}

/* Digits of `base` and '_' from s[*i]; false on overflow. */
static bool read_digits(const char *s, uint32_t len, uint32_t *i, unsigned base, uint64_t *v)
{
	for (; *i < len && (s[*i] == '_' || digit_value(s[*i]) < base); (*i)++) {
		if (s[*i] == '_')
			continue;
		if (*v > (UINT64_MAX - digit_value(s[*i])) / base)
			return false;
		*v = *v * base + digit_value(s[*i]);
	}
	return true;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The suffix s[i..len), checked against what the value allows. */
static bool apply_suffix(const char *s, uint32_t len, uint32_t i, struct sp_intlit *lit)
{
	size_t k;

	for (k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++) {
		const struct suffix *sf = &suffixes[k];

		if (strlen(sf->name) != len - i || strncmp(s + i, sf->name, len - i))
			continue;
		if (lit->value > sf->max && sf->duration)
			return fail(lit, 0, len, "duration '%.*s' does not fit in 64 bits of "
				    "nanoseconds", (int)len, s);
		if (lit->value > sf->max)
			return fail(lit, 0, len, "integer '%.*s' is above %llu, the largest '%s' "
				    "value", (int)len, s, (unsigned long long)sf->max, sf->name);
		lit->value *= sf->mult;
		lit->duration = sf->duration;
		return true;
	}
	lit->note = len - i > 1 && s[0] == '0' && s[i] == 'b' && i == 1
		    ? "there are no binary literals: write hex, 0x..."
		    : "suffixes are u ul ull l ll, or a duration: ns us ms s m h d";
	return fail(lit, i, len - i, "invalid suffix '%.*s' on integer '%.*s'",
		    (int)(len - i), s + i, (int)len, s);
}

bool sp_intlit_read(const char *s, uint32_t len, struct sp_intlit *lit)
{
	unsigned base = 10;
	uint32_t i = 0, start;

	memset(lit, 0, sizeof(*lit));
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, i = 2;
	else if (len >= 2 && s[0] == '0' && (is_digit(s[1]) || s[1] == '_'))
		base = 8, i = 1;
	start = i;
	if (!read_digits(s, len, &i, base, &lit->value))
		return fail(lit, 0, len, "integer '%.*s' does not fit in 64 bits", (int)len, s);
	if (i == start && base == 16)
		return fail(lit, 0, len, "no digits in hex integer '%.*s'", (int)len, s);
	if (i == start)
		return fail(lit, 0, len, "'%.*s' is not a number", (int)len, s);
	if (i < len && is_digit(s[i]))
		return fail(lit, i, 1, "invalid digit '%c' in octal integer '%.*s'", s[i],
			    (int)len, s);
	if (s[i - 1] == '_')
		return fail(lit, i - 1, 1, "trailing '_' in integer '%.*s'", (int)len, s);
	if (base != 16 && i + 1 < len && (s[i] == 'e' || s[i] == 'E') && is_digit(s[i + 1])) {
		uint64_t e = 0;

		i++;
		if (!read_digits(s, len, &i, 10, &e) || s[i - 1] == '_')
			return fail(lit, 0, len, "invalid exponent in integer '%.*s'", (int)len, s);
		for (; e > 0 && lit->value; e--) {
			if (lit->value > UINT64_MAX / 10)
				return fail(lit, 0, len, "integer '%.*s' does not fit in 64 bits",
					    (int)len, s);
			lit->value *= 10;
		}
	}
	if (base == 16 && i < len)
		return fail(lit, i, len - i, "invalid suffix '%.*s' on hex integer '%.*s': hex "
			    "integers take none", (int)(len - i), s + i, (int)len, s);
	return apply_suffix(s, len, i, lit);
}
