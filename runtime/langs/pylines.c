/* runtime/langs/pylines.c: CPython 3.10 and 3.11+ line tables (see pylines.h). */
#include <stdbool.h>

#include "runtime/langs/pylines.h"

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint32_t next_byte(struct cursor *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

/* 6-bit chunks, least significant first, bit 6 = more. */
static uint32_t varint(struct cursor *c)
{
	uint32_t b = next_byte(c), v = b & 63;

	for (int shift = 6; (b & 64) && !c->bad && shift < 32; shift += 6) {
		b = next_byte(c);
		v |= (b & 63) << shift;
	}
	return v;
}

static int32_t svarint(struct cursor *c)
{
	uint32_t u = varint(c);

	return u & 1 ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* 3.11+ (Objects/locations.md): an entry byte has bit 7 set, the code in
 * bits 3-6 and length - 1 (code units) in bits 0-2. */
static int line_311(const uint8_t *tab, size_t len, int firstlineno, uint32_t unit)
{
	struct cursor c = { tab, tab + len, false };
	int line = firstlineno;
	uint32_t addr = 0;

	while (c.p < c.end && !c.bad) {
		uint32_t b = next_byte(&c), code = (b >> 3) & 15, n = (b & 7) + 1;
		bool none = false;

		if (!(b & 0x80))
			return 0; /* not at an entry start: corrupt */
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			line += svarint(&c);
			varint(&c), varint(&c), varint(&c);
		} else if (code == 13) {
			line += svarint(&c);
		} else if (code >= 10) {
			line += (int)code - 10;
			next_byte(&c), next_byte(&c);
		} else {
			next_byte(&c);
		}
		if (c.bad)
			return 0;
		if (unit >= addr && unit < addr + n)
			return none || line < 0 ? 0 : line;
		addr += n;
	}
	return 0;
}

/* 3.10 (Objects/lnotab_notes.txt): (bytes delta u8, line delta s8) pairs;
 * -128 means no line; a pair with bytes delta 0 only moves the line. */
static int line_310(const uint8_t *tab, size_t len, int firstlineno, uint32_t unit)
{
	uint32_t start = 0, end = 0, off = unit * 2;
	int line = firstlineno;

	for (size_t i = 0; i + 1 < len; i += 2) {
		int ldelta = (int8_t)tab[i + 1];
		bool none = ldelta == -128;

		start = end;
		end += tab[i];
		if (!none)
			line += ldelta;
		if (start < end && off >= start && off < end)
			return none || line < 0 ? 0 : line;
	}
	return 0;
}

/* 3.8, 3.9 co_lnotab (PyCode_Addr2Line): (bytes delta u8, line delta s8)
 * pairs; the line is the one in force at the last start at or below. */
static int line_lnotab(const uint8_t *tab, size_t len, int firstlineno, uint32_t unit)
{
	uint32_t addr = 0, off = unit * 2;
	int line = firstlineno;

	for (size_t i = 0; i + 1 < len; i += 2) {
		addr += tab[i];
		if (addr > off)
			break;
		line += (int8_t)tab[i + 1];
	}
	return line > 0 ? line : 0;
}

int sp_py_line(int minor, const uint8_t *tab, size_t len, int firstlineno, uint32_t unit)
{
	if (minor <= 9)
		return line_lnotab(tab, len, firstlineno, unit);
	if (!tab || len == 0)
		return 0;
	return minor >= 11 ? line_311(tab, len, firstlineno, unit)
			   : line_310(tab, len, firstlineno, unit);
}
