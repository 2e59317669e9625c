/* runtime/continuous.h: --continuous PERIOD, a run that reports every period.
 *
 * Sampling never stops; every period (a timerfd in the run loop) the
 * drained maps are read and emptied in one step, the period's profile is
 * written (stdout, or the -o file with %t expanded to the period's start
 * in UTC), queued for the ClickHouse exporter, and then forgotten: the
 * collector's pools, stacks not seen for two periods, processes gone for a
 * period (symbolizer, unwinder and interpreter tables, BPF's per-process
 * entries) and object files nobody maps any more (beyond a small LRU).
 * The export of a period is sent by a thread of its own, so sampling never
 * waits for the network; unsent batches wait up to the exporter's bounds.
 * Loss counters are per period (the BPF counters are totals since the
 * start: each period shows the difference).
 */
#ifndef SPROF_RUNTIME_CONTINUOUS_H
#define SPROF_RUNTIME_CONTINUOUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/report/report.h"

struct bpf_object;
struct sp_collector;
struct sp_symbolizer;
struct sp_unwind;
struct sp_langs;
struct sp_clickhouse;

/* What a period is read from and written to; every pointer but coll and
 * obj may be NULL. */
struct sp_continuous_io {
	struct bpf_object *obj;
	struct sp_collector *coll;
	struct sp_symbolizer *sym;
	struct sp_unwind *unw;
	struct sp_langs *langs;        /* the language walkers (runtime/langs/lang.h) */
	struct sp_clickhouse *ch;      /* --export */
	struct sp_report_opts ro;      /* format, map filter, title; output unused */
	const char *output;            /* -o, %t expanded per period; NULL: stdout */
	uint64_t sample_period_ns;
	int nmaps;                     /* the plan's */
	int verbose;                   /* -v: one line of what is held per period */
};

struct sp_continuous;

/* Starts the period timer (the first period starts now) and the export
 * thread. NULL with errno set. */
struct sp_continuous *sp_continuous__open(uint64_t period_ns, const struct sp_continuous_io *io);
/* The timer's descriptor, for the run loop's epoll. */
int sp_continuous__fd(const struct sp_continuous *c);
/* The timer fired: emits the period that just ended. 0, or -errno of a
 * failure that should end the run (none so far: a period that cannot be
 * written is reported and the run goes on). */
int sp_continuous__tick(struct sp_continuous *c);
/* The run ends: emits the last, partial period and waits for the export
 * thread to try what is pending once more. 0, or -EIO when some period
 * could not be written or exported. */
int sp_continuous__finish(struct sp_continuous *c);
void sp_continuous__destroy(struct sp_continuous *c); /* accepts NULL */

/* "prof-%t.svg" -> "prof-20261125T101500Z.svg" for wall_ns (UTC);
 * milliseconds are added ("20261125T101500.500Z") when `ms`. "%%" is one
 * "%". -ENAMETOOLONG when it does not fit. */
int sp_continuous_path(const char *pattern, uint64_t wall_ns, bool ms, char *out, size_t len);

#endif
