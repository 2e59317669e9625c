/* runtime/store/ch_fetch.c: `sprof report --from clickhouse://...`.
 *
 * ClickHouse does the aggregation: one statement sums the counts per stack
 * (and the CPU time, count times each row's sampling period) over the rows
 * the time range, --map and --where select, and returns each
 * stack as its frames joined by \x1f (a byte no symbol holds) in
 * TabSeparated text. In the stack-id layout the samples are summed per
 * stack_id first and only those sums are joined with TABLE_stacks (a report
 * over 100M rows reads a few numbers per row: bench/fleet_100m.py); a
 * --where that names the stack's columns (has(stack, 'malloc')) joins the
 * selected rows with their stacks first. A table of an older sprof is read
 * as it is, a stack in every row (--where may name any column). Every answer row becomes an entry of one map "@" keyed
 * by a user stack (frames named, no addresses; "_[k]" names are kernel
 * frames again), led with --by by the values of those columns (host, comm,
 * ...) as string key parts, so every writer (text, json, folded, svg, pprof,
 * speedscope, residency) prints a fleet's profile as it prints a run's.
 *
 * Time: a report over a day of a fleet may aggregate for minutes before the
 * first byte comes back, so there is no receive limit (http.c's keep-alive
 * notices a server that is gone). --timeout sets the server's
 * max_execution_time and, 5 s later, the client's own limit, after which the
 * query (tagged with a query_id) is killed so it does not run on unseen.
 * A shard that cannot be reached is named, with its number and cluster
 * from system.clusters.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "runtime/store/ch_conn.h"
#include "runtime/store/clickhouse.h"
#include "base/vec.h"

/* Columns --by may name: the ones that tell rows apart besides the stack. */
static const char *const by_columns[] = { "host", "map", "comm", "pid" };
#define MAX_BY 4

struct fetch {
	struct sp_plan_map map;            /* "@": key (by columns..., ustack) */
	struct sp_plan_field fields[MAX_BY + 1];
	const char *by[MAX_BY];
	int nby;
};

/* "host,comm" -> f->by; false (message printed) for other names. */
static bool parse_by(struct fetch *f, const char *by)
{
	const char *p = by && strcmp(by, "none") != 0 ? by : NULL;

	while (p && *p) {
		size_t n = strcspn(p, ",");
		size_t i = 0;

		while (i < sizeof(by_columns) / sizeof(by_columns[0]) &&
		       (strlen(by_columns[i]) != n || strncmp(by_columns[i], p, n) != 0))
			i++;
		if (i == sizeof(by_columns) / sizeof(by_columns[0]) || f->nby == MAX_BY) {
			sp_log(SP_LOG_ERROR, "sprof report: --by takes host, map, comm, pid (comma-separated) or "
				       "none, not '%.*s'\n", (int)n, p);
			return false;
		}
		f->by[f->nby++] = by_columns[i];
		p += n + (p[n] == ',');
	}
	return true;
}

static void plan_key(struct fetch *f)
{
	f->map = (struct sp_plan_map){ .name = "@", .agg = SP_AGG_COUNT, .key = { .kind = SP_F_USTACK } };
	if (!f->nby)
		return;
	for (int i = 0; i < f->nby; i++)
		f->fields[i] = (struct sp_plan_field){ .kind = SP_F_STR, .name = (char *)f->by[i] };
	f->fields[f->nby] = (struct sp_plan_field){ .kind = SP_F_USTACK };
	f->map.key = (struct sp_plan_field){ .kind = SP_F_TUPLE, .nelems = f->nby + 1, .elems = f->fields };
}

/* Whether the SQL text names one of the columns of TABLE_stacks (stack,
 * build_ids, offsets) outside a string literal: such a --where needs each
 * row's stack before it can select. */
static bool names_stack_column(const char *sql)
{
	static const char *const cols[] = { "stack", "build_ids", "offsets" };

	for (const char *p = sql; p && *p;) {
		size_t n;

		if (*p == '\'') { /* a literal: skip to its end, past \' */
			for (p++; *p && *p != '\''; p++)
				p += p[0] == '\\' && p[1];
			p += *p == '\'';
			continue;
		}
		p += *p == '`' || *p == '"'; /* `stack` is stack */
		n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
		for (size_t i = 0; n && !(*p >= '0' && *p <= '9') && i < sizeof(cols) / sizeof(cols[0]); i++)
			if (strlen(cols[i]) == n && strncasecmp(cols[i], p, n) == 0)
				return true;
		p += n ? n : 1;
	}
	return false;
}

