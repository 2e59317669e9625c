/* abi/perl.h: Perl stacks, the layouts shared by bpf/perl.bpf.c and runtime/langs/perl.c.
 *
 * The Perl third of the interpreter walker (abi/interp.h has CPython's,
 * abi/ruby.h Ruby's). User space finds a process whose executable or
 * libperl exports PL_thr_key and PL_revision (a threaded perl 5.36, 5.40, 5.42)
 * and writes one struct sp_pl_proc per process into pl_procs. At sample
 * time BPF takes the sampled thread's interpreter (pthread_getspecific
 * (PL_thr_key), read from glibc's thread descriptor at the task's FS base)
 * and walks its context stacks from the innermost context of the current
 * stackinfo down, then the stackinfos below it: one word per sub (or
 * format) context and per eval context, and one for the program's file
 * scope at the bottom, in abi/interp.h's word format (group end bit, id,
 * offset). The offset is the line of the COP the frame is at (PL_curcop
 * for the innermost one, the blk_oldcop of the next inner frame's context
 * for the others). A sub entered but whose first statement has not run yet
 * (PL_curcop is still its caller's, its context's blk_oldcop) has no line
 * (SP_PY_OFF_NONE) and its own file (CvFILE), not its caller's. A group ends at a context whose retop is NULL (a sub or
 * eval entered from C: call_sv, eval_sv, so one Perl_runops_standard
 * activation runs from it up), at the bottom of a stackinfo (sort, tie,
 * DESTROY... run a nested runops on a stackinfo of their own) and at the
 * file scope.
 */
#ifndef SPROF_ABI_PERL_H
#define SPROF_ABI_PERL_H

#define SP_PL_MAP_PROCS "pl_procs"
#define SP_PL_MAP_STATS "pl_stats"
#define SP_PL_MAP_SEEN "pl_code_seen"
#define SP_PL_MAP_LIVE "pl_live" /* as py_live (abi/interp.h) */
#define SP_PL_SEEN_MAX 16384     /* pl_code_seen's size */

/* Offsets in bytes of one perl version's layouts (runtime/langs/perl.c). */
struct sp_pl_proc {
	uint64_t thr_key;       /* address of PL_thr_key (a pthread_key_t, u32) */
	uint64_t curinterp;     /* address of PL_curinterp: the main thread's interpreter */
	uint64_t task_fsbase;   /* task_struct -> thread.fsbase (vmlinux BTF) */
	uint32_t version;       /* revision*10000 + version*100 + subversion */
	uint16_t tsd_data;      /* FS base -> specific_1stblock[0].data of glibc's
				 * struct pthread; key k's is 16*k further */
	uint16_t interp_curcop, interp_curstackinfo;
	uint16_t si_cxstack, si_prev, si_cxix;
	uint16_t cx_size, cx_oldcop, cx_retop, cx_sub_cv;
	uint16_t cop_line, cop_file;
	uint16_t cv_gv;         /* XPVCV (body) -> xcv_gv_u */
	uint16_t cv_flags;      /* XPVCV (body) -> xcv_flags (u32) */
	uint16_t gv_gp;         /* SV head -> sv_u.svu_gp */
	uint16_t gp_egv;
	uint16_t cv_file;       /* XPVCV (body) -> xcv_file (a char * in threaded builds) */
	uint16_t pad;
	uint32_t cvf_named;     /* CVf_NAMED: xcv_gv_u is a HEK, not a GV */
};

/* pl_stats (per-CPU u64 counters), abi/interp.h's indices. */
enum sp_pl_stat {
	SP_PL_ST_WALKS,     /* samples of a known perl process */
	SP_PL_ST_NOTHREAD,  /* the thread has no interpreter (or not the one expected) */
	SP_PL_ST_TRUNCATED, /* more frames than room in the stack */
	SP_PL_ST_READERR,   /* a context could not be read (stack cut there) */
	SP_PL_ST_FRAMES,    /* Perl frames stored */
	SP_PL_ST_CODE_RETRY, /* records the full ring buffer refused (sent again later) */
	SP_PL_ST_CODE_SENT, /* records sent */
	SP_PL_NSTATS
};

/* What a frame word's id stands for. */
enum sp_pl_kind {
	SP_PL_SUB = 1,  /* a sub or format: cv its CV, gv its (effective) GV, or a
			 * HEK of its name (a lexical sub, CVf_NAMED) */
	SP_PL_EVAL = 2, /* an eval, require or do FILE: "(eval)", as caller() names it */
	SP_PL_MAIN = 3, /* the program's file scope */
};

/* SP_EV_INTERP_CODE record of a perl process (after struct sp_event_hdr:
 * id the pid, arg the CV, 0 for eval and file scope): BPF's new id for
 * (cv, gv, file), and the file name as it was then (a COP's file can be
 * freed or reused soon: code compiled at run time, eval strings); user
 * space reads the sub's name from the process when it arrives. */
#define SP_PL_FILE_MAX 256
struct sp_pl_code_rec {
	uint32_t id;
	uint32_t kind;    /* enum sp_pl_kind */
	uint64_t gv;      /* GV (or HEK when named is set) of a sub, 0 otherwise */
	uint64_t file;    /* the COP's file name (a C string in the process) */
	uint32_t named;   /* gv is a HEK (CVf_NAMED) */
	uint32_t pad;
	uint64_t magic;   /* SP_PL_REC_MAGIC: tells it from CPython's records */
	char file_name[SP_PL_FILE_MAX]; /* its bytes, NUL-ended; "" when unread */
};
#define SP_PL_REC_MAGIC 0x706c7370726f6631ull

/* Key of pl_code_seen (value: the id). fhead, the file name's first 8
 * bytes, tells a reused file name address apart. */
struct sp_pl_code_key {
	uint64_t cv;
	uint64_t gv;
	uint64_t file;
	uint64_t fhead;
	uint32_t pid;
	uint32_t kind;
};

/* Context types of cop.h (CxTYPE: the low 4 bits of blku_type), the
 * same in 5.36, 5.40 and 5.42. */
#define SP_PL_CXT_MASK 0xf
#define SP_PL_CXT_SUB 9
#define SP_PL_CXT_FORMAT 10
#define SP_PL_CXT_EVAL 11

#endif
