/* parser/types/types.c: construction, comparison and printing of sema types.
 *
 * Types are small arena objects; equal types need not be the same pointer.
 * sp_type_str() spells them the way diagnostics and the AST dump show them:
 * "u64", "s32", "string[64]", "ustack", "ustack(perf, 5)", "(u64, string[16])",
 * "count", "lhist(0, 100, 10)".
 */
#include <stdio.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/types/types.h"
#include "parser/types/ctypes.h"

static const char *const kind_names[] = {
#define X(k, s) s,
	SP_TYPE_KINDS(X)
#undef X
};

static const char *const agg_names[] = {
	"none",
#define X(k, s) s,
	SP_AGG_KINDS(X)
#undef X
};

static const char *const mode_names[] = { "bpftrace", "perf", "raw" };

struct sp_type *sp_type_new(struct sp_arena *a, enum sp_type_kind kind)
{
	struct sp_type *t = sp_arena_alloc(a, sizeof(*t));

	t->kind = kind;
	return t;
}

struct sp_type *sp_type_int(struct sp_arena *a, uint32_t size, bool is_signed)
{
	struct sp_type *t = sp_type_new(a, SP_T_INT);

	t->size = size;
	t->is_signed = is_signed;
	return t;
}

struct sp_type *sp_type_bool(struct sp_arena *a)
{
	struct sp_type *t = sp_type_int(a, 1, false);

	t->fmt = "bool";
	return t;
}

bool sp_type_is_bool(const struct sp_type *t)
{
	return t && t->kind == SP_T_INT && t->fmt && !strcmp(t->fmt, "bool");
}

struct sp_type *sp_type_enum(struct sp_arena *a, uint32_t size, bool is_signed, const char *fmt)
{
	struct sp_type *t = sp_type_int(a, size, is_signed);

	t->fmt = fmt;
	return t;
}

bool sp_type_is_enum(const struct sp_type *t)
{
	return t && t->kind == SP_T_INT && t->fmt && !strncmp(t->fmt, "enum ", 5);
}

struct sp_type *sp_type_int_like(struct sp_arena *a, const struct sp_type *t, uint32_t size)
{
	if (sp_type_is_bool(t))
		return sp_type_bool(a);
	if (sp_type_is_enum(t))
		return sp_type_enum(a, size, t->is_signed, t->fmt);
	return sp_type_int(a, size, t->is_signed);
}

struct sp_type *sp_type_string(struct sp_arena *a, uint32_t size)
{
	struct sp_type *t = sp_type_new(a, SP_T_STRING);

	t->size = size;
	return t;
}

struct sp_type *sp_type_tuple(struct sp_arena *a, int n, struct sp_type **elems)
{
	struct sp_type *t = sp_type_new(a, SP_T_TUPLE);
	int i;

	t->nelems = n;
	t->elems = sp_arena_alloc(a, (size_t)(n ? n : 1) * sizeof(*elems));
	for (i = 0; i < n; i++) {
		t->elems[i] = elems[i];
		t->size += elems[i]->size;
	}
	return t;
}

struct sp_type *sp_type_record_of(struct sp_type *t, const struct sp_type *like)
{
	if (t && like && like->kind == SP_T_TUPLE && t->kind == SP_T_TUPLE &&
	    like->nelems == t->nelems)
		t->names = like->names;
	return t;
}

struct sp_type *sp_type_agg(struct sp_arena *a, enum sp_agg_kind agg)
{
	struct sp_type *t = sp_type_new(a, SP_T_AGG);

	t->agg = agg;
	t->size = 8;
	return t;
}

struct sp_type *sp_type_stack(struct sp_arena *a, enum sp_type_kind kind, int limit,
			      enum sp_stack_mode mode)
{
	struct sp_type *t = sp_type_new(a, kind);

	t->stack_limit = limit;
	t->stack_mode = mode;
	t->size = 8;
	return t;
}

struct sp_type *sp_type_ptr(struct sp_arena *a, struct sp_type *to, bool user)
{
	struct sp_type *t = sp_type_new(a, SP_T_PTR);

	t->pointee = to;
	t->user = user;
	t->size = 8;
	return t;
}

struct sp_type *sp_type_array(struct sp_arena *a, struct sp_type *elem, uint32_t count)
{
	struct sp_type *t = sp_type_new(a, SP_T_ARRAY);

	t->pointee = elem;
	t->count = count;
	t->size = sp_type_csize(elem) * count;
	return t;
}

struct sp_type *sp_type_record(struct sp_arena *a, struct sp_record *rec)
{
	struct sp_type *t = sp_type_new(a, SP_T_RECORD);

	t->rec = rec;
	t->size = rec->size;
	return t;
}

