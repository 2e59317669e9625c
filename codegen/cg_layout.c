/* codegen/cg_layout.c: how values are laid out in map keys, map values,
 * scratch variables and events, and how that layout is told to the runtime.
 *
 * Layout rule (one rule everywhere, so a value can be memcpy'd between a
 * variable, a tuple slot, a key and an event): integers take their size and
 * are aligned to it; strings and buffers are byte arrays; a user stack is
 * struct sp_ustack_key (16 bytes, align 8); a kernel stack, pointer or
 * symbol address is a u64; a tuple puts its elements at their natural
 * alignment and is padded to its own. Padding is always zeroed before use,
 * because hash maps compare keys byte for byte. The runtime never assumes
 * this rule: it reads offsets and sizes from the plan's fields.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "parser/builtins.h"
#include "parser/types/ctypes.h"

bool cg_is_scalar(const struct sp_type *t)
{
	switch (t->kind) {
	case SP_T_INT:
	case SP_T_PTR:
	case SP_T_KSTACK:
	case SP_T_KSYM:
	case SP_T_TIMESTAMP:
	case SP_T_TEXT:
		return true;
	default:
		return false;
	}
}

/* Offset of element i of a tuple; i == nelems gives the unpadded end. */
uint32_t cg_tuple_offset(const struct sp_type *t, int i)
{
	uint32_t off = 0;

	for (int j = 0; j < t->nelems; j++) {
		off = cg_round_up(off, sp_type_align(t->elems[j]));
		if (j == i)
			return off;
		off += cg_size(t->elems[j]);
	}
	return off;
}

uint32_t cg_size(const struct sp_type *t)
{
	switch (t->kind) {
	case SP_T_INT:
		return t->size ? t->size : 8;
	case SP_T_PTR:
	case SP_T_KSTACK:
	case SP_T_KSYM:
	case SP_T_TIMESTAMP:
	case SP_T_TEXT:
		return 8;
	case SP_T_USTACK:
		return sizeof(struct sp_ustack_key);
	case SP_T_USYM:
		return sizeof(struct sp_usym);
	case SP_T_STRING:
	case SP_T_INET:
		return t->size;
	case SP_T_BUF:
		return t->size + 1; /* u8 length, then the bytes */
	case SP_T_TUPLE:
		return cg_round_up(cg_tuple_offset(t, t->nelems), sp_type_align(t));
	case SP_T_RECORD:
	case SP_T_ARRAY:
		return sp_type_csize(t);
	default:
		return 0;
	}
}

static enum sp_field_kind field_kind(const struct sp_type *t)
{
	switch (t->kind) {
	case SP_T_STRING:
		return SP_F_STR;
	case SP_T_USTACK:
		return SP_F_USTACK;
	case SP_T_KSTACK:
		return SP_F_KSTACK;
	case SP_T_USYM:
		return SP_F_USYM;
	case SP_T_KSYM:
		return SP_F_KSYM;
	case SP_T_TUPLE:
		return SP_F_TUPLE;
	case SP_T_BUF:
		return SP_F_BUF;
	case SP_T_TIMESTAMP:
		return SP_F_TIMESTAMP;
	case SP_T_TEXT:
		return SP_F_TEXT;
	case SP_T_INT:
		return sp_type_is_bool(t) || sp_type_is_enum(t) ? SP_F_TEXT : SP_F_INT;
	case SP_T_INET:
		return SP_F_INET;
	case SP_T_RECORD:
		return SP_F_RECORD;
	case SP_T_ARRAY:
		return SP_F_ARRAY;
	case SP_T_PTR:
		return t->pointee ? SP_F_PTR : SP_F_INT;
	case SP_T_NONE:
	case SP_T_VOID:
		return SP_F_NONE;
	default:
		return SP_F_INT;
	}
}

static void cfields(const struct sp_type *t, uint32_t off, struct sp_plan_field *f);

