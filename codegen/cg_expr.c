/* codegen/cg_expr.c: expressions and builtins.
 *
 * Integer arithmetic is done in i64 and re-extended to the node's declared
 * type afterwards (C's promotion to a 64-bit int, as in bpftrace).
 * Comparisons are unsigned only when an operand is an unsigned 64-bit
 * value; smaller unsigned values fit in s64. Division and modulo by zero
 * give 0 (LLVM would treat them as undefined). The BPF v3 ISA has no signed
 * division, so signed / and % divide magnitudes and fix the sign.
 *
 * String equality compares bytes up to the shorter declared size and stops
 * at a NUL; against a literal it is a chain of byte compares with constants.
 */
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "parser/builtins.h"

static const struct sp_type s64_type = { .kind = SP_T_INT, .size = 8, .is_signed = true };

/* An aggregation read as an operand is the integer sema reads it as
 * (sema_agg_int: count u64, the others s64). */
static const struct sp_type *type_of(const struct sp_node *n)
{
	static const struct sp_type u64_type = { .kind = SP_T_INT, .size = 8 };

	if (n->type && n->type->kind == SP_T_AGG)
		return n->type->agg == SP_AGG_COUNT ? &u64_type : &s64_type;
	return n->type ? n->type : &s64_type;
}

static bool is_u64(const struct sp_type *t)
{
	return t->kind != SP_T_INT || (t->size >= 8 && !t->is_signed);
}

/* A string literal into `size` bytes of memory, NUL padded and cut to fit. */
static void str_into(struct cg *g, LLVMValueRef p, const char *s, uint32_t len, uint32_t size)
{
	if (len >= size)
		len = size ? size - 1 : 0;
	cg_memset0(g, p, size);
	for (uint32_t off = 0; off < len; off += 8) {
		uint64_t w = 0;
		uint32_t n = len - off < 8 ? len - off : 8;

		memcpy(&w, s + off, n); /* BPF and the host are little-endian */
		if (off && off % CG_MEMCPY_CHUNK == 0) /* a long run of one byte must not */
			cg_barrier(g);                  /* become one memset too big to lower */
		if (n == 8)
			cg_store_int(g, cg_gep(g, p, off), cg_u64(g, w), 8);
		else
			for (uint32_t i = 0; i < n; i++)
				cg_store_int(g, cg_gep(g, p, off + i),
					     cg_u64(g, (unsigned char)s[off + i]), 1);
	}
}

/* A string literal in zeroed memory of `size` bytes (at least len + 1). */
LLVMValueRef cg_str_const(struct cg *g, const char *s, uint32_t len, uint32_t size)
{
	LLVMValueRef p;

	if (size < len + 1)
		size = len + 1;
	p = cg_alloca(g, size, "str");
	str_into(g, p, s, len, size);
	return p;
}

/* ---- builtins ------------------------------------------------------------------ */

static LLVMValueRef helper0(struct cg *g, int id)
{
	return cg_call_helper(g, id, g->i64, NULL, 0);
}

static int stack_limit(const struct sp_node *n)
{
	const struct sp_type *t = n->type;
	int limit = t && t->stack_limit > 0 ? t->stack_limit : SP_DEFAULT_STACK_LIMIT;

	if (n->kind == SP_N_CALL) {
		for (int i = 0; i < n->list.len; i++)
			if (n->list.items[i]->kind == SP_N_INT)
				limit = (int)n->list.items[i]->ival;
	}
	return limit > SP_MAX_FRAMES ? SP_MAX_FRAMES : limit;
}

/* ustack (or pystack / rbstack: the Python / Ruby frames alone) into a
 * struct sp_ustack_key at dst. */
static void stack_into(struct cg *g, const struct sp_node *n, LLVMValueRef dst)
{
	LLVMValueRef args[3] = { g->ctx, dst, LLVMConstInt(g->i32, stack_limit(n), 0) };
	bool py = n->bi == SP_BV_pystack || n->bi == SP_BF_pystack;
	bool rb = n->bi == SP_BV_rbstack || n->bi == SP_BF_rbstack;

	g->plan->uses_ustack = true;
	cg_call_fn(g, py ? "sp_pystack" : rb ? "sp_rbstack" : "sp_ustack", args, 3);
}

static LLVMValueRef stack_builtin(struct cg *g, const struct sp_node *n, bool user)
{
	LLVMValueRef args[2], p;

	if (!user) {
		args[0] = g->ctx;
		args[1] = LLVMConstInt(g->i32, stack_limit(n), 0);
		g->plan->uses_kstack = true;
		return cg_call_fn(g, "sp_kstack", args, 2);
	}
	p = cg_alloca(g, sizeof(struct sp_ustack_key), "ustack");
	stack_into(g, n, p);
	return p;
}

static LLVMValueRef string_builtin(struct cg *g, const struct sp_node *n, const char *s)
{
	uint32_t size = n->type && n->type->kind == SP_T_STRING ? n->type->size : 0;

	if (!s)
		s = "";
	return cg_str_const(g, s, strlen(s), size);
}

