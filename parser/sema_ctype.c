/* parser/sema_ctype.c: typing of C-typed expressions.
 *
 * Pointers, records (struct/union) and arrays, as bpftrace types them:
 *   (T *)x      x an integer or a pointer; the pointer is in user memory in
 *               uprobe/uretprobe/usdt probes (their arguments), else kernel
 *               memory; a pointer cast from a pointer keeps its space
 *   *p  p[i]    a pointer with a complete pointee; arrays index too
 *   p->f  s.f   a field of a record through a pointer, or of a record
 *               value; `.` on a pointer dereferences it (bpftrace >= 0.25)
 *   p + n, p - n, p++, p += n   scaled by the pointee's size
 *   p == q, p < q, p == 0       compare addresses
 *   sizeof(T), sizeof(e), offsetof(struct S, f)   become integer literals
 * Values read through a pointer remember its address space, so a pointer
 * field read from user memory is a user pointer too. `curtask` is a
 * `struct task_struct *` when the kernel has BTF. A struct the script names
 * but does not define comes from the probed binary's DWARF in u-probes,
 * else from the kernel's BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/builtins.h"
#include "parser/types/ctypes.h"
#include "parser/probes.h"
#include "parser/sema.h"

static struct sp_type *none(struct sema *s)
{
	return sp_type_new(s->a, SP_T_NONE);
}

/* t as found in memory of the given space (pointers, records, arrays). */
static struct sp_type *in_space(struct sema *s, struct sp_type *t, bool user)
{
	struct sp_type *c;

	if (t->kind != SP_T_PTR && t->kind != SP_T_RECORD && t->kind != SP_T_ARRAY)
		return t;
	if (t->user == user)
		return t;
	c = sp_arena_alloc(s->a, sizeof(*c));
	*c = *t;
	c->user = user;
	return c;
}

/* Completes a record (from BTF when the script did not define it);
 * reports an unknown one. */
/* A record the script did not define, from the debug info of the binary
 * a u-probe or USDT probe of the current probe attaches to. */
static bool from_probed_binary(struct sema *s, struct sp_record *r)
{
	for (int i = 0; s->probe && i < s->probe->list.len; i++) {
		const struct sp_attach *at = s->probe->list.items[i]->attach;

		if (at && at->target && (s->probe_mask & P_UPROBES) &&
		    sp_ctypes_dwarf_record(s->ct, at->target, r))
			return true;
	}
	return false;
}

bool sema_complete(struct sema *s, struct sp_type *t, struct sp_span at)
{
	if (!t || t->kind != SP_T_RECORD)
		return true;
	/* in u-probes the probed program's own struct wins over a kernel one
	 * of the same name (struct stat, struct timespec ...) */
	if (from_probed_binary(s, t->rec) || sp_ctypes_complete(s->ct, t->rec)) {
		t->size = t->rec->size;
		return true;
	}
	sema_err(s, at, "unknown %s '%s'", sp_record_kind(t->rec), t->rec->name);
	return false;
}

/* A record used as a value is printed whole: complete the records
 * embedded in it (BTF converts them lazily). */
static void complete_embedded(struct sema *s, struct sp_type *t, int depth)
{
	struct sp_record *r;

	while (t && t->kind == SP_T_ARRAY)
		t = t->pointee;
	if (!t || t->kind != SP_T_RECORD || depth > 16 || !sp_ctypes_complete(s->ct, t->rec))
		return;
	r = t->rec;
	for (int i = 0; i < r->nfields; i++)
		complete_embedded(s, r->fields[i].type, depth + 1);
}

/* uptr(x) / kptr(x): x as a pointer into user or kernel memory (an
 * integer becomes an untyped pointer, which a cast then types). */
struct sp_type *sema_addr_space(struct sema *s, struct sp_type *t, bool user)
{
	if (!t || sp_type_is_none(t))
		return none(s);
	if (t->kind == SP_T_PTR)
		return in_space(s, t, user);
	return sp_type_ptr(s->a, NULL, user);
}

