/* codegen/cg_interp.c: where stacks get their interpreter frames (--interp) and its hidden programs.
 *
 * The helper bitcode holds both sources of interpreter frames: the
 * memory walks (bpf/python.bpf.c, bpf/ruby.bpf.c: what take_stack() calls) and the
 * USDT frame stacks (bpf/interp_usdt.bpf.c) with the hidden programs that
 * keep them. --interp usdt points the calls at the latter and keeps its
 * programs (when a probe takes a user stack); --interp off points them at
 * stubs; otherwise the programs are dropped like unused helpers.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/interp_usdt.h"
#include "codegen/cg.h"

/* The hidden programs of --interp usdt (bpf/interp_usdt.bpf.c): kept as
 * programs in that mode, dropped like unused helpers otherwise. */
bool cg_is_interp_prog(LLVMValueRef f)
{
	size_t len;
	const char *name = LLVMGetValueName2(f, &len);

	return len > strlen(SP_IU_PROG_PREFIX) &&
	       !strncmp(name, SP_IU_PROG_PREFIX, strlen(SP_IU_PROG_PREFIX));
}

static void replace_fn(struct cg *g, const char *from, const char *to)
{
	LLVMValueRef a = LLVMGetNamedFunction(g->M, from), b = LLVMGetNamedFunction(g->M, to);

	if (a && b)
		LLVMReplaceAllUsesWith(a, b);
}

/* The used-list `name` (clang puts SEC() functions there) without the
 * hidden programs. */
static void unuse_interp_progs(struct cg *g, const char *name)
{
	LLVMValueRef used = LLVMGetNamedGlobal(g->M, name), init, *keep, nu;
	int n, k = 0;

	if (!used || !(init = LLVMGetInitializer(used)))
		return;
	n = LLVMGetNumOperands(init);
	keep = malloc(sizeof(*keep) * (size_t)(n ? n : 1));
	if (!keep)
		return;
	for (int i = 0; i < n; i++) {
		LLVMValueRef v = LLVMGetOperand(init, i);

		if (!LLVMIsAFunction(v) || !cg_is_interp_prog(v))
			keep[k++] = v;
	}
	if (k == n) {
		free(keep);
		return;
	}
	nu = LLVMAddGlobal(g->M, LLVMArrayType(g->ptr, k), "sp.used.new");
	LLVMSetInitializer(nu, LLVMConstArray(g->ptr, keep, k));
	free(keep);
	LLVMSetLinkage(nu, LLVMAppendingLinkage);
	LLVMSetSection(nu, "llvm.metadata");
	LLVMDeleteGlobal(used);
	LLVMSetValueName2(nu, name, strlen(name));
}

/* Outside --interp usdt, or when no probe takes a user stack, the hidden
 * programs go, before the unused helpers (what only they used goes with
 * them). */
void cg_drop_interp_progs(struct cg *g)
{
	LLVMValueRef f, next;

	if (g->opts->interp == SP_INTERP_USDT && g->plan->uses_ustack)
		return;
	unuse_interp_progs(g, "llvm.used");
	unuse_interp_progs(g, "llvm.compiler.used");
	for (f = LLVMGetFirstFunction(g->M); f; f = next) {
		next = LLVMGetNextFunction(f);
		if (LLVMIsDeclaration(f) || !cg_is_interp_prog(f))
			continue;
		/* the old used-lists' arrays are dead constants that still use it */
		LLVMReplaceAllUsesWith(f, LLVMConstNull(LLVMTypeOf(f)));
		LLVMDeleteFunction(f);
	}
}

/* Where stacks get their interpreter frames (--interp): the memory walk
 * (bpf/python.bpf.c) as linked, or the USDT frame stacks, or none. */
void cg_interp_source(struct cg *g)
{
	if (g->opts->interp == SP_INTERP_USDT) {
		/* one frame stack per thread, whatever its language: rbstack too */
		replace_fn(g, "sp_interp_frames", "sp_iu_frames");
		replace_fn(g, "sp_interp_native_limit", "sp_iu_native_limit");
		replace_fn(g, "sp_rb_frames", "sp_iu_frames");
		replace_fn(g, "sp_rb_native_limit", "sp_iu_no_limit");
	} else if (g->opts->interp == SP_INTERP_OFF) {
		replace_fn(g, "sp_interp_frames", "sp_iu_no_frames");
		replace_fn(g, "sp_interp_native_limit", "sp_iu_no_limit");
		replace_fn(g, "sp_rb_frames", "sp_iu_no_frames");
		replace_fn(g, "sp_rb_native_limit", "sp_iu_no_limit");
		replace_fn(g, "sp_interp_walk_on", "sp_iu_walk_off");
	}
}