uint32_t sp_type_align(const struct sp_type *t)
{
	uint32_t a = 1;

	switch (t->kind) {
	case SP_T_INT:
		return t->size ? t->size : 8;
	case SP_T_PTR:
	case SP_T_KSTACK:
	case SP_T_USYM:
	case SP_T_KSYM:
	case SP_T_USTACK:
	case SP_T_TIMESTAMP:
	case SP_T_TEXT:
		return 8;
	case SP_T_TUPLE:
		for (int i = 0; i < t->nelems; i++)
			if (sp_type_align(t->elems[i]) > a)
				a = sp_type_align(t->elems[i]);
		return a;
	case SP_T_RECORD:
		return t->rec->align > 8 ? 8 : t->rec->align ? t->rec->align : 1;
	case SP_T_ARRAY:
		return sp_type_align(t->pointee);
	default: /* strings, buffers, addresses: bytes */
		return 1;
	}
}

/* A tuple's size with C alignment padding, as codegen lays it out
 * (cg_layout.c) and bpftrace's sizeof counts it. */
static uint32_t tuple_csize(const struct sp_type *t)
{
	uint32_t off = 0, a = sp_type_align(t);

	for (int i = 0; i < t->nelems; i++) {
		uint32_t ea = sp_type_align(t->elems[i]);

		off = (off + ea - 1) / ea * ea;
		off += t->elems[i]->kind == SP_T_BUF ? t->elems[i]->size + 1
						      : sp_type_csize(t->elems[i]);
	}
	return (off + a - 1) / a * a;
}

uint32_t sp_type_csize(const struct sp_type *t)
{
	if (!t)
		return 0;
	switch (t->kind) {
	case SP_T_RECORD:
		return t->rec->complete ? t->rec->size : 0;
	case SP_T_ARRAY:
		return sp_type_csize(t->pointee) * t->count;
	case SP_T_PTR:
		return 8;
	case SP_T_TUPLE:
		return tuple_csize(t);
	default:
		return t->size;
	}
}

const char *sp_agg_name(enum sp_agg_kind agg)
{
	return agg <= SP_AGG_TSERIES ? agg_names[agg] : "?";
}

bool sp_type_is_int(const struct sp_type *t)
{
	return t && (t->kind == SP_T_INT || t->kind == SP_T_NONE);
}

bool sp_type_is_none(const struct sp_type *t)
{
	return !t || t->kind == SP_T_NONE;
}

static bool elems_match(const struct sp_type *x, const struct sp_type *y, bool exact)
{
	int i;

	if (x->nelems != y->nelems)
		return false;
	for (i = 0; x->names && y->names && i < x->nelems; i++)
		if (strcmp(x->names[i], y->names[i])) /* records: the same fields */
			return false;
	for (i = 0; i < x->nelems; i++)
		if (exact ? !sp_type_equal(x->elems[i], y->elems[i])
			  : !sp_type_compatible(x->elems[i], y->elems[i]))
			return false;
	return true;
}

static bool agg_equal(const struct sp_type *x, const struct sp_type *y)
{
	if (x->agg != y->agg)
		return false;
	return (x->agg != SP_AGG_LHIST && x->agg != SP_AGG_TSERIES) ||
	       (x->lhist_min == y->lhist_min && x->lhist_max == y->lhist_max &&
		x->lhist_step == y->lhist_step);
}

bool sp_type_equal(const struct sp_type *x, const struct sp_type *y)
{
	if (!x || !y || x->kind != y->kind)
		return x == y;
	switch (x->kind) {
	case SP_T_INT:
		return x->size == y->size && x->is_signed == y->is_signed &&
		       sp_type_is_bool(x) == sp_type_is_bool(y) &&
		       (x->fmt && y->fmt ? !strcmp(x->fmt, y->fmt) : !sp_type_is_enum(x) &&
					   !sp_type_is_enum(y));
	case SP_T_STRING:
	case SP_T_BUF:
	case SP_T_INET:
		return x->size == y->size;
	case SP_T_USTACK:
	case SP_T_KSTACK:
		return x->stack_limit == y->stack_limit && x->stack_mode == y->stack_mode;
	case SP_T_TUPLE:
		return elems_match(x, y, true);
	case SP_T_AGG:
		return agg_equal(x, y);
	case SP_T_PTR:
		if (!x->pointee || !y->pointee)
			return !x->pointee && !y->pointee;
		return sp_type_equal(x->pointee, y->pointee);
	case SP_T_ARRAY:
		return x->count == y->count && sp_type_equal(x->pointee, y->pointee);
	case SP_T_RECORD:
		return x->rec == y->rec;
	case SP_T_TEXT: /* a user name and an errno message are not the same value */
		return x->fmt && y->fmt ? !strcmp(x->fmt, y->fmt) : x->fmt == y->fmt;
	default:
		return true;
	}
}

