/* codegen/cg.h: state shared by the codegen files (not a public interface).
 *
 * One struct cg per sp_codegen() call holds the LLVM context, module,
 * builders and debug-info builder, the script's maps as laid out in BPF,
 * and the per-function state (scratch variables, loop targets). Nothing
 * lives in globals, so many programs can be compiled in one process.
 *
 * Value convention: an expression of an integer-like type (INT, PTR, KSTACK,
 * USYM, KSYM) evaluates to an i64 SSA value, sign- or zero-extended from
 * its declared size; every other type (STRING, TUPLE, USTACK, BUF)
 * evaluates to a pointer to stack memory holding its bytes, laid out as
 * cg_layout() says.
 */
#ifndef SPROF_CODEGEN_CG_H
#define SPROF_CODEGEN_CG_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "parser/base/arena.h"
#include "parser/ast.h"
#include "codegen/codegen.h"
#include "parser/base/diag.h"
#include "parser/frontend.h" /* struct sp_tp_field */
#include "parser/base/source.h"
#include "parser/types/types.h"

#define CG_MAX_LOOPS 32
#define CG_SCRATCH_MAX 32768 /* per-CPU map values are at most 32 KiB */

/* A script map as it exists in BPF. */
struct cg_map {
	const char *name;          /* "@x" */
	char *bpf_name;            /* "AT_x" */
	char *drops_name;          /* "DR_x" */
	LLVMValueRef gv, drops_gv; /* .maps globals */
	const struct sp_type *keyt; /* NULL: scalar map (u64 0 key) */
	struct sp_type keytuple;   /* keyt for several keys */
	bool key_known;
	const struct sp_node *key_use; /* first use with keys, for strftime formats */
	const struct sp_node *val_use; /* first value assigned */
	const struct sp_type *valt; /* plain value type, or NULL for aggregations */
	int agg;                   /* enum sp_agg_kind */
	uint32_t key_size;         /* user key part (without a hist bucket) */
	uint32_t bpf_key_size;     /* key_size (+ 8 for the hist bucket) */
	uint32_t value_size;
	int64_t lhist_min, lhist_max, lhist_step; /* tseries: interval, num, SP_TS_* */
	bool ts_signed;            /* tseries: its values are signed */
	uint32_t decl_max;         /* let @m = hash(N): N (0: undeclared, the default size) */
	bool decl_lru;             /* declared lruhash or percpulruhash */
	bool bpf_reads;            /* read or deleted in BPF: holds state, never drained */
	LLVMValueRef gv_alt;        /* the other half of a drained map (abi/plan.h SP_MAP_GEN), else gv */
	LLVMValueRef oob_agg, oob_put, oob_get; /* cg_oob.c's out-of-line functions, made on first use */
	struct sp_span span;       /* first use */
};

struct cg {
	LLVMContextRef C;
	LLVMModuleRef M;
	LLVMBuilderRef B;        /* body builder */
	LLVMBuilderRef AB;       /* alloca builder (end of the entry block) */
	LLVMBuilderRef IB;       /* init block: scratch pointers, zeroed variables */
	LLVMDIBuilderRef D;
	LLVMTargetMachineRef TM;
	LLVMMetadataRef file, cu, di_int, di_voidp, di_fnty;

	LLVMTypeRef i1, i8, i16, i32, i64, ptr, vt;

	const struct sp_source *src;
	struct sp_diag *diag;
	const struct sp_codegen_opts *opts;
	struct sp_plan *plan;
	int errors;
	bool sym_used;           /* uaddr()/kaddr() resolved: no script cache entry */
	char *llvm_error;        /* last message from the LLVM diagnostic handler */

	struct cg_map *maps;
	int nmaps, capmaps;

