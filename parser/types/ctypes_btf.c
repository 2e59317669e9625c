/* parser/types/ctypes_btf.c: kernel types from BTF (/sys/kernel/btf/vmlinux).
 *
 * `curtask`, `(struct task_struct *)x` and records that a script names but
 * does not define come from the running kernel's BTF, as in bpftrace. BTF
 * is loaded once per compile on first need (libbpf's
 * btf__load_vmlinux_btf) and released when sema is done. A record is
 * converted shallowly: its members get types, but records reached through
 * them stay incomplete (remembering their BTF id) until a field of theirs
 * is used, so task_struct does not pull in the whole kernel.
 *
 * Mapping: integers and enums keep size and sign, char arrays become
 * strings (as bpftrace types them), other arrays arrays, pointers typed
 * pointers in kernel memory (function pointers untyped), typedefs and
 * qualifiers are looked through; floats become unsigned integers.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/types/ctypes.h"
#include "parser/types/listargs.h"

static struct btf *vmlinux(struct sp_ctypes *ct)
{
	if (!ct->btf_tried && !ct->no_btf) {
		ct->btf_tried = true;
		ct->btf = btf__load_vmlinux_btf();
	}
	return ct->btf;
}

void sp_ctypes_release(struct sp_ctypes *ct)
{
	if (ct && ct->btf) {
		btf__free(ct->btf);
		ct->btf = NULL;
		ct->btf_tried = false; /* a later pass may load it again */
	}
}

bool sp_ctypes_have_btf(struct sp_ctypes *ct)
{
	return vmlinux(ct) != NULL;
}

static struct sp_type *from_btf(struct sp_ctypes *ct, struct btf *btf, __u32 id, int depth);

static struct sp_record *btf_record(struct sp_ctypes *ct, struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = btf__name_by_offset(btf, t->name_off);
	struct sp_record *r;

	if (name && *name) {
		r = sp_ctypes_record(ct, name, btf_is_union(t));
	} else {
		r = sp_arena_alloc(ct->a, sizeof(*r));
		r->name = "";
		r->is_union = btf_is_union(t);
	}
	if (!r->complete && !r->btf_id) {
		r->btf_id = (int)id;
		r->size = t->size;
	}
	return r;
}

static struct sp_type *btf_int(struct sp_ctypes *ct, const struct btf_type *t)
{
	__u32 size = t->size;
	bool sgn = btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED);

	if (btf_is_enum(t) || btf_is_enum64(t))
		sgn = btf_kflag(t);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = size > 8 ? 8 : 4;
	return sp_type_int(ct->a, size, sgn);
}

static struct sp_type *array_type(struct sp_ctypes *ct, struct btf *btf, const struct btf_type *t,
				 int depth)
{
	const struct btf_array *arr = btf_array(t);
	const struct btf_type *et = btf__type_by_id(btf, btf__resolve_type(btf, arr->type));
	struct sp_type *elem;

	if (et && btf_is_int(et) && et->size == 1 && arr->nelems > 0 &&
	    ((btf_int_encoding(et) & (BTF_INT_CHAR | BTF_INT_SIGNED)) ||
	     !strcmp(btf__name_by_offset(btf, et->name_off), "char")))
		return sp_type_string(ct->a, arr->nelems); /* char[N]: a string */
	elem = from_btf(ct, btf, arr->type, depth + 1);
	return sp_type_array(ct->a, elem, arr->nelems);
}

static struct sp_type *ptr_type(struct sp_ctypes *ct, struct btf *btf, const struct btf_type *t,
			       int depth)
{
	__u32 to = (__u32)btf__resolve_type(btf, t->type);
	const struct btf_type *tt = btf__type_by_id(btf, to);

	if (t->type == 0) /* void * */
		return sp_type_ptr(ct->a, sp_type_new(ct->a, SP_T_VOID), false);
	if (!tt || btf_is_func_proto(tt) || depth > 8)
		return sp_type_ptr(ct->a, NULL, false);
	return sp_type_ptr(ct->a, from_btf(ct, btf, to, depth + 1), false);
}

static struct sp_type *from_btf(struct sp_ctypes *ct, struct btf *btf, __u32 id, int depth)
{
	int rid = btf__resolve_type(btf, id);
	const struct btf_type *t = rid >= 0 ? btf__type_by_id(btf, (__u32)rid) : NULL;

