/* codegen/codegen.c: typed AST -> one LLVM module -> BPF object + plan.
 *
 * The recipe is the one proven in the LLVM/BPF spike: module for bpfel with
 * the target machine's data layout; the helper bitcode (bpf/NAME.bpf.c) linked
 * in first and made internal + always-inline; a DICompileUnit so the BPF
 * backend emits .BTF/.BTF.ext; BTF-defined maps in ".maps"; one function
 * per attach point with a DISubprogram and a named `ctx` parameter (without
 * them LLVM crashes or the kernel silently drops BTF) and debug locations
 * that carry the script's line:col; default<O2>; object emitted to memory.
 *
 * This file holds the driver; IR utilities and value memory are in
 * cg_ir.c, maps in cg_maps.c, expressions in cg_expr.c, statements and
 * calls in cg_stmt.c, layouts in cg_layout.c.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "abi/interp_usdt.h"
#include "abi/langs.h"
#include "base/sha256.h"
#include "codegen/cg.h"
#include "parser/builtins.h"

extern const char sp_bpf_helpers_bc[];
extern const char sp_bpf_helpers_bc_end[];
extern const char sp_bpf_helpers_compat_bc[];
extern const char sp_bpf_helpers_compat_bc_end[];

static pthread_once_t target_once = PTHREAD_ONCE_INIT;

static void target_init(void)
{
	LLVMInitializeBPFTargetInfo();
	LLVMInitializeBPFTarget();
	LLVMInitializeBPFTargetMC();
	LLVMInitializeBPFAsmPrinter();
}

/* ---- module set-up --------------------------------------------------------- */

static void diag_handler(LLVMDiagnosticInfoRef di, void *ctx)
{
	struct cg *g = ctx;
	char *msg;

	if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
		return;
	msg = LLVMGetDiagInfoDescription(di);
	free(g->llvm_error);
	g->llvm_error = strdup(msg ? msg : "unknown llvm error");
	LLVMDisposeMessage(msg);
}

static int make_target(struct cg *g)
{
	LLVMTargetRef t;
	char *err = NULL;

	if (LLVMGetTargetFromTriple("bpfel", &t, &err)) {
		g->llvm_error = strdup(err ? err : "no bpf target");
		LLVMDisposeMessage(err);
		return -ENOENT;
	}
	g->TM = LLVMCreateTargetMachine(t, "bpfel", "v3", "", LLVMCodeGenLevelDefault,
					LLVMRelocDefault, LLVMCodeModelDefault);
	return g->TM ? 0 : -ENOMEM;
}

static void set_dl(struct cg *g, LLVMModuleRef m)
{
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(g->TM);
	char *dl = LLVMCopyStringRepOfTargetData(td);

	LLVMSetTarget(m, "bpfel");
	LLVMSetDataLayout(m, dl);
	LLVMDisposeMessage(dl);
	LLVMDisposeTargetData(td);
}

/* Helpers that stay global BPF functions, out of line: the verifier checks
 * a global function once per program, not at every call or with every
 * state its caller arrives with (sp_unwind_global, at each user stack a
 * program takes; sp_unw_frames, the unwinder's walk, and sp_unw_row_page
 * and sp_unw_bucket_page, its reads of table pages, bpf/unwind.bpf.c;
 * sp_stack_py, sp_stack_store and each runtime's sp_stack_ID (abi/langs.h), the rest of a stack;
 * sp_pl_word, a Perl frame's word, bpf/perl.bpf.c; sp_py_threads,
 * sp_py_frames, sp_rb_cfps and sp_pl_contexts, the walkers' loops where
 * there is no bpf_loop, SP_ILOOP in bpf/interp_common.bpf.h). Each keeps its
 * locals out of the calling program's frame, too: before 6.13 a program
 * and the chain of functions it calls share one 512-byte stack. */
static const char *const SP_GLOBAL_HELPERS[] = { "sp_unwind_global", "sp_unw_frames",
						  "sp_unw_row_page", "sp_unw_bucket_page",
#define SP_LANG_STACK_FN(id, compat, only) "sp_stack_" #id,
						  "sp_stack_py", SP_BPF_LANGS(SP_LANG_STACK_FN)
#undef SP_LANG_STACK_FN
						  "sp_pl_word", "sp_ph_word", "sp_nd_word", "sp_py_code_id",
						  "sp_rb_word", "sp_hs_word",
						  "sp_stack_store", "sp_py_threads",
						  "sp_py_frames", "sp_rb_cfps", "sp_pl_contexts" };

static bool is_global_helper(LLVMValueRef f)
{
	size_t len;
	const char *name = LLVMGetValueName2(f, &len);

	for (size_t i = 0; i < sizeof(SP_GLOBAL_HELPERS) / sizeof(SP_GLOBAL_HELPERS[0]); i++)
		if (strlen(SP_GLOBAL_HELPERS[i]) == len && !strncmp(name, SP_GLOBAL_HELPERS[i], len))
			return true;
	return false;
}

/* Links bpf/NAME.bpf.c's bitcode into the module, then makes every helper
 * function internal and always-inline (maps stay external for libbpf), but
 * the few global ones above. */
