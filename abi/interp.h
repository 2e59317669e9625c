/* abi/interp.h: interpreter stacks, the layouts shared by bpf/python.bpf.c and runtime/langs/python.c.
 *
 * User space finds a CPython process's _PyRuntime and version and writes one
 * struct sp_py_proc per process into the py_procs map: where the thread
 * states, frames and code objects keep what the walk needs. At sample time
 * BPF walks the sampled thread's frame chain and appends one word per
 * Python frame to the stack value, after the native frames (struct
 * sp_stack_val: nr native words, then ninterp interpreter words). User
 * space splices them back where _PyEval_EvalFrameDefault runs, and names
 * the code objects by reading the process's memory.
 */
#ifndef SPROF_ABI_INTERP_H
#define SPROF_ABI_INTERP_H

#define SP_PY_MAP_PROCS "py_procs"
#define SP_PY_MAP_STATS "py_stats"
#define SP_PY_MAP_SEEN "py_code_seen"
/* One-entry ARRAY, a u32: non-zero once user space has registered a process
 * in py_procs (set before the first entry goes in). Until then a stack
 * takes no py_procs lookup: two hash lookups a sample saved (~60 ns). */
#define SP_PY_MAP_LIVE "py_live"

/* One interpreter frame word: bit 0 set on the last (outermost) frame one
 * _PyEval_EvalFrameDefault activation runs; the code id in bits 1-32 (BPF
 * numbers each (process, code object address, name object) it sees, so a
 * code object freed and another allocated at its address stay apart; 0:
 * unknown), and the bytecode offset in code units in the top 16 bits
 * (SP_PY_OFF_NONE when unknown). */
#define SP_PY_GROUP_END 1ull
#define SP_PY_ID_SHIFT 1
#define SP_PY_ID_MASK 0xffffffffull
#define SP_PY_OFF_SHIFT 48
#define SP_PY_OFF_NONE 0xffffull

/* Slots of a mixed stack (SP_MAX_FRAMES) kept for interpreter frames. */
#define SP_PY_RESERVED 64

/* How the thread state of the sampled thread is found. */
enum sp_py_tstate_how {
	SP_PY_TS_GIL = 1,  /* *(runtime + tstate_current): the GIL holder (3.8-3.10) */
	SP_PY_TS_LIST = 2, /* the main interpreter's thread list, by native_thread_id (3.11+) */
	SP_PY_TS_PTHREAD = 3, /* the list by thread_id, the creating thread's pthread_t,
			       * which glibc makes its FS base (3.8-3.10): every thread,
			       * with the GIL or without it (blocking I/O) */
};

/* What marks the end of one C activation's frames. */
enum sp_py_marker {
	SP_PY_MK_NONE = 0,  /* every frame is its own activation (3.8-3.10) */
	SP_PY_MK_ENTRY = 1, /* a byte at frame_marker is non-zero on the entry frame (3.11) */
	SP_PY_MK_SHIM = 2,  /* a byte at frame_marker >= 3 on the shim frame between
			     * activations (3.12+: FRAME_OWNED_BY_CSTACK 3; 3.14:
			     * FRAME_OWNED_BY_INTERPRETER 3, CSTACK 4), itself not a
			     * Python frame */
};

/* Where the instruction of a frame is. */
enum sp_py_instr {
	SP_PY_IN_LASTI = 1, /* int at frame_instr: code units (3.10) */
	SP_PY_IN_LASTI_BYTES = 3, /* int at frame_instr: bytes (3.8, 3.9) */
	SP_PY_IN_PTR = 2,   /* pointer at frame_instr into the code object's
			     * bytecode, which starts at code + code_start */
};

/* Offsets in bytes; all fields fit the walk of CPython 3.8 to 3.14. */
struct sp_py_proc {
	uint64_t runtime;          /* address of _PyRuntime */
	uint32_t version;          /* PY_VERSION_HEX, 0x030b07f0 */
	uint16_t interp_head;      /* _PyRuntime -> interpreters.head */
	uint16_t tstate_current;   /* _PyRuntime -> GIL holder's tstate (SP_PY_TS_GIL) */
	uint16_t interp_tstate_head; /* interpreter -> first thread state */
	uint16_t tstate_next;
	uint16_t tstate_native_tid; /* native_thread_id (u32); thread_id (u64) with PTHREAD */
	uint16_t tstate_frame;     /* tstate -> frame, or -> cframe when cframe_frame >= 0 */
	int16_t cframe_frame;      /* cframe -> current_frame; -1: no cframe */
	uint16_t frame_code;
	uint16_t frame_back;
	uint16_t frame_instr;
	uint16_t frame_marker;
	uint16_t code_start;       /* bytecode offset in the code object (SP_PY_IN_PTR) */
	/* what SP_EV_INTERP_CODE records carry (struct sp_py_code_rec) */
	uint16_t code_firstlineno; /* int */
	uint16_t code_filename;    /* str */
	uint16_t code_qualname;    /* str (co_name in 3.10) */
	uint16_t code_linetable;   /* bytes */
	uint16_t str_ascii_data;   /* data of a compact ASCII str */
	uint8_t tstate_how;        /* enum sp_py_tstate_how */
	uint8_t marker;            /* enum sp_py_marker */
	uint8_t instr;             /* enum sp_py_instr */
	uint8_t code_tags;         /* low bits of the frame's code pointer that are tags, not
				    * address (3.14's _PyStackRef): cleared before use */
	uint8_t pad[2];
	uint32_t task_fsbase;      /* task_struct -> thread.fsbase (vmlinux BTF; SP_PY_TS_PTHREAD) */
};

/* py_stats (per-CPU u64 counters). */
enum sp_py_stat {
	SP_PY_ST_WALKS,     /* samples of a known interpreter process */
	SP_PY_ST_NOTHREAD,  /* no thread state for the sampled thread (not a Python thread) */
	SP_PY_ST_TRUNCATED, /* more frames than room in the stack */
	SP_PY_ST_READERR,   /* a frame could not be read (stack cut there) */
	SP_PY_ST_FRAMES,    /* interpreter frames stored */
	SP_PY_ST_CODE_RETRY, /* code object records the full ring buffer refused (sent again later) */
	SP_PY_ST_CODE_SENT, /* code object records sent */
	SP_PY_NSTATS
};

/* SP_EV_INTERP_CODE record (after struct sp_event_hdr: id the pid, arg
 * the code object): what BPF could copy of the code object when it first
 * saw it, so frames of code objects freed (or processes gone) before user
 * space reads them still get names. The header's id is the pid, arg the
 * code object's address. A string that is not compact ASCII, or
 * longer than its buffer, has length 0 (user space then reads the process);
 * lt_len 0: no line table copied. */
#define SP_PY_NAME_MAX 128
#define SP_PY_FILE_MAX 256
#define SP_PY_LT_MAX 1024
struct sp_py_code_rec {
	uint32_t id;               /* the code id frame words carry */
	int32_t firstlineno;
	uint16_t name_len, file_len, lt_len;
	uint16_t pad;
	char name[SP_PY_NAME_MAX];
	char file[SP_PY_FILE_MAX];
	uint8_t linetable[SP_PY_LT_MAX];
};

/* Key of py_code_seen (value: the code id): code objects already reported
 * to user space (SP_EV_INTERP_CODE), so it reads each one while the
 * process is alive. */
struct sp_py_code_key {
	uint64_t code;
	uint64_t name;  /* the name object it points to: tells reused addresses apart */
	uint32_t pid;
	uint32_t pad;
};

#endif