	if (!t || (rid == 0))
		return sp_type_new(ct->a, SP_T_VOID);
	if (btf_is_int(t) || btf_is_enum(t) || btf_is_enum64(t))
		return btf_int(ct, t);
	if (btf_is_float(t))
		return sp_type_int(ct->a, t->size <= 8 ? t->size : 8, false);
	if (btf_is_ptr(t))
		return ptr_type(ct, btf, t, depth);
	if (btf_is_array(t))
		return array_type(ct, btf, t, depth);
	if (btf_is_composite(t))
		return sp_type_record(ct->a, btf_record(ct, btf, (__u32)rid));
	return sp_type_new(ct->a, SP_T_VOID);
}

/* Members of a BTF struct/union into r, with BTF's own offsets. */
static bool fill_record(struct sp_ctypes *ct, struct btf *btf, struct sp_record *r)
{
	const struct btf_type *t = btf__type_by_id(btf, (__u32)r->btf_id);
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	r->fields = sp_arena_alloc(ct->a, (size_t)(n ? n : 1) * sizeof(*r->fields));
	for (i = 0; i < n; i++, m++) {
		struct sp_cfield *f = &r->fields[i];
		const char *name = btf__name_by_offset(btf, m->name_off);
		__u32 bit = btf_member_bit_offset(t, (__u32)i);

		f->name = name && *name ? sp_arena_strdup(ct->a, name) : NULL;
		f->type = from_btf(ct, btf, m->type, 0);
		f->bit_size = (uint8_t)btf_member_bitfield_size(t, (__u32)i);
		f->offset = bit / 8;
		f->bit_off = f->bit_size ? (uint8_t)(bit % 8) : 0;
	}
	r->nfields = n;
	r->size = t->size;
	r->align = sp_record_natural_align(r);
	r->complete = true;
	return true;
}

bool sp_ctypes_complete(struct sp_ctypes *ct, struct sp_record *r)
{
	struct btf *btf;
	__s32 id;

	if (r->complete)
		return true;
	btf = vmlinux(ct);
	if (!btf)
		return false;
	if (!r->btf_id) {
		id = btf__find_by_name_kind(btf, r->name, r->is_union ? BTF_KIND_UNION
								      : BTF_KIND_STRUCT);
		if (id <= 0)
			return false;
		r->btf_id = id;
	}
	return fill_record(ct, btf, r);
}

bool sp_ctypes_btf_has_record(struct sp_ctypes *ct, const char *name, bool is_union)
{
	struct btf *btf = vmlinux(ct);

	return btf && btf__find_by_name_kind(btf, name, is_union ? BTF_KIND_UNION
								 : BTF_KIND_STRUCT) > 0;
}

/* An enumerator of the kernel's BTF, for names a script uses bare. */
bool sp_ctypes_btf_enum(struct sp_ctypes *ct, const char *name, int64_t *v)
{
	struct btf *btf = vmlinux(ct);
	__u32 i, n;

	if (!btf)
		return false;
	n = btf__type_cnt(btf);
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_enum *e;
		int k;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (k = 0; k < btf_vlen(t); k++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
				*v = e->val;
				return true;
			}
	}
	return false;
}

/* The arguments of raw tracepoint `event`: the parameters of BTF's
 * `__bpf_trace_EVENT` function (named; `btf_trace_EVENT`'s are not),
 * after the void *__data the raw context does not carry, typed in kernel
 * memory. */
static int func_params(struct sp_ctypes *ct, const char *name, int skip, struct sp_cparam **out,
		       int *n)
{
	struct btf *btf = vmlinux(ct);
	const struct btf_type *t;
	const struct btf_param *p;
	__s32 id;
	int i, k;

	if (!btf)
		return -ENODATA;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id <= 0)
		return -ENOENT;
	t = btf__type_by_id(btf, btf__type_by_id(btf, (__u32)id)->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < skip)
		return -ENOENT;
	k = btf_vlen(t) - skip;
	*out = sp_arena_alloc(ct->a, (size_t)(k + 1) * sizeof(**out));
	/* one past the parameters: the return value (fexit's retval) */
	(*out)[k].name = "retval";
	(*out)[k].type = from_btf(ct, btf, t->type, 0);
	(*out)[k].reg = k;
	for (i = 0, p = btf_params(t) + skip; i < k; i++, p++) {
		const char *pn = btf__name_by_offset(btf, p->name_off);

		(*out)[i].name = sp_arena_strdup(ct->a, pn ? pn : "");
		(*out)[i].type = from_btf(ct, btf, p->type, 0);
		(*out)[i].reg = i;
	}
	*n = k;
	return 0;
}