static int link_helpers(struct cg *g)
{
	const char *bc = g->opts->compat ? sp_bpf_helpers_compat_bc : sp_bpf_helpers_bc;
	size_t len = g->opts->compat ? (size_t)(sp_bpf_helpers_compat_bc_end - sp_bpf_helpers_compat_bc)
				     : (size_t)(sp_bpf_helpers_bc_end - sp_bpf_helpers_bc);
	LLVMMemoryBufferRef mb;
	LLVMModuleRef hm;
	unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
	unsigned on = LLVMGetEnumAttributeKindForName("optnone", 7);

	mb = LLVMCreateMemoryBufferWithMemoryRange(bc, len, "sp_helpers", 0);
	if (LLVMParseBitcodeInContext2(g->C, mb, &hm)) {
		LLVMDisposeMemoryBuffer(mb);
		g->llvm_error = strdup("cannot read the embedded helper bitcode");
		return -EINVAL;
	}
	LLVMDisposeMemoryBuffer(mb);
	set_dl(g, hm);
	if (LLVMLinkModules2(g->M, hm)) {
		g->llvm_error = strdup("cannot link the helper bitcode");
		return -EINVAL;
	}
	for (LLVMValueRef f = LLVMGetFirstFunction(g->M); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f) || is_global_helper(f))
			continue;
		if (cg_hidden_prog(g, f, false) == 1) { /* stays a program */
			LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-cpu", 10);
			LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
							 "target-features", 15);
			continue;
		}
		LLVMSetLinkage(f, LLVMInternalLinkage);
		LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, ni);
		LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, on);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
					LLVMCreateEnumAttribute(g->C, ai, 0));
		/* clang's target-cpu differs from ours and would block inlining */
		LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-cpu", 10);
		LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
						 "target-features", 15);
	}
	cg_interp_source(g);
	return 0;
}

static void add_flag(struct cg *g, const char *name, uint64_t v)
{
	if (LLVMGetModuleFlag(g->M, name, strlen(name)))
		return;
	LLVMAddModuleFlag(g->M, LLVMModuleFlagBehaviorWarning, name, strlen(name),
			  LLVMValueAsMetadata(LLVMConstInt(g->i32, v, 0)));
}

#define NO_DIR "/nonexistent/sprof-script-text-not-read"

static void debug_setup(struct cg *g)
{
	const char *name = g->src && g->src->name ? g->src->name : "<cmdline>";
	LLVMMetadataRef params[2];

	add_flag(g, "Debug Info Version", LLVMDebugMetadataVersion());
	add_flag(g, "Dwarf Version", 4);
	g->D = LLVMCreateDIBuilder(g->M);
	/* In a directory that does not exist: LLVM's BTF writer would otherwise
	 * read the script from disk and add each line's text to its string
	 * table, whose lookup is linear (10,000 probes took a minute). The
	 * runtime puts the text into verifier logs itself (runtime/verifier.c). */
	while (name[0] == '/')
		name++;
	g->file = LLVMDIBuilderCreateFile(g->D, name, strlen(name), NO_DIR, strlen(NO_DIR));
	g->cu = LLVMDIBuilderCreateCompileUnit(g->D, LLVMDWARFSourceLanguageC, g->file, "sprof", 5,
					       1, "", 0, 0, "", 0, LLVMDWARFEmissionFull, 0, 0, 0,
					       "", 0, "", 0);
	g->di_int = LLVMDIBuilderCreateBasicType(g->D, "int", 3, 32, 0x05, LLVMDIFlagZero);
	g->di_voidp = LLVMDIBuilderCreatePointerType(g->D, NULL, 64, 0, 0, "", 0);
	params[0] = g->di_int;
	params[1] = g->di_voidp;
	g->di_fnty = LLVMDIBuilderCreateSubroutineType(g->D, g->file, params, 2, LLVMDIFlagZero);
}

static int cg_init(struct cg *g)
{
	int err;

	pthread_once(&target_once, target_init);
	g->C = LLVMContextCreate();
	LLVMContextSetDiagnosticHandler(g->C, diag_handler, g);
	g->i1 = LLVMInt1TypeInContext(g->C);
	g->i8 = LLVMInt8TypeInContext(g->C);
	g->i16 = LLVMInt16TypeInContext(g->C);
	g->i32 = LLVMInt32TypeInContext(g->C);
	g->i64 = LLVMInt64TypeInContext(g->C);
	g->ptr = LLVMPointerTypeInContext(g->C, 0);
	g->vt = LLVMVoidTypeInContext(g->C);
	err = make_target(g);
	if (err)
		return err;
	g->M = LLVMModuleCreateWithNameInContext("sprof", g->C);
	set_dl(g, g->M);
	err = link_helpers(g);
	if (err)
		return err;
	debug_setup(g);
	g->B = LLVMCreateBuilderInContext(g->C);
	g->AB = LLVMCreateBuilderInContext(g->C);
	g->IB = LLVMCreateBuilderInContext(g->C);
	return 0;
}

static void cg_fini(struct cg *g)
{
	if (g->B)
		LLVMDisposeBuilder(g->B);
	if (g->AB)
		LLVMDisposeBuilder(g->AB);
	if (g->IB)
		LLVMDisposeBuilder(g->IB);
	if (g->D) { /* an error before finish(): unfinalized nodes would leak */
		LLVMDIBuilderFinalize(g->D);
		LLVMDisposeDIBuilder(g->D);
	}
	if (g->M)
		LLVMDisposeModule(g->M);
	if (g->TM)
		LLVMDisposeTargetMachine(g->TM);
	if (g->C)
		LLVMContextDispose(g->C);
	for (int i = 0; i < g->nmaps; i++) {
		free(g->maps[i].keytuple.elems);
		free(g->maps[i].bpf_name);
		free(g->maps[i].drops_name);
	}
	free(g->maps);
	free(g->vars);
	free(g->var_types);
	free(g->temps);
	free(g->child_bases);
	free(g->llvm_error);
}

/* ---- probes ------------------------------------------------------------------ */