static bool default_user(struct sema *s)
{
	return s->probe_mask && !(s->probe_mask & ~(uint32_t)P_UPROBES);
}

static bool in_memory(const struct sp_node *n, bool *user);

/* The type of `let $p: T *` or `let $a: T[N]`: in the probe's default
 * space, as a cast of an integer to it would be. */
struct sp_type *sema_let_space(struct sema *s, struct sp_type *t)
{
	return in_space(s, t, default_user(s));
}

/* Bytes of an integer, a string or an integer array as an array cast
 * reads them; 0: none of those. */
static uint32_t cast_bytes(const struct sp_type *t)
{
	if (t->kind == SP_T_INT || t->kind == SP_T_STRING)
		return t->size;
	if (t->kind == SP_T_ARRAY && t->pointee && t->pointee->kind == SP_T_INT)
		return sp_type_csize(t);
	return 0;
}

/* (int8[8])x, (uint8[])"ab", (uint32)arr: bpftrace's array casts, which
 * reinterpret the bytes of an integer, a string or an integer array of the
 * same size (native byte order); `[]` takes the count from x's size. */
static struct sp_type *array_cast(struct sema *s, struct sp_node *n, struct sp_type *to,
				  struct sp_type *t)
{
	uint32_t have = cast_bytes(t), es;

	if (to->kind == SP_T_ARRAY && (!to->pointee || to->pointee->kind != SP_T_INT)) {
		sema_err(s, n->span, "cannot cast to '%s': an array cast makes integer arrays",
			 sema_tstr(s, to));
		return none(s);
	}
	if (!have || (to->kind == SP_T_INT && t->kind != SP_T_ARRAY)) {
		sema_err(s, n->span, "cannot cast '%s' to '%s'", sema_tstr(s, t), sema_tstr(s, to));
		return none(s);
	}
	es = to->kind == SP_T_ARRAY ? sp_type_csize(to->pointee) : to->size;
	if (to->kind == SP_T_ARRAY && to->count == 0) { /* (T[])x */
		if (have % es) {
			sema_err(s, n->span, "cannot cast '%s' to '%s': %u bytes are not a whole "
				 "number of %u-byte elements", sema_tstr(s, t), sema_tstr(s, to), have,
				 es);
			return none(s);
		}
		to = n->cast_type = sp_type_array(s->a, to->pointee, have / es);
	}
	if (sp_type_csize(to) != have) {
		sema_err(s, n->span, "cannot cast '%s' to '%s': the sizes differ (%u and %u bytes)",
			 sema_tstr(s, t), sema_tstr(s, to), have, sp_type_csize(to));
		return none(s);
	}
	return to;
}

struct sp_type *sema_cast(struct sema *s, struct sp_node *n)
{
	struct sp_type *to = n->cast_type, *t = sema_value(s, n->a);
	bool user = false;

	if (to->kind == SP_T_PTR && to->pointee && !sema_complete(s, to->pointee, n->span))
		return n->type = none(s);
	if (sp_type_is_none(t))
		return n->type = none(s);
	if (to->kind == SP_T_PTR && (t->kind == SP_T_ARRAY || t->kind == SP_T_STRING) &&
	    in_memory(n->a, &user)) /* an array in probed memory decays to its address */
		return n->type = in_space(s, to, user);
	if (to->kind == SP_T_ARRAY || (to->kind == SP_T_INT && t->kind == SP_T_ARRAY))
		return n->type = array_cast(s, n, to, t);
	if ((to->kind != SP_T_INT && to->kind != SP_T_PTR) ||
	    (!sp_type_is_int(t) && t->kind != SP_T_PTR)) {
		sema_err(s, n->span, "cannot cast '%s' to '%s'", sema_tstr(s, t), sema_tstr(s, to));
		return n->type = none(s);
	}
	if (to->kind == SP_T_PTR)
		to = in_space(s, to, t->kind == SP_T_PTR ? t->user : default_user(s));
	return n->type = to;
}

