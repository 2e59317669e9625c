/* runtime/profile/profile.h: the data every report is written from.
 *
 * collect.c reads the BPF maps at the end of a run (or at print()), sums
 * per-CPU values, resolves stack ids to frames and symbolizes them; the
 * report_*.c writers only ever see this model, never BPF or ELF.
 */
#ifndef SPROF_RUNTIME_PROFILE_PROFILE_H
#define SPROF_RUNTIME_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "abi/plan.h"

/* INTERP: an interpreted function (runtime/langs/python.c): sym is its
 * name, srcfile/srcline where it runs, addr its code object. */
enum sp_frame_kind { SP_FRAME_USER, SP_FRAME_KERNEL, SP_FRAME_UNKNOWN, SP_FRAME_INTERP };

struct sp_frame {
	uint64_t addr;          /* absolute address as sampled */
	const char *sym;        /* symbol name, NULL when unresolved */
	uint64_t off;           /* addr - symbol start */
	const char *module;     /* mapped file path ("[kernel]" for kernel) or NULL */
	const char *build_id;   /* hex GNU build id of the module, or NULL */
	uint64_t file_off;      /* offset of addr in module (for pprof mappings) */
	uint64_t map_start, map_end, map_pgoff; /* mapping that held addr */
	const char *srcfile;    /* source file when known, else NULL */
	int srcline;            /* 0 when unknown */
	enum sp_frame_kind kind;
	bool inlined;           /* a function inlined at addr into the next frame (same addr) */
};

struct sp_stack {
	int n;
	struct sp_frame *frames; /* leaf first */
	bool truncated;          /* hit the frame limit */
};

/* One key part (or a whole key, when kind == SP_F_TUPLE). */
struct sp_kval {
	enum sp_field_kind kind;
	int64_t i;            /* INT (as signed or unsigned per is_signed), USYM/KSYM address */
	bool is_signed;
	const char *s;        /* STR, BUF; USYM/KSYM: resolved name */
	uint32_t pid;         /* USTACK: process */
	struct sp_stack *stack; /* USTACK, KSTACK */
	int n;                /* TUPLE */
	struct sp_kval *elems;
	const char *json;     /* C records/arrays/pointers (kind STR): the value as JSON */
	const uint8_t *raw;   /* BUF: the bytes themselves (i: how many), for %rx and %rh */
};

/* One interval of a tseries key: its number (wall ns / interval ns) and value. */
struct sp_tspoint {
	uint64_t epoch;
	int64_t v;
};

struct sp_value {
	int64_t v;            /* count, sum, min, max, avg (integer), plain int */
	uint64_t count;       /* avg/stats */
	int64_t total;        /* avg/stats */
	int nbuckets;         /* hist/lhist */
	uint64_t *buckets;    /* hist: index as bpftrace's log2 buckets; lhist: linear incl. under/overflow */
	struct sp_kval plain; /* non-aggregated values (strings, tuples) */
	int npoints;          /* tseries: intervals with a value, by epoch */
	struct sp_tspoint *points;
};

struct sp_entry {
	struct sp_kval key;   /* kind SP_F_NONE for scalar maps */
	struct sp_value val;
};

struct sp_mapdata {
	const struct sp_plan_map *map;
	int n;
	struct sp_entry *entries;
	uint64_t dropped;     /* updates lost because the map was full */
	uint32_t max_entries;
	uint64_t table_dropped; /* drained entries of new keys not kept: the table was at max_keys */
	uint32_t max_keys;
};

struct sp_profile {
	int nmaps;
	struct sp_mapdata *maps;
	uint64_t sample_period_ns; /* 1e9/hz of the first profile probe, 0 if none */
	bool cpu_ns_in_total;      /* count entries carry their CPU time in val.total (ns),
				    * summed at each row's own rate (fleet reports) */
	uint64_t duration_ns;
	uint64_t start_time_ns;    /* wall clock, ns since the epoch */
	uint64_t lost_stacks;      /* stacks dropped (stack map full) */
	uint64_t lost_events;      /* ring buffer records dropped (printf, exit, ...) */
	uint64_t lost_collisions;  /* stacks dropped: their two hashes held other stacks */
	uint64_t cut_stacks;       /* stacks cut at the frame limit (SP_MAX_FRAMES) */
	uint32_t stack_entries;    /* size of the stack map */
};

/* Sum of an entry's weight used by stack reports (count/sum value, hist total). */
uint64_t sp_entry_weight(const struct sp_entry *e);

#endif