static const char *const sections[SP_PROBE__COUNT] = {
	[SP_PROBE_BEGIN] = "raw_tp",         [SP_PROBE_END] = "raw_tp",
	[SP_PROBE_PROFILE] = "perf_event",   [SP_PROBE_INTERVAL] = "perf_event",
	[SP_PROBE_SOFTWARE] = "perf_event",  [SP_PROBE_HARDWARE] = "perf_event",
	[SP_PROBE_UPROBE] = "uprobe",        [SP_PROBE_URETPROBE] = "uretprobe",
	[SP_PROBE_USDT] = "usdt",            [SP_PROBE_TRACEPOINT] = "tracepoint",
	[SP_PROBE_RAWTRACEPOINT] = "raw_tp", [SP_PROBE_KPROBE] = "kprobe",
	[SP_PROBE_KRETPROBE] = "kretprobe",
	[SP_PROBE_WATCHPOINT] = "perf_event", [SP_PROBE_ASYNCWATCHPOINT] = "perf_event",
	[SP_PROBE_FENTRY] = "fentry",        [SP_PROBE_FEXIT] = "fexit",
	[SP_PROBE_ITER] = "iter",
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void plan_probe(struct cg *g, const struct sp_node *at, int type, const char *prog)
{
	struct sp_plan *p = g->plan;
	const struct sp_attach *a = at->attach;
	struct sp_plan_probe *pp = &p->probes[p->nprobes++];

	pp->type = type;
	pp->spec = dup_or_null(a->raw);
	pp->prog = strdup(prog);
	pp->target = dup_or_null(a->target);
	pp->func = dup_or_null(a->func);
	pp->ns = dup_or_null(a->ns);
	pp->unit = dup_or_null(a->unit);
	pp->value = a->value;
	pp->offset = a->offset;
	pp->has_value = a->has_value;
	pp->has_offset = a->has_offset;
	pp->is_addr = a->is_addr;
	pp->block = g->probe ? g->probe->probe_index : 0;
	if (g->src)
		sp_source_linecol(g->src, at->span.begin, &pp->line, &pp->col);
}

/* True when n walks a user stack (ustack, pystack, rbstack, as values or calls). */
static bool walks_user_stack(const struct sp_node *n)
{
	if (!n)
		return false;
	if ((n->kind == SP_N_BUILTIN || n->kind == SP_N_CALL) &&
	    (n->bi == SP_BV_ustack || n->bi == SP_BF_ustack || n->bi == SP_BV_pystack ||
	     n->bi == SP_BF_pystack || n->bi == SP_BV_rbstack || n->bi == SP_BF_rbstack))
		return true;
	if (walks_user_stack(n->a) || walks_user_stack(n->b) || walks_user_stack(n->c))
		return true;
	for (int i = 0; i < n->list.len; i++)
		if (walks_user_stack(n->list.items[i]))
			return true;
	return false;
}

static void fn_begin(struct cg *g, const char *name, const struct sp_node *at)
{
	uint32_t line = 1, col = 1;
	LLVMTypeRef fty = LLVMFunctionType(g->i32, &g->ptr, 1, 0);
	unsigned nu = LLVMGetEnumAttributeKindForName("nounwind", 8);
	size_t nlen = strlen(name);

	if (g->src)
		sp_source_linecol(g->src, at->span.begin, &line, &col);
	g->fn = LLVMAddFunction(g->M, name, fty);
	if ((g->ptype == SP_PROBE_FENTRY || g->ptype == SP_PROBE_FEXIT ||
	     g->ptype == SP_PROBE_ITER) && at->attach && at->attach->func) {
		/* "fentry/[MODULE:]FUNC": libbpf finds the BTF id of the target at
		 * load; "iter/NAME": that of bpf_iter_NAME */
		/* iter:NAME:PIN: the target is the pin, not a module */
		const char *mod = g->ptype == SP_PROBE_ITER ? NULL : at->attach->target;
		char sec[300];

		snprintf(sec, sizeof(sec), "%s/%s%s%s", sections[g->ptype], mod ? mod : "",
			 mod ? ":" : "", at->attach->func);
		LLVMSetSection(g->fn, sec);
	} else {
		LLVMSetSection(g->fn, sections[g->ptype]);
	}
	LLVMAddAttributeAtIndex(g->fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(g->C, nu, 0));
	/* code inlined from bpf/ takes the location of its call in the script,
	 * so line info and verifier messages point at the script */
	LLVMAddAttributeAtIndex(g->fn, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->C, "no-inline-line-tables", 21, "", 0));
	g->ctx = LLVMGetParam(g->fn, 0);
	LLVMSetValueName2(g->ctx, "ctx", 3);
	g->sp = LLVMDIBuilderCreateFunction(g->D, g->file, name, nlen, name, nlen, g->file, line,
					    g->di_fnty, 0, 1, line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(g->fn, g->sp);
	LLVMDIBuilderCreateParameterVariable(g->D, g->sp, "ctx", 3, 1, g->file, line, g->di_voidp,
					     1, LLVMDIFlagZero);
	/* entry: allocas and the scratch-map lookup; init (after its null
	 * check): pointers into the scratch map, zeroed variables; body */
	g->entry = cg_block(g, "entry");
	g->ret_bb = cg_block(g, "ret");
	g->init_bb = cg_block(g, "init");
	LLVMPositionBuilderAtEnd(g->AB, g->entry);
	LLVMPositionBuilderAtEnd(g->IB, g->init_bb);
	LLVMPositionBuilderAtEnd(g->B, cg_block(g, "body"));
	cg_loc(g, at->span);
	g->nloops = 0;
	g->ntemps = 0;
	g->scratch = g->tmp_base = NULL;
	g->var_bytes = g->tmp_off = g->tmp_max = 0;
	/* the unwinder's frames share the stack: only 8-byte values on it (cg_ir.c) */
	g->stack_max = g->probe && (walks_user_stack(g->probe->a) ||
				    walks_user_stack(g->probe->b)) ? 8 : 0; /* not the points: n^2 */
	g->nchild = 0;
	g->child_need = 0;
	g->loop_floor = 0;
	memset(g->vars, 0, sizeof(*g->vars) * g->nvars);
	memset(g->var_types, 0, sizeof(*g->var_types) * g->nvars);
}

static void fn_end(struct cg *g, const struct sp_node *at)
{
	LLVMBasicBlockRef body = LLVMGetNextBasicBlock(g->init_bb);

	/* str()/buf() made it sleepable (cg_stmt.c): libbpf loads a "uprobe.s"
	 * or "uretprobe.s" program with BPF_F_SLEEPABLE (a USDT one is a uprobe) */
	if (g->plan->nprobes > 0 && g->plan->probes[g->plan->nprobes - 1].sleepable)
		LLVMSetSection(g->fn, g->ptype == SP_PROBE_URETPROBE ? "uretprobe.s" : "uprobe.s");

	LLVMBuildBr(g->B, g->ret_bb);
	LLVMPositionBuilderAtEnd(g->B, g->ret_bb);
	cg_loc(g, at->span);
	LLVMBuildRet(g->B, LLVMConstInt(g->i32, 0, 0));
	if (g->scratch) {
		uint32_t need = cg_scratch_close(g);

		LLVMBuildCondBr(g->AB, LLVMBuildIsNull(g->AB, g->scratch, ""), g->ret_bb,
				g->init_bb);
		if (need > CG_SCRATCH_MAX) /* the largest per-CPU map value */
			cg_error(g, at->span, "probe needs %u bytes for its strings, keys and "
				 "tuples, more than the %u bytes BPF allows", need, CG_SCRATCH_MAX);
		if (need > g->scratch_size)
			g->scratch_size = need;
	} else {
		LLVMBuildBr(g->AB, g->init_bb);
	}
	LLVMBuildBr(g->IB, body);
	g->sp = NULL;
}

/* The -p/-c filter of scheduler tracepoints that run in another task's
 * context for the target's threads (bpf/common.bpf.c), or NULL: sp_filter. */
static const char *sched_filter(int type, const struct sp_attach *a)
{
	if (type != SP_PROBE_TRACEPOINT || !a->target || !a->func || strcmp(a->target, "sched"))
		return NULL;
	if (!strcmp(a->func, "sched_switch"))
		return "sp_filter_switch";
	if (!strcmp(a->func, "sched_wakeup") || !strcmp(a->func, "sched_wakeup_new"))
		return "sp_filter_wakeup";
	return NULL;
}

/* One BPF program for one attach point of a probe block. */
/* watchpoint:FUNC+argN: the hidden uprobe program "NAME_arm" on FUNC that
 * has user space set the breakpoint on argument N (bpf/watch.bpf.c;
 * runtime/attach/watchpoint.c attaches it). */
static void arm_watch(struct cg *g, const struct sp_node *at, int type, const char *name)
{
	char arm[80];
	LLVMValueRef args[4];
	LLVMBasicBlockRef go = NULL;

	snprintf(arm, sizeof(arm), "%s_arm", name);
	g->ptype = SP_PROBE_UPROBE;
	fn_begin(g, arm, at);
	go = cg_block(g, "filtered");
	LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntNE, cg_call_fn(g, "sp_filter", NULL, 0),
					    LLVMConstInt(g->i32, 0, 0), ""), go, g->ret_bb);
	LLVMPositionBuilderAtEnd(g->B, go);
	args[0] = g->ctx;
	args[1] = LLVMConstInt(g->i32, (unsigned long long)(g->plan->nprobes - 1), 0);
	args[2] = LLVMConstInt(g->i32, at->attach->offset, 0);
	args[3] = LLVMConstInt(g->i32, type == SP_PROBE_ASYNCWATCHPOINT, 0);
	cg_call_fn(g, "sp_watch_arm", args, 4);
	fn_end(g, at);
	g->ptype = type;
}

