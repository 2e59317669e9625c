/* codegen/cg_builtins_more.c: the smaller builtins, one function each.
 *
 * bswap (LLVM's bswap intrinsic at the argument's size), strcontains (a
 * bpf_loop search in bpf/strings.bpf.c), strerror / cgroup_path / macaddr
 * (an 8-byte value user space prints as text: runtime/format_text.c),
 * pton (the literal's bytes, parsed here), join (one ring-buffer record of
 * up to SP_JOIN_ARGNUM strings, filled by bpf/events.bpf.c) and debugf
 * (bpf_trace_printk). Kept apart from cg_stmt.c's core calls so adding a
 * builtin touches this file and one line in cg_call_more().
 */
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

static const struct sp_node *arg(const struct sp_node *n, int i)
{
	return i < n->list.len ? n->list.items[i] : NULL;
}

static bool user_mem(struct cg *g)
{
	return g->ptype == SP_PROBE_UPROBE || g->ptype == SP_PROBE_URETPROBE ||
	       g->ptype == SP_PROBE_USDT;
}

static LLVMTypeRef int_type(struct cg *g, uint32_t size)
{
	return size == 2 ? g->i16 : size == 4 ? g->i32 : g->i64;
}

/* bswap(x): reverse the bytes of x's size; a 1-byte value stays. */
static LLVMValueRef bswap_call(struct cg *g, const struct sp_node *n)
{
	uint32_t size = n->type && n->type->kind == SP_T_INT ? n->type->size : 8;
	LLVMValueRef v = cg_expr(g, arg(n, 0)), fn;
	LLVMTypeRef ty, fty;
	unsigned id;

	if (size == 1)
		return LLVMBuildAnd(g->B, v, cg_u64(g, 0xff), "");
	ty = int_type(g, size);
	id = LLVMLookupIntrinsicID("llvm.bswap", 10);
	fn = LLVMGetIntrinsicDeclaration(g->M, id, &ty, 1);
	fty = LLVMIntrinsicGetType(g->C, id, &ty, 1);
	if (size < 8)
		v = LLVMBuildTrunc(g->B, v, ty, "");
	v = LLVMBuildCall2(g->B, fty, fn, &v, 1, "bswap");
	return size < 8 ? LLVMBuildZExt(g->B, v, g->i64, "") : v;
}

/* strcontains(haystack, needle): 0 or 1. */
static LLVMValueRef strcontains_call(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *h = arg(n, 0), *nd = arg(n, 1);
	LLVMValueRef args[4];

	args[0] = cg_expr(g, h);
	args[1] = LLVMConstInt(g->i32, cg_size(h->type), 0);
	args[2] = cg_expr(g, nd);
	args[3] = LLVMConstInt(g->i32, cg_size(nd->type), 0);
	return cg_call_fn(g, "sp_strcontains", args, 4);
}

/* macaddr(p): the 6 bytes at p (or of a 6-byte array) in an 8-byte slot. */
static LLVMValueRef macaddr_call(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = arg(n, 0);
	LLVMValueRef buf = cg_alloca(g, 8, "mac"), args[4];

	cg_memset0(g, buf, 8);
	if (a->type && (a->type->kind == SP_T_ARRAY || a->type->kind == SP_T_RECORD ||
			a->type->kind == SP_T_STRING)) {
		cg_memcpy(g, buf, cg_expr(g, a), 6);
	} else {
		args[0] = buf;
		args[1] = LLVMConstInt(g->i32, 6, 0);
		args[2] = LLVMBuildIntToPtr(g->B, cg_expr(g, a), g->ptr, "");
		args[3] = LLVMConstInt(g->i32, user_mem(g), 0);
		cg_call_fn(g, "sp_read", args, 4);
	}
	return LLVMBuildLoad2(g->B, g->i64, buf, "mac");
}

/* pton("addr"): the address bytes, in network order. */
static LLVMValueRef pton_call(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = arg(n, 0);
	uint32_t count = n->type && n->type->kind == SP_T_ARRAY ? n->type->count : 4;
	unsigned char bytes[16] = { 0 };

	if (a && a->kind == SP_N_STR)
		inet_pton(count == 16 ? AF_INET6 : AF_INET, a->str, bytes);
	return cg_str_const(g, (const char *)bytes, count, count);
}

