/* runtime/store/clickhouse.c: the --export session: check the server and
 * the table before attaching, send batches with retries, drop old days;
 * and `sprof fleet init`, which creates the table.
 *
 * The tables (sprof fleet init creates them; an agent that exports runs no
 * DDL, so it needs no CREATE or ALTER rights, and refuses a missing table
 * rather than create a local one where a Distributed one was meant):
 *
 *   TABLE: time DateTime('UTC'), host String, map String, pid UInt32,
 *   comm String, key Array(String), stack_id UInt64, count UInt64,
 *   period_ns UInt64
 *   ENGINE = MergeTree() PARTITION BY toDate(time) ORDER BY (host, time)
 *   TABLE_stacks: stack_id UInt64, stack Array(String),
 *   build_ids Array(String), offsets Array(UInt64), day Date
 *   ENGINE = ReplacingMergeTree() PARTITION BY day ORDER BY stack_id
 *
 * Each stack is stored once and the samples name it by id (ch_rows.c says
 * how the id is made). A table of an older sprof, with stack, build_ids and
 * offsets in every row instead of stack_id, is kept in that layout: agents
 * write it so and readers read it so (no migration).
 * `stack` is root first; build_ids[i] and offsets[i] locate stack[i] in its
 * file. ClickHouse 18.16 (Debian 12's) has no TTL, so --retention lists the
 * table's day partitions and drops those older than the retention with
 * ALTER TABLE ... DROP PARTITION, at start and after every export; for a
 * Distributed table, in the local table it names, on the URL's server.
 * The stacks go with them: an agent sends each stack once per UTC day it
 * is used in, stamped with that day, so TABLE_stacks' day partitions are
 * dropped alike and no sample left names a dropped stack. Stack rows
 * without a day (an older sprof's agent: the zero day) are never dropped; a
 * stacks table without the column (an older `sprof fleet init`) is kept
 * whole, said once. A batch
 * is the JSONEachRow text of one export; batches that could not be sent
 * wait (oldest dropped past max_pending) and the rows lost are counted.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "runtime/store/ch_conn.h"
#include "runtime/store/ch_rows.h"
#include "runtime/store/ch_spool.h"
#include "runtime/store/clickhouse.h"
#include "base/vec.h"

struct column {
	const char *name, *type;
};

/* The stack-id layout: samples in TABLE, their stacks once in TABLE_stacks. */
static const struct column sample_cols[] = {
	{ "time", "DateTime('UTC')" }, { "host", "String" },        { "map", "String" },
	{ "pid", "UInt32" },           { "comm", "String" },        { "key", "Array(String)" },
	{ "stack_id", "UInt64" },      { "batch_id", "UInt64" },    { "count", "UInt64" },
	{ "period_ns", "UInt64" },     { NULL, NULL },
};
static const struct column stacks[] = {
	{ "stack_id", "UInt64" }, { "stack", "Array(String)" }, { "build_ids", "Array(String)" },
	{ "offsets", "Array(UInt64)" }, { NULL, NULL },
};
/* TABLE_stacks' partition key (sprof fleet init makes it; older tables lack it) */
static const struct column stack_day[] = { { "day", "Date" }, { NULL, NULL } };
/* The old layout, a stack in every row: read and written as it is. */
static const struct column old_rows[] = {
	{ "time", "DateTime('UTC')" }, { "host", "String" },        { "map", "String" },
	{ "pid", "UInt32" },           { "comm", "String" },        { "key", "Array(String)" },
	{ "stack", "Array(String)" },  { "build_ids", "Array(String)" }, { "offsets", "Array(UInt64)" },
	{ "count", "UInt64" },          { "period_ns", "UInt64" }, { NULL, NULL },
};

/* A batch is one export's text (struct sp_ch_text): its stacks are sent
 * before its rows, so a row never names a stack the table lacks. */
#define batch sp_ch_text

struct sp_clickhouse {
	struct sp_ch_conn c;
	char parts[2][128];       /* the table holding the partitions: this one, or a
				   * Distributed table's local table */
	char host_name[256];
	uint64_t retention_s;
	bool compact;             /* the stack-id layout (else a stack per row) */
	bool stack_days;          /* TABLE_stacks has the day column (partitions) */
	struct sp_ch_ids sent_ids; /* stacks sent already on sent_day (guarded by lock) */
	uint64_t sent_day;        /* the UTC day (since 1970) sent_ids are of */
	int attempts, backoff_ms, max_pending;
	int quitting;             /* sp_clickhouse__quit: one try a batch, no waits (atomic) */
	size_t max_pending_bytes, pending_bytes;
	struct batch *pending;    /* oldest first; guarded by lock */
	int npending, cap;
	uint64_t dropped_rows, dropped_batches;
	uint64_t taken, sent, dropped; /* samples: batched, stored, dropped */
	uint64_t last_id;
	char *spool;              /* --spool DIR, or NULL: batches wait in memory */
	size_t spool_max;
	uint64_t spool_age_ns;    /* --spool-age, 0: batches wait however long */
	char inflight[32];        /* the spool file being sent: never trimmed */
	pthread_mutex_t lock;     /* pending and the counts: a sender thread (--continuous) */
};

struct sp_clickhouse *sp_clickhouse__open(const struct sp_clickhouse_opts *o)
{
	struct sp_clickhouse *ch = calloc(1, sizeof(*ch));
	char err[256];
	int e;