/* iter:NAME: the kernel runs the program once more after the last object,
 * with its pointer NULL (sema put the offset of that pointer in the context
 * in attach->offset): that call ends the run, as bpftrace's iter probes
 * run once and exit. */
static void iter_last_call(struct cg *g, const struct sp_attach *a)
{
	LLVMValueRef off = LLVMConstInt(g->i64, a->offset, 0), obj;
	LLVMBasicBlockRef last = cg_block(g, "iter_end"), go = cg_block(g, "iter_obj");

	obj = LLVMBuildLoad2(g->B, g->i64, LLVMBuildGEP2(g->B, g->i8, g->ctx, &off, 1, ""), "obj");
	LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, obj, LLVMConstInt(g->i64, 0, 0), ""),
			last, go);
	LLVMPositionBuilderAtEnd(g->B, last);
	cg_call_fn(g, "sp_emit_exit", NULL, 0);
	LLVMBuildBr(g->B, g->ret_bb);
	LLVMPositionBuilderAtEnd(g->B, go);
}

static void cg_probe(struct cg *g, const struct sp_node *probe, const struct sp_node *at, int idx)
{
	char name[64];
	int type = sp_probe_type_of(at->attach ? at->attach->provider : NULL);

	if (type < 0) {
		cg_error(g, at->span, "unknown probe type '%s'",
			 at->attach && at->attach->provider ? at->attach->provider : "?");
		return;
	}
	g->ptype = type;
	g->probe = probe;
	g->attach = at->attach;
	snprintf(name, sizeof(name), "%s_%d", sp_probe_type_name(type), idx);
	plan_probe(g, at, type, name);
	cg_share_point(g, type, at->attach);
	fn_begin(g, name, at);
	if (type == SP_PROBE_ITER)
		iter_last_call(g, at->attach);
	/* -p: only the target's events; BEGIN, END and interval timers are not
	 * events of a process: intervals only stop after exit() or the run's end;
	 * an iterator runs in sprof's own read() */
	if (type != SP_PROBE_BEGIN && type != SP_PROBE_END && type != SP_PROBE_ITER) {
		const char *tf = sched_filter(type, at->attach);
		LLVMValueRef ok = tf ? cg_call_fn(g, tf, &g->ctx, 1)
				  : type == SP_PROBE_INTERVAL ? cg_call_fn(g, "sp_running", NULL, 0)
				  : cg_call_fn(g, "sp_filter", NULL, 0);
		LLVMBasicBlockRef go = cg_block(g, "filtered");

		ok = LLVMBuildICmp(g->B, LLVMIntNE, ok, LLVMConstInt(LLVMTypeOf(ok), 0, 0), "");
		LLVMBuildCondBr(g->B, ok, go, g->ret_bb);
		LLVMPositionBuilderAtEnd(g->B, go);
	}
	if (probe->a) {
		LLVMBasicBlockRef go = cg_block(g, "pred");

		cg_loc(g, probe->a->span);
		LLVMBuildCondBr(g->B, cg_cond(g, probe->a), go, g->ret_bb);
		LLVMPositionBuilderAtEnd(g->B, go);
	}
	if (probe->b)
		cg_block_stmts(g, probe->b);
	fn_end(g, at);
	cg_share_done(g, &g->plan->probes[g->plan->nprobes - 1]);
	if ((type == SP_PROBE_WATCHPOINT || type == SP_PROBE_ASYNCWATCHPOINT) && at->attach->func)
		arm_watch(g, at, type, name);
}