/* The object a pointer of type t points to, checked. */
static struct sp_type *pointee(struct sema *s, struct sp_node *n, struct sp_type *t,
			       const char *what)
{
	if (t->kind != SP_T_PTR) {
		sema_err(s, n->span, "cannot %s '%s': it is not a pointer", what, sema_tstr(s, t));
		return NULL;
	}
	if (!t->pointee) {
		sema_err(s, n->span, "cannot %s an untyped pointer", what);
		sema_note(s, n->span, "cast it to a typed pointer first, e.g. '(int64 *)'");
		return NULL;
	}
	if (t->pointee->kind == SP_T_VOID) {
		sema_err(s, n->span, "cannot %s '%s'", what, sema_tstr(s, t));
		return NULL;
	}
	if (!sema_complete(s, t->pointee, n->span))
		return NULL;
	complete_embedded(s, t->pointee, 0);
	return in_space(s, t->pointee, t->user);
}

/* Is n (already typed) an object in probed memory, reached through a
 * pointer? *user: its address space. */
static bool in_memory(const struct sp_node *n, bool *user)
{
	const struct sp_type *bt = n->a ? n->a->type : NULL;

	if (!bt || (n->kind != SP_N_DEREF && n->kind != SP_N_FIELD && n->kind != SP_N_INDEX))
		return false;
	if (n->kind == SP_N_FIELD && n->a->kind == SP_N_BUILTIN) /* args.x */
		return false;
	if (n->kind == SP_N_DEREF || bt->kind == SP_T_PTR) {
		*user = bt->user;
		return true;
	}
	return in_memory(n->a, user);
}

/* &x: the address of an object in probed memory, or of a scratch variable
 * (its slot on the BPF stack, kernel memory), a pointer to its type. */
struct sp_type *sema_addrof(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = sema_value(s, n->a);
	bool user = false;

	if (sp_type_is_none(t))
		return n->type = none(s);
	if (n->a->kind == SP_N_VAR) /* &$x (bpftrace 0.26): its place on the BPF stack */
		return n->type = sp_type_ptr(s->a, t, false);
	if (!in_memory(n->a, &user) || (n->a->kind == SP_N_FIELD && n->a->bit_size)) {
		sema_err(s, n->span, "'&' needs a variable, or a field or element reached through "
			 "a pointer%s",
			 n->a->kind == SP_N_FIELD && n->a->bit_size ? ", not a bitfield" : "");
		return n->type = none(s);
	}
	return n->type = sp_type_ptr(s->a, t, user);
}

struct sp_type *sema_deref(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = sema_value(s, n->a), *p;

	if (sp_type_is_none(t))
		return n->type = none(s);
	p = pointee(s, n, t, "dereference");
	return n->type = p ? p : none(s);
}

/* An index of integer literals and + - * (1 + 1), as bpftrace folds it */
static bool const_index(const struct sp_node *n, int64_t *v)
{
	int64_t a, b;

	if (n->kind != SP_N_BINOP || (n->op != '+' && n->op != '-' && n->op != '*'))
		return sema_const_int(n, v);
	if (!const_index(n->a, &a) || !const_index(n->b, &b) || a < -65536 || a > 65536 ||
	    b < -65536 || b > 65536)
		return false;
	*v = n->op == '+' ? a + b : n->op == '-' ? a - b : a * b;
	return true;
}

/* $t[i] of a tuple: i a constant, the node becomes $t.i */
static struct sp_type *tuple_elem(struct sema *s, struct sp_node *n, struct sp_type *t)
{
	int64_t v;

	if (!const_index(n->b, &v)) {
		sema_err(s, n->b->span, "a tuple's index must be a constant integer");
		return n->type = none(s);
	}
	if (v < 0 || v >= t->nelems) {
		sema_err(s, n->b->span, "tuple index %lld out of range for '%s'", (long long)v,
			 sema_tstr(s, t));
		return n->type = none(s);
	}
	n->kind = SP_N_TUPLE_INDEX;
	n->ival = v;
	n->b = NULL;
	return n->type = t->elems[v];
}