	/* Per program. */
	LLVMValueRef fn, ctx;
	LLVMMetadataRef sp;      /* DISubprogram */
	LLVMBasicBlockRef entry, init_bb, ret_bb;
	const struct sp_node *probe;
	const struct sp_attach *attach;
	enum sp_probe_type ptype;
	LLVMValueRef *vars;      /* scope_id -> alloca */
	const struct sp_type **var_types;
	int nvars;
	LLVMBasicBlockRef brk[CG_MAX_LOOPS], cont[CG_MAX_LOOPS];
	int nloops;
	struct cg_temp {         /* memory live until the end of the statement */
		LLVMValueRef v;
		uint32_t size, off; /* off: in the scratch map, UINT32_MAX: stack */
	} *temps;
	int ntemps, captemps;
	LLVMValueRef scratch, tmp_base; /* this program's sp_scratch slot */
	uint32_t var_bytes, tmp_off, tmp_max;
	LLVMValueRef scratch_gv;
	uint32_t scratch_size;   /* largest need of any program */
	/* for loops (cg_loop.c): each body is a callback function of its own */
	LLVMValueRef *child_bases; /* scratch handed to loop bodies, placed in cg_scratch_close */
	int nchild, capchild;
	uint32_t child_need;     /* scratch bytes the deepest loop body needs */
	int loop_floor;          /* nloops of the loop body's own break/continue */
	int nforloops;           /* callbacks made, for their names */
	uint32_t stack_max;      /* largest value kept on the BPF stack (cg_ir.c); 0: the default */

	/* One program for identical attach points of the script (cg_share.c). */
	struct cg_kept {
		char *ir;        /* normalized IR of a kept function */
		uint64_t hash;   /* of ir, compared first */
		const char *prog; /* its name (owned by the plan) */
	} *kept;
	int nkept, capkept;
	bool *share_twin;        /* by block: another block has the same body */
	bool share_multi;        /* the block has several attach points, or a twin */
	bool share_several;      /* ... several attach points itself */
	bool share_try;          /* this point's function may be merged with a kept one */
	bool share_names;        /* ... and its probe/func would come from the cookie */
	bool share_fallback;     /* the block read probe/func on a kernel without cookies */
	int share_printf_end;    /* printfs a candidate may reuse: those before it */
};

/* cg_ir.c (the floor the other files stand on: it calls none of them) */
/* cg_maplimit.c: after optimizing, no program over the kernel's 64 maps
 * because of drained maps' other halves. */