	if (!ch)
		return NULL;
	e = sp_ch_conn_parse(o->url, &ch->c, err, sizeof(err));
	if (e) {
		char shown[512];

		sp_err("cannot export to %s: %s\n",
		       sp_ch_url_redacted(o->url, shown, sizeof(shown)), err);
		free(ch);
		errno = -e;
		return NULL;
	}
	sp_ch_conn_warn(&ch->c, stderr);
	if (o->timeout_ms > 0)
		ch->c.timeout_ms = o->timeout_ms;
	/* An agent's statement, answered in bytes: a server that trickles or
	 * floods gets the statement failed (and retried), never the agent held. */
	ch->c.total_ms = 3 * ch->c.timeout_ms;
	ch->c.max_answer = 16u << 20;
	if (o->host_name)
		snprintf(ch->host_name, sizeof(ch->host_name), "%s", o->host_name);
	else if (gethostname(ch->host_name, sizeof(ch->host_name) - 1) != 0)
		strcpy(ch->host_name, "localhost");
	ch->retention_s = o->retention_s;
	ch->attempts = o->attempts > 0 ? o->attempts : 6;
	ch->backoff_ms = o->backoff_ms > 0 ? o->backoff_ms : 200;
	ch->max_pending = o->max_pending > 0 ? o->max_pending : 16;
	ch->max_pending_bytes = o->max_pending_bytes ? o->max_pending_bytes : 64u << 20;
	ch->spool_max = o->spool_bytes ? o->spool_bytes : (size_t)256 << 20;
	ch->spool_age_ns = o->spool_age_s * 1000000000ull;
	pthread_mutex_init(&ch->lock, NULL);
	if (o->spool_dir && (e = sp_spool_open(o->spool_dir)) != 0) {
		sp_err("--spool %s: %s\n", o->spool_dir, strerror(-e));
		sp_clickhouse__destroy(ch);
		errno = -e;
		return NULL;
	}
	if (o->spool_dir && !(ch->spool = strdup(o->spool_dir))) {
		sp_clickhouse__destroy(ch);
		errno = ENOMEM;
		return NULL;
	}
	return ch;
}

static int exec_sql(struct sp_clickhouse *ch, const char *sql, char **answer, char *err, size_t errlen)
{
	struct sp_http_resp r;
	int e = sp_ch_exec(&ch->c, sql, NULL, 0, &r, err, errlen);

	if (e)
		return e;
	if (answer)
		*answer = r.body;
	else
		sp_http_resp_free(&r);
	return 0;
}

/* The samples table, or (stacks) the table of stacks, keyed by id: a
 * ReplacingMergeTree, so a stack sent twice is kept once after merges. */
