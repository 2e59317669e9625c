/* bpf/args.bpf.c: probe arguments, return values and tracepoint strings.
 *
 * Codegen calls these with constant `n`/`off` and inlines them, so each
 * switch folds to a single context load, which the verifier accepts (it
 * rejects variable-offset context reads).
 *
 *   uprobe/uretprobe/kprobe (ctx = struct pt_regs *, x86-64 SysV ABI):
 *     sp_arg(ctx, n)       argN of a user function: rdi rsi rdx rcx r8 r9,
 *                          then the caller's stack (valid at function entry)
 *     sp_karg(ctx, n)      the same for a kernel function (kernel stack)
 *     sp_retval(ctx)       rax at return
 *     sp_func_ip(ctx)      address of the probed function (uprobe: user address)
 *   usdt: sp_usdt_arg(ctx, n) from the site's spec in __bpf_usdt_specs, found
 *         by the attach cookie (abi/usdt_spec.h; runtime/attach/usdt.c
 *         fills it); 0 when the site has fewer arguments. sp_usdt_nargs(ctx).
 *   rawtracepoint: sp_rawtp_arg(ctx, n), ctx = u64 args[].
 *   tracepoint: sp_tp_data_loc_str(ctx, off, dst, size) copies the
 *         __data_loc string whose u32 locator is at `off` in the record.
 */
#include <stdbool.h>
#include <linux/ptrace.h>
#include <asm/ptrace.h>

#include "bpf/sp_bpf.h"
#include "abi/usdt_spec.h"

/* Specs of the USDT sites attached, by attach cookie (SP_MAP_USDT_SPECS).
 * No preallocation; codegen drops it from programs without usdt probes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SP_USDT_MAX_SPECS);
	__type(key, __u32);
	__type(value, struct sp_usdt_spec);
} __bpf_usdt_specs SEC(".maps");

__u64 sp_karg(void *ctx, int n);
__u64 sp_func_ip(void *ctx);
int sp_usdt_nargs(void *ctx);
__u64 sp_rawtp_arg(void *ctx, int n);
long sp_tp_data_loc_str(void *ctx, __u32 off, char *dst, __u32 size);

static __always_inline __u64 reg_arg(struct pt_regs *r, int n)
{
	switch (n) {
	case 0: return r->rdi;
	case 1: return r->rsi;
	case 2: return r->rdx;
	case 3: return r->rcx;
	case 4: return r->r8;
	case 5: return r->r9;
	default: return 0;
	}
}

/* Stack arguments: at entry rsp points at the return address, arg6 above it. */
static __always_inline void *stack_arg_addr(struct pt_regs *r, int n)
{
	return (void *)(r->rsp + 8 * (__u64)(n - 5));
}

__u64 sp_arg(void *ctx, int n)
{
	struct pt_regs *r = ctx;
	__u64 v = 0;

	if (n < 6)
		return reg_arg(r, n);
	bpf_probe_read_user(&v, sizeof(v), stack_arg_addr(r, n));
	return v;
}

__u64 sp_karg(void *ctx, int n)
{
	struct pt_regs *r = ctx;
	__u64 v = 0;

	if (n < 6)
		return reg_arg(r, n);
	bpf_probe_read_kernel(&v, sizeof(v), stack_arg_addr(r, n));
	return v;
}

__u64 sp_retval(void *ctx)
{
	return ((struct pt_regs *)ctx)->rax;
}

__u64 sp_func_ip(void *ctx)
{
	return bpf_get_func_ip(ctx);
}

static __always_inline struct sp_usdt_spec *usdt_spec(void *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);

	return bpf_map_lookup_elem(&__bpf_usdt_specs, &key);
}

/* A pt_regs slot by (runtime) offset: through a helper, since the verifier
 * only allows constant offsets for direct context reads. */
static __always_inline __u64 usdt_reg(void *ctx, int off)
{
	__u64 v = 0;

	if (off >= 0 && off <= SP_PT_REGS_SIZE - 8)
		bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + off);
	return v;
}

static __always_inline __u64 usdt_addr(void *ctx, const struct sp_usdt_arg *a)
{
	__u64 addr = (__u64)a->val_off;

	if (a->kind == SP_USDT_IPREL)
		return usdt_reg(ctx, SP_PT_REGS_IP) + addr;
	if (a->reg_off >= 0)
		addr += usdt_reg(ctx, a->reg_off);
	if (a->idx_off >= 0)
		addr += usdt_reg(ctx, a->idx_off) * a->scale;
	return addr;
}

__s64 sp_usdt_arg(void *ctx, int n)
{
	struct sp_usdt_spec *s = usdt_spec(ctx);
	const struct sp_usdt_arg *a;
	__u64 v = 0;
	int shift;

	if (!s || n < 0 || n >= SP_USDT_MAX_ARGS || (__u32)n >= s->nargs)
		return 0;
	a = &s->args[n];
	if (a->kind == SP_USDT_CONST)
		v = (__u64)a->val_off;
	else if (a->kind == SP_USDT_REG)
		v = usdt_reg(ctx, a->reg_off);
	else
		bpf_probe_read_user(&v, sizeof(v), (void *)usdt_addr(ctx, a));
	/* Keep the low `size` bytes, sign- or zero-extended. */
	shift = 64 - 8 * (a->size & 0xf);
	if (shift <= 0 || shift >= 64)
		return (__s64)v;
	v <<= shift;
	return a->is_signed ? (__s64)v >> shift : (__s64)(v >> shift);
}

int sp_usdt_nargs(void *ctx)
{
	struct sp_usdt_spec *s = usdt_spec(ctx);

	return s ? (int)s->nargs : 0;
}

__u64 sp_rawtp_arg(void *ctx, int n)
{
	return ((__u64 *)ctx)[n];
}

long sp_tp_data_loc_str(void *ctx, __u32 off, char *dst, __u32 size)
{
	__u32 loc = *(__u32 *)((char *)ctx + off);

	return bpf_probe_read_kernel_str(dst, size, (char *)ctx + (loc & 0xffff));
}
