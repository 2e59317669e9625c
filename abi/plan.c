/* abi/plan.c: freeing a plan and naming probe types.
 *
 * The plan is the only thing of the compiler the runtime sees; everything
 * in it is malloc'd so it outlives the compile arena.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/plan.h"

static const char *const probe_names[] = {
#define X(k, n, a, u) n,
	SP_PROBE_TYPES(X)
#undef X
};

static const char *const probe_aliases[] = {
#define X(k, n, a, u) a,
	SP_PROBE_TYPES(X)
#undef X
};

static const char *const probe_usage[] = {
#define X(k, n, a, u) u,
	SP_PROBE_TYPES(X)
#undef X
};

const char *sp_probe_type_usage(enum sp_probe_type t)
{
	return (int)t < 0 || t >= SP_PROBE__COUNT ? "" : probe_usage[t];
}

const char *sp_probe_type_alias(enum sp_probe_type t)
{
	return (int)t < 0 || t >= SP_PROBE__COUNT ? "" : probe_aliases[t];
}

int sp_probe_type_of(const char *name_or_alias)
{
	for (int t = 0; name_or_alias && t < SP_PROBE__COUNT; t++)
		if (!strcmp(name_or_alias, probe_names[t]) || !strcmp(name_or_alias, probe_aliases[t]))
			return t;
	return -1;
}

const char *sp_probe_type_name(enum sp_probe_type t)
{
	if ((int)t < 0 || t >= SP_PROBE__COUNT)
		return "?";
	return probe_names[t];
}

void sp_plan_field_free(struct sp_plan_field *f)
{
	for (int i = 0; i < f->nelems; i++)
		sp_plan_field_free(&f->elems[i]);
	free(f->elems);
	free(f->fmt);
	free(f->name);
	free(f->member);
}

static void probe_free(struct sp_plan_probe *pr)
{
	free(pr->spec);
	free(pr->prog);
	free(pr->target);
	free(pr->func);
	free(pr->ns);
	free(pr->unit);
}

void sp_plan_drop_probe(struct sp_plan *p, int i)
{
	probe_free(&p->probes[i]);
	memmove(&p->probes[i], &p->probes[i + 1], (size_t)(p->nprobes - i - 1) * sizeof(*p->probes));
	p->nprobes--;
}

void sp_plan_free(struct sp_plan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nprobes; i++)
		probe_free(&p->probes[i]);
	free(p->probes);
	for (int i = 0; i < p->nmaps; i++) {
		struct sp_plan_map *m = &p->maps[i];

		free(m->name);
		free(m->bpf_name);
		free(m->drops_name);
		sp_plan_field_free(&m->key);
		sp_plan_field_free(&m->value);
	}
	free(p->maps);
	for (int i = 0; i < p->nprintfs; i++) {
		free(p->printfs[i].fmt);
		sp_plan_field_free(&p->printfs[i].args);
	}
	free(p->printfs);
	free(p->source_name);
	free(p);
}