static char *create_sql(const struct sp_clickhouse *ch, bool stack_table)
{
	const struct column *cols = stack_table ? stacks : sample_cols;
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s%s (", ch->c.db, ch->c.table, stack_table ? "_stacks" : "");
	for (size_t i = 0; cols[i].name; i++)
		fprintf(f, "%s%s %s", i ? ", " : "", cols[i].name, cols[i].type);
	if (stack_table)
		fprintf(f, ", %s %s", stack_day[0].name, stack_day[0].type);
	fputs(stack_table ? ") ENGINE = ReplacingMergeTree() PARTITION BY day ORDER BY stack_id" :
			    ") ENGINE = MergeTree() PARTITION BY toDate(time) ORDER BY (host, time)", f);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* A table's engine, and for a Distributed one the local table it spreads
 * over ("Distributed(cluster, db, table, rand())" in system.tables):
 * 1 Distributed (local set), 0 another engine, -ENOENT no such table. */
static int table_engine(struct sp_clickhouse *ch, const char *db, const char *table, char local[2][128],
			char *err, size_t errlen)
{
	char sql[512], *ans = NULL, *tab;
	int e;

	snprintf(sql, sizeof(sql), "SELECT engine, engine_full FROM system.tables WHERE database = '%s' AND "
				   "name = '%s' FORMAT TabSeparated", db, table);
	e = exec_sql(ch, sql, &ans, err, errlen);
	if (e)
		return e;
	tab = strchr(ans, '\t');
	if (!tab) {
		free(ans);
		return -ENOENT;
	}
	*tab = '\0';
	e = strcmp(ans, "Distributed") == 0;
	if (e && sscanf(tab + 1, "Distributed(%*[^,], %127[^,], %127[^,)]", local[0], local[1]) != 2) {
		snprintf(err, errlen, "table %s.%s: cannot read its engine '%.200s'", db, table, tab + 1);
		e = -EPROTO;
	}
	for (int i = 0; e == 1 && i < 2; i++) /* quoted names: 'db' or `db` */
		if (local[i][0] == '\'' || local[i][0] == '`') {
			memmove(local[i], local[i] + 1, strlen(local[i]));
			local[i][strcspn(local[i], "'`")] = '\0';
		}
	free(ans);
	return e;
}

/* Adds the columns a table of an older sprof lacks (period_ns), to a
 * Distributed table and its local table alike. */
static int add_period_column(struct sp_clickhouse *ch, char *err, size_t errlen)
{
	char local[2][128], sql[512];
	int d = table_engine(ch, ch->c.db, ch->c.table, local, err, errlen), e = d < 0 ? d : 0;

	snprintf(sql, sizeof(sql), "ALTER TABLE %s.%s ADD COLUMN period_ns UInt64", ch->c.db, ch->c.table);
	if (!e)
		e = exec_sql(ch, sql, NULL, err, errlen);
	snprintf(sql, sizeof(sql), "ALTER TABLE %s.%s ADD COLUMN period_ns UInt64", local[0], local[1]);
	if (!e && d == 1)
		e = exec_sql(ch, sql, NULL, err, errlen);
	return e;
}

/* Every column of cols is there with its type: 0, or -ENODATA when
 * period_ns alone is missing (a table of an older sprof), or -EINVAL. */
static int check_columns(struct sp_clickhouse *ch, const struct column *cols, const char *db, const char *table,
			 char *err, size_t errlen)
{
	char sql[512], *ans = NULL, *line, *save = NULL;
	bool seen[16] = { false };
	int e;

	snprintf(sql, sizeof(sql), "SELECT name, type FROM system.columns WHERE database = '%s' AND "
				   "table = '%s' FORMAT TabSeparated", db, table);
	e = exec_sql(ch, sql, &ans, err, errlen);
	for (line = e ? NULL : strtok_r(ans, "\n", &save); line && !e; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		sp_ch_unescape(line);
		sp_ch_unescape(tab + 1);
		for (size_t i = 0; cols[i].name; i++) {
			if (strcmp(line, cols[i].name) != 0)
				continue;
			seen[i] = true;
			if (strcmp(tab + 1, cols[i].type) != 0) {
				snprintf(err, errlen, "table %s.%s has another schema: column '%s' is %s, "
						      "sprof writes %s", db, table, line, tab + 1, cols[i].type);
				e = -EINVAL;
			}
		}
	}
	for (size_t i = 0; cols[i].name && !e; i++) {
		if (!seen[i] && strcmp(cols[i].name, "period_ns") == 0) {
			e = -ENODATA;
		} else if (!seen[i]) {
			snprintf(err, errlen, "table %s.%s has another schema: no column '%s' (%s)", db, table,
				 cols[i].name, cols[i].type);
			e = -EINVAL;
		}
	}
	free(ans);
	return e;
}

/* Drops db.table's day partitions before cutoff ("YYYY-MM-DD"), never the
 * zero day (stack rows of an older agent, with no day: 18.16 shows it as
 * 0000-00-00, newer servers as 1970-01-01); how many. */
static int drop_days(struct sp_clickhouse *ch, const char *db, const char *table, const char *cutoff,
		     char *err, size_t errlen)
{
	char sql[512], *ans = NULL, *line, *save = NULL;
	int e, dropped = 0;

	snprintf(sql, sizeof(sql), "SELECT DISTINCT partition FROM system.parts WHERE database = '%s' AND "
				   "table = '%s' AND active FORMAT TabSeparated", db, table);
	e = exec_sql(ch, sql, &ans, err, errlen);
	for (line = e ? NULL : strtok_r(ans, "\n", &save); line && !e; line = strtok_r(NULL, "\n", &save)) {
		sp_ch_unescape(line);
		if (line[0] == '\'')
			memmove(line, line + 1, strlen(line)); /* newer servers quote the value */
		line[strcspn(line, "'")] = '\0';
		if (strlen(line) != 10 || strcmp(line, cutoff) >= 0 || strcmp(line, "1970-01-02") < 0)
			continue;
		snprintf(sql, sizeof(sql), "ALTER TABLE %s.%s DROP PARTITION '%s'", db, table, line);
		e = exec_sql(ch, sql, NULL, err, errlen);
		dropped += !e;
	}
	free(ans);
	return e ? e : dropped;
}

/* Drops the samples' day partitions older than the retention, and the
 * stacks' of the same days; returns how many samples' days. */
static int drop_old_days(struct sp_clickhouse *ch, char *err, size_t errlen)
{
	char cutoff[16], st[160];
	time_t t = time(NULL) - (time_t)ch->retention_s;
	struct tm tm;
	int e, e2;

	if (!ch->retention_s)
		return 0;
	gmtime_r(&t, &tm);
	strftime(cutoff, sizeof(cutoff), "%Y-%m-%d", &tm);
	e = drop_days(ch, ch->parts[0], ch->parts[1], cutoff, err, errlen);
	if (e < 0 || !ch->compact || !ch->stack_days)
		return e;
	snprintf(st, sizeof(st), "%s_stacks", ch->parts[1]);
	e2 = drop_days(ch, ch->parts[0], st, cutoff, err, errlen);
	return e2 < 0 ? e2 : e;
}

/* 1: db.table has the column, 0: not, -errno. */
static int has_column(struct sp_clickhouse *ch, const char *db, const char *table, const char *col,
		      char *err, size_t errlen)
{
	char sql[512], *ans = NULL;
	int e;

	snprintf(sql, sizeof(sql), "SELECT count() FROM system.columns WHERE database = '%s' AND table = '%s' "
				   "AND name = '%s' FORMAT TabSeparated", db, table, col);
	e = exec_sql(ch, sql, &ans, err, errlen);
	if (!e)
		e = atoi(ans) > 0;
	free(ans);
	return e;
}

/* 1: db.table has the stack-id layout (a stack_id column), 0: the old one
 * (a stack in every row), -errno. */
static int layout(struct sp_clickhouse *ch, const char *db, const char *table, char *err, size_t errlen)
{
	return has_column(ch, db, table, "stack_id", err, errlen);
}

/* The table's columns (either layout) and, for the stack-id layout, its
 * stacks table: 1 stack-id layout, 0 old, -ENODATA (old, no period_ns),
 * -errno with err set. *days (when given): the stacks table has the day
 * column. */
static int check_table(struct sp_clickhouse *ch, const char *db, const char *table, bool *days,
		       char *err, size_t errlen)
{
	bool d = false;

	char local[2][128], st[160];
	int c = layout(ch, db, table, err, errlen), e;

	if (c < 0)
		return c;
	e = check_columns(ch, c ? sample_cols : old_rows, db, table, err, errlen);
	snprintf(st, sizeof(st), "%s_stacks", table);
	if (!e && c && table_engine(ch, db, st, local, err, errlen) == -ENOENT) {
		snprintf(err, errlen, "table %s.%s has no stacks table %s.%s: run `sprof fleet init` on it once",
			 db, table, db, st);
		e = -ENOENT;
	}
	if (!e && c)
		e = check_columns(ch, stacks, db, st, err, errlen);
	if (!e && c && (e = has_column(ch, db, st, stack_day[0].name, err, errlen)) == 1) {
		e = check_columns(ch, stack_day, db, st, err, errlen);
		d = e == 0;
	}
	if (days)
		*days = d;
	return e < 0 ? e : c;
}

/* The agent's checks, no DDL: the table exists (sprof fleet init made it)
 * with sprof's columns, in either layout; for --retention, the table whose
 * partitions hold the rows (a Distributed table's local table). */
int sp_clickhouse__prepare(struct sp_clickhouse *ch)
{
	char err[512] = "", local[2][128];
	int e = exec_sql(ch, "SELECT version()", NULL, err, sizeof(err)), d = 0;

	if (!e)
		e = d = table_engine(ch, ch->c.db, ch->c.table, local, err, sizeof(err));
	if (e == -ENOENT)
		snprintf(err, sizeof(err), "table %s.%s does not exist: create it once with `sprof fleet init %s` "
					   "(sprof never creates a table when it exports)", ch->c.db, ch->c.table,
			 ch->c.shown);
	if (e >= 0)
		e = check_table(ch, ch->c.db, ch->c.table, &ch->stack_days, err, sizeof(err));
	ch->compact = e == 1;
	if (e == 1)
		e = 0;
	if (e == -ENODATA)
		snprintf(err, sizeof(err), "table %s.%s has no column period_ns (an older sprof made it): run "
					   "`sprof fleet init %s` once to add it", ch->c.db, ch->c.table, ch->c.shown);
	snprintf(ch->parts[0], sizeof(ch->parts[0]), "%s", d == 1 ? local[0] : ch->c.db);
	snprintf(ch->parts[1], sizeof(ch->parts[1]), "%s", d == 1 ? local[1] : ch->c.table);
	if (!e && ch->retention_s && ch->compact && !ch->stack_days)
		sp_err("%s: %s_stacks has no day column (an older `sprof fleet init` made "
			       "it): --retention drops old samples but keeps every stack; make the tables "
			       "anew to have stacks dropped with their days\n", ch->c.shown, ch->c.table);
	if (!e && (e = drop_old_days(ch, err, sizeof(err))) > 0)
		e = 0;
	if (e)
		sp_err("cannot export to %s: %s\n", ch->c.shown, *err ? err : strerror(-e));
	return e < 0 ? e : 0;
}

static int create_table(struct sp_clickhouse *ch, bool stack_table, char *err, size_t errlen)
{
	char *create = create_sql(ch, stack_table);
	int e = create ? exec_sql(ch, create, NULL, err, errlen) : -ENOMEM;

	free(create);
	return e;
}

/* A plain table: created when missing (the samples and the stacks tables),
 * else its columns checked: a table of the old layout is kept as it is
 * (read and written so), period_ns added to one of an older sprof. */
static int init_plain(struct sp_clickhouse *ch, char *what, size_t wlen, char *err, size_t errlen)
{
	char local[2][128];
	int e = table_engine(ch, ch->c.db, ch->c.table, local, err, errlen);

	if (e == -ENOENT) {
		e = create_table(ch, true, err, errlen);
		if (!e)
			e = create_table(ch, false, err, errlen);
		snprintf(what, wlen, "created (MergeTree, stacks in %s_stacks)", ch->c.table);
		return e;
	}
	if (e >= 0 && layout(ch, ch->c.db, ch->c.table, err, errlen) == 1)
		e = create_table(ch, true, err, errlen); /* a stacks table lost: made again */
	if (e >= 0)
		e = check_table(ch, ch->c.db, ch->c.table, &ch->stack_days, err, errlen);
	snprintf(what, wlen, e == 0 ? "ready (exists; the old layout, a stack in every row)" :
			     e == 1 && !ch->stack_days ? "ready (exists; its stacks table has no day "
			     "partitions, an older sprof made it: --retention keeps every stack)" :
			     "ready (exists)");
	if (e == -ENODATA) {
		e = add_period_column(ch, err, errlen);
		snprintf(what, wlen, "ready (column period_ns added; the old layout, a stack in every row)");
	}
	return e < 0 ? e : 0;
}

/* A Distributed table over `cluster`, spread over db.local on every shard
 * (each shard's made first with sprof fleet init, so its schema is sprof's);
 * with the stack-id layout, TABLE_stacks over local_stacks too. */
static int init_distributed(struct sp_clickhouse *ch, const char *cluster, const char *local, char *what,
			    size_t wlen, char *err, size_t errlen)
{
	char sql[512], *ans = NULL, loc[2][128];
	int e, c = 0;

	snprintf(sql, sizeof(sql), "SELECT count() FROM system.clusters WHERE cluster = '%s' FORMAT TabSeparated",
		 cluster);
	e = exec_sql(ch, sql, &ans, err, errlen);
	if (!e && atoi(ans) == 0) {
		snprintf(err, errlen, "the server has no cluster '%s' (remote_servers in its config)", cluster);
		e = -ENOENT;
	}
	free(ans);
	if (!e && (e = table_engine(ch, ch->c.db, local, loc, err, errlen)) == -ENOENT)
		snprintf(err, errlen, "no local table %s.%s on this server: run `sprof fleet init "
				      "clickhouse://SHARD/%s.%s` on every shard of '%s' first", ch->c.db, local,
			 ch->c.db, local, cluster);
	if (e >= 0)
		e = c = check_table(ch, ch->c.db, local, &ch->stack_days, err, errlen);
	snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS %s.%s_stacks AS %s.%s_stacks ENGINE = "
				   "Distributed(%s, %s, %s_stacks, rand())",
		 ch->c.db, ch->c.table, ch->c.db, local, cluster, ch->c.db, local);
	if (e == 1)
		e = exec_sql(ch, sql, NULL, err, errlen);
	snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s ENGINE = Distributed(%s, %s, %s, rand())",
		 ch->c.db, ch->c.table, ch->c.db, local, cluster, ch->c.db, local);
	if (!e)
		e = exec_sql(ch, sql, NULL, err, errlen);
	if (!e)
		e = check_table(ch, ch->c.db, ch->c.table, &ch->stack_days, err, errlen);
	snprintf(what, wlen, "ready (Distributed over cluster %s, local table %s.%s%s)", cluster, ch->c.db, local,
		 c == 1 ? ", stacks in _stacks" : "");
	return e < 0 ? e : 0;
}

