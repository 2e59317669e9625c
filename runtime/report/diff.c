/* runtime/report/diff.c: `sprof diff BASE NEW`, the differential flame graph
 * and the table of functions whose share of the samples changed most.
 *
 * Both files are read into root-first paths (input.h). The flame graph is
 * svg.c's, given the base paths too. The table has, per function, its self
 * share (samples where it is the leaf) and total share (samples whose stack
 * holds it, counted once per stack even when recursive) in BASE and NEW and
 * the differences, sorted by the larger of the two changes (ties by name):
 * shares, not counts, so a 10 s profile compares with a 60 s one.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "runtime/report/diff.h"
#include "runtime/report/input.h"
#include "base/vec.h"

struct fstat {
	char *name;           /* owned */
	uint64_t self[2], total[2];
	uint64_t stamp;       /* the last stack counted in total (count_side's serial) */
	double key;           /* sort key: change() */
};

struct ftable {
	struct sp_intern ids; /* name -> 1-based index into v */
	struct fstat *v;
	size_t n, cap;
	uint64_t serial;      /* stacks counted so far */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static struct fstat *fstat_of(struct ftable *t, const char *name)
{
	bool fresh = false;
	uint64_t id = sp_intern(&t->ids, name, &fresh);

	if (!id)
		return NULL;
	if (fresh) {
		char *copy = strdup(name);

		if (!copy || SP_GROW(t->v, t->cap, t->n + 1, 64)) {
			free(copy);
			return NULL;
		}
		t->v[t->n++] = (struct fstat){ .name = copy };
	}
	return &t->v[id - 1];
}

/* A function recursive in a stack counts once in its total: the stack's
 * serial number stamped on it says so in one step (a scan of the frames
 * below made a 100,000-frame stack take 79 s). */
static int count_side(struct ftable *t, const struct sp_stacks *s, int side)
{
	for (int i = 0; i < s->n; i++) {
		const struct sp_path *p = &s->paths[i];
		uint64_t serial = ++t->serial;

		for (int j = 0; j < p->n; j++) {
			struct fstat *fs = fstat_of(t, p->el[j].name);

			if (!fs)
				return -ENOMEM;
			if (fs->stamp != serial)
				fs->total[side] = sat_add(fs->total[side], p->weight);
			fs->stamp = serial;
			if (j == p->n - 1)
				fs->self[side] = sat_add(fs->self[side], p->weight);
		}
	}
	return 0;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* The larger of the changes of self and total share, in points. */
static double change(const struct fstat *f, const uint64_t tot[2])
{
	double ds = fabs(pct(f->self[1], tot[1]) - pct(f->self[0], tot[0]));
	double dt = fabs(pct(f->total[1], tot[1]) - pct(f->total[0], tot[0]));

	return ds > dt ? ds : dt;
}

static int by_change(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;

	if (x->key != y->key)
		return (x->key < y->key) - (x->key > y->key);
	return strcmp(x->name, y->name);
}

static void write_table(FILE *f, struct ftable *t, const struct sp_diff_opts *o,
			const struct sp_stacks s[2])
{
	size_t rows = o->top > 0 && (size_t)o->top < t->n ? (size_t)o->top : t->n;
	uint64_t tot[2] = { s[0].total, s[1].total };

	for (size_t i = 0; i < t->n; i++)
		t->v[i].key = change(&t->v[i], tot);
	qsort(t->v, t->n, sizeof(*t->v), by_change);
	fprintf(f, "base %s: %llu samples; new %s: %llu samples\n", o->base,
		(unsigned long long)tot[0], o->cur, (unsigned long long)tot[1]);
	fprintf(f, "%-8s %8s %8s %8s   %-6s %8s %8s %8s  %s\n", "self", "before", "after", "delta",
		"total", "before", "after", "delta", "function");
	for (size_t i = 0; i < rows; i++) {
		const struct fstat *r = &t->v[i];
		double s0 = pct(r->self[0], tot[0]), s1 = pct(r->self[1], tot[1]);
		double t0 = pct(r->total[0], tot[0]), t1 = pct(r->total[1], tot[1]);

		fprintf(f, "%-8s %7.2f%% %7.2f%% %+7.2f%%   %-6s %7.2f%% %7.2f%% %+7.2f%%  %s\n", "",
			s0, s1, s1 - s0, "", t0, t1, t1 - t0, r->name);
	}
}

static int write_text(FILE *f, const struct sp_diff_opts *o, const struct sp_stacks s[2])
{
	struct ftable t = { 0 };
	int err = count_side(&t, &s[0], 0);

	if (!err)
		err = count_side(&t, &s[1], 1);
	if (!err)
		write_table(f, &t, o, s);
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].name);
	free(t.v);
	sp_intern_free(&t.ids);
	return err;
}

