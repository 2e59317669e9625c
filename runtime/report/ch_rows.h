/* runtime/report/ch_rows.h: a profile as ClickHouse rows (JSONEachRow text). */
#ifndef SPROF_RUNTIME_REPORT_CH_ROWS_H
#define SPROF_RUNTIME_REPORT_CH_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/report/profile.h"

/* One row per entry of every map a flame graph would show (stack maps, or
 * keyed counts), stamped with the current time and host. *out is malloc'd. */
int sp_ch_rows(const struct sp_profile *p, const char *host, char **out, size_t *len, uint64_t *nrows);

#endif