/* --- fleet init --copy-from: an older table's rows into the new layout --------------- */

/* The old layout's stack id, computed by the server: a hash of the frames,
 * their build ids and offsets (not the agent's FNV-1a: a stack copied and
 * the same stack sent later have two ids, each naming the same frames, so
 * reports sum them alike). */
#define OLD_STACK_ID "cityHash64(arrayStringConcat(stack, '\\n'), arrayStringConcat(build_ids, '\\n'), " \
		     "arrayStringConcat(arrayMap(x -> toString(x), offsets), ','))"

static uint64_t count_rows(struct sp_clickhouse *ch, const char *db, const char *table, int *e,
			   char *err, size_t errlen)
{
	char sql[512], *ans = NULL;
	uint64_t n = 0;

	snprintf(sql, sizeof(sql), "SELECT count() FROM %s.%s FORMAT TabSeparated", db, table);
	*e = exec_sql(ch, sql, &ans, err, errlen);
	if (!*e)
		n = strtoull(ans, NULL, 10);
	free(ans);
	return n;
}

/* Copies every row of `from` (DB.TABLE or TABLE, on the URL's server; the old
 * layout, or the stack-id layout with a stacks table without days) into the
 * table fleet init just made or checked, which must be empty: a copy made
 * twice would count each sample twice. The statements run on the server
 * (INSERT ... SELECT), with no time limit. */