static bool has_wildcard(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

/* True when one program serves several functions or events. */
bool cg_attach_wild(const struct sp_attach *a)
{
	return a && (has_wildcard(a->target) || has_wildcard(a->func) || has_wildcard(a->ns));
}

/* func (which 0) / probe (which 1): a constant, or for a wildcard attach
 * point the name user space stored for the attach cookie. */
static LLVMValueRef probe_name(struct cg *g, const struct sp_node *n, int which)
{
	uint32_t size = n->type && n->type->kind == SP_T_STRING ? n->type->size : SP_DEFAULT_STRLEN;
	LLVMValueRef buf, args[4];

	if (!cg_attach_wild(g->attach) && !cg_share_names(g)) {
		char full[512];
		const struct sp_attach *a = g->attach;
		const char *colon = a && a->raw ? strchr(a->raw, ':') : NULL;

		if (!which || !a)
			return string_builtin(g, n, a ? a->func : "");
		/* the canonical name, as bpftrace prints it: "p:hz:99" -> "profile:hz:99";
		 * `begin`/`end` as written (bpftrace 0.27's names; 0.17's BEGIN, END) */
		if (a->raw && (!strcmp(a->raw, "begin") || !strcmp(a->raw, "end")))
			return string_builtin(g, n, a->raw);
		snprintf(full, sizeof(full), "%s%s", a->provider ? a->provider : "",
			 colon ? colon : "");
		return string_builtin(g, n, a->provider ? full : a->raw);
	}
	g->plan->probes[g->plan->nprobes - 1].uses_names = true;
	buf = cg_alloca(g, size, which ? "probe" : "func");
	cg_memset0(g, buf, size);
	args[0] = g->ctx;
	args[1] = LLVMConstInt(g->i32, which, 0);
	args[2] = buf;
	args[3] = LLVMConstInt(g->i32, size, 0);
	cg_call_fn(g, "sp_probe_name", args, 4);
	return buf;
}

/* argN / retval through bpf/args.bpf.c (constant n, so each call folds to
 * one context load). */
static LLVMValueRef arg_builtin(struct cg *g, const struct sp_node *n)
{
	const char *fn = "sp_arg";
	LLVMValueRef args[2] = { g->ctx, NULL }, v;
	int nargs = 2;

	if (n->bi == SP_BV_retval) {
		fn = "sp_retval";
		nargs = 1;
	} else if (g->ptype == SP_PROBE_USDT) {
		fn = "sp_usdt_arg";
	} else if (g->ptype == SP_PROBE_KPROBE || g->ptype == SP_PROBE_KRETPROBE) {
		fn = "sp_karg";
	} else if (g->ptype == SP_PROBE_RAWTRACEPOINT || g->ptype == SP_PROBE_FENTRY ||
		   g->ptype == SP_PROBE_FEXIT) {
		fn = "sp_rawtp_arg"; /* the same u64 args[] context */
	}
	args[1] = LLVMConstInt(g->i32, strtol(n->name + 3, NULL, 10), 0);
	v = cg_call_fn(g, fn, args, nargs);
	if (!v) {
		cg_error(g, n->span, "'%s' is not available in this probe", n->name);
		return cg_u64(g, 0);
	}
	if (LLVMTypeOf(v) != g->i64)
		v = LLVMBuildSExt(g->B, v, g->i64, "");
	return cg_norm(g, v, n->type);
}

/* Address of the probed function (uprobe: a user address, kprobe: a
 * kernel one), or of the sample for perf events. */
static LLVMValueRef ctx_ip(struct cg *g)
{
	LLVMValueRef v = NULL;

	if (g->ptype == SP_PROBE_UPROBE || g->ptype == SP_PROBE_URETPROBE ||
	    g->ptype == SP_PROBE_KPROBE || g->ptype == SP_PROBE_KRETPROBE)
		v = cg_call_fn(g, "sp_func_ip", &g->ctx, 1);
	if (v)
		return v;
	v = LLVMBuildLoad2(g->B, g->i64, cg_gep(g, g->ctx, 128), "ip"); /* pt_regs->ip */
	LLVMSetAlignment(v, 8);
	return v;
}

static LLVMValueRef pid_tgid(struct cg *g, bool hi)
{
	LLVMValueRef v = helper0(g, BPF_FUNC_get_current_pid_tgid);

	if (hi)
		return LLVMBuildLShr(g->B, v, cg_u64(g, 32), "");
	return LLVMBuildAnd(g->B, v, cg_u64(g, 0xffffffffu), "");
}

static LLVMValueRef uid_gid(struct cg *g, bool hi)
{
	LLVMValueRef v = helper0(g, BPF_FUNC_get_current_uid_gid);

	if (hi)
		return LLVMBuildLShr(g->B, v, cg_u64(g, 32), "");
	return LLVMBuildAnd(g->B, v, cg_u64(g, 0xffffffffu), "");
}

static LLVMValueRef comm_builtin(struct cg *g, const struct sp_node *n)
{
	uint32_t size = n->type && n->type->size ? n->type->size : 16;
	LLVMValueRef p = cg_alloca(g, size, "comm");
	LLVMValueRef args[2] = { p, LLVMConstInt(g->i32, size, 0) };

	cg_call_helper(g, BPF_FUNC_get_current_comm, g->i64, args, 2);
	return p;
}

/* --- the emitters of builtin values (stdlib/builtins.def's EMIT column) ---- */

/* pid and tid in sprof's pid namespace: bpf_get_ns_current_pid_tgid()
 * fills struct bpf_pidns_info { u32 pid (the thread), u32 tgid }, zeros
 * for a task outside it. Only asked for when sprof runs in another
 * namespace than the initial one, where the plain helper is the answer. */
static LLVMValueRef pid_tgid_ns(struct cg *g, bool hi)
{
	LLVMValueRef info = cg_alloca(g, 8, "pidns"), args[4], v;

	cg_memset0(g, info, 8);
	args[0] = cg_u64(g, g->opts->pidns_dev);
	args[1] = cg_u64(g, g->opts->pidns_ino);
	args[2] = info;
	args[3] = LLVMConstInt(g->i32, 8, 0);
	cg_call_helper(g, BPF_FUNC_get_ns_current_pid_tgid, g->i64, args, 4);
	v = LLVMBuildLoad2(g->B, g->i32, hi ? cg_gep(g, info, 4) : info, "");
	return LLVMBuildZExt(g->B, v, g->i64, "");
}

LLVMValueRef cg_emit_pid(struct cg *g, const struct sp_node *n)
{
	if (g->opts->pidns_ino && n->ival == 0)
		return pid_tgid_ns(g, true);
	return pid_tgid(g, true);
}

LLVMValueRef cg_emit_tid(struct cg *g, const struct sp_node *n)
{
	if (g->opts->pidns_ino && n->ival == 0)
		return pid_tgid_ns(g, false);
	return pid_tgid(g, false);
}

/* uid, and username: the uid, printed as a name */
LLVMValueRef cg_emit_uid(struct cg *g, const struct sp_node *n)
{
	(void)n;
	return uid_gid(g, false);
}

LLVMValueRef cg_emit_gid(struct cg *g, const struct sp_node *n)
{
	(void)n;
	return uid_gid(g, true);
}

LLVMValueRef cg_emit_comm(struct cg *g, const struct sp_node *n)
{
	return comm_builtin(g, n);
}

/* nsecs, nsecs(boot), nsecs(tai): the clock in the node's ival */
LLVMValueRef cg_emit_nsecs(struct cg *g, const struct sp_node *n)
{
	return helper0(g, n->ival == 1 ? BPF_FUNC_ktime_get_boot_ns :
			  n->ival == 2 ? BPF_FUNC_ktime_get_tai_ns : BPF_FUNC_ktime_get_ns);
}

LLVMValueRef cg_emit_probe(struct cg *g, const struct sp_node *n)
{
	return probe_name(g, n, 1);
}

LLVMValueRef cg_emit_func(struct cg *g, const struct sp_node *n)
{
	if (n->type && n->type->kind == SP_T_STRING)
		return probe_name(g, n, 0);
	return ctx_ip(g);
}

/* probetype: the probe type's name; BEGIN and END are "special", as bpftrace says */
LLVMValueRef cg_emit_probetype(struct cg *g, const struct sp_node *n)
{
	bool special = g->ptype == SP_PROBE_BEGIN || g->ptype == SP_PROBE_END;

	return string_builtin(g, n, special ? "special" : sp_probe_type_name(g->ptype));
}

/* argN and retval */
LLVMValueRef cg_emit_arg(struct cg *g, const struct sp_node *n)
{
	return arg_builtin(g, n);
}

LLVMValueRef cg_emit_ctx(struct cg *g, const struct sp_node *n)
{
	(void)n;
	return LLVMBuildPtrToInt(g->B, g->ctx, g->i64, "ctx");
}

/* ustack, kstack, pystack, rbstack, as values and as calls */
LLVMValueRef cg_emit_stack(struct cg *g, const struct sp_node *n)
{
	return stack_builtin(g, n, n->bi != SP_BV_kstack && n->bi != SP_BF_kstack);
}

/* ---- operators --------------------------------------------------------------- */

static LLVMValueRef udiv0(struct cg *g, LLVMValueRef a, LLVMValueRef b, bool rem)
{
	LLVMValueRef zero = LLVMBuildICmp(g->B, LLVMIntEQ, b, cg_u64(g, 0), "");
	LLVMValueRef d = LLVMBuildSelect(g->B, zero, cg_u64(g, 1), b, "");
	LLVMValueRef r = rem ? LLVMBuildURem(g->B, a, d, "") : LLVMBuildUDiv(g->B, a, d, "");

	return LLVMBuildSelect(g->B, zero, cg_u64(g, 0), r, "");
}

static LLVMValueRef iabs(struct cg *g, LLVMValueRef v, LLVMValueRef neg)
{
	return LLVMBuildSelect(g->B, neg, LLVMBuildNeg(g->B, v, ""), v, "");
}

static LLVMValueRef sdiv0(struct cg *g, LLVMValueRef a, LLVMValueRef b, bool rem)
{
	LLVMValueRef na = LLVMBuildICmp(g->B, LLVMIntSLT, a, cg_u64(g, 0), "");
	LLVMValueRef nb = LLVMBuildICmp(g->B, LLVMIntSLT, b, cg_u64(g, 0), "");
	LLVMValueRef q = udiv0(g, iabs(g, a, na), iabs(g, b, nb), rem);
	LLVMValueRef neg = rem ? na : LLVMBuildXor(g->B, na, nb, "");

	return iabs(g, q, neg);
}


static LLVMValueRef compare(struct cg *g, const struct sp_node *n, LLVMValueRef a,
			    LLVMValueRef b)
{
	bool u = is_u64(type_of(n->a)) || is_u64(type_of(n->b));
	LLVMIntPredicate p;

	switch (n->op) {
	case SP_OP_EQ:
		p = LLVMIntEQ;
		break;
	case SP_OP_NE:
		p = LLVMIntNE;
		break;
	case '<':
		p = u ? LLVMIntULT : LLVMIntSLT;
		break;
	case '>':
		p = u ? LLVMIntUGT : LLVMIntSGT;
		break;
	case SP_OP_LE:
		p = u ? LLVMIntULE : LLVMIntSLE;
		break;
	default:
		p = u ? LLVMIntUGE : LLVMIntSGE;
		break;
	}
	return LLVMBuildZExt(g->B, LLVMBuildICmp(g->B, p, a, b, ""), g->i64, "");
}

/* Integer binary operator on i64 operands; signedness from the node. */
LLVMValueRef cg_arith(struct cg *g, int op, LLVMValueRef a, LLVMValueRef b, bool sgn)
{
	LLVMValueRef sh;

	switch (op) {
	case '+':
		return LLVMBuildAdd(g->B, a, b, "");
	case '-':
		return LLVMBuildSub(g->B, a, b, "");
	case '*':
		return LLVMBuildMul(g->B, a, b, "");
	case '/':
		return sgn ? sdiv0(g, a, b, false) : udiv0(g, a, b, false);
	case '%':
		return sgn ? sdiv0(g, a, b, true) : udiv0(g, a, b, true);
	case '&':
		return LLVMBuildAnd(g->B, a, b, "");
	case '|':
		return LLVMBuildOr(g->B, a, b, "");
	case '^':
		return LLVMBuildXor(g->B, a, b, "");
	case SP_OP_SHL:
		sh = LLVMBuildAnd(g->B, b, cg_u64(g, 63), "");
		return LLVMBuildShl(g->B, a, sh, "");
	case SP_OP_SHR:
		sh = LLVMBuildAnd(g->B, b, cg_u64(g, 63), "");
		return sgn ? LLVMBuildAShr(g->B, a, sh, "") : LLVMBuildLShr(g->B, a, sh, "");
	default:
		return a;
	}
}

/* a && b, a || b with short-circuit evaluation; 0 or 1. */
static LLVMValueRef logical(struct cg *g, const struct sp_node *n)
{
	bool is_and = n->op == SP_OP_LAND;
	LLVMValueRef a = cg_cond(g, n->a), b, in[2];
	LLVMBasicBlockRef from = LLVMGetInsertBlock(g->B), rhs = cg_block(g, "rhs");
	LLVMBasicBlockRef done = cg_block(g, "logic"), bb[2];
	LLVMValueRef phi;

	if (is_and)
		LLVMBuildCondBr(g->B, a, rhs, done);
	else
		LLVMBuildCondBr(g->B, a, done, rhs);
	LLVMPositionBuilderAtEnd(g->B, rhs);
	b = cg_cond(g, n->b);
	bb[1] = LLVMGetInsertBlock(g->B);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
	phi = LLVMBuildPhi(g->B, g->i1, "");
	in[0] = LLVMConstInt(g->i1, is_and ? 0 : 1, 0);
	in[1] = b;
	bb[0] = from;
	LLVMAddIncoming(phi, in, bb, 2);
	return LLVMBuildZExt(g->B, phi, g->i64, "");
}

static bool is_string(const struct sp_node *n)
{
	return n->type && n->type->kind == SP_T_STRING;
}

static bool is_bytes(const struct sp_node *n)
{
	return n->type && (n->type->kind == SP_T_ARRAY || n->type->kind == SP_T_BUF);
}

/* 1 when two arrays (or buffers: length byte and data) hold the same bytes:
 * the xor of 8-byte words (then single bytes) or-ed together, no branches. */
static LLVMValueRef bytes_eq(struct cg *g, const struct sp_node *x, const struct sp_node *y)
{
	uint32_t sx = cg_size(x->type), sy = cg_size(y->type), n = sx < sy ? sx : sy, i;
	LLVMValueRef pa = cg_expr(g, x), pb = cg_expr(g, y), acc = cg_u64(g, 0);

	for (i = 0; i < n; i += i + 8 <= n ? 8 : 1) {
		LLVMTypeRef ty = i + 8 <= n ? g->i64 : g->i8;
		LLVMValueRef va = LLVMBuildLoad2(g->B, ty, cg_gep(g, pa, i), "");
		LLVMValueRef vb = LLVMBuildLoad2(g->B, ty, cg_gep(g, pb, i), "");

		LLVMSetAlignment(va, 1);
		LLVMSetAlignment(vb, 1);
		acc = LLVMBuildOr(g->B, acc, LLVMBuildZExt(g->B, LLVMBuildXor(g->B, va, vb, ""),
							   g->i64, ""), "");
	}
	if (sx != sy && x->type->kind == SP_T_ARRAY) /* arrays of other sizes differ */
		return cg_u64(g, 0);
	return LLVMBuildZExt(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, acc, cg_u64(g, 0), ""), g->i64,
			     "");
}