void cg_field(const struct sp_type *t, uint32_t off, struct sp_plan_field *f)
{
	memset(f, 0, sizeof(*f));
	f->kind = field_kind(t);
	f->offset = off;
	f->size = cg_size(t);
	f->is_signed = t->kind == SP_T_INT && t->is_signed;
	f->stack_limit = t->stack_limit;
	f->stack_mode = t->stack_mode;
	if (t->fmt && (t->kind == SP_T_TIMESTAMP || t->kind == SP_T_TEXT || sp_type_is_bool(t) ||
		       sp_type_is_enum(t)))
		f->fmt = strdup(t->fmt); /* carried by the type: variables and tuples keep it */
	if (t->kind == SP_T_RECORD || t->kind == SP_T_ARRAY) {
		cfields(t, off, f);
		return;
	}
	if (t->kind != SP_T_TUPLE)
		return;
	f->nelems = t->nelems;
	f->elems = calloc(t->nelems ? t->nelems : 1, sizeof(*f->elems));
	/* offsets count from the start of the whole key/value/record */
	for (int i = 0; i < t->nelems; i++)
		cg_field(t->elems[i], off + cg_tuple_offset(t, i), &f->elems[i]);
	if (!t->names)
		return;
	/* a record (a=1, b="x") prints as a C struct does: { .a = 1, .b = x } */
	f->kind = SP_F_RECORD;
	f->fmt = strdup("record"); /* keys too spell it so, unlike C structs' {.a=1} */
	for (int i = 0; i < t->nelems; i++)
		f->elems[i].member = strdup(t->names[i]);
}

/* A tuple field of the given element types, laid out like a tuple. */
void cg_tuple_fields(const struct sp_type *const *elems, int n, struct sp_plan_field *f)
{
	struct sp_type tt = { .kind = SP_T_TUPLE, .nelems = n,
			      .elems = (struct sp_type **)elems };

	cg_field(&tt, 0, f);
}

static LLVMTypeRef int_ty(struct cg *g, uint32_t size)
{
	switch (size) {
	case 1:
		return g->i8;
	case 2:
		return g->i16;
	case 4:
		return g->i32;
	default:
		return g->i64;
	}
}

LLVMValueRef cg_load_int(struct cg *g, LLVMValueRef p, const struct sp_type *t)
{
	uint32_t size = cg_size(t);
	LLVMTypeRef ty = int_ty(g, size);
	LLVMValueRef v = LLVMBuildLoad2(g->B, ty, p, "");

	LLVMSetAlignment(v, size >= 8 ? 8 : size);
	if (size >= 8)
		return v;
	if (t->kind == SP_T_INT && t->is_signed)
		return LLVMBuildSExt(g->B, v, g->i64, "");
	return LLVMBuildZExt(g->B, v, g->i64, "");
}

void cg_store_int(struct cg *g, LLVMValueRef p, LLVMValueRef v, uint32_t size)
{
	LLVMTypeRef ty = int_ty(g, size);
	LLVMValueRef st;

	if (size < 8)
		v = LLVMBuildTrunc(g->B, v, ty, "");
	st = LLVMBuildStore(g->B, v, p);
	LLVMSetAlignment(st, size >= 8 ? 8 : size);
}

/* Re-extends an i64 to the declared size and signedness of t. */
LLVMValueRef cg_norm(struct cg *g, LLVMValueRef v, const struct sp_type *t)
{
	uint32_t size;

	if (!t || t->kind != SP_T_INT)
		return v;
	if (sp_type_is_bool(t)) /* (bool)x: x != 0 */
		return LLVMBuildZExt(g->B, LLVMBuildICmp(g->B, LLVMIntNE, v, LLVMConstInt(g->i64, 0, 0),
							 ""), g->i64, "");
	size = cg_size(t);
	if (size >= 8)
		return v;
	v = LLVMBuildTrunc(g->B, v, int_ty(g, size), "");
	if (t->is_signed)
		return LLVMBuildSExt(g->B, v, g->i64, "");
	return LLVMBuildZExt(g->B, v, g->i64, "");
}


/* Stores v (of type `from`) into a slot of type `to`: integers are
 * truncated, strings copied up to the shorter size and NUL padded, tuples
 * converted element by element. The slot is zeroed first when sizes differ. */