struct sp_type *sema_index(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = sema_value(s, n->a), *i = sema_value(s, n->b), *e;
	int64_t v;

	if (sp_type_is_none(t) || sp_type_is_none(i))
		return n->type = none(s);
	if (i->kind != SP_T_INT) {
		sema_err(s, n->b->span, "an index must be an integer, not '%s'", sema_tstr(s, i));
		return n->type = none(s);
	}
	if (t->kind == SP_T_ARRAY) {
		if (sema_const_int(n->b, &v) && (v < 0 || (uint64_t)v >= t->count)) {
			sema_err(s, n->b->span, "the index %lld is out of bounds for array of size %u "
				 "('%s')", (long long)v, t->count, sema_tstr(s, t));
			return n->type = none(s);
		}
		e = in_space(s, t->pointee, t->user);
		return n->type = sema_complete(s, e, n->span) ? e : none(s);
	}
	if (t->kind == SP_T_STRING) { /* a char array's bytes */
		if (sema_const_int(n->b, &v) && (v < 0 || (uint64_t)v >= t->size)) {
			sema_err(s, n->b->span, "index %lld is out of bounds for '%s'", (long long)v,
				 sema_tstr(s, t));
			return n->type = none(s);
		}
		return n->type = sp_type_int(s->a, 1, true);
	}
	if (t->kind == SP_T_TUPLE) /* $t[1 + 1] (bpftrace 0.27): $t.2 */
		return tuple_elem(s, n, t);
	if (t->kind != SP_T_PTR) {
		sema_err(s, n->span, "'[]' needs a pointer, an array or a string, not '%s'",
			 sema_tstr(s, t));
		return n->type = none(s);
	}
	e = pointee(s, n, t, "index");
	return n->type = e ? e : none(s);
}

static void no_field(struct sema *s, struct sp_node *n, struct sp_record *r)
{
	const char *cands[256], *hint;
	int nc = sp_record_field_names(s->ct, r, cands, 256);

	sema_err(s, n->span, "'%s %s' has no field '%s'", sp_record_kind(r), r->name, n->name);
	hint = sp_did_you_mean(n->name, cands, nc);
	if (hint)
		sema_note(s, n->span, "did you mean '%s'?", hint);
}

/* The record a field access applies to: p->f needs a pointer to a record;
 * s.f a record, or a pointer to one. */
static struct sp_type *field_base(struct sema *s, struct sp_node *n, struct sp_type *t)
{
	if (t->kind == SP_T_RECORD && !n->arrow)
		return t;
	if (t->kind == SP_T_PTR && t->pointee && t->pointee->kind == SP_T_RECORD)
		return pointee(s, n, t, "dereference");
	if (t->kind == SP_T_RECORD) {
		sema_err(s, n->span, "'->' needs a pointer, but '%s' is a struct value",
			 sema_tstr(s, t));
		sema_note(s, n->span, "write '.%s' to read the field of a struct value", n->name);
	} else {
		sema_err(s, n->span, "'%s' has no field '%s'", sema_tstr(s, t), n->name);
	}
	return NULL;
}

struct sp_type *sema_cfield(struct sema *s, struct sp_node *n, struct sp_type *t)
{
	const struct sp_cfield *f;
	struct sp_type *base = field_base(s, n, t);
	uint32_t off = 0;

	if (!base)
		return n->type = none(s);
	f = sp_record_field(s->ct, base->rec, n->name, &off);
	if (!f) {
		no_field(s, n, base->rec);
		return n->type = none(s);
	}
	n->field_off = off;
	n->bit_off = f->bit_off;
	n->bit_size = f->bit_size;
	if (f->type->kind == SP_T_RECORD && !sema_complete(s, f->type, n->span))
		return n->type = none(s);
	complete_embedded(s, f->type, 0);
	return n->type = in_space(s, f->type, base->user);
}