bool sp_type_compatible(const struct sp_type *x, const struct sp_type *y)
{
	if (!x || !y || x->kind != y->kind)
		return false;
	switch (x->kind) {
	case SP_T_INT:
	case SP_T_STRING:
	case SP_T_BUF:
	case SP_T_INET:
		return true;
	case SP_T_TUPLE:
		return elems_match(x, y, false);
	default:
		return sp_type_equal(x, y);
	}
}

static int type_fmt(const struct sp_type *t, char *buf, int len);

static int tuple_fmt(const struct sp_type *t, char *buf, int len)
{
	int n = snprintf(buf, (size_t)len, "(");
	int i;

	for (i = 0; i < t->nelems && n < len; i++) {
		if (i)
			n += snprintf(buf + n, (size_t)(len - n), ", ");
		if (t->names && n < len) /* a record: (a=s64, b=string[2]) */
			n += snprintf(buf + n, (size_t)(len - n), "%s=", t->names[i]);
		if (n < len)
			n += type_fmt(t->elems[i], buf + n, len - n);
	}
	if (n < len)
		n += snprintf(buf + n, (size_t)(len - n), ")");
	return n;
}

static int stack_fmt(const struct sp_type *t, char *buf, int len)
{
	const char *name = kind_names[t->kind];

	if (t->stack_mode == SP_STACK_BPFTRACE && t->stack_limit == SP_DEFAULT_STACK_LIMIT)
		return snprintf(buf, (size_t)len, "%s", name);
	if (t->stack_limit == SP_DEFAULT_STACK_LIMIT)
		return snprintf(buf, (size_t)len, "%s(%s)", name, mode_names[t->stack_mode]);
	return snprintf(buf, (size_t)len, "%s(%s, %d)", name, mode_names[t->stack_mode],
			t->stack_limit);
}

static int type_fmt(const struct sp_type *t, char *buf, int len)
{
	int n;

	if (!t)
		return snprintf(buf, (size_t)len, "none");
	switch (t->kind) {
	case SP_T_INT:
		if (sp_type_is_bool(t))
			return snprintf(buf, (size_t)len, "bool");
		if (sp_type_is_enum(t)) /* "enum Foo", or "enum" when anonymous */
			return snprintf(buf, (size_t)len, "%.*s", (int)strcspn(t->fmt, ":") -
					(t->fmt[strcspn(t->fmt, ":") - 1] == ' '), t->fmt);
		return snprintf(buf, (size_t)len, "%c%u", t->is_signed ? 's' : 'u', t->size * 8);
	case SP_T_VOID:
		return snprintf(buf, (size_t)len, "void");
	case SP_T_STRING:
	case SP_T_BUF:
	case SP_T_INET:
		return snprintf(buf, (size_t)len, "%s[%u]", kind_names[t->kind], t->size);
	case SP_T_USTACK:
	case SP_T_KSTACK:
		return stack_fmt(t, buf, len);
	case SP_T_TUPLE:
		return tuple_fmt(t, buf, len);
	case SP_T_PTR:
		if (!t->pointee)
			return snprintf(buf, (size_t)len, "ptr");
		n = type_fmt(t->pointee, buf, len);
		return n < len ? n + snprintf(buf + n, (size_t)(len - n), " *") : n;
	case SP_T_ARRAY:
		n = type_fmt(t->pointee, buf, len);
		if (n >= len)
			return n;
		return n + snprintf(buf + n, (size_t)(len - n), t->count ? "[%u]" : "[]", t->count);
	case SP_T_RECORD:
		return snprintf(buf, (size_t)len, "%s %s", t->rec->is_union ? "union" : "struct",
				t->rec->name[0] ? t->rec->name : "(anonymous)");
	case SP_T_TEXT: /* "username", "strerror", "cgroup_path" (without the filter) */
		return snprintf(buf, (size_t)len, "%.*s", t->fmt ? (int)strcspn(t->fmt, ":") : 4,
				t->fmt ? t->fmt : "text");
	case SP_T_AGG:
		if (t->agg == SP_AGG_LHIST)
			return snprintf(buf, (size_t)len, "lhist(%lld, %lld, %lld)",
					(long long)t->lhist_min, (long long)t->lhist_max,
					(long long)t->lhist_step);
		if (t->agg == SP_AGG_TSERIES)
			return snprintf(buf, (size_t)len, "tseries(%lld, %lld)",
					(long long)t->lhist_min, (long long)t->lhist_max);
		return snprintf(buf, (size_t)len, "%s", sp_agg_name(t->agg));
	default:
		return snprintf(buf, (size_t)len, "%s", kind_names[t->kind]);
	}
}

const char *sp_type_str(const struct sp_type *t, char *buf, int len)
{
	if (len <= 0)
		return "";
	buf[0] = '\0';
	if (type_fmt(t, buf, len) >= len && len > 4)
		strcpy(buf + len - 4, "...");
	return buf;
}
