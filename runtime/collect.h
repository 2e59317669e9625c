/* runtime/collect.h: BPF maps -> struct sp_profile. */
#ifndef SPROF_RUNTIME_COLLECT_H
#define SPROF_RUNTIME_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abi/plan.h"
#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_symbolizer;
struct sp_collector;
struct sp_langs;

/* max_keys: rows each drained map's table may hold (--max-keys); 0: no
 * map is drained (every map is read from BPF at the end, stacks too). */
struct sp_collector *sp_collector__open(const struct sp_plan *plan, struct bpf_object *obj,
					struct sp_symbolizer *sym, uint32_t max_keys);
/* Everything the collector returned (profiles, decoded keys, strings) lives
 * until destroy. Accepts NULL. */
void sp_collector__destroy(struct sp_collector *c);

/* --continuous: sp_collect() empties each drained map's table as it reads
 * it (in one step with the read), so every period starts from nothing. */
void sp_collector__set_take(struct sp_collector *c, bool take);
/* After a period's profile was written: frees every profile returned so
 * far and the symbolized-stack cache, and forgets stacks not seen this
 * period nor the last (sp_drain_age_stacks; returns that count). */
size_t sp_collector__end_period(struct sp_collector *c);
/* Interpreter frames of user stacks are spliced in by the language
 * walkers (runtime/langs/lang.h; may be NULL). */
void sp_collector__set_langs(struct sp_collector *c, struct sp_langs *langs);
/* --interp usdt: interpreter frames come from there instead (runtime/langs/interp_usdt.h). */
struct sp_iusdt;
void sp_collector__set_iusdt(struct sp_collector *c, struct sp_iusdt *iu);
/* Reads every plan map and the drop counters. */
int sp_collect(struct sp_collector *c, struct sp_profile *out);
/* "@m: N updates dropped, map full at K keys", then one "sprof: lost: N
 * ... (cause)" line per cause, on stderr (after the report, so they are
 * the last thing seen). */
void sp_profile_warn(const struct sp_profile *p);
/* Drains every drained map and the stacks now (a thread of the collector
 * does it on its own while running; a periodic report would call this,
 * then read and clear). */
int sp_collect_drain_all(struct sp_collector *c);
/* Reads one map (print() while running); the result lives until
 * sp_collector__reset_scratch(). */
int sp_collect_map(struct sp_collector *c, const struct sp_plan_map *m, struct sp_mapdata *out);
/* clear(@m): deletes every key. zero(@m): zeroes every value, keeping keys. */
int sp_collect_clear(struct sp_collector *c, const struct sp_plan_map *m);
int sp_collect_zero(struct sp_collector *c, const struct sp_plan_map *m);
/* Decodes one field laid out at `data` (printf arguments). `pid` is used
 * for USYM when the data carries no user stack. */
int sp_collect_decode(struct sp_collector *c, const struct sp_plan_field *f, const void *data,
		      uint32_t pid, struct sp_kval *out);
/* Frees what decoding printf arguments allocated (call after each event). */
void sp_collector__reset_scratch(struct sp_collector *c);

/* -v: "drain: N passes, N entries moved, ..." */
void sp_collect_print_stats(struct sp_collector *c, FILE *f);

/* Samples lost (or kept without their stack), by cause. */
struct sp_lost {
	uint64_t map_full;   /* updates a full BPF map dropped (every map) */
	uint64_t table_full; /* drained entries a table at --max-keys dropped */
	uint64_t ring;       /* ring buffer records dropped (printf, exit, ...) */
	uint64_t stack_full; /* stacks the full stack map could not take */
	uint64_t collision;  /* stacks whose two hashes held other stacks (counted without) */
	uint64_t truncated;  /* stacks cut at the 127-frame limit (kept) */
};
/* Every cause but truncated. */
uint64_t sp_lost_total(const struct sp_lost *l);

/* Live counters for the status line: distinct stacks seen and losses. */
void sp_collect_counters(struct sp_collector *c, uint64_t *stacks, struct sp_lost *lost);
/* One cause of SP_MAP_LOST (enum sp_lost_cause), summed over the CPUs. */
uint64_t sp_collect_lost(struct sp_collector *c, int cause);

#endif
