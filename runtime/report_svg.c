/* runtime/report_svg.c: flame graph (stub). */
#include <errno.h>
#include "report_impl.h"
int sp_report_svg(FILE *f, const struct sp_mapdata *m, const struct sp_report_opts *o) { return -ENOTSUP; }
