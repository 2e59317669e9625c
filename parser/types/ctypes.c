/* parser/types/ctypes.c: the registry of C records and constants, C integer type
 * names, and record layout. See ctypes.h for the rules; BTF import lives in
 * ctypes_btf.c, field lookup (which completes a record from BTF first) in
 * ctypes_fields.c and the definition parser in cdecl.c.
 */
#include <stdio.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/types/ctypes.h"

struct sp_ctypes *sp_ctypes_new(struct sp_arena *a)
{
	struct sp_ctypes *ct = sp_arena_alloc(a, sizeof(*ct));

	ct->a = a;
	return ct;
}

const char *sp_record_kind(const struct sp_record *r)
{
	return r->is_union ? "union" : "struct";
}

struct sp_record *sp_ctypes_record(struct sp_ctypes *ct, const char *name, bool is_union)
{
	struct sp_record *r;

	for (r = ct->records; r; r = r->next)
		if (r->is_union == is_union && !strcmp(r->name, name))
			return r;
	r = sp_arena_alloc(ct->a, sizeof(*r));
	r->name = sp_arena_strdup(ct->a, name);
	r->is_union = is_union;
	r->align = 1;
	r->next = ct->records;
	ct->records = r;
	return r;
}

struct sp_cconst *sp_ctypes_const(struct sp_ctypes *ct, const char *name)
{
	struct sp_cconst *c;