static LLVMValueRef binop(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef a, b;
	bool sgn = n->type && n->type->kind == SP_T_INT && n->type->is_signed;

	if (n->op == SP_OP_LAND || n->op == SP_OP_LOR)
		return logical(g, n);
	if ((n->op == SP_OP_EQ || n->op == SP_OP_NE) && (is_string(n->a) || is_string(n->b))) {
		LLVMValueRef eq = cg_str_eq(g, n->a, n->b, UINT32_MAX);

		if (n->op == SP_OP_NE)
			eq = LLVMBuildXor(g->B, eq, cg_u64(g, 1), "");
		return eq;
	}
	if ((n->op == SP_OP_EQ || n->op == SP_OP_NE) && is_bytes(n->a) && is_bytes(n->b)) {
		LLVMValueRef eq = bytes_eq(g, n->a, n->b);

		return n->op == SP_OP_NE ? LLVMBuildXor(g->B, eq, cg_u64(g, 1), "") : eq;
	}
	a = cg_expr(g, n->a);
	b = cg_expr(g, n->b);
	switch (n->op) {
	case SP_OP_EQ:
	case SP_OP_NE:
	case '<':
	case '>':
	case SP_OP_LE:
	case SP_OP_GE:
		return compare(g, n, a, b);
	default:
		if (n->type && n->type->kind == SP_T_PTR && (n->op == '+' || n->op == '-'))
			return cg_ptr_arith(g, n, a, b);
		if (n->op == SP_OP_SHR)
			sgn = type_of(n->a)->kind == SP_T_INT && type_of(n->a)->is_signed;
		return cg_norm(g, cg_arith(g, n->op, a, b, sgn), n->type);
	}
}

