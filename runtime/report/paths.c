/* runtime/report/paths.c: the root-first stack paths the flame-graph formats
 * (folded, svg, pprof, speedscope) are built from: a map entry's key parts
 * as labels, then its user stack, then its kernel stack, each frame one
 * element; and a map's paths sorted so equal prefixes are adjacent.
 * Labels are printed with the text writer's value printer, so a key reads
 * the same in a flame graph as in bpftrace's text output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/impl.h"
#include "base/vec.h"

static int path_push(struct sp_path *p, char *name, enum sp_pe_kind kind, const struct sp_frame *f)
{
	if (!name)
		return -ENOMEM;
	if (SP_GROW(p->el, p->cap, p->n + 1, 32)) {
		free(name);
		return -ENOMEM;
	}
	p->el[p->n++] = (struct sp_pelem){ .name = name, .kind = kind, .frame = f };
	return 0;
}

/* Frames up to the first zero address (where bpftrace stops a stack too). */
static int stack_len(const struct sp_stack *st)
{
	int n = 0;

	while (st && n < st->n && (st->frames[n].addr || st->frames[n].sym))
		n++;
	return n;
}

static int push_stack(struct sp_path *p, const struct sp_stack *st)
{
	for (int i = stack_len(st) - 1; i >= 0; i--) {
		const struct sp_frame *f = &st->frames[i];
		enum sp_pe_kind kind = f->kind == SP_FRAME_KERNEL ? SP_PE_KERNEL : SP_PE_USER;
		char buf[256];
		int err;

		if (!f->sym)
			kind = SP_PE_UNKNOWN;
		else if (f->kind == SP_FRAME_INTERP)
			kind = SP_PE_INTERP;
		else if (f->inlined)
			kind = SP_PE_INLINE;
		err = path_push(p, strdup(sp_frame_func(f, buf, sizeof(buf))), kind, f);
		if (err)
			return err;
	}
	return 0;
}

static char *label_text(const struct sp_kval *k)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	sp_text_kval(f, k, NULL, false);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Pass 0 pushes labels, 1 user stacks, 2 kernel stacks. */
static int path_part(struct sp_path *p, const struct sp_kval *k, const struct sp_plan_field *fld, int pass)
{
	switch (k->kind) {
	case SP_F_USTACK:
		if (!p->pid)
			p->pid = k->pid;
		return pass == 1 ? push_stack(p, k->stack) : 0;
	case SP_F_KSTACK:
		return pass == 2 ? push_stack(p, k->stack) : 0;
	case SP_F_NONE:
		return 0;
	default:
		if (pass != 0)
			return 0;
		if (k->kind == SP_F_STR && fld && fld->size == 16 && !p->comm)
			p->comm = k->s;
		int err = path_push(p, label_text(k), SP_PE_LABEL, NULL);
		if (!err) {
			p->el[p->n - 1].label = fld ? fld->name : NULL;
			p->el[p->n - 1].num = k->i;
			p->el[p->n - 1].is_num = k->kind == SP_F_INT;
		}
		return err;
	}
}

int sp_entry_path(const struct sp_mapdata *m, const struct sp_entry *e, struct sp_path *out)
{
	const struct sp_kval *k = &e->key;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->weight = sp_entry_weight(e);
	for (int pass = 0; pass < 3 && !err; pass++) {
		if (k->kind != SP_F_TUPLE) {
			err = path_part(out, k, sp_key_field(m, 0), pass);
			continue;
		}
		for (int i = 0; i < k->n && !err; i++)
			err = path_part(out, &k->elems[i], sp_key_field(m, i), pass);
	}
	if (err)
		sp_path_free(out);
	return err;
}

void sp_path_free(struct sp_path *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->el[i].name);
	free(p->el);
	memset(p, 0, sizeof(*p));
}

static int path_cmp_names(const struct sp_path *a, const struct sp_path *b)
{
	for (int i = 0; i < a->n && i < b->n; i++) {
		int c = strcmp(a->el[i].name, b->el[i].name);

		if (c)
			return c;
		if (a->el[i].kind != b->el[i].kind)
			return ((int)a->el[i].kind > (int)b->el[i].kind) - ((int)a->el[i].kind < (int)b->el[i].kind);
	}
	return (a->n > b->n) - (a->n < b->n);
}

static int path_cmp(const void *x, const void *y)
{
	return path_cmp_names(x, y);
}

static int path_cmp_pid(const void *x, const void *y)
{
	const struct sp_path *a = x, *b = y;

	if (a->pid != b->pid)
		return (a->pid > b->pid) - (a->pid < b->pid);
	return path_cmp_names(a, b);
}

int sp_map_paths(const struct sp_mapdata *m, bool by_pid, struct sp_path **out, int *n)
{
	struct sp_path *v = calloc(m->n + 1, sizeof(*v));
	int k = 0, err = 0, w = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < m->n && !err; i++) {
		err = sp_entry_path(m, &m->entries[i], &v[k]);
		if (!err && (v[k].weight == 0 || v[k].n == 0))
			sp_path_free(&v[k]);
		else if (!err)
			k++;
	}
	if (err) {
		sp_paths_free(v, k);
		return err;
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), by_pid ? path_cmp_pid : path_cmp);
	for (int i = 0; i < k; i++) {
		if (w > 0 && (by_pid ? path_cmp_pid : path_cmp)(&v[w - 1], &v[i]) == 0) {
			v[w - 1].weight += v[i].weight;
			sp_path_free(&v[i]);
			continue;
		}
		v[w++] = v[i];
	}
	*out = v;
	*n = w;
	return 0;
}

void sp_paths_free(struct sp_path *v, int n)
{
	for (int i = 0; v && i < n; i++)
		sp_path_free(&v[i]);
	free(v);
}