/* join(argv[, delim]): the delimiter stays in user space (the record's
 * printf entry); BPF sends the strings. */
static LLVMValueRef join_call(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *d = arg(n, 1);
	int id = cg_add_printf(g, d && d->kind == SP_N_STR ? d->str : " ", NULL, 0);
	LLVMValueRef args[3];

	if (id < 0)
		return cg_u64(g, 0);
	args[0] = LLVMConstInt(g->i32, (unsigned)id, 0);
	args[1] = LLVMBuildIntToPtr(g->B, cg_expr(g, arg(n, 0)), g->ptr, "");
	args[2] = LLVMConstInt(g->i32, user_mem(g), 0);
	cg_call_fn(g, "sp_join", args, 3);
	return cg_u64(g, 0);
}

/* bpf_trace_printk's %d/%u/%x print 32 bits unless told "ll": widen
 * every integer conversion, as our values are 64-bit. */
static char *trace_fmt(const char *fmt, uint32_t *len)
{
	size_t cap = strlen(fmt) * 3 + 1, o = 0;
	char *out = malloc(cap);
	const char *p;

	if (!out)
		return NULL;
	for (p = fmt; *p; ) {
		if (*p != '%' || p[1] == '%') {
			out[o++] = *p;
			if (*p++ == '%')
				out[o++] = *p++;
			continue;
		}
		out[o++] = *p++;
		while (*p && strchr("-+ #0123456789.", *p))
			out[o++] = *p++;
		while (*p == 'l' || *p == 'h' || *p == 'z')
			p++;
		if (*p && strchr("diuxX", *p)) {
			out[o++] = 'l';
			out[o++] = 'l';
		}
		if (*p)
			out[o++] = *p++;
	}
	out[o] = '\0';
	*len = (uint32_t)o;
	return out;
}

/* debugf(fmt, a, b, c): bpf_trace_printk; strings are passed by address. */
static LLVMValueRef debugf_call(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *f = arg(n, 0);
	LLVMValueRef args[5];
	uint32_t len = 0;
	char *fmt;
	int i;

	if (!f || f->kind != SP_N_STR || !(fmt = trace_fmt(f->str, &len))) {
		cg_error(g, n->span, "debugf() needs a literal format string");
		return cg_u64(g, 0);
	}
	args[0] = cg_str_const(g, fmt, len, len + 1);
	args[1] = LLVMConstInt(g->i32, len + 1, 0);
	free(fmt);
	for (i = 1; i < n->list.len && i < 4; i++) {
		const struct sp_node *a = n->list.items[i];
		LLVMValueRef v = cg_expr(g, a);

		args[i + 1] = a->type && a->type->kind == SP_T_STRING ?
				      LLVMBuildPtrToInt(g->B, v, g->i64, "") : v;
	}
	cg_call_helper(g, BPF_FUNC_trace_printk, g->i64, args, n->list.len + 1);
	return cg_u64(g, 0);
}

LLVMValueRef cg_call_more(struct cg *g, const struct sp_node *n)
{
	const char *f = n->name;

	if (!strcmp(f, "bswap") && n->list.len == 1)
		return bswap_call(g, n);
	if (!strcmp(f, "strcontains") && n->list.len == 2)
		return strcontains_call(g, n);
	if ((!strcmp(f, "strerror") || !strcmp(f, "cgroup_path")) && n->list.len >= 1)
		return cg_expr(g, n->list.items[0]); /* user space prints the text */
	if (!strcmp(f, "macaddr") && n->list.len == 1)
		return macaddr_call(g, n);
	if (!strcmp(f, "pton") && n->list.len == 1)
		return pton_call(g, n);
	if (!strcmp(f, "join") && n->list.len >= 1)
		return join_call(g, n);
	if (!strcmp(f, "debugf") && n->list.len >= 1)
		return debugf_call(g, n);
	return NULL;
}
