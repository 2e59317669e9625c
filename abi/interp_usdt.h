/* abi/interp_usdt.h: interpreter frames from USDT entry/return probes (--interp usdt).
 *
 * The second way to get interpreter frames (the first, the default, walks
 * the interpreter's memory: abi/interp.h). sprof attaches hidden programs
 * (bpf/interp_usdt.bpf.c) to the interpreter's own probes: CPython's
 * python:function__entry/function__return (3.11 and older builds with
 * --with-dtrace; 3.12 removed them) and Ruby's ruby:method__entry/return
 * and ruby:cmethod__entry/return. Each thread (key: its tid) has a stack
 * of frames in the iu_threads map: an entry pushes, a return pops when it
 * names the frame on top. Samples (ustack, pystack) copy it, innermost
 * frame first, into the interpreter words of the stack value
 * (struct sp_stack_val.ninterp, like the memory walk).
 *
 * Which eval-loop activation runs which frame is unknown in this mode, so
 * user space (runtime/langs/interp_usdt.c) puts all of a stack's
 * interpreter frames where the innermost eval-loop function runs.
 *
 * Frame word (one u64): the name id in bits 0-31, the line the probe
 * gave at entry (the function's def line in CPython 3.11; the method's
 * first body line in Ruby) in bits 32-55, the language (enum sp_iu_lang)
 * in bits 56-63, so BPF can pick one language's frames without looking
 * names up (an rbstack). Ids above SP_IU_ID_MAX are markers, not names
 * (language 0).
 *
 * Names: the first entry of a (pid, string addresses) in a process gets a
 * new id and a struct sp_iu_name in iu_names (map SP_IU_MAP_NAMES, key the
 * u32 id), the strings copied at once, so names outlive the process. A
 * reader of Ruby frames (rbstack) takes the frames of a stack whose
 * names have lang SP_IU_LANG_RUBY or SP_IU_LANG_RUBY_C.
 */
#ifndef SPROF_ABI_INTERP_USDT_H
#define SPROF_ABI_INTERP_USDT_H

#include <stdint.h>

/* Where interpreter frames come from (--interp): codegen links the source
 * in, the runtime attaches what it needs. */
enum sp_interp_mode {
	SP_INTERP_MEMORY = 0, /* the memory walk (bpf/python.bpf.c), the default */
	SP_INTERP_USDT = 1,   /* this file's probes */
	SP_INTERP_OFF = 2,    /* no interpreter frames: native stacks only */
};

#define SP_IU_MAP_THREADS "iu_threads"
#define SP_IU_MAP_NAMES "iu_names"
#define SP_IU_MAP_STATS "iu_stats"

/* The hidden programs (codegen keeps them only in --interp usdt). */
#define SP_IU_PROG_PY_ENTRY "sp_iu_prog_py_entry"
#define SP_IU_PROG_PY_RETURN "sp_iu_prog_py_return"
#define SP_IU_PROG_RB_ENTRY "sp_iu_prog_rb_entry"
#define SP_IU_PROG_RB_CENTRY "sp_iu_prog_rb_centry"
#define SP_IU_PROG_RB_RETURN "sp_iu_prog_rb_return"
#define SP_IU_PROG_RB_CRETURN "sp_iu_prog_rb_creturn"
#define SP_IU_PROG_EXIT "sp_iu_prog_exit"
#define SP_IU_PROG_PREFIX "sp_iu_prog_"

#define SP_IU_LINE_SHIFT 32
#define SP_IU_LINE_MASK 0xffffffull
#define SP_IU_LANG_SHIFT 56
#define SP_IU_ID_MAX 0xfffffff0u
#define SP_IU_ID_BASE 0xfffffffeu /* frames entered before sprof saw the thread */
#define SP_IU_ID_DEEP 0xfffffffdu /* frames deeper than SP_IU_DEPTH (not kept) */

/* Frames kept per thread; deeper ones are counted (SP_IU_ST_DEEP). */
#define SP_IU_DEPTH 120

/* iu_threads value. frames[0] is the outermost frame seen. */
struct sp_iu_thread {
	uint32_t pid;
	uint32_t depth;  /* frames entered and not returned; may pass SP_IU_DEPTH */
	uint32_t flags;  /* SP_IU_F_* */
	uint32_t pad;
	uint64_t frames[SP_IU_DEPTH];
};
#define SP_IU_F_BASE_UNKNOWN 1u /* the thread ran code before its first event */

enum sp_iu_lang {
	SP_IU_LANG_PYTHON = 1,
	SP_IU_LANG_RUBY = 2,   /* method__entry: a Ruby method */
	SP_IU_LANG_RUBY_C = 3, /* cmethod__entry: a method written in C */
};

/* iu_names value: NUL-terminated strings as the probe passed them
 * (cut to the buffer); cls is empty for Python. */
#define SP_IU_CLS_MAX 64
#define SP_IU_FN_MAX 96
#define SP_IU_FILE_MAX 160
struct sp_iu_name {
	uint32_t lang;  /* enum sp_iu_lang */
	uint32_t pid;
	char cls[SP_IU_CLS_MAX];
	char fn[SP_IU_FN_MAX];
	char file[SP_IU_FILE_MAX];
};

/* iu_stats (per-CPU u64 counters). */
enum sp_iu_stat {
	SP_IU_ST_ENTRIES,   /* entry probes that pushed a frame */
	SP_IU_ST_RETURNS,   /* return probes that popped one */
	SP_IU_ST_UNMATCHED, /* returns not naming the frame on top (left alone) */
	SP_IU_ST_DEEP,      /* entries past SP_IU_DEPTH (not kept) */
	SP_IU_ST_NONAME,    /* names that could not be stored (iu_names full) */
	SP_IU_ST_SAMPLES,   /* stacks taken of a thread with a frame stack */
	SP_IU_ST_NOSTACK,   /* stacks taken of a thread without one */
	SP_IU_ST_CUT,       /* stacks with more frames than room left (not a pystack(N) limit) */
	SP_IU_ST_ENTRIES_C, /* of SP_IU_ST_ENTRIES, Ruby C methods' (fire without a TracePoint) */
	SP_IU_NSTATS
};

#endif