/* Pointer arithmetic and comparisons; NULL when no operand is a pointer. */
struct sp_type *sema_ptr_binop(struct sema *s, struct sp_node *n, struct sp_type *x,
			       struct sp_type *y)
{
	bool px = x->kind == SP_T_PTR, py = y->kind == SP_T_PTR;
	bool cmp = n->op == SP_OP_EQ || n->op == SP_OP_NE || n->op == '<' || n->op == '>' ||
		   n->op == SP_OP_LE || n->op == SP_OP_GE || n->op == SP_OP_LAND ||
		   n->op == SP_OP_LOR;
	char op[4];

	if (!px && !py)
		return NULL;
	if (cmp && (px || x->kind == SP_T_INT) && (py || y->kind == SP_T_INT))
		return sema_cmp_bool(s, false); /* as every comparison (bpftrace 0.27) */
	if (px && !py && y->kind == SP_T_INT && (n->op == '+' || n->op == '-'))
		return x;
	if (py && !px && x->kind == SP_T_INT && n->op == '+')
		return y;
	sema_err(s, n->span, "invalid operands to '%s': '%s' and '%s'", sp_op_str(n->op, op),
		 sema_tstr(s, x), sema_tstr(s, y));
	return none(s);
}

/* sizeof(T) / sizeof(e): an integer literal (in the reporting pass). */
struct sp_type *sema_sizeof(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = n->cast_type;
	uint32_t size;

	if (!t) {
		t = sema_value(s, n->a);
		if (sp_type_is_none(t))
			return n->type = none(s);
	}
	if (t->kind == SP_T_RECORD && !sp_ctypes_complete(s->ct, t->rec)) {
		sema_err(s, n->span, "sizeof of incomplete type '%s'", sema_tstr(s, t));
		return n->type = none(s);
	}
	size = t->kind == SP_T_INT || t->kind == SP_T_STRING ? t->size : sp_type_csize(t);
	if (t->kind == SP_T_VOID || (size == 0 && t->kind != SP_T_ARRAY)) {
		sema_err(s, n->span, "sizeof of incomplete type '%s'", sema_tstr(s, t));
		return n->type = none(s);
	}
	if (!s->quiet) {
		n->kind = SP_N_INT;
		n->ival = size;
		n->a = NULL;
	}
	return n->type = s->u64;
}

struct sp_type *sema_offsetof(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = n->cast_type;
	const struct sp_cfield *f;
	uint32_t off = 0;

	if (t->kind != SP_T_RECORD) {
		sema_err(s, n->span, "offsetof() needs a struct or union, not '%s'",
			 sema_tstr(s, t));
		return n->type = none(s);
	}
	if (!sema_complete(s, t, n->span))
		return n->type = none(s);
	f = sp_record_field(s->ct, t->rec, n->name, &off);
	if (!f) {
		no_field(s, n, t->rec);
		return n->type = none(s);
	}
	if (!s->quiet) {
		n->kind = SP_N_INT;
		n->ival = off;
	}
	return n->type = s->u64;
}

/* --- iter:NAME ------------------------------------------------------------ */

/* Kernel iterators and the Linux version that added each, for the one
 * line a kernel without one gets. */
static const struct { const char *name, *since; } iters[] = {
	{ "task", "5.8" }, { "task_file", "5.8" }, { "bpf_map", "5.8" }, { "netlink", "5.8" },
	{ "ipv6_route", "5.8" }, { "bpf_map_elem", "5.9" }, { "bpf_prog", "5.9" },
	{ "tcp", "5.9" }, { "udp", "5.9" }, { "bpf_sk_storage_map", "5.9" },
	{ "sockmap", "5.10" }, { "task_vma", "5.12" }, { "unix", "5.17" },
	{ "bpf_link", "5.19" }, { "ksym", "6.0" }, { "cgroup", "6.1" },
};

/* struct bpf_iter__NAME, the context of iter:NAME, from BTF; NULL when
 * the kernel has no such iterator. */
