/* abi/plan.h: what codegen hands the runtime besides the BPF object.
 *
 * Plain data only (no LLVM, no AST): the probes to attach and which BPF
 * program serves each, the maps to read and how their keys and values are
 * laid out, and the ids used on the event ring buffer. The runtime includes
 * this header and nothing else of the compiler.
 *
 * Everything in a plan is allocated with malloc and freed by sp_plan_free().
 */
#ifndef SPROF_ABI_PLAN_H
#define SPROF_ABI_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one table of probe types, read by the parser (names, aliases, the
 * usage shown for a malformed attach point), codegen and the runtime
 * (runtime/attach/probe.c's ops are indexed by it, -l lists it).
 * X(enum, canonical name, bpftrace's alias, usage) */
#define SP_PROBE_TYPES(X)                                                    \
	X(BEGIN, "BEGIN", "begin", "BEGIN")                                  \
	X(END, "END", "end", "END")                                          \
	X(PROFILE, "profile", "p", "profile:[hz|s|ms|us:]N")                 \
	X(INTERVAL, "interval", "i", "interval:[s|ms|us|hz:]N")              \
	X(SOFTWARE, "software", "s", "software:EVENT[:PERIOD]")              \
	X(HARDWARE, "hardware", "h", "hardware:EVENT[:PERIOD]")              \
	X(UPROBE, "uprobe", "u", "uprobe:PATH:FUNCTION[+OFFSET]")           \
	X(URETPROBE, "uretprobe", "ur", "uretprobe:PATH:FUNCTION")           \
	X(USDT, "usdt", "U", "usdt:PATH:[PROVIDER:]NAME")                    \
	X(TRACEPOINT, "tracepoint", "t", "tracepoint:CATEGORY:NAME")         \
	X(RAWTRACEPOINT, "rawtracepoint", "rt", "rawtracepoint:NAME")        \
	X(KPROBE, "kprobe", "k", "kprobe:FUNCTION[+OFFSET]")                 \
	X(KRETPROBE, "kretprobe", "kr", "kretprobe:FUNCTION")                 \
	X(WATCHPOINT, "watchpoint", "w", "watchpoint:ADDR|FUNC+argN:LEN:MODE")         \
	X(ASYNCWATCHPOINT, "asyncwatchpoint", "aw", "asyncwatchpoint:ADDR|FUNC+argN:LEN:MODE") \
	X(FENTRY, "fentry", "f", "fentry:[MODULE:]FUNCTION")                 \
	X(FEXIT, "fexit", "fr", "fexit:[MODULE:]FUNCTION")                   \
	X(ITER, "iter", "it", "iter:NAME[:PIN]")

enum sp_probe_type {
#define X(k, n, a, u) SP_PROBE_##k,
	SP_PROBE_TYPES(X)
#undef X
	SP_PROBE__COUNT
};

struct sp_plan_probe {
	enum sp_probe_type type;
	char *spec;         /* attach point as written: "profile:hz:99" */
	char *prog;         /* name of the BPF program serving it */
	char *target;       /* binary / tracepoint category / ... (may be NULL) */
	char *func;         /* function / event / usdt name (may be NULL) */
	char *ns;           /* usdt provider (may be NULL) */
	char *unit;         /* "hz", "s", "ms", "us" for profile/interval;
	                     * a watchpoint's mode ("w", "rw", "x") */
	uint64_t value;     /* frequency or period count; a watchpoint's length */
	uint64_t offset;
	bool has_value, has_offset, is_addr;
	uint32_t line, col; /* where the attach point is written */
	/* The program reads `func`/`probe` from sp_probe_names (the attach point
	 * has a wildcard, so one program serves several functions): attach each
	 * expanded point with bpf_cookie = an index into SP_MAP_PROBE_NAMES and
	 * write that entry (struct sp_probe_name) before the first event. */
	bool uses_names;
	int block;          /* index of the probe block it belongs to: attach points of
	                     * one block share the actions */
	bool sleepable;     /* load with BPF_F_SLEEPABLE: a uprobe whose str() may
	                     * need to fault in a page (bpf_copy_from_user) */
};

/* Aggregations a map value can hold. */
#define SP_AGG_KINDS(X) \
	X(COUNT, "count") \
	X(SUM, "sum")     \
	X(MIN, "min")     \
	X(MAX, "max")     \
	X(AVG, "avg")     \
	X(STATS, "stats") \
	X(HIST, "hist")   \
	X(LHIST, "lhist") \
	X(TSERIES, "tseries")

enum sp_agg_kind {
	SP_AGG_NONE,
#define X(k, s) SP_AGG_##k,
	SP_AGG_KINDS(X)
#undef X
};

enum sp_stack_mode {
	SP_STACK_BPFTRACE, /* "sym+off" per line, 4-space indent */
	SP_STACK_PERF,     /* "\taddr sym+off (module)" */
	SP_STACK_RAW,      /* bare addresses */
};

/* How one key or value slot is laid out in map memory. */
enum sp_field_kind {
	SP_F_INT,    /* size 1/2/4/8, is_signed */
	SP_F_STR,    /* size bytes, NUL padded */
	SP_F_USTACK, /* struct sp_ustack_key (16 bytes) */
	SP_F_KSTACK, /* u64 stack id (8 bytes) */
	SP_F_USYM,   /* struct sp_usym: user address and the pid it belongs to */
	SP_F_KSYM,   /* u64 kernel address */
	SP_F_TUPLE,  /* elems at their offsets */
	SP_F_BUF,    /* u8 len + bytes */
	SP_F_NONE,   /* no key (scalar map): size 0 */
	SP_F_TIMESTAMP, /* u64 ns from strftime(fmt, ns); fmt: the format */
	SP_F_INET,   /* ntop(): 4 (IPv4) or 16 (IPv6) address bytes */
	SP_F_RECORD, /* C struct/union: elems are its members (member names them;
	              * bit_size != 0: a bitfield of the word at offset) */
	SP_F_ARRAY,  /* C array: elems are its elements */
	SP_F_PTR,    /* C pointer: u64 address, printed in hex */
	SP_F_TEXT,   /* u64 printed as text (runtime/format_text.c); fmt: how
	              * ("username", "strerror", "cgroup_path[:FILTER]", "macaddr";
	              * "bool": a one-byte 0/1 printed true/false) */
};

struct sp_plan_field {
	enum sp_field_kind kind;
	uint32_t offset;   /* from the start of the whole key/value (or printf args),
	                    * also for elements of nested tuples */
	uint32_t size;
	bool is_signed;
	int stack_limit;   /* stacks: frames kept */
	int stack_mode;    /* enum sp_stack_mode */
	int nelems;        /* TUPLE */
	struct sp_plan_field *elems;
	char *fmt;         /* TIMESTAMP: strftime format (may be NULL: "%H:%M:%S"); TEXT: how */
	char *name;        /* key part written as a builtin ("pid", "tid", "comm"), else NULL:
	                    * reports use it as a label name */
	char *member;      /* element of a RECORD: the member's name */
	uint8_t bit_off, bit_size; /* INT member of a RECORD: a bitfield */
};

/* Layout of a user stack slot in a key: the stack id in sp_stacks and the
 * process it was taken in, so it can be symbolized after the process exits. */
/* A usym() value: the address and the process whose mappings name it
 * (bpftrace's layout too), so it prints by name without a ustack beside it. */
struct sp_usym {
	uint64_t addr;
	uint32_t pid;
	uint32_t pad;
};

struct sp_ustack_key {
	uint64_t stack_id; /* 0: empty stack */
	uint32_t pid;
	uint32_t pad;
};

/* Value of the shared stack map, keyed by a 64-bit hash of the frames. */
#define SP_MAX_FRAMES 127
struct sp_stack_val {
	uint32_t nr;
	uint32_t ninterp; /* interpreter frame words after the nr native ones
			   * (abi/interp.h); nr + ninterp <= SP_MAX_FRAMES */
	uint64_t ip[SP_MAX_FRAMES];
};

/* Map value kinds (0 = plain value). */
struct sp_plan_map {
	char *name;        /* "@", "@x" */
	char *bpf_name;    /* map name in the object */
	int agg;           /* enum sp_agg_kind; SP_AGG_NONE: plain value */
	struct sp_plan_field key;   /* SP_F_NONE, a single field, or SP_F_TUPLE of the keys */
	struct sp_plan_field value; /* layout of a plain value */
	uint32_t key_size, value_size;
	bool percpu;
	int64_t lhist_min, lhist_max, lhist_step; /* tseries: interval ns, intervals, SP_TS_* */
	char *drops_name;  /* per-CPU counter of updates dropped because the map was full, or NULL */
	/* An aggregation BPF never reads back (no @m[k] read, no delete()):
	 * user space drains it into its own table before it fills (lookup and
	 * delete in batches) and reports from that table. Maps holding state
	 * are never drained. */
	bool drain;
	uint32_t declared_max; /* let @m = hash(N): N, kept over --max-keys; 0: not declared */
};

/* tseries()'s aggregation of the values of one interval (lhist_step). */
enum sp_tseries_fn { SP_TS_LAST, SP_TS_AVG, SP_TS_MAX, SP_TS_MIN, SP_TS_SUM };

/* Records sent from BPF to user space on the "sp_events" ring buffer. Every
 * record starts with this header; what follows depends on the type. */
enum sp_event_type {
	SP_EV_EXIT = 1,   /* exit([code]); arg: the exit code (0 when not given) */
	SP_EV_NEWPID = 2, /* first user stack from a process: snapshot its maps; arg: pid */
	SP_EV_PRINTF = 3, /* id: index in plan.printfs; the args follow the header,
	                   * laid out as printfs[id].args (offsets from the end of the header);
	                   * arg: the printing task's tgid (this and every record with
	                   * printf-like args), for symbolizing usym() values */
	SP_EV_PRINT = 4,  /* print(@m[, top[, div]]): id: index in plan.maps;
	                   * arg: top in the low 32 bits, div in the high 32 (0: not given) */
	SP_EV_CLEAR = 5,  /* clear(@m): id: index in plan.maps; user space deletes every key */
	SP_EV_ZERO = 6,   /* zero(@m): id: index in plan.maps; user space zeroes every value */
	SP_EV_PRINT_VALUE = 7, /* print(value): id: index in plan.printfs (fmt NULL);
	                        * the one value follows like printf args */
	SP_EV_TIME = 8,   /* time(fmt): id: index in plan.printfs, fmt is the strftime
	                   * format ("%H:%M:%S\n" when not given); no args */
	SP_EV_CAT = 9,    /* cat(fmt, ...): id: printfs index; the path is printf-formatted */
	SP_EV_SYSTEM = 10, /* system(fmt, ...): id: printfs index; the command likewise */
	SP_EV_INTERP_CODE = 11, /* an interpreter frame's code object seen for the first
	                         * time: id: pid, arg: its address (abi/interp.h) */
	SP_EV_JOIN = 12,  /* join(argv[, delim]): id: printfs index (fmt: the delimiter);
	                   * SP_JOIN_ARGNUM NUL-padded strings of SP_JOIN_ARGSIZE bytes
	                   * follow, the first empty one ends the list */
	SP_EV_WATCH = 13, /* watchpoint:FUNC+argN: FUNC was called; a struct sp_watch_rec:
	                   * id: index in plan.probes, arg: the address to watch */
	SP_EV_UNWATCH = 14, /* unwatch(addr): arg: the address; every watchpoint on it goes */
	SP_EV_ERRORF = 15, /* errorf()/warnf(): like SP_EV_PRINTF, the text goes to stderr
	                    * (codegen put the call's location and level in the format) */
};


/* Drains: SP_MAP_FILL counts the keys BPF inserted since the last drain,
 * slot 0 for sp_stacks, slot 1 + i for plan.maps[i]; when a count reaches
 * sp_config.drain_at (stacks: stack_drain_at) BPF writes the slot (u64) to
 * SP_MAP_DRAIN_RING, which wakes user space's drain thread.
 *
 * A drained map is two BPF maps of one layout (bpf_name, and bpf_name
 * SP_MAP_ALT_SUFFIX): BPF adds to the one its fill word's SP_FILL_GEN bit
 * names; a drain flips the bit, waits until each CPU's count of updates
 * under way (slot SP_DROPS_INFLIGHT of the map's drops counters) was seen
 * at 0 (no update still holds a value of the first half), then takes the
 * first whole. A drain never deletes a key BPF is adding to, so no update
 * is lost at a drain. No new map either: a program may use 64, and the
 * unwinder's take 50. Codegen leaves the other half out of a program that
 * would use more than 64 with it (its drains race updates, as before). */

#define SP_JOIN_ARGNUM 16    /* bpftrace 0.17's join(): 16 strings */
#define SP_JOIN_ARGSIZE 1024 /* of up to 1023 bytes each */

struct sp_event_hdr {
	uint32_t type;
	uint32_t id;
	uint64_t arg; /* NEWPID: pid */
};

/* SP_EV_WATCH: the header, the uprobe's cookie (the function's index in
 * SP_MAP_PROBE_NAMES when the probe reads `probe`/`func`) and the caller.
 * A watchpoint (not asyncwatchpoint) has stopped the process with SIGSTOP:
 * user space sets the breakpoint and sends SIGCONT. */
struct sp_watch_rec {
	struct sp_event_hdr h;
	uint64_t cookie;
	uint64_t pid;
};

/* Map layouts (struct sp_plan_map), as codegen builds them:
 *  - BPF key: the key fields at plan.key's offsets, zero padded to a multiple
 *    of 8; a map without keys (`@x = ...`) has one u64 key 0 (key.kind
 *    SP_F_NONE, key_size 8). hist/lhist append a u64 bucket index at
 *    offset key_size - 8.
 *  - hist buckets: 0 for values < 0, 1 for 0, 2 + floor(log2(v)) for v >= 1
 *    (bucket b >= 2 holds [2^(b-2), 2^(b-1)) ).
 *  - lhist buckets: 0 for v < min, 1 + (v - min) / step for min <= v < max,
 *    1 + (max - min) / step for v >= max (sp_hist_nbuckets counts them).
 *  - per-CPU values (percpu true), merged by user space:
 *      count, hist, lhist: u64 count
 *      sum: s64 total
 *      min, max: { s64 value; u64 seen } -- skip CPUs with seen == 0
 *      avg, stats: { u64 count; s64 total }
 *      tseries: { s64 value; s64 meta; u64 epoch } -- the key's bucket is
 *        epoch % intervals, epoch = wall ns / interval ns; meta: the write's
 *        time (no function), the count (avg), 1 once set (min/max)
 *  - plain values (agg SP_AGG_NONE): plan.value's layout, padded to 8.
 * Integers in printf/print records are always 8 bytes (is_signed says how
 * to read them). */

struct sp_plan_printf {
	char *fmt;                   /* the format as written, unescaped; NULL for print(value) */
	struct sp_plan_field args;   /* SP_F_TUPLE laid out after the header */
};

struct sp_plan {
	struct sp_plan_probe *probes;
	int nprobes;
	struct sp_plan_map *maps;
	int nmaps;
	struct sp_plan_printf *printfs;
	int nprintfs;
	bool uses_ustack, uses_kstack;
	char *source_name;
	/* Blocks of several attach points that read `probe`/`func` and so got a
	 * program per point: the kernel has no BPF cookies (codegen/cg_share.c) */
	int cookie_fallbacks;
};

void sp_plan_free(struct sp_plan *p); /* accepts NULL */
/* Removes probe i (0 <= i < nprobes), freeing its strings; later ones move down. */
void sp_plan_drop_probe(struct sp_plan *p, int i);
/* A field and its elements (not f itself): the plan's, and codegen's dropped copies. */
void sp_plan_field_free(struct sp_plan_field *f);
const char *sp_probe_type_name(enum sp_probe_type t);
/* The attach-point shape shown for a malformed one ("uprobe:PATH:FUNCTION[+OFFSET]"). */
const char *sp_probe_type_usage(enum sp_probe_type t);
/* bpftrace's alias ("t" for tracepoint), or "". */
const char *sp_probe_type_alias(enum sp_probe_type t);
/* The type a canonical name or an alias names, or -1. */
int sp_probe_type_of(const char *name_or_alias);

/* Names of the objects the BPF-side helpers (bpf/NAME.bpf.c) define. */
#define SP_MAP_STACKS "sp_stacks"
#define SP_MAP_EVENTS "sp_events"
#define SP_MAP_SEEN_PIDS "sp_seen_pids"
#define SP_MAP_STACK_DROPS "sp_stack_drops"
#define SP_MAP_PROBE_NAMES "sp_probe_names" /* ARRAY of struct sp_probe_name, indexed by
                                             * bpf cookie; 1 entry until the runtime resizes it */
#define SP_MAP_SCRATCH "sp_scratch" /* PERCPU_ARRAY[1]: codegen's big temporaries (internal) */
#define SP_MAP_EVENT_DROPS "sp_event_drops" /* PERCPU_ARRAY[1] u64: records lost, ring buffer full */
#define SP_MAP_CONFIG "sp_config" /* ARRAY[1] of struct sp_config, written after load */
#define SP_MAP_FILL "sp_fill"     /* ARRAY[1 + nmaps] u64: keys inserted since the last drain,
                                   * and SP_FILL_GEN */
#define SP_MAP_DRAIN_RING "sp_drain_ring" /* RINGBUF: u64 fill slots that reached their mark */
#define SP_MAP_ALT_SUFFIX "_alt"  /* a drained map's other half: its bpf_name and this */
#define SP_FILL_GEN (1ULL << 63)  /* in a SP_MAP_FILL word: BPF writes the map's other half */
#define SP_DROPS_INFLIGHT 1       /* drops_name's slot 1, per CPU: updates of the map under way */
#define SP_MAP_FOLLOW "sp_follow" /* HASH u32 tgid -> u8: the -c/-p target's descendants */
#define SP_FOLLOW_PROG_PREFIX "sp_follow_" /* hidden programs that fill SP_MAP_FOLLOW */
#define SP_FOLLOW_PROG_FORK "sp_follow_fork"
#define SP_FOLLOW_PROG_EXIT "sp_follow_exit"
#define SP_MAP_LOST "sp_lost"     /* PERCPU_ARRAY[SP_LOST__COUNT] u64: samples lost or cut, by cause */

/* Causes counted in SP_MAP_LOST (map full, ring buffer full and stack map
 * full have their own counters: DR_*, SP_MAP_EVENT_DROPS, SP_MAP_STACK_DROPS). */
enum sp_lost_cause {
	SP_LOST_STACK_COLLISION, /* both hashes of a stack held other stacks: counted without it */
	SP_LOST_STACK_TRUNCATED, /* a stack reached SP_MAX_FRAMES (kept, but cut) */
	SP_LOST_HELPER_DELETE,   /* -k: a delete() found no key (counted only with -k) */
	SP_LOST_HELPER_READ,     /* -kk: a read of probed memory failed (only with -kk) */
	SP_LOST__COUNT,
};

/* Names of one expanded attach point (see sp_plan_probe.uses_names). */
#define SP_PROBE_NAME_LEN 128
struct sp_probe_name {
	char func[SP_PROBE_NAME_LEN];  /* "probe_twice" */
	char probe[SP_PROBE_NAME_LEN]; /* "uprobe:/path/app:probe_twice" */
};

/* Run-time settings the BPF helpers read (bpf/common.bpf.c). */
struct sp_config {
	uint32_t target_pid; /* 0: every process; else only this tgid fires */
	uint32_t cpid;       /* -c child's pid (the `cpid` builtin); 0 without -c */
	uint64_t start_ns;   /* bpf_ktime_get_ns() (CLOCK_MONOTONIC) at start: `elapsed` */
	uint32_t self_pid;   /* sprof itself: never traced when target_pid is 0 */
	uint32_t switch_next_pid_off; /* sched_switch record: offset of next_pid (0: unknown) */
	uint32_t stopped;    /* set at the end of a run: filtered programs return at once */
	uint32_t wakeup_pid_off; /* sched_wakeup(_new) record: offset of pid (0: unknown) */
	uint32_t drain_at;   /* new keys in a drained map that wake the drain thread (0: never) */
	uint32_t stack_drain_at; /* the same for sp_stacks */
	uint32_t test_hash_bits; /* tests only: stack ids keep this many low bits (0: 64) */
	uint32_t follow;     /* the target's descendants pass the filter too (SP_MAP_FOLLOW) */
	uint32_t fork_child_off; /* sched_process_fork record: offset of child_pid (0: unknown) */
	uint32_t exit_group_dead_off; /* sched_process_exit record: group_dead (0: unknown) */
	uint64_t wall_delta_ns; /* CLOCK_REALTIME - CLOCK_BOOTTIME at start: tseries() wall time */
};

/* The name of a drained map's other half: bpf_name and SP_MAP_ALT_SUFFIX
 * (SP_FILL_GEN), into buf of n bytes; false when it does not fit. The one
 * place the name is made (codegen defines the half, the runtime sizes and
 * drains it). */
static inline bool sp_map_alt_name(char *buf, size_t n, const char *bpf_name)
{
	size_t len = __builtin_strlen(bpf_name), sl = sizeof(SP_MAP_ALT_SUFFIX) - 1;

	if (len + sl >= n)
		return false;
	__builtin_memcpy(buf, bpf_name, len);
	__builtin_memcpy(buf + len, SP_MAP_ALT_SUFFIX, sl + 1);
	return true;
}

/* The buckets a hist or lhist key can have, for codegen (deleting a key's
 * buckets) and the runtime (folding them): hist 66 (negative, 0, then
 * 2 + floor(log2) for 1 .. 2^64 - 1); lhist the under- and overflow
 * buckets and (max - min) / step between, 2 when the range is empty. */
static inline uint64_t sp_hist_nbuckets(int agg, int64_t min, int64_t max, int64_t step)
{
	if (agg == SP_AGG_HIST)
		return 66;
	if (agg == SP_AGG_TSERIES) /* lhist_max: the intervals */
		return max > 0 ? (uint64_t)max : 1;
	if (step <= 0 || max <= min)
		return 2;
	return 2 + (uint64_t)(max - min) / (uint64_t)step;
}

#endif