static int copy_from(struct sp_clickhouse *ch, const char *from, char *what, size_t wlen, char *err,
		     size_t errlen)
{
	char fdb[128], ftab[128], sql[2048], fst[160];
	const char *dot = strchr(from, '.');
	uint64_t have, rows, nstacks;
	int e, c, period;

	if (dot && (size_t)(dot - from) < sizeof(fdb)) {
		snprintf(fdb, sizeof(fdb), "%.*s", (int)(dot - from), from);
		snprintf(ftab, sizeof(ftab), "%s", dot + 1);
	} else {
		snprintf(fdb, sizeof(fdb), "%s", ch->c.db);
		snprintf(ftab, sizeof(ftab), "%s", from);
	}
	if (!sp_ch_ident_ok(fdb) || !sp_ch_ident_ok(ftab)) {
		snprintf(err, errlen, "--copy-from %s: a table is DB.TABLE or TABLE, letters, digits and '_'",
			 from);
		return -EINVAL;
	}
	if (!strcmp(fdb, ch->c.db) && !strcmp(ftab, ch->c.table)) {
		snprintf(err, errlen, "--copy-from %s: that is the table being made", from);
		return -EINVAL;
	}
	if ((c = check_table(ch, ch->c.db, ch->c.table, &ch->stack_days, err, errlen)) != 1) {
		if (c >= 0 || c == -ENODATA)
			snprintf(err, errlen, "%s.%s is of the old layout (a stack in every row): --copy-from "
					      "fills a table of the stack-id layout; give a new name", ch->c.db,
				 ch->c.table);
		return c == 1 ? 0 : c < 0 && c != -ENODATA ? c : -EINVAL;
	}
	have = count_rows(ch, ch->c.db, ch->c.table, &e, err, errlen);
	if (!e && have) {
		snprintf(err, errlen, "%s.%s has %llu rows already: --copy-from fills an empty table only "
				      "(a second copy would count every sample twice)", ch->c.db, ch->c.table,
			 (unsigned long long)have);
		return -EEXIST;
	}
	c = e ? e : check_table(ch, fdb, ftab, NULL, err, errlen);
	if (c == -ENOENT && !*err)
		snprintf(err, errlen, "--copy-from: no table %s.%s", fdb, ftab);
	if (c < 0 && c != -ENODATA)
		return c;
	period = c == -ENODATA ? 0 : 1; /* an old-layout table of before period_ns */
	c = c == -ENODATA ? 0 : c;
	ch->c.timeout_ms = 3600 * 1000; /* the server answers when the copy is done */
	ch->c.total_ms = 0;
	snprintf(fst, sizeof(fst), "%s_stacks", ftab);
	if (c == 1) /* stack-id layout: each stack once for every day it is used on */
		snprintf(sql, sizeof(sql), "INSERT INTO %s.%s_stacks (stack_id, stack, build_ids, offsets%s) "
			 "SELECT stack_id, stack, build_ids, offsets%s FROM (SELECT DISTINCT stack_id, "
			 "toDate(time) AS day FROM %s.%s) ANY INNER JOIN (SELECT stack_id, stack, build_ids, "
			 "offsets FROM %s.%s) USING stack_id", ch->c.db, ch->c.table,
			 ch->stack_days ? ", day" : "", ch->stack_days ? ", day" : "", fdb, ftab, fdb, fst);
	else
		snprintf(sql, sizeof(sql), "INSERT INTO %s.%s_stacks (stack_id, stack, build_ids, offsets%s) "
			 "SELECT " OLD_STACK_ID " AS sid, any(stack), any(build_ids), any(offsets)%s FROM "
			 "%s.%s GROUP BY sid%s", ch->c.db, ch->c.table, ch->stack_days ? ", day" : "",
			 ch->stack_days ? ", toDate(time) AS d" : "", fdb, ftab, ch->stack_days ? ", d" : "");
	e = exec_sql(ch, sql, NULL, err, errlen);
	snprintf(sql, sizeof(sql), "INSERT INTO %s.%s (time, host, map, pid, comm, key, stack_id, batch_id, "
		 "count, period_ns) SELECT time, host, map, pid, comm, key, %s, %s, count, %s FROM %s.%s",
		 ch->c.db, ch->c.table, c == 1 ? "stack_id" : OLD_STACK_ID, c == 1 ? "batch_id" : "0",
		 period ? "period_ns" : "0", fdb, ftab);
	if (!e)
		e = exec_sql(ch, sql, NULL, err, errlen);
	rows = e ? 0 : count_rows(ch, ch->c.db, ch->c.table, &e, err, errlen);
	snprintf(fst, sizeof(fst), "%s_stacks", ch->c.table);
	nstacks = e ? 0 : count_rows(ch, ch->c.db, fst, &e, err, errlen);
	if (!e)
		snprintf(what + strlen(what), wlen - strlen(what), "; copied %llu rows (%llu stack rows) from "
			 "%s.%s, %s; the source is left as it was", (unsigned long long)rows,
			 (unsigned long long)nstacks, fdb, ftab, c == 1 ? "its stacks given their days" :
			 "the old layout's stacks stored once");
	return e;
}

int sp_clickhouse__init(struct sp_clickhouse *ch, const char *cluster, const char *local,
			const char *copy)
{
	char err[512] = "", what[768] = "", sql[256];
	int e = 0;

	if ((cluster && !sp_ch_ident_ok(cluster)) || (local && !sp_ch_ident_ok(local))) {
		snprintf(err, sizeof(err), "cluster and table names are letters, digits and '_'");
		e = -EINVAL;
	}
	if (!e)
		e = exec_sql(ch, "SELECT version()", NULL, err, sizeof(err));

	snprintf(sql, sizeof(sql), "CREATE DATABASE IF NOT EXISTS %s", ch->c.db);
	if (!e)
		e = exec_sql(ch, sql, NULL, err, sizeof(err));
	if (!e)
		e = cluster ? init_distributed(ch, cluster, local, what, sizeof(what), err, sizeof(err)) :
			      init_plain(ch, what, sizeof(what), err, sizeof(err));
	if (!e && copy)
		e = copy_from(ch, copy, what, sizeof(what), err, sizeof(err));
	if (e)
		sp_log(SP_LOG_ERROR, "sprof fleet init: %s: %s\n", ch->c.shown, *err ? err : strerror(-e));
	else
		printf("%s: %s\n", ch->c.shown, what);
	return e;
}

