/* tests/unit/test_ctypes.c: struct layout of parser/types/cdecl.c against the C
 * compiler's own.
 *
 * Each case is a definition written twice: as C (compiled into this test)
 * and as text for sp_cdecl_parse(). Sizes and member offsets must equal
 * sizeof/offsetof; bitfields are checked by storing a value into the real
 * struct and extracting it from the raw bytes with the parser's bit_off and
 * bit_size, the way codegen and the runtime read them.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/types/ctypes.h"
#include "parser/base/diag.h"
#include "tests/unit/check.h"

#define DEF(name, ...) \
	struct name __VA_ARGS__; \
	static const char name##_text[] = "struct " #name " " #__VA_ARGS__ ";"

DEF(s_basic, { char c; int i; short s; long l; char name[5]; unsigned char u; });
DEF(s_nested, { char c; struct s_basic b; int arr[3]; double d; });
DEF(s_bits, { unsigned a : 3, b : 5; int neg : 4; unsigned long big : 40; char c; unsigned d : 7; });
DEF(s_anon, { int a; union { int x; long y; }; struct { char p; short q; } in; });
DEF(s_ptr, { char c; struct s_ptr *next; void *v; int (*fn)(int); });
struct s_packed { char c; int x; short s; } __attribute__((packed));
static const char s_packed_text[] = "struct s_packed { char c; int x; short s; } __attribute__((packed));";
union u_mixed { char c[3]; int i; long l; };
static const char u_mixed_text[] = "union u_mixed { char c[3]; int i; long l; };";

static struct sp_record *parse(struct sp_ctypes *ct, struct sp_diag *d, const char *text,
			       const char *name, bool is_union)
{
	int errs = sp_cdecl_parse(ct, d, text, (uint32_t)strlen(text), 0);

	CHECK(errs == 0, "%s: %d parse errors", name, errs);
	return sp_ctypes_record(ct, name, is_union);
}

static void check_off(struct sp_ctypes *ct, struct sp_record *r, const char *field, size_t want)
{
	uint32_t off = UINT32_MAX;

	CHECK(sp_record_field(ct, r, field, &off) && off == want, "%s.%s at %u, want %zu", r->name,
	      field, off, want);
}

/* The value of bitfield `field` read from the bytes of an object of r. */
static uint64_t read_bits(struct sp_ctypes *ct, struct sp_record *r, const char *field,
			  const void *obj)
{
	uint32_t off = 0;
	const struct sp_cfield *f = sp_record_field(ct, r, field, &off);
	uint64_t v = 0;

	if (!f || !f->bit_size)
		return UINT64_MAX;
	memcpy(&v, (const char *)obj + off, (f->bit_off + f->bit_size + 7) / 8);
	v >>= f->bit_off;
	return f->bit_size >= 64 ? v : v & ((1ull << f->bit_size) - 1);
}

static void test_plain(struct sp_ctypes *ct, struct sp_diag *d)
{
	struct sp_record *b = parse(ct, d, s_basic_text, "s_basic", false);
	struct sp_record *n = parse(ct, d, s_nested_text, "s_nested", false);
	struct sp_record *p = parse(ct, d, s_ptr_text, "s_ptr", false);

	CHECK(b->size == sizeof(struct s_basic), "s_basic size %u", b->size);
	check_off(ct, b, "i", offsetof(struct s_basic, i));
	check_off(ct, b, "s", offsetof(struct s_basic, s));
	check_off(ct, b, "l", offsetof(struct s_basic, l));
	check_off(ct, b, "name", offsetof(struct s_basic, name));
	check_off(ct, b, "u", offsetof(struct s_basic, u));
	CHECK(n->size == sizeof(struct s_nested), "s_nested size %u", n->size);
	check_off(ct, n, "b", offsetof(struct s_nested, b));
	check_off(ct, n, "arr", offsetof(struct s_nested, arr));
	check_off(ct, n, "d", offsetof(struct s_nested, d));
	CHECK(p->size == sizeof(struct s_ptr), "s_ptr size %u", p->size);
	check_off(ct, p, "next", offsetof(struct s_ptr, next));
	check_off(ct, p, "fn", offsetof(struct s_ptr, fn));
}

static void test_bits(struct sp_ctypes *ct, struct sp_diag *d)
{
	struct sp_record *r = parse(ct, d, s_bits_text, "s_bits", false);
	struct s_bits v;

	memset(&v, 0, sizeof(v));
	v.a = 5;
	v.b = 19;
	v.neg = -3;
	v.big = 0x9876543210ull;
	v.c = 'x';
	v.d = 99;
	CHECK(r->size == sizeof(v), "s_bits size %u, want %zu", r->size, sizeof(v));
	CHECK(read_bits(ct, r, "a", &v) == 5, "a");
	CHECK(read_bits(ct, r, "b", &v) == 19, "b");
	CHECK(read_bits(ct, r, "neg", &v) == 13, "neg (4 bits of -3)");
	CHECK(read_bits(ct, r, "big", &v) == 0x9876543210ull, "big");
	CHECK(read_bits(ct, r, "d", &v) == 99, "d");
	check_off(ct, r, "c", offsetof(struct s_bits, c));
}

static void test_layouts(struct sp_ctypes *ct, struct sp_diag *d)
{
	struct sp_record *a = parse(ct, d, s_anon_text, "s_anon", false);
	struct sp_record *p = parse(ct, d, s_packed_text, "s_packed", false);
	struct sp_record *u = parse(ct, d, u_mixed_text, "u_mixed", true);

	CHECK(a->size == sizeof(struct s_anon), "s_anon size %u", a->size);
	check_off(ct, a, "x", offsetof(struct s_anon, x));
	check_off(ct, a, "y", offsetof(struct s_anon, y));
	check_off(ct, a, "in", offsetof(struct s_anon, in));
	CHECK(p->size == sizeof(struct s_packed), "s_packed size %u", p->size);
	check_off(ct, p, "x", offsetof(struct s_packed, x));
	check_off(ct, p, "s", offsetof(struct s_packed, s));
	CHECK(u->size == sizeof(union u_mixed), "u_mixed size %u", u->size);
	check_off(ct, u, "l", 0);
}

int main(void)
{
	struct sp_arena *a = sp_arena_new();
	struct sp_ctypes *ct = sp_ctypes_new(a);
	struct sp_diag d;

	sp_diag_init(&d, NULL, stderr);
	ct->no_btf = true;
	test_plain(ct, &d);
	test_bits(ct, &d);
	test_layouts(ct, &d);
	sp_arena_destroy(a);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
