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
 *   usdt: sp_usdt_arg(ctx, n) through libbpf's spec map (bpf_usdt_arg);
 *         0 when the site has fewer arguments. sp_usdt_nargs(ctx).
 *   rawtracepoint: sp_rawtp_arg(ctx, n), ctx = u64 args[].
 *   tracepoint: sp_tp_data_loc_str(ctx, off, dst, size) copies the
 *         __data_loc string whose u32 locator is at `off` in the record.
 *
 * usdt.bpf.h brings libbpf's spec maps (__bpf_usdt_specs,
 * __bpf_usdt_ip_to_spec_id), which bpf_program__attach_usdt fills.
 */
#include <stdbool.h>
#include <linux/ptrace.h>
#include <asm/ptrace.h>

#include "sp_bpf.h"

#include <bpf/usdt.bpf.h>

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

__s64 sp_usdt_arg(void *ctx, int n)
{
	long v = 0;

	if (bpf_usdt_arg(ctx, n, &v))
		return 0;
	return v;
}

int sp_usdt_nargs(void *ctx)
{
	return bpf_usdt_arg_cnt(ctx);
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
