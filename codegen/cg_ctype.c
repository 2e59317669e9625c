/* codegen/cg_ctype.c: reads through C pointers, records and arrays.
 *
 * An expression like `p->a.b[2]` denotes an object either in probed memory
 * (reached through a pointer: user memory for u-probe arguments, kernel
 * memory otherwise, as sema typed the pointer) or in the program's own
 * memory (a record value held in a variable, a map value or a temporary).
 * remote_addr() folds the whole access path into one address, so only the
 * bytes of the final object are read (one bpf_probe_read_user/kernel of
 * its size); a local path is a GEP. Bitfields read the smallest word that
 * covers their bits and shift and mask. A read that faults gives zeros
 * (the helpers clear the destination), as in bpftrace.
 *
 * Local array indexes are bounds-checked (an index past the end reads
 * element 0) so the verifier sees a bounded offset.
 */
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "parser/types/ctypes.h"

#define CG_MAX_CVALUE 4096 /* bytes of a struct/array value read whole */

/* Step of pointer arithmetic on t: its pointee's size (1 when untyped). */
uint32_t cg_ptr_step(const struct sp_type *t)
{
	uint32_t n = t && t->kind == SP_T_PTR ? sp_type_csize(t->pointee) : 0;

	return n ? n : 1;
}

static uint32_t elem_size(const struct sp_type *t)
{
	uint32_t n = sp_type_csize(t);

	return n ? n : 1;
}

static LLVMValueRef scaled_index(struct cg *g, const struct sp_node *n)
{
	return LLVMBuildMul(g->B, cg_expr(g, n->b), cg_u64(g, elem_size(n->type)), "");
}

/* Address of the object n denotes in probed memory, or NULL when it is in
 * the program's memory. *user: which address space. */
static LLVMValueRef remote_addr(struct cg *g, const struct sp_node *n, bool *user)
{
	const struct sp_type *bt = n->a ? n->a->type : NULL;
	LLVMValueRef base;

	if (!bt)
		return NULL;
	switch (n->kind) {
	case SP_N_DEREF:
		*user = bt->user;
		return cg_expr(g, n->a);
	case SP_N_FIELD:
		if (bt->kind == SP_T_PTR) {
			*user = bt->user;
			base = cg_expr(g, n->a);
		} else {
			base = remote_addr(g, n->a, user);
		}
		return base ? LLVMBuildAdd(g->B, base, cg_u64(g, n->field_off), "") : NULL;
	case SP_N_INDEX:
		if (bt->kind == SP_T_PTR) {
			*user = bt->user;
			base = cg_expr(g, n->a);
		} else {
			base = remote_addr(g, n->a, user);
		}
		return base ? LLVMBuildAdd(g->B, base, scaled_index(g, n), "") : NULL;
	default:
		return NULL;
	}
}

/* Address of the object in the program's memory (a is a record or array
 * value, which evaluates to a pointer to its bytes). */
static LLVMValueRef local_addr(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef base = cg_expr(g, n->a), i, ok;
	const struct sp_type *at = n->a->type;

	if (n->kind == SP_N_FIELD)
		return cg_gep(g, base, n->field_off);
	i = cg_expr(g, n->b);
	ok = LLVMBuildICmp(g->B, LLVMIntULT, i,
			   cg_u64(g, at->kind == SP_T_STRING ? at->size : at->count), "");
	i = LLVMBuildSelect(g->B, ok, i, cg_u64(g, 0), "");
	i = LLVMBuildMul(g->B, i, cg_u64(g, elem_size(n->type)), "");
	return LLVMBuildGEP2(g->B, g->i8, base, &i, 1, "elem");
}

