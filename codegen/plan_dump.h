/* codegen/plan_dump.h: `-d plan`, the plan (plan.h) as text. */
#ifndef SPROF_CODEGEN_PLAN_DUMP_H
#define SPROF_CODEGEN_PLAN_DUMP_H

#include <stdio.h>

struct sp_plan;

void sp_plan_dump(FILE *f, const struct sp_plan *p);

#endif
