/* runtime/printf.h: user-space side of printf(). */
#ifndef SPROF_RUNTIME_PRINTF_H
#define SPROF_RUNTIME_PRINTF_H

#include <stddef.h>
#include <stdio.h>

#include "../codegen/plan.h"

struct sp_collector;

/* Formats one SP_EV_PRINTF record (args = bytes after the header) per
 * plan->printfs[id]. 0 or -errno (bad id / short record). */
int sp_printf_event(FILE *out, const struct sp_plan *plan, struct sp_collector *c,
		    uint32_t id, const void *args, size_t len);

/* Formats with already-decoded values; exposed for tests. `fmt` is
 * bpftrace's printf: %d %i %u %x %X %o %c %s %p with flags, width,
 * precision and ignored length modifiers (h, l, ll, z, j), %% for '%'. */
struct sp_kval;
void sp_printf_format(FILE *out, const char *fmt, const struct sp_kval *args, int nargs,
		      const struct sp_plan_field *fields);

#endif