/* ---- strings ------------------------------------------------------------------- */

static uint32_t str_size(const struct sp_node *n)
{
	if (n->kind == SP_N_STR)
		return n->len + 1;
	return n->type ? n->type->size : SP_DEFAULT_STRLEN;
}

static LLVMValueRef load_byte(struct cg *g, LLVMValueRef p, uint32_t i)
{
	return LLVMBuildLoad2(g->B, g->i8, cg_gep(g, p, i), "");
}

/* 1 when the strings are equal up to the shorter declared size (and at
 * most `limit` bytes: strncmp). */
LLVMValueRef cg_str_eq(struct cg *g, const struct sp_node *x, const struct sp_node *y,
		       uint32_t limit)
{
	LLVMBasicBlockRef yes, no, done, next;
	LLVMValueRef pa, pb = NULL, phi, in[2];
	LLVMBasicBlockRef bb[2];
	uint32_t n;
	bool lit;

	if (x->kind == SP_N_STR && y->kind != SP_N_STR) {
		const struct sp_node *t = x;

		x = y;
		y = t;
	}
	if (x->kind == SP_N_STR) /* both literals */
		return cg_u64(g, strncmp(x->str, y->str, limit) == 0);
	lit = y->kind == SP_N_STR;
	n = str_size(x) < str_size(y) ? str_size(x) : str_size(y);
	if (limit < n)
		n = limit;
	pa = cg_expr(g, x);
	if (!lit)
		pb = cg_expr(g, y);
	yes = cg_block(g, "streq");
	no = cg_block(g, "strne");
	done = cg_block(g, "strcmp");
	for (uint32_t i = 0; i < n; i++) {
		LLVMValueRef ca = load_byte(g, pa, i);
		LLVMValueRef cb = lit ? LLVMConstInt(g->i8, i < y->len ? (unsigned char)y->str[i] : 0, 0)
				      : load_byte(g, pb, i);

		next = cg_block(g, "strnext");
		LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntNE, ca, cb, ""), no, next);
		LLVMPositionBuilderAtEnd(g->B, next);
		if (!lit) {
			next = cg_block(g, "strnext");
			LLVMBuildCondBr(g->B,
					LLVMBuildICmp(g->B, LLVMIntEQ, ca,
						      LLVMConstInt(g->i8, 0, 0), ""),
					yes, next);
			LLVMPositionBuilderAtEnd(g->B, next);
		}
	}
	LLVMBuildBr(g->B, yes);
	LLVMPositionBuilderAtEnd(g->B, yes);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, no);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
	phi = LLVMBuildPhi(g->B, g->i64, "");
	in[0] = cg_u64(g, 1);
	in[1] = cg_u64(g, 0);
	bb[0] = yes;
	bb[1] = no;
	LLVMAddIncoming(phi, in, bb, 2);
	return phi;
}