/* --- batches ------------------------------------------------------------------------ */

static bool quitting(struct sp_clickhouse *ch)
{
	return __atomic_load_n(&ch->quitting, __ATOMIC_ACQUIRE);
}

void sp_clickhouse__quit(struct sp_clickhouse *ch)
{
	if (ch)
		__atomic_store_n(&ch->quitting, 1, __ATOMIC_RELEASE);
}

/* Waits ms between tries, in 20 ms steps: false at once when the run ends. */
static bool retry_wait(struct sp_clickhouse *ch, int ms)
{
	for (int left = ms; left > 0 && !quitting(ch); left -= 20) {
		struct timespec ts = { 0, (long)(left < 20 ? left : 20) * 1000000L };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	return !quitting(ch);
}

/* A new batch id: the time in ns, above every id before (names in the spool
 * sort oldest first, across runs too). */
static uint64_t new_id(struct sp_clickhouse *ch)
{
	struct timespec ts;
	uint64_t id;

	clock_gettime(CLOCK_REALTIME, &ts);
	id = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (id <= ch->last_id)
		id = ch->last_id + 1;
	return ch->last_id = id;
}

/* Whether the batch's rows are in the table already (an insert whose answer
 * was lost may have gone through): 1, 0, or -errno. Only the stack-id
 * layout has batch_id. */
static int batch_stored(struct sp_clickhouse *ch, const struct batch *b, char *err, size_t errlen)
{
	char sql[1024], host[600], *ans = NULL, *o = host;
	int e;

	for (const char *p = ch->host_name; *p && o < host + sizeof(host) - 3; p++) {
		if (*p == '\'' || *p == '\\')
			*o++ = '\\';
		*o++ = *p;
	}
	*o = '\0';
	/* the rows' time is the id's second: (host, time) is the table's order, so this reads
	 * a few granules, not the host's history */
	snprintf(sql, sizeof(sql), "SELECT count() FROM %s.%s WHERE host = '%s' AND time >= toDateTime(%llu) AND "
				   "time <= toDateTime(%llu) AND batch_id = %llu FORMAT TabSeparated", ch->c.db,
		 ch->c.table, host, (unsigned long long)(b->id / 1000000000ull - 2),
		 (unsigned long long)(b->id / 1000000000ull + 2), (unsigned long long)b->id);
	e = exec_sql(ch, sql, &ans, err, errlen);
	if (!e)
		e = atoll(ans) > 0;
	free(ans);
	return e;
}

/* One try: the stacks first (a row never names a stack the table lacks),
 * then the rows, under a query_id of the batch's own, so a resend while an
 * earlier try still runs on the server is refused by the server. */
static int send_once(struct sp_clickhouse *ch, const struct batch *b, char *err, size_t errlen)
{
	struct sp_http_resp r;
	char sql[256], params[96];
	int e = 0;

	snprintf(sql, sizeof(sql), "INSERT INTO %s.%s_stacks FORMAT JSONEachRow", ch->c.db, ch->c.table);
	/* a spooled batch with days sent to a stacks table without (or the other way) still goes in */
	ch->c.params = "input_format_skip_unknown_fields=1";
	if (b->slen && !(e = sp_ch_exec(&ch->c, sql, b->stacks, b->slen, &r, err, errlen)))
		sp_http_resp_free(&r);
	snprintf(sql, sizeof(sql), "INSERT INTO %s.%s FORMAT JSONEachRow", ch->c.db, ch->c.table);
	snprintf(params, sizeof(params), "query_id=sprof-batch-%016llx", (unsigned long long)b->id);
	ch->c.params = b->compact ? params : NULL;
	if (!e && !(e = sp_ch_exec(&ch->c, sql, b->rows, b->len, &r, err, errlen)))
		sp_http_resp_free(&r);
	ch->c.params = NULL;
	return e;
}

/* maybe_sent: an earlier flush or run may have stored it (a batch tried
 * before, or from the spool). */
static int send_batch(struct sp_clickhouse *ch, const struct batch *b, bool maybe_sent, char *err, size_t errlen)
{
	char e2[512];
	int e = -EIO, wait = ch->backoff_ms;

	for (int i = 0; i < ch->attempts; i++) {
		if (i) {
			if (!retry_wait(ch, wait)) /* the run ends: the batch waits in the spool */
				break;
			wait = wait * 2 > 5000 ? 5000 : wait * 2;
		}
		/* no blind resend: a try whose answer was lost may be in the table */
		if ((i || maybe_sent) && b->compact && batch_stored(ch, b, e2, sizeof(e2)) == 1) {
			sp_err("%s: batch %016llx is in the table already (an earlier try went "
				       "through): not sent again\n", ch->c.shown, (unsigned long long)b->id);
			return 0;
		}
		e = send_once(ch, b, err, errlen);
		if (!e)
			return 0;
		if (i == 0 && ch->attempts > 1 && !quitting(ch))
			sp_err("%s: insert failed (%s), retrying up to %d times\n", ch->c.shown,
			       err, ch->attempts - 1);
	}
	return e;
}

static void count_dropped(struct sp_clickhouse *ch, uint64_t rows, uint64_t samples)
{
	ch->dropped_rows += rows;
	ch->dropped += samples;
	ch->dropped_batches++;
}

static void drop_oldest(struct sp_clickhouse *ch)
{
	count_dropped(ch, ch->pending[0].nrows, ch->pending[0].samples);
	ch->pending_bytes -= ch->pending[0].len + ch->pending[0].slen;
	sp_ch_text_free(&ch->pending[0]);
	memmove(ch->pending, ch->pending + 1, sizeof(*ch->pending) * (size_t)--ch->npending);
}

/* Puts b at the back (or the front: a batch that failed again stays the
 * oldest), dropping the oldest while the bounds are passed. Under lock. */
static bool over_bounds(const struct sp_clickhouse *ch, size_t len)
{
	return ch->npending && (ch->npending >= ch->max_pending ||
				ch->pending_bytes + len > ch->max_pending_bytes);
}

static int queue(struct sp_clickhouse *ch, struct batch b, bool front)
{
	if (front && over_bounds(ch, b.len + b.slen)) { /* it is the oldest itself */
		count_dropped(ch, b.nrows, b.samples);
		sp_ch_text_free(&b);
		return 0;
	}
	while (over_bounds(ch, b.len + b.slen))
		drop_oldest(ch);
	if (SP_GROW(ch->pending, ch->cap, ch->npending + 1, 4)) {
		sp_ch_text_free(&b);
		return -ENOMEM;
	}
	if (front)
		memmove(ch->pending + 1, ch->pending, sizeof(*ch->pending) * (size_t)ch->npending);
	ch->pending[front ? 0 : ch->npending] = b;
	ch->npending++;
	ch->pending_bytes += b.len + b.slen;
	return 0;
}

/* Whether the spooled batch name is older than --spool-age at now_ns: its
 * name is its id, the time it was taken in ns (new_id). */
static bool spool_aged(const struct sp_clickhouse *ch, const char *name, uint64_t now_ns)
{
	uint64_t id = strtoull(name, NULL, 16);

	return ch->spool_age_ns && id < now_ns && now_ns - id > ch->spool_age_ns;
}

/* The spool over its size, or holding batches older than --spool-age: the
 * oldest batches go (not the one being sent), each said with its rows and
 * samples and why. Under lock. */
static void spool_trim(struct sp_clickhouse *ch)
{
	char **names = NULL;
	int n = sp_spool_list(ch->spool, &names);
	size_t total = 0, size;
	uint64_t rows, samples, now;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts); /* the clock batch ids are read from */
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (int i = 0; i < n; i++)
		if (sp_spool_header(ch->spool, names[i], &rows, &samples, &size) == 0)
			total += size;
	for (int i = 0; i < n; i++) {
		bool aged = spool_aged(ch, names[i], now);
		char why[96];

		/* names sort oldest first: once one is young and the spool
		 * small enough, so are the rest; the newest batch (just
		 * written) never goes for the size */
		if (!aged && (total <= ch->spool_max || i == n - 1))
			break;
		if (strcmp(names[i], ch->inflight) == 0 ||
		    sp_spool_header(ch->spool, names[i], &rows, &samples, &size) != 0)
			continue;
		sp_spool_remove(ch->spool, names[i]);
		total -= size;
		count_dropped(ch, rows, samples);
		if (aged)
			snprintf(why, sizeof(why), "holds batches older than --spool-age %llus",
				 (unsigned long long)(ch->spool_age_ns / 1000000000ull));
		else
			snprintf(why, sizeof(why), "is over %zu bytes", ch->spool_max);
		sp_err("%s: the spool %s %s: dropped its oldest batch (%llu rows, "
			       "%llu samples)\n", ch->c.shown, ch->spool, why, (unsigned long long)rows,
		       (unsigned long long)samples);
	}
	sp_spool_names_free(names);
}

