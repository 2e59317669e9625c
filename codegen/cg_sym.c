/* codegen/cg_sym.c: kaddr("sym") and uaddr("sym"), resolved while compiling.
 *
 * Like bpftrace, the address is a constant in the program: kaddr looks in
 * /proc/kallsyms, uaddr in the symbol tables of the binary the uprobe is
 * attached to, both through the driver's sym_addr callback (the runtime's
 * readers: one reader of symbol tables for attach, symbolizer and codegen).
 * uaddr gives the symbol's link-time address, which is the run-time one for
 * non-PIE binaries (bpftrace has the same limit).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg.h"

static int lookup(struct cg *g, const char *bin, const char *name, uint64_t *addr)
{
	if (!g->opts->sym_addr)
		return -ENOSYS;
	return g->opts->sym_addr(g->opts->sym_ctx, bin, name, addr);
}

/* kaddr("sym") / uaddr("sym") as a constant; an error at the call when the
 * symbol cannot be found. */
LLVMValueRef cg_addr_call(struct cg *g, const struct sp_node *n, bool kernel)
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
	return cg_u64(g, addr);
}
