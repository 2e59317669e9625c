/* runtime/report_pprof.c: pprof (stub). */
#include <errno.h>
#include "report_impl.h"
int sp_report_pprof(FILE *f, const struct sp_profile *p, const struct sp_mapdata *m) { return -ENOTSUP; }