/* The UTC day of a batch: its rows' time is its id's second. */
static uint64_t batch_day(const struct batch *b)
{
	return b->id / 1000000000ull / 86400;
}

int sp_clickhouse__queue(struct sp_clickhouse *ch, const struct sp_profile *p)
{
	struct batch b = { .compact = ch->compact, .days = ch->stack_days };
	size_t size;
	int e;

	pthread_mutex_lock(&ch->lock); /* the stacks sent so far are read */
	b.id = new_id(ch);
	if (batch_day(&b) != ch->sent_day) { /* a new day: its partition gets every stack again */
		sp_ch_ids_free(&ch->sent_ids);
		ch->sent_day = batch_day(&b);
	}
	e = sp_ch_rows(p, ch->host_name, &ch->sent_ids, &b);
	pthread_mutex_unlock(&ch->lock);
	if (e) {
		sp_err("%s: cannot build the rows: %s\n", ch->c.shown, strerror(-e));
		return e;
	}
	if (b.nrows == 0) {
		sp_ch_text_free(&b);
		return 0;
	}
	pthread_mutex_lock(&ch->lock);
	ch->taken += b.samples;
	if (ch->spool) {
		e = sp_spool_write(ch->spool, &b, &size);
		if (e) {
			sp_err("%s: cannot write to the spool %s: %s; the batch waits in memory\n",
			       ch->c.shown, ch->spool, strerror(-e));
		} else {
			spool_trim(ch);
			sp_ch_text_free(&b);
		}
	}
	if (!ch->spool || e)
		e = queue(ch, b, false);
	pthread_mutex_unlock(&ch->lock);
	return e;
}

/* The oldest pending batch, taken out of the queue (nothing: false). */
static bool take_oldest(struct sp_clickhouse *ch, struct batch *b)
{
	bool any;

	pthread_mutex_lock(&ch->lock);
	any = ch->npending > 0;
	if (any) {
		*b = ch->pending[0];
		ch->pending_bytes -= b->len + b->slen;
		memmove(ch->pending, ch->pending + 1, sizeof(*ch->pending) * (size_t)--ch->npending);
	}
	pthread_mutex_unlock(&ch->lock);
	return any;
}

/* One line per batch sent (a period, with --continuous), for the journal. */
static void summary(struct sp_clickhouse *ch, const struct batch *b)
{
	uint64_t lost = sp_clickhouse__dropped_rows(ch);

	sp_err("export %s: %llu row%s, %zu bytes sent; lost %llu rows\n", ch->c.shown,
	       (unsigned long long)b->nrows, b->nrows == 1 ? "" : "s", b->len + b->slen, (unsigned long long)lost);
}

/* The batch's stacks are in the table now: later batches of the same day
 * leave them out (forgotten past a million, to bound the memory; sending
 * one again costs a row in the stacks table until it merges). */
