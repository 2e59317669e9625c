/* abi/php.h: PHP stacks, the layouts shared by bpf/php.bpf.c and runtime/langs/php.c.
 *
 * User space finds a process whose executable (or a libphp it maps)
 * exports executor_globals, a non-thread-safe (NTS) PHP 8.2 or 8.4 as
 * Debian builds its CLI, and writes one struct sp_ph_proc per process into
 * ph_procs. At sample time BPF reads executor_globals.current_execute_data
 * and follows prev_execute_data: one word per frame of a user function,
 * method, closure, included file or eval (internal functions are left
 * out: their C function is in the native stack already), in abi/interp.h's
 * word format (group end bit, id, offset). The offset is the line of the
 * frame's current opline (op_array.line_start while the function is being
 * entered and has none yet). A group ends at a frame whose call info has
 * ZEND_CALL_TOP: one entered from C (zend_execute, zend_call_function),
 * which one execute_ex activation runs from there up.
 */
#ifndef SPROF_ABI_PHP_H
#define SPROF_ABI_PHP_H

#define SP_PH_MAP_PROCS "ph_procs"
#define SP_PH_MAP_STATS "ph_stats"
#define SP_PH_MAP_SEEN "ph_code_seen"
#define SP_PH_MAP_LIVE "ph_live" /* as py_live (abi/interp.h) */
#define SP_PH_SEEN_MAX 16384     /* ph_code_seen's size */

/* Offsets in bytes of one PHP version's layouts (runtime/langs/php.c). */
struct sp_ph_proc {
	uint64_t eg;              /* address of executor_globals */
	uint32_t version;         /* major*10000 + minor*100 + release */
	uint32_t call_top;        /* ZEND_CALL_TOP in This.u1.type_info */
	uint16_t eg_current_ex;   /* executor_globals -> current_execute_data */
	uint16_t ex_opline, ex_func, ex_call_info, ex_prev; /* zend_execute_data */
	uint16_t fn_type, fn_name, fn_scope; /* zend_function (common) */
	uint16_t fn_filename, fn_line_start; /* zend_function (op_array) */
	uint16_t ce_name;         /* zend_class_entry -> name */
	uint16_t str_val;         /* zend_string -> val */
	uint16_t op_lineno;       /* zend_op -> lineno (u32) */
	uint16_t pad;
};

/* ph_stats (per-CPU u64 counters), abi/interp.h's indices. */
enum sp_ph_stat {
	SP_PH_ST_WALKS,     /* samples of a known php process */
	SP_PH_ST_NOTHREAD,  /* no PHP code running (before or after the script) */
	SP_PH_ST_TRUNCATED, /* more frames than room in the stack */
	SP_PH_ST_READERR,   /* a frame could not be read (stack cut there) */
	SP_PH_ST_FRAMES,    /* PHP frames stored */
	SP_PH_ST_CODE_RETRY, /* records the full ring buffer refused (sent again later) */
	SP_PH_ST_CODE_SENT, /* records sent */
	SP_PH_NSTATS
};

/* zend_function.type */
#define SP_PH_INTERNAL_FUNCTION 1
#define SP_PH_USER_FUNCTION 2
#define SP_PH_EVAL_CODE 4

/* What a frame word's id stands for. */
enum sp_ph_kind {
	SP_PH_FUNC = 1,    /* a function, method or closure: its name (and class) */
	SP_PH_MAIN = 2,    /* the script's top-level code: "{main}" */
	SP_PH_INCLUDE = 3, /* an included file's top-level code: "include" */
	SP_PH_EVAL = 4,    /* eval()'d code: "eval" */
};

/* SP_EV_INTERP_CODE record of a php process (after struct sp_event_hdr:
 * id the pid, arg the zend_function): BPF's new id for (function, name),
 * with the names copied as they were then (code compiled at run time,
 * closures and evals, can be freed soon after). */
#define SP_PH_NAME_MAX 128
#define SP_PH_FILE_MAX 256
struct sp_ph_code_rec {
	uint32_t id;
	uint32_t kind;              /* enum sp_ph_kind */
	uint64_t magic;             /* SP_PH_REC_MAGIC: tells it from other records */
	char name[SP_PH_NAME_MAX];  /* function_name, NUL-ended; "" when none */
	char scope[SP_PH_NAME_MAX]; /* the class's name; "" for a plain function */
	char file[SP_PH_FILE_MAX];  /* op_array.filename; "" when unread */
};
#define SP_PH_REC_MAGIC 0x7068707370726f66ull

/* Key of ph_code_seen (value: the id). */
struct sp_ph_code_key {
	uint64_t func;
	uint64_t name; /* function_name (a zend_string), 0 for top-level code */
	uint32_t pid;
	uint32_t kind;
};

#endif