void cg_store_conv(struct cg *g, LLVMValueRef dst, LLVMValueRef v, const struct sp_type *from,
		   const struct sp_type *to)
{
	uint32_t fs, ts;

	if (!from)
		from = to;
	if (!to)
		to = from;
	if (cg_is_scalar(to)) {
		cg_store_int(g, dst, v, cg_size(to));
		return;
	}
	fs = cg_size(from);
	ts = cg_size(to);
	/* element by element, also when the sizes agree: (int8, (int16, int64))
	 * into (int16, (int32, int64)) has the same 24 bytes, and each element
	 * still needs its sign extended */
	if (to->kind == SP_T_TUPLE && from->kind == SP_T_TUPLE && to != from &&
	    to->nelems == from->nelems) {
		cg_memset0(g, dst, ts);
		for (int i = 0; i < to->nelems; i++) {
			LLVMValueRef s = cg_gep(g, v, cg_tuple_offset(from, i));
			LLVMValueRef d = cg_gep(g, dst, cg_tuple_offset(to, i));

			if (cg_is_scalar(from->elems[i]))
				s = cg_load_int(g, s, from->elems[i]);
			cg_store_conv(g, d, s, from->elems[i], to->elems[i]);
		}
		return;
	}
	if (fs < ts)
		cg_memset0(g, dst, ts);
	cg_memcpy(g, dst, v, fs < ts ? fs : ts);
	if (to->kind == SP_T_STRING && fs > ts && ts > 0)
		cg_store_int(g, cg_gep(g, dst, ts - 1), LLVMConstInt(g->i64, 0, 0), 1);
}

/* strftime(fmt, ns) values carry their format to the runtime. */
void cg_field_fmt(const struct sp_node *n, struct sp_plan_field *f)
{
	if (n && n->kind == SP_N_BUILTIN && n->name && !f->name)
		f->name = strdup(n->name);
	if (!n || f->kind != SP_F_TIMESTAMP || f->fmt)
		return;
	if (n->kind == SP_N_CALL && n->bi == SP_BF_strftime && n->list.len > 0 &&
	    n->list.items[0]->kind == SP_N_STR)
		f->fmt = strdup(n->list.items[0]->str);
}

/* ---- C records and arrays, as the runtime reads them ------------------------------------------------------ */

#define CG_MAX_SHOWN 1024 /* array elements described to the runtime */

/* Members of r, anonymous struct/union members flattened into it. */
static int count_members(const struct sp_record *r)
{
	int n = 0;

	for (int i = 0; i < r->nfields; i++)
		if (!r->fields[i].name && r->fields[i].type->kind == SP_T_RECORD)
			n += count_members(r->fields[i].type->rec);
		else
			n++;
	return n;
}

static void member_fields(const struct sp_record *r, uint32_t off, struct sp_plan_field *out,
			  int *n)
{
	for (int i = 0; i < r->nfields; i++) {
		const struct sp_cfield *m = &r->fields[i];
		struct sp_plan_field *f = &out[*n];

		if (!m->name && m->type->kind == SP_T_RECORD) {
			member_fields(m->type->rec, off + m->offset, out, n);
			continue;
		}
		cg_field(m->type, off + m->offset, f);
		f->member = strdup(m->name ? m->name : "");
		if (m->bit_size) {
			uint32_t need = (uint32_t)m->bit_off + m->bit_size;

			f->size = need <= 8 ? 1 : need <= 16 ? 2 : need <= 32 ? 4 : 8;
			f->bit_off = m->bit_off;
			f->bit_size = m->bit_size;
		}
		(*n)++;
	}
}

/* A RECORD or ARRAY field: its members or elements as elems. */
static void cfields(const struct sp_type *t, uint32_t off, struct sp_plan_field *f)
{
	int n = 0;

	if (t->kind == SP_T_RECORD) {
		f->nelems = count_members(t->rec);
		f->elems = calloc((size_t)(f->nelems ? f->nelems : 1), sizeof(*f->elems));
		if (f->elems)
			member_fields(t->rec, off, f->elems, &n);
		return;
	}
	n = t->count < CG_MAX_SHOWN ? (int)t->count : CG_MAX_SHOWN;
	f->elems = calloc((size_t)(n ? n : 1), sizeof(*f->elems));
	if (!f->elems)
		return;
	f->nelems = n;
	for (int i = 0; i < n; i++)
		cg_field(t->pointee, off + (uint32_t)i * (sp_type_csize(t->pointee) ? sp_type_csize(t->pointee) : 1), &f->elems[i]);
}
