/* runtime/store/ch_rows.h: a profile as ClickHouse rows (JSONEachRow text). */
#ifndef SPROF_RUNTIME_STORE_CH_ROWS_H
#define SPROF_RUNTIME_STORE_CH_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/profile/profile.h"

/* A set of 64-bit stack ids (0 is never one). */
struct sp_ch_ids {
	uint64_t *v;
	size_t n, cap;
};

bool sp_ch_ids_has(const struct sp_ch_ids *s, uint64_t id);
/* 1 added, 0 there already, -ENOMEM. */
int sp_ch_ids_add(struct sp_ch_ids *s, uint64_t id);
void sp_ch_ids_free(struct sp_ch_ids *s);

/* One export's text: the sample rows, and with the stack-id layout the
 * stacks they name that are not in `known` (for TABLE_stacks). */
struct sp_ch_text {
	bool compact;          /* in: the stack-id layout (else a stack per row) */
	bool days;             /* in: stack rows carry their day (TABLE_stacks' partition) */
	uint64_t id;           /* in: the batch's id (batch_id, stack-id layout) */
	bool tried;            /* sent before without an answer: may be stored */
	char *rows, *stacks;   /* malloc'd; stacks NULL in the old layout */
	size_t len, slen;
	uint64_t nrows, samples; /* rows, and their counts summed */
	struct sp_ch_ids ids;  /* the stacks in `stacks` */
};

/* One row per entry of every map a flame graph would show (stack maps, or
 * keyed counts), stamped with the host and the time: the batch id's second
 * (its nanoseconds since 1970), else now. */
int sp_ch_rows(const struct sp_profile *p, const char *host, struct sp_ch_ids *known, struct sp_ch_text *out);
void sp_ch_text_free(struct sp_ch_text *t);

#endif
