/* runtime/runtime.h: plan + BPF object -> loaded, attached, collected, reported.
 *
 * sp_run() owns a whole session: open the object from memory, size maps,
 * load (mapping verifier failures back to script lines), run BEGIN, attach
 * every probe, start or follow the target, poll the event ring buffer until
 * exit()/Ctrl-C/SIGTERM/-c child exit/--duration, detach, run END, then read
 * the maps and write the report. Every BPF link is released on every path.
 */
#ifndef SPROF_RUNTIME_RUNTIME_H
#define SPROF_RUNTIME_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "abi/plan.h"

/* Reports a problem located in the script (verifier message, attach error)
 * to the front end's diagnostics; line/col 0 when unknown. */
typedef void (*sp_diag_fn)(void *ctx, uint32_t line, uint32_t col, const char *msg);

/* Attach points a program may make unless told otherwise (bpftrace
 * 0.27's max_probes): `kprobe:*` would put a program on every kernel
 * function, which stalls a machine. */
#define SP_DEFAULT_MAX_PROBES 1024

struct sp_run_opts {
	pid_t pid;              /* -p: 0 = all */
	const char *cmd;        /* -c: command line run through the shell-less splitter */
	int verbose;            /* -v: full verifier log */
	bool no_exit_maps;      /* config print_maps_on_exit = 0: no report at the end */
	bool dry_run;           /* --dry-run: load and attach, run nothing (no BEGIN), print nothing */
	bool stats;             /* --stats: where samples went and what each probe cost, at the end */
	uint32_t unwind_rows;   /* SPROF_UNWIND_ROWS: the unwind tables' budget; 0: the default */
	bool no_dwarf;          /* SPROF_NO_DWARF=1: user stacks by frame pointers only */
	uint32_t test_hash_bits; /* SPROF_TEST_STACK_HASH_BITS: stack ids cut to N bits (tests) */
	const char *format;     /* text (default), json, folded, svg, pprof, speedscope */
	const char *output;     /* -o FILE; NULL = stdout */
	const char *map_filter; /* --map @name */
	const char *title;      /* --title for svg */
	uint64_t duration_ns;   /* --duration; 0 = until stopped */
	uint64_t continuous_ns; /* --continuous: a report every period; 0 = one at the end */
	uint32_t max_keys;      /* --max-keys: keys kept per map in user space (drained maps) */
	uint32_t map_size;      /* --map-size: entries per BPF map (state maps' limit); 0 = max_keys */
	bool no_drain;          /* SPROF_NO_DRAIN=1: maps stay in BPF (tests, benchmarks) */
	bool status_line;       /* live status on stderr (when it is a tty) */
	bool quiet;             /* -q: no "Attached N probes" line */
	bool notify_attached;   /* __BPFTRACE_NOTIFY_PROBES_ATTACHED=1: say so on stdout once live */
	uint32_t cat_bytes_max; /* BPFTRACE_CAT_BYTES_MAX: bytes cat() prints; 0 = 10 KiB */
	uint32_t log_size;      /* BPFTRACE_LOG_SIZE: verifier log buffer; 0 = 16 MiB */
	uint32_t max_probes;    /* SPROF_MAX_PROBES: attach points in all; 0 = SP_DEFAULT_MAX_PROBES */
	int helper_checks;      /* -k: 1 warns of failed map updates, -kk: 2 also of failed reads */
	bool no_inline;         /* --no-inline: no frames for inlined functions */
	bool no_follow;         /* --no-follow: -c/-p trace one process, not its descendants */
	const char *export_url; /* --export clickhouse://...; NULL = none */
	const char *host_name;  /* --host-name for exported rows; NULL = gethostname() */
	uint64_t retention_s;   /* --retention: drop exported days older than this */
	const char *spool_dir;  /* --spool: export batches wait on disk here; NULL = in memory */
	size_t spool_bytes;     /* --spool-size; 0 = 256 MiB */
	uint64_t spool_age_s;   /* --spool-age: batches older than this leave the spool; 0 = kept */
	int interp;             /* --interp: enum sp_interp_mode (abi/interp_usdt.h) */
	bool unsafe;            /* --unsafe: signal(), system(); root only (sp_check_unsafe) */
	sp_diag_fn diag;
	void *diag_ctx;
};

/* Returns the process exit status: 0 on a normal end (exit(code): code),
 * 1 on errors. */
int sp_run(const struct sp_plan *plan, const void *obj, size_t objlen,
	   const struct sp_run_opts *o);

/* The runtime's face: what the driver (main.c) uses besides sp_run(), so it
 * includes this header alone (the layout tier checks it). */
#include "runtime/attach/listing.h"     /* -l */
#include "runtime/attach/resolve.h"     /* binaries and libraries by name */
#include "runtime/attach/tracefs.h"     /* tracepoint formats for sema */
#include "runtime/elf/bpf_disasm.h"     /* -d bpf */
#include "runtime/elf/funcs.h"          /* symbol sizes for uaddr() */
#include "runtime/info.h"               /* --info, the kernel's features */
#include "runtime/objcache.h"           /* the object cache */
#include "runtime/store/clickhouse.h"  /* sprof report, fleet init */
#include "runtime/report/diff.h"        /* sprof diff */
#include "runtime/report/report.h"      /* output formats */
#include "runtime/store/serve.h"       /* sprof serve */
#include "runtime/stacks/kallsyms.h"    /* kernel symbols for sema */
#include "runtime/timings.h"            /* SPROF_TIMINGS */
#include "runtime/verifier.h"           /* -d verifier */

#endif
