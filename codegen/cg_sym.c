/* codegen/cg_sym.c: kaddr("sym") and uaddr("sym"), resolved while compiling.
 *
 * Like bpftrace, the address is a constant in the program: kaddr looks in
 * /proc/kallsyms, uaddr in the symbol tables of the binary the uprobe is
 * attached to, both through the driver's sym_addr callback (the runtime's
 * readers: one reader of symbol tables for attach, symbolizer and codegen).
 * uaddr gives the symbol's link-time address, the run-time one for non-PIE
 * binaries. In a uprobe or uretprobe of one named function (or address) it
 * is relocated as the program runs: the probed function's run-time address
 * (bpf_get_func_ip) less its link-time one is the load bias of a PIE or
 * library (0 for a non-PIE executable), so uaddr() works in PIEs, where
 * bpftrace's gives an address nothing is mapped at. Elsewhere (USDT,
 * globs) it stays link-time.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg.h"

static int lookup(struct cg *g, const char *bin, const char *name, uint64_t *addr)
{
	if (!g->opts->sym_addr)
		return -ENOSYS;
	g->sym_used = true;
	return g->opts->sym_addr(g->opts->sym_ctx, bin, name, addr);
}

/* The probed function's link-time address, when the probe is a uprobe or
 * uretprobe of one function (or address) of its binary. */
static bool probed_vaddr(struct cg *g, uint64_t *vaddr)
{
	const struct sp_attach *at = g->attach;

	if ((g->ptype != SP_PROBE_UPROBE && g->ptype != SP_PROBE_URETPROBE) || cg_attach_wild(at))
		return false;
	if (at->is_addr) {
		*vaddr = at->offset;
		return true;
	}
	if (!at->func || lookup(g, at->target, at->func, vaddr))
		return false;
	*vaddr += at->has_offset ? at->offset : 0;
	return true;
}

/* addr + (run-time - link-time address of the probed function) */
static LLVMValueRef relocated(struct cg *g, uint64_t addr)
{
	uint64_t fn;
	LLVMValueRef ip;

	if (!probed_vaddr(g, &fn))
		return cg_u64(g, addr);
	ip = cg_call_fn(g, "sp_func_ip", &g->ctx, 1);
	return LLVMBuildAdd(g->B, cg_u64(g, addr), LLVMBuildSub(g->B, ip, cg_u64(g, fn), ""), "uaddr");
}

/* usym(addr): the address and this process's pid (struct sp_usym); the
 * pid is noted so user space reads its mappings while it lives. */
LLVMValueRef cg_emit_usym(struct cg *g, const struct sp_node *n)
{
	LLVMValueRef v = cg_expr(g, n->list.items[0]);
	LLVMValueRef p = cg_alloca(g, sizeof(struct sp_usym), "usym");
	LLVMValueRef pid = LLVMBuildLShr(g->B, cg_call_helper(g, BPF_FUNC_get_current_pid_tgid,
							      g->i64, NULL, 0),
					 cg_u64(g, 32), "");

	cg_store_int(g, p, v, 8);
	cg_store_int(g, cg_gep(g, p, 8), pid, 8); /* pid and the zero pad */
	cg_call_fn(g, "sp_note_pid", NULL, 0);
	return p;
}

/* kaddr("sym") / uaddr("sym") as a constant; an error at the call when the
 * symbol cannot be found. */
static LLVMValueRef addr_call(struct cg *g, const struct sp_node *n, bool kernel)
{
	const struct sp_node *a = n->list.len == 1 ? n->list.items[0] : NULL;
	const char *bin = g->attach ? g->attach->target : NULL;
	uint64_t addr = 0;
	int err;

	if (!a || a->kind != SP_N_STR) {
		cg_error(g, n->span, "%s() needs a symbol name as a string literal", n->name);
		return cg_u64(g, 0);
	}
	if (!kernel && (!bin || (g->ptype != SP_PROBE_UPROBE && g->ptype != SP_PROBE_URETPROBE &&
				 g->ptype != SP_PROBE_USDT))) {
		cg_error(g, n->span, "uaddr() needs a uprobe or usdt probe to know the binary");
		return cg_u64(g, 0);
	}
	err = lookup(g, kernel ? NULL : bin, a->str, &addr);
	if (err == -EPERM)
		cg_error(g, a->span, "kaddr(): kernel addresses are hidden (kptr_restrict); run as root");
	else if (err)
		cg_error(g, a->span, "no %s symbol '%s'%s%s: %s", kernel ? "kernel" : "user", a->str,
			 kernel ? "" : " in ", kernel ? "" : bin,
			 err == -ENOENT ? "not found" : strerror(-err));
	if (kernel || err)
		return cg_u64(g, addr);
	return relocated(g, addr);
}

LLVMValueRef cg_emit_kaddr(struct cg *g, const struct sp_node *n)
{
	return addr_call(g, n, true);
}

LLVMValueRef cg_emit_uaddr(struct cg *g, const struct sp_node *n)
{
	return addr_call(g, n, false);
}