static LLVMValueRef read_remote(struct cg *g, LLVMValueRef addr, uint32_t size, bool user)
{
	LLVMValueRef buf = cg_alloca(g, size, "cread"), args[3];

	args[0] = buf;
	args[1] = LLVMConstInt(g->i32, size, 0);
	args[2] = LLVMBuildIntToPtr(g->B, addr, g->ptr, "");
	cg_helper_check(g, cg_call_helper(g, user ? BPF_FUNC_probe_read_user :
					  BPF_FUNC_probe_read_kernel, g->i64, args, 3), 2,
			SP_LOST_HELPER_READ);
	return buf;
}

/* Bytes a bitfield's word takes: 1, 2, 4 or 8. */
static uint32_t bits_word(const struct sp_node *n)
{
	uint32_t need = (uint32_t)n->bit_off + n->bit_size;

	return need <= 8 ? 1 : need <= 16 ? 2 : need <= 32 ? 4 : 8;
}

static LLVMValueRef bitfield(struct cg *g, const struct sp_node *n, LLVMValueRef p)
{
	struct sp_type w = { .kind = SP_T_INT, .size = bits_word(n) };
	LLVMValueRef v = cg_load_int(g, p, &w);
	uint64_t mask = n->bit_size >= 64 ? ~0ull : (1ull << n->bit_size) - 1;

	v = LLVMBuildLShr(g->B, v, cg_u64(g, n->bit_off), "");
	v = LLVMBuildAnd(g->B, v, cg_u64(g, mask), "");
	if (n->type->is_signed && n->bit_size < 64) { /* sign-extend from bit_size */
		LLVMValueRef sh = cg_u64(g, 64 - n->bit_size);

		v = LLVMBuildAShr(g->B, LLVMBuildShl(g->B, v, sh, ""), sh, "");
	}
	return v;
}

/* *p, p[i], p->f, s.f: the value (scalars as i64, others as a pointer to
 * their bytes). */
LLVMValueRef cg_cread(struct cg *g, const struct sp_node *n)
{
	const struct sp_type *t = n->type;
	bool bits = n->kind == SP_N_FIELD && n->bit_size, user = false;
	uint32_t size = bits ? bits_word(n) : cg_size(t);
	LLVMValueRef addr, p;

	if (!t || size == 0) {
		cg_error(g, n->span, "internal error: untyped C access");
		return cg_u64(g, 0);
	}
	if (size > CG_MAX_CVALUE) { /* each copy is inline code: keep programs in range */
		char ts[128];

		cg_error(g, n->span, "'%s' is %u bytes, too big to copy as a value (at most %u): "
			 "read the fields you need", sp_type_str(t, ts, sizeof(ts)), size,
			 CG_MAX_CVALUE);
		return cg_u64(g, 0);
	}
	addr = remote_addr(g, n, &user);
	p = addr ? read_remote(g, addr, size, user) : local_addr(g, n);
	if (bits)
		return bitfield(g, n, p);
	if (cg_is_scalar(t))
		return cg_load_int(g, p, t);
	return p;
}

/* &x, and (T *)x of an array x: the address remote_addr() folds. */
LLVMValueRef cg_addrof(struct cg *g, const struct sp_node *n)
{
	bool user = false;
	LLVMValueRef a = remote_addr(g, n, &user);

	if (!a) {
		cg_error(g, n->span, "internal error: no address for '&'");
		return cg_u64(g, 0);
	}
	return a;
}

/* p + n, n + p, p - n on a typed pointer: n is scaled by the pointee size. */
LLVMValueRef cg_ptr_arith(struct cg *g, const struct sp_node *n, LLVMValueRef a, LLVMValueRef b)
{
	bool ptr_left = n->a->type && n->a->type->kind == SP_T_PTR;
	LLVMValueRef step = cg_u64(g, cg_ptr_step(n->type));

	if (ptr_left)
		b = LLVMBuildMul(g->B, b, step, "");
	else
		a = LLVMBuildMul(g->B, a, step, "");
	return n->op == '-' ? LLVMBuildSub(g->B, a, b, "") : LLVMBuildAdd(g->B, a, b, "");
}