/* ---- the rest ------------------------------------------------------------------ */

static LLVMValueRef unop(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef v;

	if (n->op == '!')
		return LLVMBuildZExt(g->B, LLVMBuildNot(g->B, cg_cond(g, n->a), ""), g->i64, "");
	v = cg_expr(g, n->a);
	if (n->op == '~')
		v = LLVMBuildNot(g->B, v, "");
	else if (n->op == '-')
		v = LLVMBuildNeg(g->B, v, "");
	return cg_norm(g, v, n->type);
}

static LLVMValueRef ternary(struct cg *g, const struct sp_node *n)
{
	const struct sp_type *t = type_of(n);
	LLVMBasicBlockRef yes = cg_block(g, "then"), no = cg_block(g, "else");
	LLVMBasicBlockRef done = cg_block(g, "tern"), bb[2];
	LLVMValueRef res = NULL, in[2], phi;
	bool scalar = cg_is_scalar(t), none = t->kind == SP_T_VOID;

	if (none) { /* both branches are statements */
		LLVMBuildCondBr(g->B, cg_cond(g, n->a), yes, no);
		LLVMPositionBuilderAtEnd(g->B, yes);
		cg_expr(g, n->b);
		LLVMBuildBr(g->B, done);
		LLVMPositionBuilderAtEnd(g->B, no);
		cg_expr(g, n->c);
		LLVMBuildBr(g->B, done);
		LLVMPositionBuilderAtEnd(g->B, done);
		return cg_u64(g, 0);
	}
	if (!scalar) {
		res = cg_alloca(g, cg_size(t), "tern");
		cg_memset0(g, res, cg_size(t));
	}
	LLVMBuildCondBr(g->B, cg_cond(g, n->a), yes, no);
	for (int i = 0; i < 2; i++) {
		const struct sp_node *e = i == 0 ? n->b : n->c;

		LLVMPositionBuilderAtEnd(g->B, i == 0 ? yes : no);
		in[i] = cg_expr(g, e);
		if (!scalar)
			cg_store_conv(g, res, in[i], e->type, t);
		bb[i] = LLVMGetInsertBlock(g->B);
		LLVMBuildBr(g->B, done);
	}
	LLVMPositionBuilderAtEnd(g->B, done);
	if (!scalar)
		return res;
	phi = LLVMBuildPhi(g->B, g->i64, "");
	LLVMAddIncoming(phi, in, bb, 2);
	return phi;
}