void cg_limit_maps_per_program(struct cg *g);
/* ... and before: no other half for a map BPF reads back (never drained). */
void cg_drop_unread_halves(struct cg *g);
void cg_error(struct cg *g, struct sp_span span, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cg_loc(struct cg *g, struct sp_span span);
LLVMValueRef cg_alloca(struct cg *g, uint32_t size, const char *name);
LLVMValueRef cg_var_alloca(struct cg *g, uint32_t size, const char *name);
LLVMValueRef cg_scratch_child(struct cg *g);
void cg_scratch_adopt(struct cg *g, LLVMValueRef base);
uint32_t cg_scratch_close(struct cg *g);
void cg_temps_end(struct cg *g, int mark);
LLVMValueRef cg_helper_fn(struct cg *g, const char *name, LLVMTypeRef *fty);
LLVMValueRef cg_call_helper(struct cg *g, int id, LLVMTypeRef ret, LLVMValueRef *args,
			    int nargs);
LLVMValueRef cg_call_fn(struct cg *g, const char *name, LLVMValueRef *args, int nargs);
LLVMValueRef cg_helper_check(struct cg *g, LLVMValueRef r, int level, int cause);
LLVMValueRef cg_gep(struct cg *g, LLVMValueRef p, uint32_t off);
void cg_memset0(struct cg *g, LLVMValueRef p, uint32_t size);
/* An empty asm "memory" clobber: the optimizer does not merge stores across
 * it (into a memset or memcpy the BPF backend could not lower). */
void cg_barrier(struct cg *g);
#define CG_MEMCPY_CHUNK 512
void cg_memcpy(struct cg *g, LLVMValueRef dst, LLVMValueRef src, uint32_t size);
LLVMBasicBlockRef cg_block(struct cg *g, const char *name);
void cg_dead_block(struct cg *g);
LLVMValueRef cg_u64(struct cg *g, uint64_t v);
uint32_t cg_round_up(uint32_t v, uint32_t a);
/* a map's global in ".maps" (four pointers: type, max_entries, key and value size) */
LLVMValueRef cg_map_global_ir(struct cg *g, const char *name);

/* cg_share.c: attach points of a block served by one program */
void cg_share_program(struct cg *g, const struct sp_node *prog);
void cg_share_program_end(struct cg *g);
void cg_share_block(struct cg *g, const struct sp_node *probe, int idx);
void cg_share_block_end(struct cg *g);
void cg_share_point(struct cg *g, enum sp_probe_type t, const struct sp_attach *a);
bool cg_share_names(struct cg *g);
int cg_share_printf(struct cg *g);
void cg_share_done(struct cg *g, struct sp_plan_probe *pp);
void cg_share_dump(const struct sp_plan *p, FILE *f);

/* cg_layout.c: sizes and offsets in map memory and events */
bool cg_is_scalar(const struct sp_type *t);
uint32_t cg_size(const struct sp_type *t);
uint32_t cg_tuple_offset(const struct sp_type *t, int i);
void cg_field(const struct sp_type *t, uint32_t off, struct sp_plan_field *f);
void cg_tuple_fields(const struct sp_type *const *elems, int n, struct sp_plan_field *f);
void cg_field_fmt(const struct sp_node *n, struct sp_plan_field *f);
LLVMValueRef cg_load_int(struct cg *g, LLVMValueRef p, const struct sp_type *t);
void cg_store_int(struct cg *g, LLVMValueRef p, LLVMValueRef v, uint32_t size);
LLVMValueRef cg_norm(struct cg *g, LLVMValueRef v, const struct sp_type *t);
void cg_store_conv(struct cg *g, LLVMValueRef dst, LLVMValueRef v, const struct sp_type *from,
		   const struct sp_type *to);

/* cg_maps.c */
int cg_collect_maps(struct cg *g, const struct sp_node *prog);
struct cg_map *cg_map_find(struct cg *g, const char *name);
void cg_define_maps(struct cg *g);
void cg_define_scratch(struct cg *g);
LLVMValueRef cg_map_key(struct cg *g, struct cg_map *m, const struct sp_node *mapnode);
void cg_map_agg(struct cg *g, const struct sp_node *assign);
void cg_tseries_update(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef init,
		       LLVMValueRef v);
/* hist, lhist and tseries keys end in a u64 bucket */
static inline bool cg_agg_bucketed(int agg)
{
	return agg == SP_AGG_HIST || agg == SP_AGG_LHIST || agg == SP_AGG_TSERIES;
}
void cg_map_assign(struct cg *g, const struct sp_node *mapnode, const struct sp_node *val);
LLVMValueRef cg_map_read(struct cg *g, const struct sp_node *mapnode);
LLVMValueRef cg_map_rmw(struct cg *g, const struct sp_node *mapnode, int op, LLVMValueRef rhs,
			bool old);
LLVMValueRef cg_agg_bucket(struct cg *g, struct cg_map *m, LLVMValueRef v);
void cg_agg_apply(struct cg *g, int agg, LLVMValueRef p, LLVMValueRef v);
/* One aggregation step on the value slot p that sp_map_upsert returned,
 * emitted where p is not NULL; arg: the step's own values. */
typedef void cg_slot_step(struct cg *g, struct cg_map *m, LLVMValueRef p, LLVMValueRef v,
			  void *arg);
/* sp_map_upsert(key, init zeroed here) and v put into the value it returns
 * by step (NULL: the map's own aggregation, cg_agg_apply); nothing when
 * the map is full (the helper counts the drop). */
void cg_agg_upsert(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef init,
		   LLVMValueRef v, cg_slot_step *step, void *arg);

/* cg_oob.c: map updates in while loops as global BPF functions */
bool cg_oob_wanted(const struct cg *g);
void cg_oob_agg(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef v,
		struct sp_span span);
void cg_oob_put(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef val,
		struct sp_span span);
LLVMValueRef cg_oob_get(struct cg *g, struct cg_map *m, LLVMValueRef key,
			const struct sp_type *t);
void cg_fill_plan_maps(struct cg *g);
int cg_agg_kind(const char *name);

/* cg_expr.c */
LLVMValueRef cg_expr(struct cg *g, const struct sp_node *n);
LLVMValueRef cg_cond(struct cg *g, const struct sp_node *n); /* i1 */
void cg_expr_to(struct cg *g, const struct sp_node *n, LLVMValueRef dst, const struct sp_type *to);
bool cg_attach_wild(const struct sp_attach *a);
LLVMValueRef cg_str_const(struct cg *g, const char *s, uint32_t len, uint32_t size);
LLVMValueRef cg_arith(struct cg *g, int op, LLVMValueRef a, LLVMValueRef b, bool sgn);
LLVMValueRef cg_str_eq(struct cg *g, const struct sp_node *x, const struct sp_node *y,
		       uint32_t limit);

/* cg_ctype.c */
uint32_t cg_ptr_step(const struct sp_type *t);
LLVMValueRef cg_cread(struct cg *g, const struct sp_node *n);
LLVMValueRef cg_addrof(struct cg *g, const struct sp_node *n);
LLVMValueRef cg_ptr_arith(struct cg *g, const struct sp_node *n, LLVMValueRef a, LLVMValueRef b);

/* cg_builtins.c: a builtin variable's value, a builtin call's, by the id
 * sema stored (parser/builtins.h), through the emitter its row of
 * stdlib/builtins.def names. The rows' EMIT(x) emitters, cg_emit_x(), are
 * declared here from the same rows and defined in their family's file
 * (cg_expr.c, cg_stmt.c, cg_text.c, cg_maps.c, cg_sym.c, cg_machine.c). */
LLVMValueRef cg_builtin(struct cg *g, const struct sp_node *n);
LLVMValueRef cg_call(struct cg *g, const struct sp_node *n);
#define EMIT(f) LLVMValueRef cg_emit_##f(struct cg *g, const struct sp_node *n);
#define HELPER(h)
#define BPFFN(f)
#define OUTPUT(ev)
#define MAPEVENT(ev)
#define DIAG(level)
#define NONE
#define SP_BUILTIN_VAR(name, result, probes, check, emit, doc) emit
#define SP_BUILTIN_FN(name, min, max, args, result, probes, check, emit, doc) emit
#include "stdlib/builtins.def"
#undef EMIT
#undef HELPER
#undef BPFFN
#undef OUTPUT
#undef MAPEVENT
#undef DIAG
#undef NONE

/* cg_stmt.c: the rows' OUTPUT, MAPEVENT and DIAG emitters. A record of
 * event `type` from a literal format and its arguments (printf, time, cat,
 * system); an event naming a whole map (print, clear, zero; print(value)
 * and print(@m[k]) too); errorf/warnf's located line at `level`. */
void cg_output_call(struct cg *g, const struct sp_node *n, int type);
void cg_map_event(struct cg *g, const struct sp_node *n, int type);
void cg_diag_call(struct cg *g, const struct sp_node *n, const char *level);

/* cg_interp.c (--interp, hidden programs) */
int cg_hidden_prog(const struct cg *g, LLVMValueRef f, bool final);
void cg_interp_source(struct cg *g);
void cg_drop_hidden_progs(struct cg *g);

/* cg_loop.c: for ($kv : @m) and for ($i : a..b), bodies as BPF callbacks */
void cg_for(struct cg *g, const struct sp_node *n);

/* cg_stmt.c */
/* A plan.printfs entry (fmt copied, may be NULL); its index or -1. */
int cg_add_printf(struct cg *g, const char *fmt, const struct sp_node *const *args, int n);
void cg_block_stmts(struct cg *g, const struct sp_node *block);
LLVMValueRef cg_var_ptr(struct cg *g, const struct sp_node *var, const struct sp_type *t);
LLVMValueRef cg_incdec(struct cg *g, const struct sp_node *n);

#endif