static struct sp_record *iter_record(struct sema *s, const char *name)
{
	char tag[160];
	struct sp_record *r;

	snprintf(tag, sizeof(tag), "bpf_iter__%s", name);
	r = sp_ctypes_record(s->ct, sp_arena_strdup(s->a, tag), false);
	return r && sp_ctypes_complete(s->ct, r) ? r : NULL;
}

/* Offset of the last pointer of the record (looking into the anonymous
 * unions __bpf_md_ptr makes): the iterated object. -1 when none. */
static int64_t last_pointer(struct sema *s, struct sp_record *r, int depth)
{
	int64_t off = -1;

	for (int i = 0; r && depth < 3 && i < r->nfields; i++) {
		const struct sp_cfield *f = &r->fields[i];
		int64_t in;

		if (f->type && f->type->kind == SP_T_PTR)
			off = f->offset;
		else if (!f->name && f->type && f->type->kind == SP_T_RECORD &&
			 sp_ctypes_complete(s->ct, f->type->rec) &&
			 (in = last_pointer(s, f->type->rec, depth + 1)) >= 0)
			off = f->offset + in;
	}
	return off;
}

/* iter:NAME attach points: the iterated object's offset in the context
 * goes to attach->offset (codegen ends the run at its NULL). */
void sema_iter_attach(struct sema *s, struct sp_node *at)
{
	struct sp_attach *a = at->attach;
	struct sp_record *r;
	const char *since = NULL;
	int64_t off;

	if (!a || !a->func || !a->provider)
		return;
	r = iter_record(s, a->func);
	for (size_t i = 0; i < sizeof(iters) / sizeof(iters[0]); i++)
		if (!strcmp(iters[i].name, a->func))
			since = iters[i].since;
	if (!r && since) {
		sema_err(s, at->span, "this kernel has no '%s' iterator (iter:%s needs Linux %s)",
			 a->func, a->func, since);
		return;
	}
	if (!r) {
		sema_err(s, at->span, "unknown iterator '%s' (no struct bpf_iter__%s in the "
			 "kernel's BTF)", a->func, a->func);
		return;
	}
	if ((off = last_pointer(s, r, 0)) < 0) {
		sema_err(s, at->span, "iterator '%s': no object pointer in struct bpf_iter__%s",
			 a->func, a->func);
		return;
	}
	a->offset = (uint64_t)off;
}

/* `ctx` in iter:NAME: struct bpf_iter__NAME * in kernel memory. */
struct sp_type *sema_iter_ctx(struct sema *s)
{
	const struct sp_attach *a = s->probe->list.items[0]->attach;
	struct sp_record *r = a && a->func ? iter_record(s, a->func) : NULL;

	if (!r)
		return sema_addr_space(s, s->u64, false);
	return sp_type_ptr(s->a, sp_type_record(s->a, r), false);
}

/* `curtask`: struct task_struct * in kernel memory, when BTF knows it. */
struct sp_type *sema_curtask(struct sema *s)
{
	struct sp_record *r = sp_ctypes_record(s->ct, "task_struct", false);

	if (!sp_ctypes_complete(s->ct, r))
		return s->u64;
	return sp_type_ptr(s->a, sp_type_record(s->a, r), false);
}

static void param_error(struct sema *s, struct sp_node *n, const struct sp_attach *at, int err)
{
	if (err == -ENOENT)
		sema_err(s, n->span, "no function '%s' in the debug info of '%s'", at->func,
			 at->target);
	else if (err == -ENODATA)
		sema_err(s, n->span, "'%s' has no debug info (DWARF): args.%s needs it", at->target,
			 n->name);
	else
		sema_err(s, n->span, "cannot read the debug info of '%s': %s", at->target,
			 strerror(-err));
}