	for (c = ct ? ct->consts : NULL; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void sp_ctypes_define(struct sp_ctypes *ct, const char *name, int64_t v, const char *str,
		      uint32_t len)
{
	struct sp_cconst *c = sp_ctypes_const(ct, name);

	if (!c) {
		c = sp_arena_alloc(ct->a, sizeof(*c));
		c->name = sp_arena_strdup(ct->a, name);
		c->next = ct->consts;
		ct->consts = c;
	}
	c->value = v;
	c->str = str;
	c->len = len;
	c->enum_fmt = NULL;
}

/* A named enum sits in the constants as "enum NAME", which no identifier
 * can spell. */
void sp_ctypes_define_enum(struct sp_ctypes *ct, const char *name, const char *fmt)
{
	char key[160];
	struct sp_cconst *c;

	snprintf(key, sizeof(key), "enum %s", name);
	sp_ctypes_define(ct, key, 0, NULL, 0);
	c = sp_ctypes_const(ct, key);
	c->enum_fmt = fmt;
}

const char *sp_ctypes_enum(struct sp_ctypes *ct, const char *name)
{
	char key[160];
	struct sp_cconst *c;

	snprintf(key, sizeof(key), "enum %s", name);
	c = sp_ctypes_const(ct, key);
	return c ? c->enum_fmt : NULL;
}

void sp_ctypes_undef(struct sp_ctypes *ct, const char *name)
{
	struct sp_cconst **p;

	for (p = &ct->consts; *p; p = &(*p)->next)
		if (!strcmp((*p)->name, name)) {
			*p = (*p)->next;
			return;
		}
}

/* --- integer type names ------------------------------------------------------ */

static const struct {
	const char *name;
	uint8_t size;
	bool is_signed;
} int_names[] = {
	{ "char", 1, true }, { "signed char", 1, true }, { "unsigned char", 1, false },
	{ "short", 2, true }, { "short int", 2, true }, { "signed short", 2, true },
	{ "unsigned short", 2, false }, { "unsigned short int", 2, false },
	{ "int", 4, true }, { "signed", 4, true }, { "signed int", 4, true },
	{ "unsigned", 4, false }, { "unsigned int", 4, false },
	{ "long", 8, true }, { "long int", 8, true }, { "signed long", 8, true },
	{ "unsigned long", 8, false }, { "unsigned long int", 8, false },
	{ "long long", 8, true }, { "long long int", 8, true }, { "signed long long", 8, true },
	{ "unsigned long long", 8, false }, { "unsigned long long int", 8, false },
	{ "bool", 1, false }, { "_Bool", 1, false },
	{ "size_t", 8, false }, { "ssize_t", 8, true }, { "uintptr_t", 8, false },
	{ "intptr_t", 8, true }, { "pid_t", 4, true }, { "uid_t", 4, false },
	{ "gid_t", 4, false }, { "off_t", 8, true }, { "loff_t", 8, true },
	/* floating point: laid out right, read as raw unsigned bits */
	{ "float", 4, false }, { "double", 8, false },
};

/* int8_t, uint16_t, u32, s64, __u8, __s16, int32, uint64 */
static struct sp_type *fixed_name(struct sp_arena *a, const char *n)
{
	bool is_signed;
	const char *d;
	int bits;

	if (!strncmp(n, "__", 2))
		n += 2;
	if (!strncmp(n, "uint", 4) || (n[0] == 'u' && n[1] >= '0' && n[1] <= '9')) {
		is_signed = false;
		d = n[1] == 'i' ? n + 4 : n + 1;
	} else if (!strncmp(n, "int", 3) || (n[0] == 's' && n[1] >= '0' && n[1] <= '9')) {
		is_signed = true;
		d = n[0] == 'i' ? n + 3 : n + 1;
	} else {
		return NULL;
	}
	bits = (d[0] - '0') * (d[1] >= '0' && d[1] <= '9' ? 10 : 1) +
	       (d[1] >= '0' && d[1] <= '9' ? d[1] - '0' : 0);
	d += bits >= 10 ? 2 : 1;
	if ((bits != 8 && bits != 16 && bits != 32 && bits != 64) || (*d && strcmp(d, "_t")))
		return NULL;
	return sp_type_int(a, (uint32_t)bits / 8, is_signed);
}

struct sp_type *sp_ctypes_typedef(struct sp_ctypes *ct, const char *name)
{
	struct sp_ctypedef *t;

	for (t = ct ? ct->typedefs : NULL; t; t = t->next)
		if (!strcmp(t->name, name))
			return t->type;
	return NULL;
}

void sp_ctypes_add_typedef(struct sp_ctypes *ct, const char *name, struct sp_type *type)
{
	struct sp_ctypedef *t = sp_arena_alloc(ct->a, sizeof(*t));

	t->name = sp_arena_strdup(ct->a, name);
	t->type = type;
	t->next = ct->typedefs;
	ct->typedefs = t;
}

struct sp_type *sp_ctypes_named(struct sp_ctypes *ct, const char *name)
{
	struct sp_type *td = sp_ctypes_typedef(ct, name);
	size_t i;

	if (td)
		return td;
	if (!strcmp(name, "void"))
		return sp_type_new(ct->a, SP_T_VOID);
	for (i = 0; i < sizeof(int_names) / sizeof(int_names[0]); i++)
		if (!strcmp(int_names[i].name, name))
			return sp_type_int(ct->a, int_names[i].size, int_names[i].is_signed);
	return fixed_name(ct->a, name);
}

/* --- layout ------------------------------------------------------------------- */

static uint32_t type_align(const struct sp_type *t)
{
	switch (t->kind) {
	case SP_T_RECORD:
		return t->rec->align ? t->rec->align : 1;
	case SP_T_ARRAY:
		return type_align(t->pointee);
	case SP_T_STRING:
		return 1;
	case SP_T_PTR:
		return 8;
	default:
		return t->size ? t->size : 1;
	}
}

static uint32_t round_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* A bitfield at bit position *bit of a struct; unit: its type's size. */
static void place_bits(struct sp_cfield *f, uint64_t *bit, bool packed)
{
	uint32_t unit = f->type->size ? f->type->size * 8 : 8;

	if (f->bit_size == 0 || (!packed && *bit / unit != (*bit + f->bit_size - 1) / unit))
		*bit = round_up((uint32_t)*bit, unit);
	f->offset = (uint32_t)(*bit / 8);
	f->bit_off = (uint8_t)(*bit % 8);
	*bit += f->bit_size;
}

/* Alignment of a record whose offsets came from BTF or DWARF: the largest
 * of its members' (an incomplete nested record: from its size). */
uint32_t sp_record_natural_align(const struct sp_record *r)
{
	uint32_t align = 1;

	for (int i = 0; i < r->nfields; i++) {
		const struct sp_type *t = r->fields[i].type;
		uint32_t a;

		while (t->kind == SP_T_ARRAY)
			t = t->pointee;
		if (t->kind == SP_T_RECORD && !t->rec->complete)
			a = t->rec->size & 7 ? (t->rec->size & 3 ? (t->rec->size & 1 ? 1 : 2) : 4) : 8;
		else
			a = type_align(t);
		if (a > align)
			align = a;
	}
	return align > 8 ? 8 : align;
}

void sp_record_layout(struct sp_record *r)
{
	uint64_t bit = 0, end = 0;
	uint32_t align = 1;
	int i;

	for (i = 0; i < r->nfields; i++) {
		struct sp_cfield *f = &r->fields[i];
		uint32_t fa = r->packed ? 1 : type_align(f->type);

		if (r->is_union)
			bit = 0;
		if (f->bit_size) {
			place_bits(f, &bit, r->packed);
		} else {
			f->offset = round_up((uint32_t)((bit + 7) / 8), fa);
			bit = (uint64_t)(f->offset + sp_type_csize(f->type)) * 8;
		}
		if (fa > align)
			align = fa;
		if (bit > end)
			end = bit;
	}
	r->align = align;
	r->size = round_up((uint32_t)((end + 7) / 8), align);
	r->complete = true;
}