/* The time range and --map as " AND ..." conditions on the samples' columns. */
static void range_sql(FILE *f, const struct sp_clickhouse_query *q)
{
	if (q->since_s)
		fprintf(f, " AND time >= now() - %llu", (unsigned long long)q->since_s);
	if (q->until_s)
		fprintf(f, " AND time < now() - %llu", (unsigned long long)q->until_s);
	if (q->since_at)
		fprintf(f, " AND time >= toDateTime(%llu)", (unsigned long long)q->since_at);
	if (q->until_at)
		fprintf(f, " AND time < toDateTime(%llu)", (unsigned long long)q->until_at);
	if (q->map) {
		fputs(" AND map = '", f);
		for (const char *p = q->map; *p; p++)
			fprintf(f, *p == '\'' || *p == '\\' ? "\\%c" : "%c", *p);
		fputc('\'', f);
	}
}

/* The stack-id layout, --where on the samples' columns only: the samples the
 * range selects are summed per stack id first (the only pass over all rows,
 * a few numbers each), and only those sums are joined with their frames and
 * summed again per stack (two ids may name the same frames: a copied table). */
static void aggregate_first_sql(FILE *f, const struct sp_ch_conn *c, const struct sp_clickhouse_query *q,
				const struct fetch *fe)
{
	fputs("SELECT sum(sp_n), sum(sp_cpu)", f);
	for (int i = 0; i < fe->nby; i++)
		fprintf(f, ", toString(%s)", fe->by[i]);
	fputs(", arrayStringConcat(stack, '\\x1f') FROM (SELECT ", f);
	for (int i = 0; i < fe->nby; i++)
		fprintf(f, "%s, ", fe->by[i]);
	fprintf(f, "stack_id, sum(count) AS sp_n, sum(count * if(period_ns = 0, %llu, period_ns)) AS sp_cpu "
		   "FROM %s.%s WHERE 1", (unsigned long long)SP_CH_DEFAULT_PERIOD_NS, c->db, c->table);
	range_sql(f, q);
	if (q->where)
		fprintf(f, " AND (%s)", q->where);
	fputs(" GROUP BY ", f);
	for (int i = 0; i < fe->nby; i++)
		fprintf(f, "%s, ", fe->by[i]);
	fprintf(f, "stack_id) ANY INNER JOIN (SELECT stack_id, stack FROM %s.%s_stacks) USING stack_id "
		   "WHERE length(stack) > 0 GROUP BY ", c->db, c->table);
	for (int i = 0; i < fe->nby; i++)
		fprintf(f, "%s, ", fe->by[i]);
	fputs("stack FORMAT TabSeparated", f);
}

/* What the other queries read: the URL's table when each row holds its
 * stack (the old layout), else (the stack-id layout) the rows the range
 * selects joined with their stacks in TABLE_stacks. The join is GLOBAL, so
 * over a Distributed table the stacks are read once and sent to the shards. */
static void source_sql(FILE *f, const struct sp_ch_conn *c, const struct sp_clickhouse_query *q, bool compact)
{
	if (!compact) {
		fprintf(f, "%s.%s WHERE 1", c->db, c->table);
		range_sql(f, q);
	} else {
		fprintf(f, "(SELECT time, host, map, pid, comm, key, count, period_ns, stack, build_ids, offsets "
			   "FROM %s.%s GLOBAL ANY INNER JOIN (SELECT stack_id, stack, build_ids, offsets FROM "
			   "%s.%s_stacks) USING stack_id WHERE 1", c->db, c->table, c->db, c->table);
		range_sql(f, q);
		fputs(") WHERE 1", f);
	}
}

