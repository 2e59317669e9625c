/* runtime/report/ch_fetch.c: `sprof report --from clickhouse://...`.
 *
 * ClickHouse does the aggregation: one statement sums the counts per stack
 * over the rows the time range, --map and --where select, and returns each
 * stack as its frames joined by \x1f (a byte no symbol holds) in
 * TabSeparated text. Every answer row becomes an entry of one map "@" keyed
 * by a user stack (frames named, no addresses; "_[k]" names are kernel
 * frames again), so every writer (text, json, folded, svg, pprof,
 * speedscope, residency) prints a fleet's profile as it prints a run's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/ch_conn.h"
#include "runtime/report/clickhouse.h"
#include "base/vec.h"

static struct sp_plan_map fleet_map = {
	.name = "@",
	.agg = SP_AGG_COUNT,
	.key = { .kind = SP_F_USTACK },
};

static char *query_sql(const struct sp_ch_conn *c, const struct sp_clickhouse_query *q)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	fprintf(f, "SELECT sum(count), arrayStringConcat(stack, '\\x1f') FROM %s.%s WHERE length(stack) > 0",
		c->db, c->table);
	if (q->since_s)
		fprintf(f, " AND time >= now() - %llu", (unsigned long long)q->since_s);
	if (q->until_s)
		fprintf(f, " AND time < now() - %llu", (unsigned long long)q->until_s);
	if (q->map) {
		fputs(" AND map = '", f);
		for (const char *p = q->map; *p; p++)
			fprintf(f, *p == '\'' || *p == '\\' ? "\\%c" : "%c", *p);
		fputc('\'', f);
	}
	if (q->where)
		fprintf(f, " AND (%s)", q->where);
	fputs(" GROUP BY stack FORMAT TabSeparated", f);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int frame_from(struct sp_frame *fr, const char *name, size_t n)
{
	memset(fr, 0, sizeof(*fr));
	if (n > 4 && memcmp(name + n - 4, "_[k]", 4) == 0) {
		n -= 4;
		fr->kind = SP_FRAME_KERNEL;
	}
	fr->sym = strndup(name, n);
	return fr->sym ? 0 : -ENOMEM;
}

/* "frames\x1f..." -> a leaf-first stack. */
static int parse_stack(char *text, struct sp_stack **out)
{
	struct sp_stack *st = calloc(1, sizeof(*st));
	int n = 1, err = 0;
	char *p = text;

	if (!st)
		return -ENOMEM;
	for (char *c = text; *c; c++)
		n += *c == '\x1f';
	st->frames = calloc((size_t)n, sizeof(*st->frames));
	if (!st->frames) {
		free(st);
		return -ENOMEM;
	}
	for (int i = n - 1; i >= 0 && !err; i--) {
		size_t len = strcspn(p, "\x1f");

		err = frame_from(&st->frames[i], p, len);
		st->n++;
		p += len + (p[len] != '\0');
	}
	*out = st;
	return err;
}

static int add_row(struct sp_mapdata *m, int *cap, char *line)
{
	char *tab = strchr(line, '\t'), *end;
	unsigned long long count;
	struct sp_entry *e;

	if (!tab)
		return -EPROTO;
	*tab = '\0';
	count = strtoull(line, &end, 10);
	if (*end)
		return -EPROTO;
	sp_ch_unescape(tab + 1);
	if (SP_GROW(m->entries, *cap, m->n + 1, 256))
		return -ENOMEM;
	e = &m->entries[m->n];
	memset(e, 0, sizeof(*e));
	e->key.kind = SP_F_USTACK;
	e->val.v = (int64_t)count;
	m->n++;
	return parse_stack(tab + 1, &e->key.stack);
}

static int parse_answer(char *body, struct sp_mapdata *m)
{
	char *save = NULL;
	int cap = 0, err = 0;

	for (char *line = strtok_r(body, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = add_row(m, &cap, line);
	return err;
}

int sp_clickhouse_fetch(const struct sp_clickhouse_query *q, struct sp_profile *out)
{
	struct sp_ch_conn c;
	struct sp_http_resp r = { 0 };
	char err[512] = "", *sql = NULL;
	int e = sp_ch_conn_parse(q->url, &c, err, sizeof(err));

	memset(out, 0, sizeof(*out));
	if (e) {
		fprintf(stderr, "sprof: cannot read from %s: %s\n", q->url, err);
		return e;
	}
	sql = query_sql(&c, q);
	out->maps = calloc(1, sizeof(*out->maps));
	e = sql && out->maps ? 0 : -ENOMEM;
	if (!e) {
		out->nmaps = 1;
		out->maps[0].map = &fleet_map;
		e = sp_ch_exec(&c, sql, NULL, 0, &r, err, sizeof(err));
	}
	if (!e)
		e = parse_answer(r.body, &out->maps[0]);
	if (e == -EPROTO)
		snprintf(err, sizeof(err), "unexpected answer from the server");
	if (e)
		fprintf(stderr, "sprof: cannot read from %s: %s\n", c.shown, *err ? err : strerror(-e));
	sp_http_resp_free(&r);
	free(sql);
	sp_ch_conn_free(&c);
	if (e)
		sp_clickhouse_profile_free(out);
	return e;
}

void sp_clickhouse_profile_free(struct sp_profile *p)
{
	for (int i = 0; i < p->nmaps; i++) {
		struct sp_mapdata *m = &p->maps[i];

		for (int j = 0; j < m->n; j++) {
			struct sp_stack *st = m->entries[j].key.stack;

			for (int k = 0; st && k < st->n; k++)
				free((char *)st->frames[k].sym);
			if (st)
				free(st->frames);
			free(st);
		}
		free(m->entries);
	}
	free(p->maps);
	memset(p, 0, sizeof(*p));
}