/* Scratch variables are indexed by the scope_id sema gives them. */
static void size_vars(struct cg *g, const struct sp_node *n)
{
	if (!n)
		return;
	if (n->kind == SP_N_VAR && n->scope_id >= g->nvars)
		g->nvars = n->scope_id + 1;
	size_vars(g, n->a);
	size_vars(g, n->b);
	size_vars(g, n->c);
	for (int i = 0; i < n->list.len; i++)
		size_vars(g, n->list.items[i]);
}

static int count_attach(const struct sp_node *prog)
{
	int n = 0;

	for (int i = 0; i < prog->list.len; i++)
		n += prog->list.items[i]->list.len;
	return n;
}

static void cg_program(struct cg *g, const struct sp_node *prog)
{
	int idx = 0;

	size_vars(g, prog);
	g->vars = calloc(g->nvars + 1, sizeof(*g->vars));
	g->var_types = calloc(g->nvars + 1, sizeof(*g->var_types));
	g->plan->probes = calloc(count_attach(prog) + 1, sizeof(*g->plan->probes));
	cg_share_program(g, prog);
	for (int i = 0; i < prog->list.len; i++) {
		const struct sp_node *probe = prog->list.items[i];

		cg_share_block(g, probe, i);
		for (int j = 0; j < probe->list.len; j++)
			cg_probe(g, probe, probe->list.items[j], idx++);
		cg_share_block_end(g);
	}
	cg_share_program_end(g);
}

/* ---- optimize and emit --------------------------------------------------- */

/* Helper functions no program calls are deleted before optimizing, so O2
 * and the backend only see what is used (most of the compile time). */
static void drop_unused_helpers(struct cg *g)
{
	bool again = true;

	while (again) {
		LLVMValueRef f = LLVMGetFirstFunction(g->M), next;

		again = false;
		for (; f; f = next) {
			next = LLVMGetNextFunction(f);
			if (LLVMIsDeclaration(f) || LLVMGetFirstUse(f) ||
			    (LLVMGetLinkage(f) != LLVMInternalLinkage && !is_global_helper(f)))
				continue;
			LLVMDeleteFunction(f);
			again = true;
		}
	}
}

static void dump(struct cg *g, FILE *f)
{
	char *s;

	if (!f)
		return;
	cg_share_dump(g->plan, f);
	s = LLVMPrintModuleToString(g->M);
	fputs(s, f);
	LLVMDisposeMessage(s);
}

/* Maps an LLVM error that names a program back to its attach point. */
static void llvm_fail(struct cg *g, const char *what)
{
	struct sp_span span = { 0, 0 };
	const struct sp_plan_probe *pp = NULL;
	const char *msg = g->llvm_error ? g->llvm_error : "unknown error";
	char buf[512];

	for (int i = 0; g->plan && i < g->plan->nprobes; i++)
		if (strstr(msg, g->plan->probes[i].prog))
			pp = &g->plan->probes[i];
	g->errors++;
	if (!g->diag)
		return;
	if (strstr(msg, "stack limit"))
		snprintf(buf, sizeof(buf), "probe '%s' needs more than 512 bytes of BPF stack "
			 "(use shorter strings, fewer map keys or fewer variables)",
			 pp && pp->spec ? pp->spec : "?");
	else
		snprintf(buf, sizeof(buf), "%s: %s", what, msg);
	if (pp && pp->line)
		sp_diag_at_linecol(g->diag, SP_DIAG_ERROR, pp->line, pp->col, "%s", buf);
	else
		sp_diag_at(g->diag, SP_DIAG_ERROR, span, "%s", buf);
}

static bool has_probe(struct cg *g, enum sp_probe_type t)
{
	for (int i = 0; i < g->plan->nprobes; i++)
		if (g->plan->probes[i].type == t)
			return true;
	return false;
}

/* Only dead constants (the old llvm.compiler.used) may still refer to it. */
static bool used_by_code(LLVMValueRef gv)
{
	for (LLVMUseRef u = LLVMGetFirstUse(gv); u; u = LLVMGetNextUse(u))
		if (LLVMIsAInstruction(LLVMGetUser(u)))
			return true;
	return false;
}

