/* codegen/cg_machine.c: the builtins that touch the machine directly.
 *
 *   reg("ip")        a register of the probe's context (struct pt_regs:
 *                    uprobes, kprobes and perf events all get one)
 *   sargN            the Nth argument passed on the stack: 8 bytes at
 *                    sp + 8 * (N + 1), above the return address (x86-64)
 *   signal(SIG)      bpf_send_signal to the current process
 *   cgroupid("path") the cgroup v2 id of a path, resolved while compiling
 *                    (the inode number the kernel's file handle carries)
 *   usermode         1 when the probe interrupted user mode (x86-64: the
 *                    low bits of the saved cs are 3)
 *   ncpus            the possible CPUs, read while compiling
 * sema has checked the names (parser/machine.c) and --unsafe for signal.
 */
#define _GNU_SOURCE /* name_to_handle_at */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "parser/machine.h"

#define PT_REGS_SP 152
#define PT_REGS_CS 136

static LLVMValueRef ctx_word(struct cg *g, uint32_t off, const char *name)
{
	LLVMValueRef v = LLVMBuildLoad2(g->B, g->i64, cg_gep(g, g->ctx, off), name);

	LLVMSetAlignment(v, 8);
	return v;
}

LLVMValueRef cg_emit_reg(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = n->list.len == 1 ? n->list.items[0] : NULL;
	int off = a && a->kind == SP_N_STR ? sp_reg_offset(a->str) : -1;

	if (off < 0) {
		cg_error(g, n->span, "reg() needs a register name as a string literal");
		return cg_u64(g, 0);
	}
	return ctx_word(g, (uint32_t)off, a->str);
}

LLVMValueRef cg_emit_sarg(struct cg *g, const struct sp_node *n)
{
	long idx = strtol(n->name + 4, NULL, 10);
	bool user = g->ptype == SP_PROBE_UPROBE;
	LLVMValueRef val = cg_alloca(g, 8, "sarg"), args[3];

	cg_store_int(g, val, cg_u64(g, 0), 8);
	args[0] = val;
	args[1] = LLVMConstInt(g->i32, 8, 0);
	args[2] = LLVMBuildAdd(g->B, ctx_word(g, PT_REGS_SP, "sp"), cg_u64(g, 8 * (uint64_t)(idx + 1)), "");
	args[2] = LLVMBuildIntToPtr(g->B, args[2], g->ptr, "");
	cg_call_helper(g, user ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel, g->i64,
		       args, 3);
	return LLVMBuildLoad2(g->B, g->i64, val, n->name);
}

LLVMValueRef cg_emit_signal(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = n->list.items[0];
	LLVMValueRef sig = a->kind == SP_N_STR ? cg_u64(g, (uint64_t)sp_signal_number(a->str))
					      : cg_expr(g, a);

	sig = LLVMBuildTrunc(g->B, sig, g->i32, "");
	cg_call_helper(g, BPF_FUNC_send_signal, g->i64, &sig, 1);
	return cg_u64(g, 0);
}

/* unwatch(addr): user space removes the breakpoints on addr (bpf/watch.bpf.c) */
LLVMValueRef cg_emit_unwatch(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef addr = cg_expr(g, n->list.items[0]);

	cg_call_fn(g, "sp_unwatch", &addr, 1);
	return cg_u64(g, 0);
}

LLVMValueRef cg_emit_cgroupid(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *a = n->list.items[0];
	struct {
		struct file_handle fh;
		unsigned char id[8];
	} h = { .fh.handle_bytes = 8 };
	uint64_t id = 0;
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, a->str, &h.fh, &mount_id, 0) < 0 || h.fh.handle_bytes != 8)
		cg_error(g, a->span, "cgroupid(): no cgroup v2 id for '%s': %s", a->str,
			 h.fh.handle_bytes != 8 ? "not a cgroup v2 path" : strerror(errno));
	else
		memcpy(&id, h.id, 8);
	return cg_u64(g, id);
}

/* usermode: BEGIN, END and the user probes always run on behalf of user
 * code, the kernel probes never; perf events (profile, interval,
 * software, hardware, watchpoints) carry the interrupted registers. */
LLVMValueRef cg_emit_usermode(struct cg *g, const struct sp_node *n)
{
	(void)n;
	switch (g->ptype) {
	case SP_PROBE_BEGIN:
	case SP_PROBE_END:
	case SP_PROBE_UPROBE:
	case SP_PROBE_URETPROBE:
	case SP_PROBE_USDT:
		return cg_u64(g, 1);
	case SP_PROBE_PROFILE:
	case SP_PROBE_INTERVAL:
	case SP_PROBE_SOFTWARE:
	case SP_PROBE_HARDWARE:
	case SP_PROBE_WATCHPOINT:
	case SP_PROBE_ASYNCWATCHPOINT:
		return LLVMBuildZExt(g->B, LLVMBuildICmp(g->B, LLVMIntEQ,
							 LLVMBuildAnd(g->B, ctx_word(g, PT_REGS_CS, "cs"),
								      cg_u64(g, 3), ""),
							 cg_u64(g, 3), ""),
				     g->i64, "usermode");
	default:
		return cg_u64(g, 0);
	}
}

/* ncpus: the possible CPUs (/sys/devices/system/cpu/possible: "0-3" or
 * "0,2-5"), as the kernel sizes per-CPU maps; 1 when it cannot be read. */
LLVMValueRef cg_emit_ncpus(struct cg *g, const struct sp_node *n)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	char buf[256], *p, *end;
	uint64_t count = 0;

	(void)n;
	if (f && fgets(buf, sizeof(buf), f)) {
		for (p = buf; *p && *p != '\n'; p = *end ? end + 1 : end) {
			long a = strtol(p, &end, 10), b = a;

			if (end == p)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			count += (uint64_t)(b - a + 1);
		}
	}
	if (f)
		fclose(f);
	return cg_u64(g, count ? count : 1);
}
