/* codegen/cg_text.c: the emitters of the builtins that read, compare and
 * make strings and bytes (stdlib/builtins.def's EMIT column).
 *
 * str and buf (user or kernel memory, sleepable reads in uprobes), strncmp,
 * bswap (LLVM's bswap intrinsic at the argument's size), strcontains (a
 * bpf_loop search in bpf/strings.bpf.c), macaddr (an 8-byte value user
 * space prints as text: runtime/format_text.c), pton (the literal's bytes,
 * parsed here), join (one ring-buffer record of up to SP_JOIN_ARGNUM
 * strings, filled by bpf/events.bpf.c) and debugf (bpf_trace_printk).
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

/* A uprobe or USDT program reading user memory is loaded sleepable, so a
 * page the process never touched can be faulted in (bpf/common.bpf.c's
 * sp_read_str_sleepable). True when the current program is one. */
static bool sleepable_read(struct cg *g)
{
	if (!user_mem(g) || g->plan->nprobes == 0)
		return false;
	g->plan->probes[g->plan->nprobes - 1].sleepable = true;
	return true;
}

/* str(p[, n]): a NUL-terminated string read from user or kernel memory. */
LLVMValueRef cg_emit_str(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *src = n->list.len ? n->list.items[0] : NULL;
	uint32_t size = n->type && n->type->kind == SP_T_STRING ? n->type->size : SP_DEFAULT_STRLEN;
	LLVMValueRef buf, args[4], len;

	if (!src)
		return cg_str_const(g, "", 0, size);
	if (src->type && src->type->kind == SP_T_STRING) {
		buf = cg_alloca(g, size, "str");
		cg_store_conv(g, buf, cg_expr(g, src), src->type, n->type);
		return buf;
	}
	/* str(p, n) reads n bytes, the NUL the helper always writes included
	 * (bpftrace 0.27: n - 1 characters; 0.17 kept n) */
	buf = cg_alloca(g, size, "str");
	cg_memset0(g, buf, size);
	len = cg_u64(g, size);
	if (n->list.len > 1) {
		LLVMValueRef want = cg_expr(g, n->list.items[1]);
		LLVMValueRef small;

		want = LLVMBuildZExtOrBitCast(g->B, want, g->i64, "");
		small = LLVMBuildICmp(g->B, LLVMIntULT, want, len, "");
		len = LLVMBuildSelect(g->B, small, want, len, "");
	}
	args[0] = buf;
	args[1] = LLVMBuildTrunc(g->B, len, g->i32, "");
	args[2] = LLVMBuildIntToPtr(g->B, cg_expr(g, src), g->ptr, "");
	args[3] = LLVMConstInt(g->i32, user_mem(g), 0);
	if (sleepable_read(g)) {
		cg_helper_check(g, cg_call_fn(g, "sp_read_str_sleepable", args, 3), 2,
				SP_LOST_HELPER_READ);
		return buf;
	}
	cg_helper_check(g, cg_call_fn(g, "sp_read_str", args, 4), 2, SP_LOST_HELPER_READ);
	return buf;
}

/* buf(p, n): a u8 length and up to the type's size of raw bytes. */
LLVMValueRef cg_emit_buf(struct cg *g, const struct sp_node *n)
{
	uint32_t size = n->type && n->type->kind == SP_T_BUF ? n->type->size : 64;
	const struct sp_type *src_t = n->list.len ? n->list.items[0]->type : NULL;
	LLVMValueRef buf, len, args[4];

	if (n->list.len < 1) {
		cg_error(g, n->span, "buf needs a pointer");
		return cg_u64(g, 0);
	}
	buf = cg_alloca(g, size + 1, "buf");
	cg_memset0(g, buf, size + 1);
	len = cg_u64(g, size);
	if (n->list.len > 1) {
		LLVMValueRef want = cg_expr(g, n->list.items[1]);
		LLVMValueRef small = LLVMBuildICmp(g->B, LLVMIntULT, want, len, "");

		len = LLVMBuildSelect(g->B, small, want, len, "");
	}
	if (src_t && (src_t->kind == SP_T_STRING || src_t->kind == SP_T_ARRAY)) {
		/* a string's (an array's) bytes, NUL padded to n (never what lies past it) */
		uint32_t have = src_t->kind == SP_T_ARRAY ? sp_type_csize(src_t) : src_t->size;

		cg_memcpy(g, cg_gep(g, buf, 1), cg_expr(g, n->list.items[0]),
			  have < size ? have : size);
		cg_store_int(g, buf, len, 1);
		return buf;
	}
	args[0] = cg_gep(g, buf, 1);
	args[1] = LLVMBuildTrunc(g->B, len, g->i32, "");
	args[2] = LLVMBuildIntToPtr(g->B, cg_expr(g, n->list.items[0]), g->ptr, "");
	args[3] = LLVMConstInt(g->i32, user_mem(g), 0);
	if (sleepable_read(g))
		cg_helper_check(g, cg_call_fn(g, "sp_read_sleepable", args, 3), 2, SP_LOST_HELPER_READ);
	else
		cg_helper_check(g, cg_call_fn(g, "sp_read", args, 4), 2, SP_LOST_HELPER_READ);
	cg_store_int(g, buf, len, 1);
	return buf;
}

