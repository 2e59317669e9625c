/* runtime/store/clickhouse.h: profiles to and from a ClickHouse table.
 *
 * `--export clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB.TABLE` sends the
 * run's stacks over ClickHouse's HTTP interface (port 8123 by default; user
 * and password from the URL, else SPROF_CLICKHOUSE_USER/_PASSWORD), one row
 * per map entry: time, host name, map, pid, comm, the key's other parts,
 * the stack's id, the count and its sampling period; each stack (frame
 * names root first, with the build id and file offset of each frame) once
 * in DB.TABLE_stacks. A table of an older sprof (the stack in every row)
 * is read and written in that layout. `sprof report --from
 * URL` reads them back aggregated by stack into a profile the usual
 * writers print. `sprof fleet init URL` creates the table once (MergeTree,
 * partitioned by day, ordered by host and time, in SQL that ClickHouse
 * 18.16 and current releases both accept; or Distributed over a cluster);
 * agents only check it and insert. --retention drops day partitions older
 * than it.
 */
#ifndef SPROF_RUNTIME_STORE_CLICKHOUSE_H
#define SPROF_RUNTIME_STORE_CLICKHOUSE_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/profile/profile.h"

/* The sampling period of rows written before the period_ns column (99 Hz). */
#define SP_CH_DEFAULT_PERIOD_NS (1000000000ull / 99)

struct sp_clickhouse_opts {
	const char *url;          /* clickhouse://... */
	const char *host_name;    /* --host-name; NULL = gethostname() */
	uint64_t retention_s;     /* --retention; 0 = keep everything */
	int attempts;             /* tries per batch (0: 6, over about 6 s) */
	int backoff_ms;           /* first wait between tries, doubling (0: 200) */
	int max_pending;          /* batches kept while the server is away (0: 16) */
	size_t max_pending_bytes; /* and bytes of them (0: 64 MiB) */
	int timeout_ms;           /* per connect/send/receive (0: 10000) */
	const char *spool_dir;    /* --spool: batches wait on disk here, or NULL */
	size_t spool_bytes;       /* --spool-size (0: 256 MiB) */
	uint64_t spool_age_s;     /* --spool-age: older batches are dropped; 0 = none */
};

struct sp_clickhouse;

/* Parses the URL; NULL with errno set and the message printed. */
struct sp_clickhouse *sp_clickhouse__open(const struct sp_clickhouse_opts *o);
/* Before attaching: the server answers, the credentials work, the table
 * exists with sprof's columns (never created: a missing table is refused,
 * naming `sprof fleet init`), old partitions are dropped (a Distributed
 * table's in its local table). 0 or -errno with one message `cannot export
 * to URL: ...`. */
int sp_clickhouse__prepare(struct sp_clickhouse *ch);
/* `sprof fleet init URL`: the DDL agents never run. Without cluster: the
 * database and a MergeTree table, created when missing; an existing one
 * checked and given the columns an older sprof did not write. With cluster:
 * the URL's table becomes Distributed(cluster, db, local, rand()) over the
 * local table (which must exist on this server with sprof's schema).
 * With copy (DB.TABLE or TABLE on the same server): then every row of that
 * table (the old layout, or an older stack-id one) is copied in, which
 * must find the table empty; the source is left as it is.
 * Prints "URL: ready (...)" on stdout; 0 or -errno with a message. */
int sp_clickhouse__init(struct sp_clickhouse *ch, const char *cluster, const char *local,
			const char *copy);
/* Export this profile now: its rows become one batch, sent with the
 * batches still pending (oldest first), each retried with backoff; when
 * the server stays away the batch waits, and past max_pending the oldest
 * is dropped. 0 when nothing is left pending, else -EIO (warning printed). */
int sp_clickhouse__export(struct sp_clickhouse *ch, const struct sp_profile *p);
/* The two halves of export, for a sender thread (--continuous): queue
 * builds the profile's rows now (the profile may die after it) and adds
 * them as one batch, dropping the oldest past max_pending batches or
 * max_pending_bytes; flush sends what is pending, oldest first, each
 * retried with backoff, and puts a batch that still fails back in front
 * (0: nothing left, else -EIO, warning printed); each batch sent prints
 * one summary line (rows, bytes, rows lost so far). Queue may run while
 * flush sends; one flush at a time. */
int sp_clickhouse__queue(struct sp_clickhouse *ch, const struct sp_profile *p);
int sp_clickhouse__flush(struct sp_clickhouse *ch);
/* The run is ending (a signal, --duration): from now on each batch gets one
 * try, no retry and no wait between tries (one under way ends at once);
 * what fails stays in the spool, or is counted lost. Any thread. */
void sp_clickhouse__quit(struct sp_clickhouse *ch);
/* Rows dropped so far (batches that were never sent). */
uint64_t sp_clickhouse__dropped_rows(struct sp_clickhouse *ch);
/* Batches waiting to be sent in memory (lost at exit), and in the spool
 * (sent by the next run). */
int sp_clickhouse__pending(struct sp_clickhouse *ch);
int sp_clickhouse__spooled(struct sp_clickhouse *ch);
/* Pending batches are dropped; prints the rows lost, if any. */
void sp_clickhouse__destroy(struct sp_clickhouse *ch);

struct sp_clickhouse_query {
	const char *url;
	const char *where;        /* SQL condition, or NULL */
	uint64_t since_s, until_s; /* seconds before now; 0 = no bound */
	uint64_t since_at, until_at; /* or seconds since the epoch; 0 = no bound */
	const char *map;          /* "@name" or NULL */
	const char *by;           /* "host,comm": these columns lead each stack, or NULL */
	uint64_t timeout_ms;      /* --timeout: the query's limit, 0 = none */
	bool skip_down_shards;    /* --skip-down-shards: report without unreachable shards */
};

/* Stacks aggregated in ClickHouse (GROUP BY stack) as a profile with one
 * map "@" keyed by the stack (with `by`: by those columns, then the stack,
 * the columns as leading key parts); free it with sp_clickhouse_profile_free.
 * An unknown `by` column is -EINVAL with a message. The query may run as
 * long as the server works on it (no receive limit; TCP keep-alive notices
 * a server that is gone) unless timeout_ms is set: then the server is told
 * max_execution_time and a query still running past it is killed. A shard
 * of a Distributed table that cannot be reached is named in the message. */
int sp_clickhouse_fetch(const struct sp_clickhouse_query *q, struct sp_profile *out);
void sp_clickhouse_profile_free(struct sp_profile *p);

#endif
