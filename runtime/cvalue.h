/* runtime/cvalue.h: C records, arrays and pointers as bpftrace's text. */
#ifndef SPROF_RUNTIME_CVALUE_H
#define SPROF_RUNTIME_CVALUE_H

#include <stdbool.h>

#include "abi/plan.h"

/* Text of the value field f describes, at base + f->offset (offsets count
 * from base); json: as bpftrace's -f json writes it ({ "a": 1, "s": "x" },
 * pointers as numbers). malloc'd; NULL when out of memory. */
char *sp_cvalue_text(const struct sp_plan_field *f, const void *base, bool json);
/* The text of a map key: pointers in hex (elsewhere decimal, as bpftrace). */
char *sp_cvalue_key_text(const struct sp_plan_field *f, const void *base);

#endif