static int param_index(struct sema *s, struct sp_node *n, const struct sp_attach *at,
		       const struct sp_cparam *ps, int np)
{
	const char *cands[64], *hint;
	int i;

	for (i = 0; i < np; i++)
		if (!strcmp(ps[i].name, n->name))
			return i;
	for (i = 0; i < np && i < 64; i++)
		cands[i] = ps[i].name;
	sema_err(s, n->span, "function '%s' has no parameter '%s'", at->func, n->name);
	hint = sp_did_you_mean(n->name, cands, np < 64 ? np : 64);
	if (hint)
		sema_note(s, n->span, "did you mean '%s'?", hint);
	return -1;
}

/* args.NAME in a uprobe: parameter NAME of the probed function, from DWARF;
 * it becomes argI (I: its integer register, after the registers of the
 * parameters before it) typed as the parameter (in the reporting pass). */
struct sp_type *sema_uprobe_arg(struct sema *s, struct sp_node *n)
{
	const struct sp_attach *at = s->probe->list.items[0]->attach;
	struct sp_cparam *ps;
	int np, i, err;

	if (!at->target || !at->func || strpbrk(at->func, "*?[") || at->is_addr) {
		sema_err(s, n->span, "args.%s needs a uprobe on one named function", n->name);
		return n->type = none(s);
	}
	err = sp_ctypes_dwarf_params(s->ct, at->target, at->func, &ps, &np);
	if (err) {
		param_error(s, n, at, err);
		return n->type = none(s);
	}
	i = param_index(s, n, at, ps, np);
	if (i < 0)
		return n->type = none(s);
	if (ps[i].reg < 0 || (ps[i].type->kind != SP_T_INT && ps[i].type->kind != SP_T_PTR)) {
		sema_err(s, n->span, "parameter '%s' (%s) of '%s' is not an integer or a pointer "
			 "passed in a general-purpose register", n->name, ps[i].ctype, at->func);
		return n->type = none(s);
	}
	if (!s->quiet) {
		n->kind = SP_N_BUILTIN;
		n->bi = SP_BV_arg0; /* the argN family: the emitter reads N from the name */
		n->name = sp_arena_printf(s->a, "arg%d", ps[i].reg);
		n->a = NULL;
	}
	return n->type = ps[i].type;
}

/* `args` as a whole value in a uprobe (bpftrace 0.27): the record
 * (NAME=(TYPE)argI, ...) of the probed function's parameters, from DWARF; n
 * becomes that record, so it prints, is stored and is a map key as one
 * ({ .n = 0x7ffd..., .c = 120 }). */
struct sp_type *sema_uprobe_args(struct sema *s, struct sp_node *n)
{
	const struct sp_attach *at = s->probe->list.items[0]->attach;
	struct sp_cparam *ps;
	const char **names;
	int np, i, err;

	if (!at->target || !at->func || strpbrk(at->func, "*?[") || at->is_addr) {
		sema_err(s, n->span, "'args' needs a uprobe on one named function");
		return none(s);
	}
	err = sp_ctypes_dwarf_params(s->ct, at->target, at->func, &ps, &np);
	if (err == -ENODATA) {
		sema_err(s, n->span, "'%s' has no debug info (DWARF): 'args' needs it", at->target);
		return none(s);
	}
	if (err) {
		param_error(s, n, at, err);
		return none(s);
	}
	if (np == 0) {
		sema_err(s, n->span, "function '%s' has no parameters: 'args' is empty", at->func);
		return none(s);
	}
	names = sp_arena_alloc(s->a, (size_t)np * sizeof(*names));
	for (i = 0; i < np; i++) {
		struct sp_node *arg, *c;

		if (ps[i].reg < 0 || (ps[i].type->kind != SP_T_INT && ps[i].type->kind != SP_T_PTR)) {
			sema_err(s, n->span, "parameter '%s' (%s) of '%s' is not an integer or a "
				 "pointer passed in a general-purpose register: 'args' cannot hold it",
				 ps[i].name, ps[i].ctype, at->func);
			return none(s);
		}
		arg = sp_node_new(s->a, SP_N_BUILTIN, n->span);
		arg->name = sp_arena_printf(s->a, "arg%d", ps[i].reg);
		c = sp_node_new(s->a, SP_N_CAST, n->span);
		c->cast_type = ps[i].type;
		c->a = arg;
		names[i] = ps[i].name;
		sp_list_push(s->a, &n->list, c);
	}
	n->kind = SP_N_TUPLE;
	n->fnames = names;
	n->name = NULL;
	n->bi = 0;
	return sema_expr(s, n);
}