static char *query_sql(const struct sp_ch_conn *c, const struct sp_clickhouse_query *q, const struct fetch *fe,
		       bool compact)
{

	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	if (compact && !names_stack_column(q->where)) {
		aggregate_first_sql(f, c, q, fe);
		goto out_close;
	}
	/* a row's CPU time is count * its own sampling period; rows written before
	 * period_ns existed (0) were 99 Hz, what sprof assumed then */
	fprintf(f, "SELECT sum(count), sum(count * if(period_ns = 0, %llu, period_ns))",
		(unsigned long long)SP_CH_DEFAULT_PERIOD_NS);
	for (int i = 0; i < fe->nby; i++)
		fprintf(f, ", toString(%s)", fe->by[i]);
	fputs(", arrayStringConcat(stack, '\\x1f') FROM ", f);
	source_sql(f, c, q, compact);
	fputs(" AND length(stack) > 0", f);
	if (q->where)
		fprintf(f, " AND (%s)", q->where);
	fputs(" GROUP BY ", f);
	for (int i = 0; i < fe->nby; i++)
		fprintf(f, "%s, ", fe->by[i]);
	fputs("stack FORMAT TabSeparated", f);
out_close:
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
	} else if (n > 4 && memcmp(name + n - 4, "_[i]", 4) == 0) {
		n -= 4;
		fr->kind = SP_FRAME_USER;
		fr->inlined = true;
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

/* The next tab-separated field of *line, unescaped; NULL when none is left. */
static char *next_field(char **line)
{
	char *f = *line, *tab;

	if (!f)
		return NULL;
	tab = strchr(f, '\t');
	if (tab)
		*tab = '\0';
	*line = tab ? tab + 1 : NULL;
	sp_ch_unescape(f);
	return f;
}

/* The key: the by columns as strings, then the stack (or the stack alone). */
static int row_key(struct sp_kval *k, char **line, int nby)
{
	struct sp_kval *el = k;
	char *stack;

	if (nby) {
		k->kind = SP_F_TUPLE;
		k->elems = calloc((size_t)nby + 1, sizeof(*k->elems));
		if (!k->elems)
			return -ENOMEM;
		k->n = nby + 1;
		for (int i = 0; i < nby; i++) {
			char *v = next_field(line);

			if (v && !*v) { /* no value (rows without a comm): no frame */
				k->elems[i].kind = SP_F_NONE;
				continue;
			}
			k->elems[i].kind = SP_F_STR;
			k->elems[i].s = v ? strdup(v) : NULL;
			if (!k->elems[i].s)
				return v ? -ENOMEM : -EPROTO;
		}
		el = &k->elems[nby];
	}
	stack = next_field(line);
	if (!stack)
		return -EPROTO;
	el->kind = SP_F_USTACK;
	return parse_stack(stack, &el->stack);
}

static int add_row(struct sp_mapdata *m, int *cap, char *line, int nby)
{
	char *count = next_field(&line), *end;
	unsigned long long n;
	struct sp_entry *e;

	if (!count)
		return -EPROTO;
	n = strtoull(count, &end, 10);
	if (*end)
		return -EPROTO;
	if (SP_GROW(m->entries, *cap, m->n + 1, 256))
		return -ENOMEM;
	e = &m->entries[m->n++];
	memset(e, 0, sizeof(*e));
	e->val.v = (int64_t)n;
	count = next_field(&line);
	if (!count)
		return -EPROTO;
	e->val.total = (int64_t)strtoull(count, &end, 10);
	if (*end)
		return -EPROTO;
	return row_key(&e->key, &line, nby);
}

/* When no row has a value for any --by column (comm, the default, of a
 * program that keys by ustack alone), the keys are the stacks alone. */
static void drop_empty_by(struct fetch *fe, struct sp_mapdata *m)
{
	for (int i = 0; i < m->n; i++)
		for (int j = 0; j < fe->nby; j++)
			if (m->entries[i].key.elems[j].kind != SP_F_NONE)
				return;
	for (int i = 0; i < m->n; i++) {
		struct sp_kval *elems = m->entries[i].key.elems;

		m->entries[i].key = elems[fe->nby];
		free(elems);
	}
	fe->nby = 0;
	plan_key(fe);
}

/* The profile's period: the mean of the rows' periods weighted by their
 * counts (exact when every row was sampled at one rate); each entry keeps
 * its own CPU time for pprof. */
static int parse_answer(char *body, struct sp_profile *out, int nby)
{
	struct sp_mapdata *m = &out->maps[0];
	char *save = NULL;
	int cap = 0, err = 0;
	double samples = 0, cpu = 0;

	for (char *line = strtok_r(body, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = add_row(m, &cap, line, nby);
	for (int i = 0; i < m->n && !err; i++) {
		samples += (double)m->entries[i].val.v;
		cpu += (double)m->entries[i].val.total;
	}
	out->cpu_ns_in_total = true;
	out->sample_period_ns = samples > 0 ? (uint64_t)(cpu / samples + 0.5) : SP_CH_DEFAULT_PERIOD_NS;
	return err;
}

/* Server settings and limits of the report's query. */
static void set_limits(struct sp_ch_conn *c, const struct sp_clickhouse_query *q, char *params, size_t len,
		       char *qid, size_t qidlen)
{
	struct timespec ts;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(qid, qidlen, "sprof-report-%d-%lld%09ld", (int)getpid(), (long long)ts.tv_sec, ts.tv_nsec);
	n = snprintf(params, len, "query_id=%s", qid);
	if (q->timeout_ms)
		n += snprintf(params + n, len - (size_t)n, "&max_execution_time=%llu",
			      (unsigned long long)(q->timeout_ms + 999) / 1000);
	if (q->skip_down_shards)
		snprintf(params + n, len - (size_t)n, "&skip_unavailable_shards=1");
	c->params = params;
	c->recv_ms = -1;
	c->total_ms = q->timeout_ms ? (int)(q->timeout_ms + 5000) : 0;
	c->max_answer = 1u << 30; /* rows of a whole fleet; a flood ends there */
}

/* The query outlived the client's limit: stop it on the server too. */
static void kill_query(const struct sp_ch_conn *c, const char *qid)
{
	struct sp_ch_conn k = *c;
	struct sp_http_resp r;
	char sql[256], err[256];

	k.params = NULL;
	k.recv_ms = 0;
	k.total_ms = 2000; /* a server that did not answer the query may not answer this */
	snprintf(sql, sizeof(sql), "KILL QUERY WHERE query_id = '%s' ASYNC", qid);
	if (sp_ch_exec(&k, sql, NULL, 0, &r, err, sizeof(err)) == 0)
		sp_http_resp_free(&r);
}

/* "shard 127.0.0.1:9001 is down: ..." -> "shard 2 of cluster c (127.0.0.1:9001) is down: ..." */
static void name_shard(const struct sp_ch_conn *c, char *err, size_t errlen)
{
	struct sp_ch_conn k = *c;
	struct sp_http_resp r;
	char addr[128], sql[512], e2[256], *tab, *nl;
	const char *rest = strstr(err, " is down: ");
	char *port;

	if (!rest || sscanf(err, "shard %127s", addr) != 1 || !(port = strrchr(addr, ':')))
		return;
	*port++ = '\0';
	k.params = NULL;
	k.recv_ms = 0;
	k.total_ms = 10000;
	snprintf(sql, sizeof(sql), "SELECT shard_num, cluster FROM system.clusters WHERE (host_address = '%s' OR "
				   "host_name = '%s') AND port = %d ORDER BY cluster LIMIT 1 FORMAT TabSeparated",
		 addr, addr, atoi(port));
	if (strchr(addr, '\'') || sp_ch_exec(&k, sql, NULL, 0, &r, e2, sizeof(e2)))
		return;
	tab = strchr(r.body, '\t');
	nl = tab ? strchr(tab, '\n') : NULL;
	if (nl) {
		char *copy = strdup(rest);

		*tab = *nl = '\0';
		if (copy)
			snprintf(err, errlen, "shard %s of cluster %s (%s:%s)%s; --skip-down-shards reports "
					      "without it", r.body, tab + 1, addr, port, copy);
		free(copy);
	}
	sp_http_resp_free(&r);
}

static int run_query(struct sp_ch_conn *c, const struct sp_clickhouse_query *q, const char *sql,
		     struct sp_http_resp *r, char *err, size_t errlen)
{
	char params[256], qid[96];
	int e;

	set_limits(c, q, params, sizeof(params), qid, sizeof(qid));
	e = sp_ch_exec(c, sql, NULL, 0, r, err, errlen);
	if (e == -ETIME) {
		kill_query(c, qid);
		snprintf(err, errlen, "the query ran past --timeout %llu ms and was stopped",
			 (unsigned long long)q->timeout_ms);
	} else if (e && q->timeout_ms && strstr(err, "Code: 159,")) {
		char *copy = strdup(err);

		if (copy)
			snprintf(err, errlen, "the query ran past --timeout (%.400s)", copy);
		free(copy);
	} else if (e == -EHOSTDOWN) {
		name_shard(c, err, errlen);
	}
	c->params = NULL;
	return e;
}

/* 1: the table has the stack-id layout, 0: the old one, -errno. */
static int is_compact(struct sp_ch_conn *c, const struct sp_clickhouse_query *q, char *err, size_t errlen)
{
	struct sp_http_resp r = { 0 };
	char sql[512];
	int e;

	if (!sp_ch_ident_ok(c->db) || !sp_ch_ident_ok(c->table))
		return 0; /* the query names the error */
	snprintf(sql, sizeof(sql), "SELECT count() FROM system.columns WHERE database = '%s' AND table = '%s' "
				   "AND name = 'stack_id' FORMAT TabSeparated", c->db, c->table);
	e = run_query(c, q, sql, &r, err, errlen);
	if (!e)
		e = r.body && atoi(r.body) > 0;
	sp_http_resp_free(&r);
	return e;
}

int sp_clickhouse_fetch(const struct sp_clickhouse_query *q, struct sp_profile *out)
{
	struct fetch *fe = calloc(1, sizeof(*fe));
	struct sp_ch_conn c;
	struct sp_http_resp r = { 0 };
	char err[512] = "", *sql = NULL;
	int e = fe ? sp_ch_conn_parse(q->url, &c, err, sizeof(err)) : -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (e) {
		char shown[512];

		sp_err("cannot read from %s: %s\n", sp_ch_url_redacted(q->url, shown, sizeof(shown)),
		       *err ? err : strerror(-e));
		free(fe);
		return e;
	}
	sp_ch_conn_warn(&c, stderr);
	if (!parse_by(fe, q->by)) {
		sp_ch_conn_free(&c);
		free(fe);
		return -EINVAL;
	}
	plan_key(fe);
	out->maps = calloc(1, sizeof(*out->maps));
	if (out->maps) {
		out->nmaps = 1;
		out->maps[0].map = &fe->map; /* fe is freed with the profile */
	} else {
		free(fe);
	}
	e = out->maps ? is_compact(&c, q, err, sizeof(err)) : -ENOMEM;
	sql = e >= 0 ? query_sql(&c, q, fe, e == 1) : NULL;
	e = e < 0 ? e : sql ? 0 : -ENOMEM;
	if (!e)
		e = run_query(&c, q, sql, &r, err, sizeof(err));
	if (!e)
		e = parse_answer(r.body, out, fe->nby);
	if (!e && fe->nby)
		drop_empty_by(fe, &out->maps[0]);
	if (e == -EPROTO && !*err)
		snprintf(err, sizeof(err), "unexpected answer from the server");
	if (e)
		sp_err("cannot read from %s: %s\n", c.shown, *err ? err : strerror(-e));
	sp_http_resp_free(&r);
	free(sql);
	sp_ch_conn_free(&c);
	if (e)
		sp_clickhouse_profile_free(out);
	return e;
}

static void free_stack(struct sp_stack *st)
{
	for (int k = 0; st && k < st->n; k++)
		free((char *)st->frames[k].sym);
	if (st)
		free(st->frames);
	free(st);
}

static void free_key(struct sp_kval *k)
{
	if (k->kind == SP_F_USTACK)
		free_stack(k->stack);
	if (k->kind == SP_F_STR)
		free((char *)k->s);
	for (int i = 0; k->kind == SP_F_TUPLE && i < k->n; i++)
		free_key(&k->elems[i]);
	if (k->kind == SP_F_TUPLE)
		free(k->elems);
}

void sp_clickhouse_profile_free(struct sp_profile *p)
{
	for (int i = 0; i < p->nmaps; i++) {
		struct sp_mapdata *m = &p->maps[i];

		for (int j = 0; j < m->n; j++)
			free_key(&m->entries[j].key);
		free(m->entries);
		free((void *)m->map); /* the struct fetch it is the first member of */
	}
	free(p->maps);
	memset(p, 0, sizeof(*p));
}