LLVMValueRef cg_emit_strncmp(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *lim = n->list.len > 2 ? n->list.items[2] : NULL;
	LLVMValueRef eq;

	if (n->list.len < 2 || (lim && lim->kind != SP_N_INT)) {
		cg_error(g, n->span, "strncmp needs two strings and a literal length");
		return cg_u64(g, 0);
	}
	eq = cg_str_eq(g, n->list.items[0], n->list.items[1], lim ? (uint32_t)lim->ival : UINT32_MAX);
	return LLVMBuildXor(g->B, eq, cg_u64(g, 1), "");
}

/* strlen(s): the bytes before the first NUL, at most the string's size:
 * one compare a byte, unrolled (the size is known), as cg_str_eq() does. */
LLVMValueRef cg_emit_strlen(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *s = arg(n, 0);
	uint32_t size = s->type && s->type->kind == SP_T_STRING ? s->type->size : 0;
	LLVMBasicBlockRef done, next, *from;
	LLVMValueRef p, phi, *len;

	if (s->kind == SP_N_STR)
		return cg_u64(g, s->len);
	if (!size)
		return cg_u64(g, 0);
	from = calloc(size + 1, sizeof(*from));
	len = calloc(size + 1, sizeof(*len));
	if (!from || !len) {
		free(from);
		free(len);
		cg_error(g, n->span, "out of memory");
		return cg_u64(g, 0);
	}
	p = cg_expr(g, s);
	done = cg_block(g, "strlen");
	for (uint32_t i = 0; i < size; i++) {
		LLVMValueRef c = LLVMBuildLoad2(g->B, g->i8, cg_gep(g, p, i), "");

		next = cg_block(g, "strlen_next");
		from[i] = LLVMGetInsertBlock(g->B);
		len[i] = cg_u64(g, i);
		LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, c, LLVMConstInt(g->i8, 0, 0), ""),
				done, next);
		LLVMPositionBuilderAtEnd(g->B, next);
	}
	from[size] = LLVMGetInsertBlock(g->B);
	len[size] = cg_u64(g, size);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
	phi = LLVMBuildPhi(g->B, g->i64, "strlen");
	LLVMAddIncoming(phi, len, from, size + 1);
	free(from);
	free(len);
	return phi;
}

/* bswap(x): reverse the bytes of x's size; a 1-byte value stays. */
LLVMValueRef cg_emit_bswap(struct cg *g, const struct sp_node *n)
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
LLVMValueRef cg_emit_strcontains(struct cg *g, const struct sp_node *n)
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
LLVMValueRef cg_emit_macaddr(struct cg *g, const struct sp_node *n)
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

/* path(p[, n]): bpf_d_path() of the struct path at p (its address when p
 * is the struct itself) into a string of the type's size. */
LLVMValueRef cg_emit_path(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = arg(n, 0);
	uint32_t size = n->type->size;
	LLVMValueRef buf = cg_alloca(g, size, "path"), args[3];

	cg_memset0(g, buf, size);
	args[0] = LLVMBuildIntToPtr(g->B, a->type->kind == SP_T_RECORD ? cg_addrof(g, a) :
					  cg_expr(g, a), g->ptr, "");
	args[1] = buf;
	args[2] = LLVMConstInt(g->i32, size, 0);
	cg_helper_check(g, cg_call_helper(g, BPF_FUNC_d_path, g->i64, args, 3), 2,
			SP_LOST_HELPER_READ);
	return buf;
}

/* pton("addr"): the address bytes, in network order. */
LLVMValueRef cg_emit_pton(struct cg *g, const struct sp_node *n)
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
LLVMValueRef cg_emit_join(struct cg *g, const struct sp_node *n)
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
LLVMValueRef cg_emit_debugf(struct cg *g, const struct sp_node *n)
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