int sp_ctypes_btf_rawtp_params(struct sp_ctypes *ct, const char *event, struct sp_cparam **out,
			       int *n)
{
	char name[256];

	snprintf(name, sizeof(name), "__bpf_trace_%s", event);
	return func_params(ct, name, 1, out, n);
}

int sp_ctypes_btf_func_params(struct sp_ctypes *ct, const char *func, struct sp_cparam **out,
			      int *n)
{
	return func_params(ct, func, 0, out, n);
}

/* C spelling of BTF type id into buf (appending): "struct task_struct *". */
static void btf_spell(const struct btf *btf, __u32 id, char *buf, size_t len, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	size_t n = strlen(buf);
	const char *name;

	if (!t || id == 0 || depth > 8) {
		snprintf(buf + n, len - n, "void");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	if (btf_is_ptr(t)) {
		btf_spell(btf, t->type, buf, len, depth + 1);
		n = strlen(buf);
		snprintf(buf + n, len - n, " *");
	} else if (btf_is_const(t) || btf_is_volatile(t)) {
		snprintf(buf + n, len - n, "%s ", btf_is_const(t) ? "const" : "volatile");
		btf_spell(btf, t->type, buf, len, depth + 1);
	} else if (btf_is_composite(t) || btf_is_enum(t)) {
		snprintf(buf + n, len - n, "%s %s", btf_is_union(t) ? "union" :
			 btf_is_enum(t) ? "enum" : "struct", name ? name : "");
	} else {
		snprintf(buf + n, len - n, "%s", name && *name ? name : "?");
	}
}

/* `-lv` of a raw tracepoint: its arguments from BTF, "    TYPE NAME". */
static int list_rawtp_args(struct btf *btf, const char *event, FILE *out)
{
	const struct btf_type *t = NULL;
	const struct btf_param *p;
	char name[256];
	__s32 id;

	if (!btf)
		return -ENODATA;
	snprintf(name, sizeof(name), "__bpf_trace_%s", event);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id > 0)
		t = btf__type_by_id(btf, btf__type_by_id(btf, (__u32)id)->type);
	for (int i = 1; t && btf_is_func_proto(t) && i < btf_vlen(t); i++) {
		char ctype[128] = "";

		p = btf_params(t) + i;
		btf_spell(btf, p->type, ctype, sizeof(ctype), 0);
		fprintf(out, "    %s %s\n", ctype, btf__name_by_offset(btf, p->name_off));
	}
	return 0;
}

/* `-lv` of fentry/fexit: a kernel function's arguments and return value,
 * as bpftrace lists them ("    struct file * file", "    ssize_t retval"). */
static int list_func_args(struct btf *btf, const char *func, FILE *out)
{
	__s32 id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf,
							      (__u32)id)->type) : NULL;
	char ctype[128];

	if (!t || !btf_is_func_proto(t))
		return -ENOENT;
	for (int i = 0; i < btf_vlen(t); i++) {
		const struct btf_param *p = btf_params(t) + i;

		ctype[0] = '\0';
		btf_spell(btf, p->type, ctype, sizeof(ctype), 0);
		fprintf(out, "    %s %s\n", ctype, btf__name_by_offset(btf, p->name_off));
	}
	if (t->type) {
		ctype[0] = '\0';
		btf_spell(btf, t->type, ctype, sizeof(ctype), 0);
		fprintf(out, "    %s retval\n", ctype);
	}
	return 0;
}

/* The listing's hook: ctx is a struct sp_arglister (BTF loaded once). */
struct sp_arglister {
	struct btf *btf;
	bool tried;
};

struct sp_arglister *sp_arglister_new(void)
{
	return calloc(1, sizeof(struct sp_arglister));
}

void sp_arglister_free(struct sp_arglister *l)
{
	if (l)
		btf__free(l->btf);
	free(l);
}

int sp_list_args(void *ctx, const char *binary, const char *func, FILE *out)
{
	struct sp_arglister *l = ctx;

	/* "[kernel]": a kernel function (runtime/attach/probe.h's SP_LIST_KFUNC) */
	bool kfunc = binary && !strcmp(binary, "[kernel]");

	if (binary && !kfunc)
		return sp_dwarf_list_params(binary, func, out);
	if (!l->tried) {
		l->tried = true;
		l->btf = btf__load_vmlinux_btf();
	}
	if (!l->btf)
		return -ENODATA;
	return kfunc ? list_func_args(l->btf, func, out) : list_rawtp_args(l->btf, func, out);
}