static LLVMValueRef tuple(struct cg *g, const struct sp_node *n)
{
	const struct sp_type *t = n->type;
	LLVMValueRef p;

	if (!t || t->kind != SP_T_TUPLE) {
		cg_error(g, n->span, "internal error: untyped tuple");
		return cg_u64(g, 0);
	}
	p = cg_alloca(g, cg_size(t), "tuple");
	cg_memset0(g, p, cg_size(t));
	for (int k = 0; k < n->list.len && k < t->nelems; k++) {
		int i = n->order ? n->order[k] : k; /* a record's fields in source order */
		const struct sp_node *e = n->list.items[i];

		cg_expr_to(g, e, cg_gep(g, p, cg_tuple_offset(t, i)), t->elems[i]);
	}
	return p;
}

static LLVMValueRef tuple_index(struct cg *g, const struct sp_node *n)
{
	const struct sp_type *t = n->a->type;
	LLVMValueRef p = cg_expr(g, n->a), e;

	if (!t || t->kind != SP_T_TUPLE || n->ival < 0 || n->ival >= t->nelems) {
		cg_error(g, n->span, "internal error: bad tuple index");
		return cg_u64(g, 0);
	}
	e = cg_gep(g, p, cg_tuple_offset(t, (int)n->ival));
	if (cg_is_scalar(t->elems[n->ival]))
		return cg_load_int(g, e, t->elems[n->ival]);
	return e;
}

/* args.FIELD in a tracepoint: the record is the program's context. Integers
 * are loaded from it directly; strings are copied (char[N]), read through
 * their pointer, or found through their __data_loc locator. */
/* The field as laid out in the attach point being generated: a probe of
 * several tracepoints (sys_enter_open, sys_enter_openat) gets one program
 * each, and the same field may sit at a different offset in each. */
static const struct sp_tp_field *tp_field_here(const struct cg *g, const struct sp_node *n)
{
	for (int i = 0; n->tp_field_at && g->probe && i < g->probe->list.len; i++)
		if (g->probe->list.items[i]->attach == g->attach && n->tp_field_at[i])
			return n->tp_field_at[i];
	return n->tp_field;
}