/* A map of the helper bitcode that this program does not need: libbpf's
 * USDT spec maps without usdt probes (attach_usdt needs them otherwise),
 * and any other helper map no code uses. The sp_* maps stay: the runtime
 * configures and reads them. */
static bool droppable_map(struct cg *g, LLVMValueRef gv)
{
	size_t len;
	const char *name = LLVMGetValueName2(gv, &len);
	const char *sec = LLVMGetSection(gv);

	if (!sec || strcmp(sec, ".maps") != 0 || !strncmp(name, "sp_", 3) ||
	    !strncmp(name, "AT_", 3) || !strncmp(name, "DR_", 3))
		return false;
	if (!strncmp(name, "__bpf_usdt_", 11))
		return !has_probe(g, SP_PROBE_USDT);
	return !used_by_code(gv);
}

static void drop_unused_maps(struct cg *g)
{
	LLVMValueRef used = LLVMGetNamedGlobal(g->M, "llvm.compiler.used");
	LLVMValueRef init, keep[64], nu;
	int n, k = 0;

	if (!used || !(init = LLVMGetInitializer(used)))
		return;
	n = LLVMGetNumOperands(init);
	for (int i = 0; i < n && k < 64; i++) {
		LLVMValueRef v = LLVMGetOperand(init, i);

		if (!LLVMIsAGlobalVariable(v) || !droppable_map(g, v))
			keep[k++] = v;
	}
	if (k == n)
		return;
	nu = LLVMAddGlobal(g->M, LLVMArrayType(g->ptr, k), "llvm.compiler.used.new");
	LLVMSetInitializer(nu, LLVMConstArray(g->ptr, keep, k));
	LLVMSetLinkage(nu, LLVMAppendingLinkage);
	LLVMSetSection(nu, "llvm.metadata");
	LLVMDeleteGlobal(used);
	LLVMSetValueName2(nu, "llvm.compiler.used", 18);
	for (LLVMValueRef gv = LLVMGetFirstGlobal(g->M), next; gv; gv = next) {
		next = LLVMGetNextGlobal(gv);
		if (!droppable_map(g, gv) || used_by_code(gv))
			continue;
		LLVMReplaceAllUsesWith(gv, LLVMConstNull(LLVMTypeOf(gv)));
		LLVMDeleteGlobal(gv);
	}
}

/* BPF helpers whose result is fixed for one run of a program: the task
 * and CPU it runs on cannot change under it. */
static bool pure_helper(uint64_t id)
{
	return id == BPF_FUNC_get_current_pid_tgid || id == BPF_FUNC_get_current_uid_gid ||
	       id == BPF_FUNC_get_current_task || id == BPF_FUNC_get_current_task_btf ||
	       id == BPF_FUNC_get_smp_processor_id || id == BPF_FUNC_get_numa_node_id;
}

/* Calls of pure helpers are marked memory(none), so one call serves every
 * use in a function: the inlined helpers of one stack each asked for the
 * pid (seven calls, ~25 ns each here). */
static void mark_pure_helper_calls(struct cg *g)
{
	unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
	unsigned nu = LLVMGetEnumAttributeKindForName("nounwind", 8);
	unsigned wr = LLVMGetEnumAttributeKindForName("willreturn", 10);

	for (LLVMValueRef f = LLVMGetFirstFunction(g->M); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
			     i = LLVMGetNextInstruction(i)) {
				LLVMValueRef callee;

				if (LLVMGetInstructionOpcode(i) != LLVMCall)
					continue;
				callee = LLVMGetCalledValue(i);
				if (!LLVMIsAConstantExpr(callee) ||
				    LLVMGetConstOpcode(callee) != LLVMIntToPtr ||
				    !LLVMIsAConstantInt(LLVMGetOperand(callee, 0)) ||
				    !pure_helper(LLVMConstIntGetZExtValue(LLVMGetOperand(callee, 0))))
					continue;
				LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex,
							 LLVMCreateEnumAttribute(g->C, mem, 0));
				LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex,
							 LLVMCreateEnumAttribute(g->C, nu, 0));
				LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex,
							 LLVMCreateEnumAttribute(g->C, wr, 0));
			}
}

static int optimize(struct cg *g)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	LLVMErrorRef e;

	/* BPF has no vector unit, and unrolled loops only cost verifier time */
	LLVMPassBuilderOptionsSetSLPVectorization(po, 0);
	LLVMPassBuilderOptionsSetLoopVectorization(po, 0);
	LLVMPassBuilderOptionsSetLoopInterleaving(po, 0);
	LLVMPassBuilderOptionsSetLoopUnrolling(po, 0);
	e = LLVMRunPasses(g->M, g->opts->passes ? g->opts->passes : "default<O2>", g->TM, po);
	LLVMDisposePassBuilderOptions(po);
	if (e) {
		char *m = LLVMGetErrorMessage(e);

		free(g->llvm_error);
		g->llvm_error = strdup(m);
		LLVMDisposeErrorMessage(m);
		llvm_fail(g, "cannot optimize");
		return -EINVAL;
	}
	return 0;
}

static int emit(struct cg *g, void **obj, size_t *objlen)
{
	LLVMMemoryBufferRef mb = NULL;
	char *err = NULL;
	size_t n;

	if (LLVMTargetMachineEmitToMemoryBuffer(g->TM, g->M, LLVMObjectFile, &err, &mb)) {
		free(g->llvm_error);
		g->llvm_error = strdup(err ? err : "emit failed");
		LLVMDisposeMessage(err);
		llvm_fail(g, "cannot generate BPF code");
		return -EINVAL;
	}
	if (g->llvm_error) {
		LLVMDisposeMemoryBuffer(mb);
		llvm_fail(g, "cannot generate BPF code");
		return -EINVAL;
	}
	n = LLVMGetBufferSize(mb);
	*obj = malloc(n);
	if (!*obj) {
		LLVMDisposeMemoryBuffer(mb);
		return -ENOMEM;
	}
	memcpy(*obj, LLVMGetBufferStart(mb), n);
	*objlen = n;
	LLVMDisposeMemoryBuffer(mb);
	return 0;
}