/* args.NAME in a raw tracepoint: the tracepoint's argument NAME, typed
 * from BTF (__bpf_trace_EVENT); it becomes argI. */
struct sp_type *sema_rawtp_arg(struct sema *s, struct sp_node *n)
{
	const struct sp_attach *at = s->probe->list.items[0]->attach;
	const char *event = at->func ? at->func : at->target;
	bool fn = (s->probe_mask & P_FENTRIES) != 0;
	const char *what = fn ? "kernel function" : "raw tracepoint";
	struct sp_cparam *ps;
	int np, i, err;

	if (!event || strpbrk(event, "*?[")) {
		sema_err(s, n->span, "args.%s needs a probe on one named %s", n->name, what);
		return n->type = none(s);
	}
	err = fn ? sp_ctypes_btf_func_params(s->ct, event, &ps, &np) :
		   sp_ctypes_btf_rawtp_params(s->ct, event, &ps, &np);
	if (err) {
		sema_err(s, n->span, "no BTF description of %s '%s'%s", what, event,
			 err == -ENODATA ? " (the kernel has no BTF)" : "");
		return n->type = none(s);
	}
	for (i = 0; i < np && strcmp(ps[i].name, n->name); i++)
		;
	if (i == np) {
		const char *cands[64], *hint;

		for (i = 0; i < np && i < 64; i++)
			cands[i] = ps[i].name;
		sema_err(s, n->span, "%s '%s' has no argument '%s'", what, event, n->name);
		hint = sp_did_you_mean(n->name, cands, np < 64 ? np : 64);
		if (hint)
			sema_note(s, n->span, "did you mean '%s'?", hint);
		return n->type = none(s);
	}
	if (ps[i].type->kind != SP_T_INT && ps[i].type->kind != SP_T_PTR) {
		sema_err(s, n->span, "argument '%s' of %s '%s' is not an integer or a "
			 "pointer", n->name, what, event);
		return n->type = none(s);
	}
	if (!s->quiet) {
		n->kind = SP_N_BUILTIN;
		n->bi = SP_BV_arg0; /* the argN family: the emitter reads N from the name */
		n->name = sp_arena_printf(s->a, "arg%d", i);
		n->a = NULL;
	}
	return n->type = ps[i].type;
}

/* retval in fexit: the u64 after the arguments in the context, typed as
 * the function's return type from BTF; it becomes argN. */
struct sp_type *sema_fexit_retval(struct sema *s, struct sp_node *n)
{
	const struct sp_attach *at = s->probe->list.items[0]->attach;
	struct sp_cparam *ps;
	int np, err;

	if (!at->func || strpbrk(at->func, "*?[")) {
		sema_err(s, n->span, "retval needs an fexit probe on one named kernel function");
		return n->type = none(s);
	}
	err = sp_ctypes_btf_func_params(s->ct, at->func, &ps, &np);
	if (err) {
		sema_err(s, n->span, "no BTF description of kernel function '%s'%s", at->func,
			 err == -ENODATA ? " (the kernel has no BTF)" : "");
		return n->type = none(s);
	}
	if (ps[np].type->kind != SP_T_INT && ps[np].type->kind != SP_T_PTR) {
		sema_err(s, n->span, "kernel function '%s' returns no integer or pointer",
			 at->func);
		return n->type = none(s);
	}
	if (!s->quiet) {
		n->kind = SP_N_BUILTIN;
		n->bi = SP_BV_arg0; /* the argN family: the emitter reads N from the name */
		n->name = sp_arena_printf(s->a, "arg%d", np);
		n->a = NULL;
	}
	return n->type = ps[np].type;
}