static LLVMValueRef tp_field(struct cg *g, const struct sp_node *n)
{
	const struct sp_tp_field *f = tp_field_here(g, n);
	const struct sp_type *t = n->type;
	LLVMValueRef src = f ? cg_gep(g, g->ctx, f->offset) : NULL, buf, args[4];
	uint32_t size;

	if (g->ptype != SP_PROBE_TRACEPOINT) {
		cg_error(g, n->span, "args.%s: fields are only available in tracepoint probes "
			 "(use arg0..arg9 here)", n->name);
		return cg_u64(g, 0);
	}
	if (!f) {
		cg_error(g, n->span, "args.%s: the tracepoint's record layout is unknown "
			 "(no tracefs format was read)", n->name);
		return cg_u64(g, 0);
	}
	if (!t || cg_is_scalar(t)) {
		struct sp_type ft = { .kind = SP_T_INT, .size = f->size <= 8 ? f->size : 8,
				      .is_signed = f->is_signed };

		return cg_norm(g, cg_load_int(g, src, &ft), t);
	}
	size = cg_size(t);
	buf = cg_alloca(g, size, "field");
	cg_memset0(g, buf, size);
	if (f->is_data_loc) {
		args[0] = g->ctx;
		args[1] = LLVMConstInt(g->i32, f->offset, 0);
		args[2] = buf;
		args[3] = LLVMConstInt(g->i32, size, 0);
		if (cg_call_fn(g, "sp_tp_data_loc_str", args, 4))
			return buf;
	}
	args[0] = buf;
	if (f->is_pointer) { /* kernel or user memory (syscall arguments are user) */
		args[1] = LLVMConstInt(g->i32, size, 0);
		args[2] = LLVMBuildLoad2(g->B, g->i64, src, "");
		args[2] = LLVMBuildIntToPtr(g->B, args[2], g->ptr, "");
		args[3] = LLVMConstInt(g->i32, 0, 0);
		cg_helper_check(g, cg_call_fn(g, "sp_read_str", args, 4), 2, SP_LOST_HELPER_READ);
		return buf;
	}
	args[1] = LLVMConstInt(g->i32, size - 1 < f->size ? size - 1 : f->size, 0);
	args[2] = src;
	cg_helper_check(g, cg_call_helper(g, BPF_FUNC_probe_read_kernel, g->i64, args, 3), 2,
			SP_LOST_HELPER_READ);
	return buf;
}

/* $1..$N and $#: sema leaves the parameter's text in n->str (and the
 * count, for $#, in ival). */
static LLVMValueRef positional(struct cg *g, const struct sp_node *n)
{
	if (n->type && n->type->kind == SP_T_STRING)
		return cg_str_const(g, n->str ? n->str : "", n->str ? strlen(n->str) : 0,
				    n->type->size);
	if (n->name && !strcmp(n->name, "$#"))
		return cg_u64(g, (uint64_t)n->ival);
	return cg_u64(g, n->str ? (uint64_t)strtoll(n->str, NULL, 0) : 0);
}

/* ntop([af,] addr): an IPv4 address as 4 bytes of an integer, or 16 bytes
 * read from a pointer (IPv6). */
LLVMValueRef cg_emit_ntop(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = n->list.len ? n->list.items[n->list.len - 1] : NULL;
	uint32_t size = n->type && n->type->size ? n->type->size : 4;
	LLVMValueRef buf = cg_alloca(g, size, "inet"), args[3];

	cg_memset0(g, buf, size);
	if (!a)
		return buf;
	if (a->type && a->type->kind == SP_T_ARRAY) { /* ntop(pton("...")) */
		cg_memcpy(g, buf, cg_expr(g, a), size);
		return buf;
	}
	if (size == 4 || (a->type && a->type->kind == SP_T_INT)) {
		cg_store_int(g, buf, cg_expr(g, a), size < 8 ? size : 8);
		return buf;
	}
	args[0] = buf;
	args[1] = LLVMConstInt(g->i32, size, 0);
	args[2] = LLVMBuildIntToPtr(g->B, cg_expr(g, a), g->ptr, "");
	cg_helper_check(g, cg_call_helper(g, BPF_FUNC_probe_read_kernel, g->i64, args, 3), 2,
			SP_LOST_HELPER_READ);
	return buf;
}

static LLVMValueRef var_read(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef p = cg_var_ptr(g, n, n->type);
	const struct sp_type *t = g->var_types[n->scope_id] ? g->var_types[n->scope_id] : n->type;

	if (t && cg_is_scalar(t))
		return cg_norm(g, cg_load_int(g, p, t), n->type);
	return p;
}

/* (T)x; an array cast reinterprets bytes: an integer stored into a
 * temporary of the array's size, an array or string used where it is, an
 * array loaded as the integer of its size. */
