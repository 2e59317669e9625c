/* codegen/cg_interp.c: where stacks get their interpreter frames (--interp); hidden programs.
 *
 * The helper bitcode holds both sources of interpreter frames: the
 * memory walks (bpf/python.bpf.c, bpf/ruby.bpf.c, bpf/perl.bpf.c: what take_stack() calls) and the
 * USDT frame stacks (bpf/interp_usdt.bpf.c) with the hidden programs that
 * keep them. --interp usdt points the calls at the latter and keeps its
 * programs (when a probe takes a user stack); --interp off points them at
 * stubs; otherwise the programs are dropped like unused helpers.
 *
 * The same goes for the programs that follow the -c/-p target's process
 * tree (bpf/common.bpf.c sp_follow_*): kept when the driver asks
 * (opts->follow), dropped otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/interp_usdt.h"
#include "abi/langs.h"
#include "abi/plan.h"
#include "codegen/cg.h"

static bool has_prefix(LLVMValueRef f, const char *prefix)
{
	size_t len;
	const char *name = LLVMGetValueName2(f, &len);

	return len > strlen(prefix) && !strncmp(name, prefix, strlen(prefix));
}

/* -1: f is no hidden program; else whether this compile keeps it as a
 * program. At link time (final false) the plan is not complete yet: an
 * --interp usdt program is kept until finish() knows whether a probe
 * takes a user stack. */
int cg_hidden_prog(const struct cg *g, LLVMValueRef f, bool final)
{
	if (has_prefix(f, SP_IU_PROG_PREFIX))
		return g->opts->interp == SP_INTERP_USDT && (!final || g->plan->uses_ustack);
	if (has_prefix(f, SP_FOLLOW_PROG_PREFIX))
		return g->opts->follow;
	return -1;
}

static void replace_fn(struct cg *g, const char *from, const char *to)
{
	LLVMValueRef a = LLVMGetNamedFunction(g->M, from), b = LLVMGetNamedFunction(g->M, to);

	if (a && b)
		LLVMReplaceAllUsesWith(a, b);
}

/* The used-list `name` (clang puts SEC() functions there) without the
 * hidden programs this compile drops. */
static void unuse_hidden_progs(struct cg *g, const char *name)
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

		if (!LLVMIsAFunction(v) || cg_hidden_prog(g, v, true) != 0)
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

/* Outside --interp usdt, or when no probe takes a user stack, its hidden
 * programs go, and the following ones when not following, before the
 * unused helpers (what only they used goes with them). */
void cg_drop_hidden_progs(struct cg *g)
{
	LLVMValueRef f, next;

	unuse_hidden_progs(g, "llvm.used");
	unuse_hidden_progs(g, "llvm.compiler.used");
	for (f = LLVMGetFirstFunction(g->M); f; f = next) {
		next = LLVMGetNextFunction(f);
		if (LLVMIsDeclaration(f) || cg_hidden_prog(g, f, true) != 0)
			continue;
		/* the old used-lists' arrays are dead constants that still use it */
		LLVMReplaceAllUsesWith(f, LLVMConstNull(LLVMTypeOf(f)));
		LLVMDeleteFunction(f);
	}
}

/* The runtimes of abi/langs.h, by their functions' infix. */
#define SP_LANG_ID(id, compat, only) #id,
static const char *const SP_LANG_IDS[] = { SP_BPF_LANGS(SP_LANG_ID) };
#undef SP_LANG_ID
#define SP_NLANGS ((int)(sizeof(SP_LANG_IDS) / sizeof(SP_LANG_IDS[0])))

/* sp_<id>_<what> becomes to. */
static void replace_lang_fn(struct cg *g, const char *id, const char *what, const char *to)
{
	char from[64];

	snprintf(from, sizeof(from), "sp_%s_%s", id, what);
	replace_fn(g, from, to);
}

/* Where stacks get their interpreter frames (--interp): the memory walk
 * (bpf/python.bpf.c) as linked, or the USDT frame stacks, or none. */
void cg_interp_source(struct cg *g)
{
	if (g->opts->interp == SP_INTERP_USDT) {
		/* one frame stack per thread, whatever its language: rbstack too */
		replace_fn(g, "sp_interp_frames", "sp_iu_frames");
		replace_fn(g, "sp_interp_native_limit", "sp_iu_native_limit");
		/* whichever process: its threads' frame stacks say */
		replace_fn(g, "sp_interp_known", "sp_interp_walk_on");
		/* the other runtimes' walkers: each thread's one frame stack for
		 * Ruby (rbstack too); for the others, which have no USDT frame
		 * stack, it finds none (a stub that ignores its arguments would
		 * leave them undefined at the call of the global sp_stack_ID,
		 * which the verifier refuses) */
		for (int i = 0; i < SP_NLANGS; i++) {
			replace_lang_fn(g, SP_LANG_IDS[i], "frames", "sp_iu_frames");
			replace_lang_fn(g, SP_LANG_IDS[i], "native_limit", "sp_iu_no_limit");
			replace_lang_fn(g, SP_LANG_IDS[i], "known", "sp_interp_walk_on");
		}
	} else if (g->opts->interp == SP_INTERP_OFF) {
		replace_fn(g, "sp_interp_frames", "sp_iu_no_frames");
		replace_fn(g, "sp_interp_native_limit", "sp_iu_no_limit");
		for (int i = 0; i < SP_NLANGS; i++) {
			replace_lang_fn(g, SP_LANG_IDS[i], "frames", "sp_iu_no_frames");
			replace_lang_fn(g, SP_LANG_IDS[i], "native_limit", "sp_iu_no_limit");
		}
		replace_fn(g, "sp_interp_walk_on", "sp_iu_walk_off");
	}
}