static void remember_sent(struct sp_clickhouse *ch, const struct batch *b)
{
	pthread_mutex_lock(&ch->lock);
	ch->sent += b->samples;
	if (batch_day(b) != ch->sent_day) { /* sent late: its stacks are in another day */
		pthread_mutex_unlock(&ch->lock);
		return;
	}
	if (ch->sent_ids.n > (1u << 20))
		sp_ch_ids_free(&ch->sent_ids);
	for (size_t i = 0; i < b->ids.cap; i++)
		if (b->ids.v[i] && sp_ch_ids_add(&ch->sent_ids, b->ids.v[i]) < 0)
			break;
	pthread_mutex_unlock(&ch->lock);
}

/* The spool's batches, oldest first, each removed once sent; the first
 * that fails stays (and the rest behind it). */
static int flush_spool(struct sp_clickhouse *ch, char *err, size_t errlen)
{
	char **names = NULL;
	int n, e;

	pthread_mutex_lock(&ch->lock); /* batches an earlier run left may be past --spool-age */
	spool_trim(ch);
	pthread_mutex_unlock(&ch->lock);
	n = sp_spool_list(ch->spool, &names);
	e = n < 0 ? n : 0;
	for (int i = 0; i < n && !e; i++) {
		struct batch b;
		size_t size;

		pthread_mutex_lock(&ch->lock);
		snprintf(ch->inflight, sizeof(ch->inflight), "%s", names[i]);
		pthread_mutex_unlock(&ch->lock);
		e = sp_spool_read(ch->spool, names[i], &b, &size);
		if (e == -ENOENT) { /* trimmed meanwhile */
			e = 0;
			continue;
		}
		if (!e && b.compact != ch->compact) {
			sp_err("%s: spool batch %s is of the other table layout: dropped "
				       "(%llu rows)\n", ch->c.shown, names[i], (unsigned long long)b.nrows);
			e = -EBADMSG;
		}
		if (e == -EBADMSG) {
			pthread_mutex_lock(&ch->lock);
			count_dropped(ch, b.nrows, b.samples);
			pthread_mutex_unlock(&ch->lock);
			sp_spool_remove(ch->spool, names[i]);
			sp_ch_text_free(&b);
			e = 0;
			continue;
		}
		if (!e)
			e = send_batch(ch, &b, true, err, errlen);
		if (!e) {
			summary(ch, &b);
			remember_sent(ch, &b);
			sp_spool_remove(ch->spool, names[i]);
		}
		sp_ch_text_free(&b);
	}
	pthread_mutex_lock(&ch->lock);
	ch->inflight[0] = '\0';
	pthread_mutex_unlock(&ch->lock);
	sp_spool_names_free(names);
	if (e) {
		int left = n < 0 ? 0 : sp_clickhouse__spooled(ch);

		sp_err("%s: insert failed (%s); %d batch%s waiting in the spool %s\n", ch->c.shown,
		       n < 0 ? strerror(-n) : err, left, left == 1 ? "" : "es", ch->spool);
	}
	return e ? -EIO : 0;
}

int sp_clickhouse__flush(struct sp_clickhouse *ch)
{
	char err[512] = "";
	struct batch b;
	int e = 0, left;

	while (!e && take_oldest(ch, &b)) {
		e = send_batch(ch, &b, b.tried, err, sizeof(err)); /* no lock held: may take seconds */
		if (!e) {
			summary(ch, &b);
			remember_sent(ch, &b);
			sp_ch_text_free(&b);
			continue;
		}
		b.tried = true;
		pthread_mutex_lock(&ch->lock);
		queue(ch, b, true);
		left = ch->npending;
		pthread_mutex_unlock(&ch->lock);
		sp_err("%s: insert failed (%s); %d batch%s waiting\n", ch->c.shown, err,
		       left, left == 1 ? "" : "es");
		return -EIO;
	}
	if (ch->spool && flush_spool(ch, err, sizeof(err)))
		return -EIO;
	if (drop_old_days(ch, err, sizeof(err)) < 0)
		sp_err("%s: cannot drop old partitions: %s\n", ch->c.shown, err);
	return 0;
}

int sp_clickhouse__export(struct sp_clickhouse *ch, const struct sp_profile *p)
{
	int e = sp_clickhouse__queue(ch, p);

	return e ? e : sp_clickhouse__flush(ch);
}

uint64_t sp_clickhouse__dropped_rows(struct sp_clickhouse *ch)
{
	uint64_t n;

	pthread_mutex_lock(&ch->lock);
	n = ch->dropped_rows;
	pthread_mutex_unlock(&ch->lock);
	return n;
}

int sp_clickhouse__pending(struct sp_clickhouse *ch)
{
	int n;

	pthread_mutex_lock(&ch->lock);
	n = ch->npending;
	pthread_mutex_unlock(&ch->lock);
	return n;
}

int sp_clickhouse__spooled(struct sp_clickhouse *ch)
{
	char **names = NULL;
	int n = ch->spool ? sp_spool_list(ch->spool, &names) : 0;

	sp_spool_names_free(names);
	return n < 0 ? 0 : n;
}

void sp_clickhouse__destroy(struct sp_clickhouse *ch)
{
	int spooled;

	if (!ch)
		return;
	while (ch->npending)
		drop_oldest(ch);
	spooled = sp_clickhouse__spooled(ch);
	if (ch->taken || ch->sent || ch->dropped || spooled)
		sp_err("export %s: %llu samples taken, %llu sent, %llu dropped%s\n", ch->c.shown,
		       (unsigned long long)ch->taken, (unsigned long long)ch->sent, (unsigned long long)ch->dropped,
		       spooled ? "; the rest waits in the spool" : "");
	if (spooled)
		sp_err("%s: %d batch%s wait in the spool %s for the next run\n", ch->c.shown,
		       spooled, spooled == 1 ? "" : "es", ch->spool);
	if (ch->dropped_rows)
		sp_err("%s: %llu rows lost (%llu batch%s not sent)\n", ch->c.shown,
		       (unsigned long long)ch->dropped_rows, (unsigned long long)ch->dropped_batches,
		       ch->dropped_batches == 1 ? "" : "es");
	free(ch->pending);
	free(ch->spool);
	sp_ch_ids_free(&ch->sent_ids);
	pthread_mutex_destroy(&ch->lock);
	sp_ch_conn_free(&ch->c);
	free(ch);
}