static LLVMValueRef cast(struct cg *g, const struct sp_node *n)
{
	const struct sp_type *to = n->type, *t = n->a->type;

	if (!to || !t || sp_type_is_none(to))
		return cg_u64(g, 0);
	if (to->kind == SP_T_ARRAY) {
		LLVMValueRef tmp;

		if (t->kind != SP_T_INT)
			return cg_expr(g, n->a);
		tmp = cg_alloca(g, cg_size(to), "array_cast");
		cg_store_int(g, tmp, cg_expr(g, n->a), t->size);
		return tmp;
	}
	if (to->kind == SP_T_INT && t->kind == SP_T_ARRAY)
		return cg_norm(g, cg_load_int(g, cg_expr(g, n->a), to), to);
	if (t->kind == SP_T_ARRAY || t->kind == SP_T_STRING)
		return cg_addrof(g, n->a); /* an array decays to its address */
	return cg_norm(g, cg_expr(g, n->a), n->cast_type ? n->cast_type : to);
}

LLVMValueRef cg_expr(struct cg *g, const struct sp_node *n)
{
	cg_loc(g, n->span);
	switch (n->kind) {
	case SP_N_INT:
		return cg_u64(g, (uint64_t)n->ival);
	case SP_N_STR:
		return cg_str_const(g, n->str, n->len, n->type ? n->type->size : 0);
	case SP_N_BUILTIN:
		return cg_builtin(g, n);
	case SP_N_CALL:
		return cg_call(g, n);
	case SP_N_POSITIONAL:
		return positional(g, n);
	case SP_N_MAP:
		return cg_map_read(g, n);
	case SP_N_VAR:
		return var_read(g, n);
	case SP_N_BINOP:
		return binop(g, n);
	case SP_N_UNOP:
		return unop(g, n);
	case SP_N_TERNARY:
		return ternary(g, n);
	case SP_N_CAST:
		return cast(g, n);
	case SP_N_ADDROF:
		if (n->a->kind == SP_N_VAR) /* &$x: the variable's stack slot */
			return LLVMBuildPtrToInt(g->B, cg_var_ptr(g, n->a, n->a->type), g->i64, "");
		return cg_addrof(g, n->a);
	case SP_N_TUPLE:
		return tuple(g, n);
	case SP_N_TUPLE_INDEX:
		return tuple_index(g, n);
	case SP_N_INCDEC:
		return cg_incdec(g, n);
	case SP_N_BLOCK_EXPR: /* { stmts; value } */
		cg_block_stmts(g, n->a);
		return n->b ? cg_expr(g, n->b) : cg_u64(g, 0);
	case SP_N_FIELD:
		if (n->a->kind == SP_N_BUILTIN && n->a->name && !strcmp(n->a->name, "args"))
			return tp_field(g, n);
		return cg_cread(g, n);
	case SP_N_DEREF:
	case SP_N_INDEX:
		return cg_cread(g, n);
	default:
		cg_error(g, n->span, "'%s' expressions are not supported by codegen yet",
			 sp_node_kind_name(n->kind));
		return cg_u64(g, 0);
	}
}

/* Evaluates n straight into memory of type `to` (a key slot, a tuple
 * element, a variable, an event record) when it can be produced in place,
 * so big values need no temporary copy; otherwise evaluates and converts. */
void cg_expr_to(struct cg *g, const struct sp_node *n, LLVMValueRef dst, const struct sp_type *to)
{
	const struct sp_type *t = n->type;

	if (!to)
		to = t;
	cg_loc(g, n->span);
	if (to && to->kind == SP_T_STRING && n->kind == SP_N_BUILTIN && n->bi == SP_BV_comm) {
		uint32_t size = to->size < 16 ? to->size : 16;
		LLVMValueRef args[2] = { dst, LLVMConstInt(g->i32, size, 0) };

		if (to->size > size)
			cg_memset0(g, dst, to->size);
		cg_call_helper(g, BPF_FUNC_get_current_comm, g->i64, args, 2);
		return;
	}
	if (to && to->kind == SP_T_USTACK && t && t->kind == SP_T_USTACK &&
	    (n->kind == SP_N_BUILTIN || n->kind == SP_N_CALL)) {
		stack_into(g, n, dst);
		return;
	}
	if (to && to->kind == SP_T_STRING && n->kind == SP_N_STR) {
		str_into(g, dst, n->str, n->len, to->size);
		return;
	}
	if (to && to->kind == SP_T_TUPLE && n->kind == SP_N_TUPLE && n->list.len == to->nelems) {
		uint32_t size = cg_size(to);

		cg_memset0(g, dst, size);
		for (int k = 0; k < to->nelems; k++) {
			int i = n->order ? n->order[k] : k; /* a record's fields in source order */

			cg_expr_to(g, n->list.items[i], cg_gep(g, dst, cg_tuple_offset(to, i)),
				   to->elems[i]);
		}
		return;
	}
	cg_store_conv(g, dst, cg_expr(g, n), t, to);
}

/* Truth value of an expression as i1. */
LLVMValueRef cg_cond(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef v = cg_expr(g, n);

	if (n->type && !cg_is_scalar(type_of(n))) { /* an aggregation reads as an integer */
		cg_error(g, n->span, "a %s cannot be used as a condition",
			 n->type->kind == SP_T_STRING ? "string" : "non-integer value");
		return LLVMConstInt(g->i1, 0, 0);
	}
	return LLVMBuildICmp(g->B, LLVMIntNE, v, cg_u64(g, 0), "");
}
