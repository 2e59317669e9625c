/* runtime/report_speedscope.c: speedscope (stub). */
#include <errno.h>
#include "report_impl.h"
int sp_report_speedscope(FILE *f, const struct sp_profile *p, const struct sp_mapdata **maps, int nmaps) { return -ENOTSUP; }