static int write_svg(FILE *f, const struct sp_diff_opts *o, const struct sp_stacks s[2])
{
	struct sp_report_opts ro = { .format = SP_FMT_SVG, .title = o->title ? o->title : "Differential Flame Graph",
				     .width = 1200 };
	char *sub = malloc(strlen(o->base) + strlen(o->cur) + 8);
	int err;

	if (!sub)
		return -ENOMEM;
	sprintf(sub, "%s vs %s", o->cur, o->base);
	err = sp_report_svg_paths(f, s[1].paths, s[1].n, s[0].paths, s[0].n, sub, &ro);
	free(sub);
	return err;
}

/* By total samples (of NEW), then self, then name: the top table of one profile. */
static int by_total(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;

	if (x->total[1] != y->total[1])
		return (x->total[1] < y->total[1]) - (x->total[1] > y->total[1]);
	if (x->self[1] != y->self[1])
		return (x->self[1] < y->self[1]) - (x->self[1] > y->self[1]);
	return strcmp(x->name, y->name);
}

int sp_functions_json(FILE *f, const struct sp_path *base, int nbase, const struct sp_path *cur,
		      int ncur, int top)
{
	struct sp_stacks s[2] = { { .paths = (struct sp_path *)base, .n = base ? nbase : 0 },
				  { .paths = (struct sp_path *)cur, .n = ncur } };
	struct ftable t = { 0 };
	uint64_t tot[2] = { 0, 0 };
	size_t rows;
	int err;

	for (int side = 0; side < 2; side++)
		for (int i = 0; i < s[side].n; i++)
			tot[side] += s[side].paths[i].weight;
	err = count_side(&t, &s[0], 0);
	if (!err)
		err = count_side(&t, &s[1], 1);
	if (!err) {
		for (size_t i = 0; i < t.n; i++)
			t.v[i].key = change(&t.v[i], tot);
		qsort(t.v, t.n, sizeof(*t.v), base ? by_change : by_total);
		rows = top > 0 && (size_t)top < t.n ? (size_t)top : t.n;
		fprintf(f, "{\"total\": %llu, \"base_total\": %llu, \"functions\": [",
			(unsigned long long)tot[1], (unsigned long long)tot[0]);
		for (size_t i = 0; i < rows; i++) {
			const struct fstat *r = &t.v[i];

			fputs(i ? ",\n {\"name\": " : "\n {\"name\": ", f);
			sp_json_str(f, r->name);
			fprintf(f, ", \"self\": %llu, \"total\": %llu, \"base_self\": %llu, "
				   "\"base_total\": %llu}",
				(unsigned long long)r->self[1], (unsigned long long)r->total[1],
				(unsigned long long)r->self[0], (unsigned long long)r->total[0]);
		}
		fputs("]}\n", f);
	}
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].name);
	free(t.v);
	sp_intern_free(&t.ids);
	return err;
}

int sp_diff(const struct sp_diff_opts *o)
{
	struct sp_stacks s[2] = { 0 };
	struct sp_report_opts ro = { .output = o->output };
	char *path = NULL;
	FILE *f = NULL;
	int err = sp_read_stacks(o->base, &s[0]);

	if (!err)
		err = sp_read_stacks(o->cur, &s[1]);
	if (!err)
		f = sp_report_open(&ro, NULL, &path);
	if (!err && !f)
		err = -errno ? -errno : -EIO;
	if (!err) {
		err = o->format == SP_FMT_SVG ? write_svg(f, o, s) : write_text(f, o, s);
		if (err)
			sp_err("cannot write the diff: %s\n", strerror(-err));
		int e = sp_report_close(f, path, NULL);

		err = err ? err : e;
	}
	sp_stacks_free(&s[0]);
	sp_stacks_free(&s[1]);
	return err;
}
