/* abi/node.h: Node.js (V8) stacks, the layouts shared by bpf/node.bpf.c and runtime/langs/node.c.
 *
 * The V8 part of the interpreter walker (abi/interp.h has CPython's,
 * abi/ruby.h Ruby's, abi/perl.h Perl's). User space finds a process whose
 * executable or libnode exports V8's postmortem constants (v8dbg_*), reads
 * from them where a JavaScript frame keeps its function (v8dbg_off_fp_*)
 * and how a JSFunction leads to its SharedFunctionInfo, and writes one
 * struct sp_nd_proc per process into nd_procs. Every V8 frame (interpreted,
 * baseline, Maglev, TurboFan) keeps rbp frames; at sample time BPF follows
 * the frame-pointer chain from the thread's user rbp and takes each frame
 * whose function slot holds a JSFunction (a tagged pointer whose `shared`
 * field points at an object of SHARED_FUNCTION_INFO_TYPE): one word per
 * such frame, innermost first. Its id names (SFI, name-or-ScopeInfo), and
 * its top 31 bits are the low 31 bits of the frame's return address (the
 * pc it returns to in its caller), which user space finds in the native
 * stack: the native frame just leafward of that pc is the JS frame's own
 * code (JIT code, Builtins_InterpreterEntryTrampoline, a bytecode handler)
 * and gives way to the JS frame.
 */
#ifndef SPROF_ABI_NODE_H
#define SPROF_ABI_NODE_H

#define SP_ND_MAP_PROCS "nd_procs"
#define SP_ND_MAP_STATS "nd_stats"
#define SP_ND_MAP_SEEN "nd_code_seen"
#define SP_ND_MAP_LIVE "nd_live" /* as py_live (abi/interp.h) */
#define SP_ND_SEEN_MAX 16384     /* nd_code_seen's size */

/* A word: bit 0 the group end (abi/interp.h), the code id in bits 1-32,
 * the return address's low SP_ND_RA_BITS bits above. */
#define SP_ND_RA_SHIFT 33
#define SP_ND_RA_BITS 31
#define SP_ND_RA_MASK ((1ull << SP_ND_RA_BITS) - 1)

/* Frames the chain walk looks at before it gives up. */
#define SP_ND_MAX_FP 256

/* Offsets (bytes) and type tags of one process's V8, from its v8dbg_*. */
struct sp_nd_proc {
	int16_t fp_function;    /* v8dbg_off_fp_function: fp -> JSFunction (-16) */
	int16_t fp_context;     /* v8dbg_off_fp_context: fp -> context or frame-type SMI (-8) */
	uint16_t fn_shared;     /* JSFunction -> shared */
	uint16_t obj_map;       /* HeapObject -> map */
	uint16_t map_type;      /* Map -> instance_type (u16) */
	uint16_t sfi_name;      /* SharedFunctionInfo -> name_or_scope_info */
	uint16_t sfi_type;      /* SHARED_FUNCTION_INFO_TYPE */
	uint16_t heap_tag;      /* HeapObjectTag (1): a pointer's low bits */
	uint16_t heap_tag_mask; /* HeapObjectTagMask (3) */
	uint16_t pad[3];
};

/* nd_stats (per-CPU u64 counters), abi/interp.h's indices. */
enum sp_nd_stat {
	SP_ND_ST_WALKS,     /* samples of a known node process */
	SP_ND_ST_NOTHREAD,  /* no user registers, or no JS frame on the chain */
	SP_ND_ST_TRUNCATED, /* more frames than room in the stack */
	SP_ND_ST_READERR,   /* a frame could not be read (stack cut there) */
	SP_ND_ST_FRAMES,    /* JS frames stored */
	SP_ND_ST_CODE_RETRY, /* records the full ring buffer refused (sent again later) */
	SP_ND_ST_CODE_SENT, /* records sent */
	SP_ND_NSTATS
};

/* SP_EV_INTERP_CODE record of a node process (after struct sp_event_hdr:
 * id the pid, arg the SFI): BPF's new id for (SFI, name-or-ScopeInfo);
 * user space reads the function's name and its script's name from the
 * process when it arrives. */
struct sp_nd_code_rec {
	uint32_t id;
	uint32_t pad;
	uint64_t sfi;          /* tagged SharedFunctionInfo pointer */
	uint64_t name;         /* its name_or_scope_info then */
	uint64_t magic;        /* SP_ND_REC_MAGIC: tells it from other walkers' records */
};
#define SP_ND_REC_MAGIC 0x6e64737072736631ull

/* Key of nd_code_seen (value: the id). */
struct sp_nd_code_key {
	uint64_t sfi;
	uint64_t name;
	uint32_t pid;
	uint32_t pad;
};

#endif
