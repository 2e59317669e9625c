/* runtime/report_folded.c: folded stacks (stub). */
#include <errno.h>
#include "report_impl.h"
int sp_report_folded(FILE *f, const struct sp_mapdata *m) { return -ENOTSUP; }
