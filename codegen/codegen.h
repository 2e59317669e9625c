/* codegen/codegen.h: typed AST -> LLVM module -> BPF object bytes + plan.
 *
 * One LLVM module per program, built with the LLVM C API. The BPF helper
 * bitcode compiled from bpf/NAME.bpf.c at build time is linked in first, so
 * generated code calls real prototypes. Debug locations carry the script's
 * line and column, so the verifier's messages can be mapped back.
 */
#ifndef SPROF_CODEGEN_CODEGEN_H
#define SPROF_CODEGEN_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "abi/plan.h"
#include "codegen/plan_dump.h" /* -d plan: the driver includes this header alone */

struct sp_node;
struct sp_source;
struct sp_diag;

/* Wall-clock milliseconds spent in each phase of one sp_codegen() call. */
struct sp_codegen_times {
	double init;  /* LLVM context, target machine, helper bitcode parsed and linked */
	double build; /* IR for maps and programs */
	double opt;   /* default<O2> */
	double emit;  /* BPF object */
};

struct sp_codegen_opts {
	uint32_t max_keys;   /* entries per map; 4096 by default */
	FILE *dump_ir;       /* when set, the optimized IR is printed here */
	FILE *dump_ir_raw;   /* when set, the IR before optimization */
	FILE *emit_elf;      /* when set, the BPF object is written here too */
	struct sp_codegen_times *times; /* when set, filled in */
	const char *passes;  /* LLVM pass pipeline; NULL: "default<O2>" */
	/* Symbol addresses for uaddr() (binary: the probe's target) and kaddr()
	 * (binary NULL), resolved while compiling. The driver passes the
	 * runtime's readers, so there is one reader of symbol tables and
	 * codegen needs no ELF code. 0, -ENOENT, -EPERM (kernel addresses
	 * hidden) or -errno. NULL: uaddr()/kaddr() are errors. */
	int (*sym_addr)(void *ctx, const char *binary, const char *name, uint64_t *addr);
	void *sym_ctx;
	int interp;          /* enum sp_interp_mode (abi/interp_usdt.h): 0 the memory walk */
	/* sprof's own pid namespace (nsfs device and inode) when it is not the
	 * initial one, else 0: pid and tid are numbers in it, as in bpftrace
	 * 0.27 (pid(init) and tid(init) stay the kernel's global ones) */
	uint64_t pidns_dev, pidns_ino;
	bool follow;         /* keep the programs that follow the -c/-p target's children */
	/* -k: count failed delete()s in SP_MAP_LOST; -kk (2): failed reads of
	 * probed memory too (a branch after each read). 0: no checks. */
	int helper_checks;
	/* The helpers built for kernels without bpf_loop (before 5.17,
	 * bpf/sp_bpf.h): bounded loops, user stacks by frame pointers, no
	 * interpreter frames. The driver sets it from the kernel's answer. */
	bool compat;
	/* The kernel has no bpf_get_attach_cookie() for kprobe, uprobe and
	 * tracepoint programs (before 5.15): attach points of a block that read
	 * `probe`/`func` cannot share one program (codegen/cg_share.c). */
	bool no_cookies;
	/* Compiled objects by content (runtime/objcache.c). The key is the
	 * SHA-256 of the module's bitcode before optimization, the pass pipeline, the
	 * LLVM version and `salt` (the driver's version): an equal key is the
	 * same object, so a hit skips optimization and emission (most of the
	 * compile time of a stack-taking program). NULL: always compiled. */
	const struct sp_codegen_cache *cache;
	bool *cache_hit;     /* when set: whether the object came from the cache */
	/* when set: whether the plan came from the cache too, by the script's
	 * key (sp_codegen_cache.script): no LLVM work at all */
	bool *script_hit;
};

struct sp_codegen_cache {
	/* 0 with *obj malloc'd when the cache holds `key` (64 hex digits) of
	 * kind `ext` (".o": an object; ".plan": a script's plan, below) */
	int (*get)(void *ctx, const char *key, const char *ext, void **obj, size_t *len);
	void (*put)(void *ctx, const char *key, const char *ext, const void *obj, size_t len);
	void *ctx;
	const char *salt;
	/* The script key: before any LLVM work, the SHA-256 of the program
	 * as sema typed it (its AST dump: includes, parameters and config
	 * applied), the script's text and name, the options above that shape
	 * code, and `host`: what the driver knows changes the code besides
	 * (sprof's build id, the kernel's identity, its BTF, the CPUs; see
	 * runtime/objcache.h sp_objcache_host). A hit gives the plan and the
	 * object's key, so a warm start skips LLVM entirely. The driver sets
	 * `script` false where inputs outside the AST shape the code (#include
	 * of C headers); codegen stores no entry for a program that probes
	 * user binaries (their symbols and debug info are read while typing and
	 * compiling), resolved uaddr()/kaddr() or warned while compiling. */
	bool script;
	const char *host;
};

/* A lighter pipeline: the helper bitcode is already optimized by clang -O2,
 * so inlining it and simplifying what is left gives the same code size as
 * default<O2> (the .eh_frame unwinder included) for about a third less
 * whole-process time on stack-taking programs. It skips the BPF target's
 * own pipeline hooks (BPFAdjustOpt), so default<O2> stays the default. */
#define SP_CODEGEN_FAST_PASSES \
	"always-inline,function(sroa,early-cse<memssa>,instcombine,simplifycfg,gvn,dse,adce),globaldce"

/* The plan as bytes for the script cache (codegen/plan_io.c): 0 and
 * *out (malloc'd), or -ENOMEM. */
int sp_plan_to_bytes(const struct sp_plan *p, void **out, size_t *len);
/* The plan those bytes hold, or NULL with errno (EBADMSG: not a whole,
 * well-formed plan). source_name is left NULL. */
struct sp_plan *sp_plan_from_bytes(const void *bytes, size_t len);

/* Returns the number of errors (reported through d); on success *plan,
 * *obj (malloc'd ELF bytes) and *objlen are set. */
int sp_codegen(const struct sp_node *prog, const struct sp_source *src,
	       const struct sp_codegen_opts *o, struct sp_diag *d,
	       struct sp_plan **plan, void **obj, size_t *objlen);

#endif
