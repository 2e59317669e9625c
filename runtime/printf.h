/* runtime/printf.h: user-space side of printf(), print(value), time(),
 * cat() and system(): records from the event ring buffer -> output. */
#ifndef SPROF_RUNTIME_PRINTF_H
#define SPROF_RUNTIME_PRINTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "abi/plan.h"

struct sp_collector;
struct sp_kval;

struct sp_output {
	const struct sp_plan *plan;
	struct sp_collector *coll;
	FILE *out;      /* stdout */
	bool json;      /* -f json: bpftrace's {"type": ..., "data": ...} lines */
	bool unsafe_ok; /* system() was allowed at compile time (codegen checks) */
	size_t cat_max; /* bytes cat() prints; 0 = 10 KiB, bpftrace's default */
	/* system(): not started past shell_deadline_ns (sp_mono_ns(); 0: no
	 * deadline) or while a stop signal waits, and then counted here */
	uint64_t shell_deadline_ns;
	unsigned long shell_skipped, shell_killed;
};

/* Handles SP_EV_PRINTF, SP_EV_ERRORF, SP_EV_PRINT_VALUE, SP_EV_TIME, SP_EV_CAT and
 * SP_EV_SYSTEM records (args = bytes after the header). 0, -ENOTSUP for
 * another type, or -errno for a bad record. */
int sp_output_event(struct sp_output *o, const struct sp_event_hdr *h, const void *args,
		    size_t len);

/* Formats with already-decoded values; exposed for tests. `fmt` is
 * bpftrace's printf: %d %i %u %x %X %o %c %s %p with flags, width,
 * precision and ignored length modifiers (h, l, ll, z, j), %% for '%'. */
void sp_printf_format(FILE *out, const char *fmt, const struct sp_kval *args, int nargs,
		      const struct sp_plan_field *fields);

#endif