static int verify(struct cg *g)
{
#ifndef NDEBUG
	char *msg = NULL;

	if (LLVMVerifyModule(g->M, LLVMReturnStatusAction, &msg)) {
		free(g->llvm_error);
		g->llvm_error = strdup(msg ? msg : "invalid module");
		LLVMDisposeMessage(msg);
		llvm_fail(g, "internal error: invalid IR");
		return -EINVAL;
	}
	LLVMDisposeMessage(msg);
#else
	(void)g;
#endif
	return 0;
}

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Adds the time since *t0 to *slot (when timing is on) and restarts. */
static void lap(struct cg *g, double *t0, double *slot)
{
	double t;

	if (!g->opts->times)
		return;
	t = ms_now();
	*slot += t - *t0;
	*t0 = t;
}

/* What makes the object besides the module: bumped whenever optimize(),
 * emit() or the target machine change in a way the other parts miss. */
#define CG_CACHE_FORMAT "sprof-bpf-object 2 bpfel v3"

/* The cache key of the module as it is now (see sp_codegen_opts.cache). */
static void cache_key(struct cg *g, char key[65])
{
	const struct sp_codegen_cache *c = g->opts->cache;
	const char *passes = g->opts->passes ? g->opts->passes : "default<O2>";
	struct sp_sha256 h;
	unsigned char d[32];
	unsigned maj, min, pat;
	char head[256];
	/* the module's bitcode: what the text printer would say, a fifth of the time */
	LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(g->M);

	LLVMGetVersion(&maj, &min, &pat);
	snprintf(head, sizeof(head), "%s\nllvm %u.%u.%u\npasses %s\nsalt %s\n", CG_CACHE_FORMAT,
		 maj, min, pat, passes, c->salt ? c->salt : "");
	sp_sha256_init(&h);
	sp_sha256_update(&h, head, strlen(head) + 1);
	if (bc)
		sp_sha256_update(&h, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc));
	sp_sha256_final(&h, d);
	sp_sha256_hex(d, key);
	if (bc)
		LLVMDisposeMemoryBuffer(bc);
	else
		key[0] = '\0'; /* no memory for the bitcode: no key, no cache */
}

/* The cached object of this module, or false (then *key is what to store it by). */
static bool cache_get(struct cg *g, char key[65], void **obj, size_t *objlen)
{
	const struct sp_codegen_cache *c = g->opts->cache;

	/* -d ir prints the optimized module: it has to be made */
	if (!c || g->opts->dump_ir)
		return false;
	cache_key(g, key);
	return key[0] && c->get(c->ctx, key, ".o", obj, objlen) == 0;
}

static int finish(struct cg *g, void **obj, size_t *objlen, double *t0, char key[65])
{
	struct sp_codegen_times *tm = g->opts->times;
	double dummy = 0;
	int err;

	cg_drop_hidden_progs(g);
	cg_drop_unread_halves(g);
	drop_unused_helpers(g);
	drop_unused_maps(g);
	LLVMDIBuilderFinalize(g->D);
	LLVMDisposeDIBuilder(g->D);
	g->D = NULL;
	if (verify(g))
		return -EINVAL;
	dump(g, g->opts->dump_ir_raw);
	lap(g, t0, tm ? &tm->build : &dummy);
	mark_pure_helper_calls(g);
	key[0] = '\0';
	if (cache_get(g, key, obj, objlen)) {
		if (g->opts->cache_hit)
			*g->opts->cache_hit = true;
		lap(g, t0, tm ? &tm->build : &dummy); /* the key's bitcode and digest */
		return 0;
	}
	if (optimize(g))
		return -EINVAL;
	cg_limit_maps_per_program(g);
	lap(g, t0, tm ? &tm->opt : &dummy);
	dump(g, g->opts->dump_ir);
	err = emit(g, obj, objlen);
	lap(g, t0, tm ? &tm->emit : &dummy);
	if (!err && key[0])
		g->opts->cache->put(g->opts->cache->ctx, key, ".o", *obj, *objlen);
	return err;
}

/* ---- the script cache (sp_codegen_cache.script) ---------------------------------- */

#define CG_SCRIPT_FORMAT "sprof-script 1"
#define CG_PLAN_MAGIC "sprof-plan 1\n"

static void hash_str(struct sp_sha256 *h, const char *what, const char *s)
{
	sp_sha256_update(h, what, strlen(what) + 1);
	if (s)
		sp_sha256_update(h, s, strlen(s) + 1);
	else
		sp_sha256_update(h, "", 1);
}

/* The script key of prog (before any LLVM work), or "" when there is none. */
static void script_key(const struct sp_node *prog, const struct sp_source *src,
		       const struct sp_codegen_opts *o, const struct sp_diag *dg, char key[65])
{
	struct sp_sha256 h;
	unsigned char d[32];
	char opts[512], *ast = NULL;
	size_t astlen = 0;
	FILE *f = open_memstream(&ast, &astlen);

	key[0] = '\0';
	if (!f)
		return;
	sp_ast_dump(f, prog, true);
	if (fclose(f) || !ast)
		goto out;
	snprintf(opts, sizeof(opts), "max_keys %u interp %d follow %d checks %d compat %d "
		 "no_cookies %d no_warnings %d pidns %llu:%llu passes %s dummy_ts %s", o->max_keys,
		 o->interp, o->follow, o->helper_checks, o->compat, o->no_cookies, dg->no_warnings,
		 (unsigned long long)o->pidns_dev, (unsigned long long)o->pidns_ino,
		 o->passes ? o->passes : "default<O2>",
		 getenv("BPFTRACE_DUMMY_TS_MAP") ? getenv("BPFTRACE_DUMMY_TS_MAP") : "");
	sp_sha256_init(&h);
	hash_str(&h, "format", CG_SCRIPT_FORMAT);
	hash_str(&h, "salt", o->cache->salt);
	hash_str(&h, "host", o->cache->host);
	hash_str(&h, "opts", opts);
	hash_str(&h, "name", src && src->name ? src->name : "");
	hash_str(&h, "text", src ? src->text : "");
	hash_str(&h, "ast", ast);
	sp_sha256_final(&h, d);
	sp_sha256_hex(d, key);
out:
	free(ast);
}

/* The plan and object a script key names: 0, or -errno (a miss). The entry
 * is the magic, the object's key and the plan's bytes. */
static int script_get(const struct sp_codegen_cache *c, const char *skey, const char *name,
		      struct sp_plan **plan, void **obj, size_t *objlen)
{
	size_t mlen = strlen(CG_PLAN_MAGIC), len;
	char okey[65];
	void *buf;
	int err = c->get(c->ctx, skey, ".plan", &buf, &len);

	if (err)
		return err;
	err = -EBADMSG;
	if (len < mlen + 64 || memcmp(buf, CG_PLAN_MAGIC, mlen))
		goto out;
	memcpy(okey, (char *)buf + mlen, 64);
	okey[64] = '\0';
	*plan = sp_plan_from_bytes((char *)buf + mlen + 64, len - mlen - 64);
	if (!*plan)
		goto out;
	(*plan)->source_name = strdup(name);
	err = (*plan)->source_name ? c->get(c->ctx, okey, ".o", obj, objlen) : -ENOMEM;
	if (err) {
		sp_plan_free(*plan);
		*plan = NULL;
	}
out:
	free(buf);
	return err;
}

/* Whether this program's plan may be found again by its script key. */
static bool script_cacheable(const struct cg *g, int warnings)
{
	if (g->sym_used || g->diag->warnings != warnings)
		return false;
	for (int i = 0; i < g->plan->nprobes; i++)
		switch (g->plan->probes[i].type) {
		case SP_PROBE_UPROBE:
		case SP_PROBE_URETPROBE:
		case SP_PROBE_USDT:
		case SP_PROBE_WATCHPOINT:
		case SP_PROBE_ASYNCWATCHPOINT:
			return false;
		default:
			break;
		}
	return true;
}

static void script_put(const struct cg *g, const char *skey, const char *okey)
{
	const struct sp_codegen_cache *c = g->opts->cache;
	size_t mlen = strlen(CG_PLAN_MAGIC), plen;
	void *pb;
	char *buf;

	if (sp_plan_to_bytes(g->plan, &pb, &plen))
		return;
	buf = malloc(mlen + 64 + plen);
	if (buf) {
		memcpy(buf, CG_PLAN_MAGIC, mlen);
		memcpy(buf + mlen, okey, 64);
		memcpy(buf + mlen + 64, pb, plen);
		c->put(c->ctx, skey, ".plan", buf, mlen + 64 + plen);
		free(buf);
	}
	free(pb);
}

int sp_codegen(const struct sp_node *prog, const struct sp_source *src,
	       const struct sp_codegen_opts *o, struct sp_diag *d,
	       struct sp_plan **plan, void **obj, size_t *objlen)
{
	struct cg g = { .src = src, .diag = d, .opts = o };
	struct sp_span none = { 0, 0 };
	double t0 = o->times ? ms_now() : 0, dummy = 0;
	int err, warnings = d->warnings;
	char skey[65] = "", okey[65] = "";
	const char *name = src && src->name ? src->name : "<cmdline>";

	*plan = NULL;
	*obj = NULL;
	*objlen = 0;
	if (o->times)
		memset(o->times, 0, sizeof(*o->times));
	if (o->cache && o->cache->script && !o->dump_ir && !o->dump_ir_raw) {
		script_key(prog, src, o, d, skey);
		if (skey[0] && script_get(o->cache, skey, name, plan, obj, objlen) == 0) {
			if (o->cache_hit)
				*o->cache_hit = true;
			if (o->script_hit)
				*o->script_hit = true;
			lap(&g, &t0, o->times ? &o->times->build : &dummy);
			if (o->emit_elf)
				fwrite(*obj, 1, *objlen, o->emit_elf);
			return 0;
		}
	}
	g.plan = calloc(1, sizeof(*g.plan));
	if (!g.plan)
		return 1;
	g.plan->source_name = strdup(name);
	err = cg_init(&g);
	lap(&g, &t0, o->times ? &o->times->init : &dummy);
	if (err) {
		cg_error(&g, none, "cannot set up code generation: %s",
			 g.llvm_error ? g.llvm_error : strerror(-err));
		goto out;
	}
	if (cg_collect_maps(&g, prog))
		goto out;
	cg_define_maps(&g);
	cg_program(&g, prog);
	if (g.errors)
		goto out;
	cg_define_scratch(&g);
	cg_fill_plan_maps(&g);
	if (finish(&g, obj, objlen, &t0, okey) == 0 && *obj) {
		if (o->emit_elf)
			fwrite(*obj, 1, *objlen, o->emit_elf);
		if (skey[0] && okey[0] && !g.errors && script_cacheable(&g, warnings))
			script_put(&g, skey, okey);
	}
out:
	cg_fini(&g);
	if (g.errors) {
		free(*obj);
		*obj = NULL;
		*objlen = 0;
		sp_plan_free(g.plan);
		return g.errors;
	}
	*plan = g.plan;
	return 0;
}
