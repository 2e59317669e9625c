/* tests/unit/test_clickhouse.c: the ClickHouse exporter without a server.
 *
 * The rows one export sends (JSONEachRow: host, map, comm, pid, key parts,
 * stack root first with kernel frames marked, count); the batch queue when
 * the server stays away (a loopback port nobody listens on): every export
 * fails, batches wait up to max_pending and the oldest are dropped, with
 * the rows counted; URLs that cannot work are refused before any connect.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/store/ch_rows.h"
#include "runtime/store/ch_spool.h"
#include "runtime/store/clickhouse.h"
#include "tests/unit/check.h"

static struct sp_frame frames[3] = {
	{ .addr = 0x1010, .sym = "leaf", .build_id = "abcd", .file_off = 0x10, .kind = SP_FRAME_USER },
	{ .addr = 0x2020, .sym = "main", .build_id = "abcd", .file_off = 0x20, .kind = SP_FRAME_USER },
	{ .addr = 0xffff0, .sym = "do_sys_open", .kind = SP_FRAME_KERNEL },
};
static struct sp_stack ustack = { .n = 2, .frames = frames };
static struct sp_stack kstack = { .n = 1, .frames = frames + 2 };
static struct sp_plan_field key_fields[3] = {
	{ .kind = SP_F_STR, .size = 16, .name = "comm" },
	{ .kind = SP_F_USTACK },
	{ .kind = SP_F_KSTACK },
};
static struct sp_plan_map plan_map = {
	.name = "@on", .agg = SP_AGG_COUNT, .key = { .kind = SP_F_TUPLE, .nelems = 3, .elems = key_fields },
};

static void profile(struct sp_profile *p, struct sp_mapdata *m, struct sp_entry *e, struct sp_kval *k)
{
	k[0] = (struct sp_kval){ .kind = SP_F_STR, .s = "app" };
	k[1] = (struct sp_kval){ .kind = SP_F_USTACK, .pid = 42, .stack = &ustack };
	k[2] = (struct sp_kval){ .kind = SP_F_KSTACK, .stack = &kstack };
	*e = (struct sp_entry){ .key = { .kind = SP_F_TUPLE, .n = 3, .elems = k }, .val = { .v = 7 } };
	*m = (struct sp_mapdata){ .map = &plan_map, .n = 1, .entries = e };
	*p = (struct sp_profile){ .nmaps = 1, .maps = m };
}

static void rows(void)
{
	struct sp_profile p;
	struct sp_mapdata m;
	struct sp_entry e;
	struct sp_kval k[3];
	struct sp_ch_text t = { .compact = false }, c = { .compact = true }, again = { .compact = true };
	char *out;

	profile(&p, &m, &e, k);
	/* the old layout: the stack in the row */
	CHECK(sp_ch_rows(&p, "web1", NULL, &t) == 0 && t.nrows == 1 && !t.stacks, "rows: %d", (int)t.nrows);
	out = t.rows;
	CHECK(out && strstr(out, "\"host\":\"web1\",\"map\":\"@on\",\"pid\":42,\"comm\":\"app\",\"key\":[]"),
	      "row head: %s", out);
	CHECK(out && strstr(out, "\"stack\":[\"main\",\"leaf\",\"do_sys_open_[k]\"]"), "stack: %s", out);
	CHECK(out && strstr(out, "\"build_ids\":[\"abcd\",\"abcd\",\"\"],\"offsets\":[32,16,0],\"count\":7,\"period_ns\":0}\n"),
	      "build ids, offsets, count: %s", out);
	sp_ch_text_free(&t);
	/* the stack-id layout: the row names the stack, which goes to the stacks text */
	CHECK(sp_ch_rows(&p, "web1", NULL, &c) == 0 && c.nrows == 1 && c.stacks && c.ids.n == 1, "compact rows");
	CHECK(c.rows && strstr(c.rows, "\"key\":[],\"stack_id\":") && !strstr(c.rows, "\"stack\":") &&
	      strstr(c.rows, ",\"count\":7,\"period_ns\":0}\n"), "compact row: %s", c.rows);
	CHECK(c.stacks && strstr(c.stacks, "{\"stack_id\":") &&
	      strstr(c.stacks, ",\"stack\":[\"main\",\"leaf\",\"do_sys_open_[k]\"],\"build_ids\":[\"abcd\","
			       "\"abcd\",\"\"],\"offsets\":[32,16,0]}\n"), "stacks: %s", c.stacks);
	/* a stack sent already is left out of the next batch; same id */
	CHECK(sp_ch_rows(&p, "web1", &c.ids, &again) == 0 && again.nrows == 1 && again.slen == 0, "known stack");
	CHECK(again.rows && c.rows && strcmp(strstr(again.rows, "stack_id"), strstr(c.rows, "stack_id")) == 0,
	      "same id: %s %s", again.rows, c.rows);
	sp_ch_text_free(&c);
	sp_ch_text_free(&again);
}

static void queue_bound(void)
{
	struct sp_clickhouse_opts o = { .url = "clickhouse://127.0.0.1:1/db.t", .host_name = "h",
					.attempts = 2, .backoff_ms = 1, .max_pending = 2, .timeout_ms = 500 };
	struct sp_clickhouse *ch = sp_clickhouse__open(&o);
	struct sp_profile p;
	struct sp_mapdata m;
	struct sp_entry e;
	struct sp_kval k[3];

	CHECK(ch != NULL, "open: %s", strerror(errno));
	if (!ch)
		return;
	profile(&p, &m, &e, k);
	CHECK(sp_clickhouse__prepare(ch) < 0, "prepare against a closed port must fail");
	for (int i = 0; i < 5; i++)
		CHECK(sp_clickhouse__export(ch, &p) == -EIO, "export %d must fail", i);
	/* 5 one-row batches, 2 kept: 3 dropped */
	CHECK(sp_clickhouse__dropped_rows(ch) == 3, "dropped %llu",
	      (unsigned long long)sp_clickhouse__dropped_rows(ch));
	sp_clickhouse__destroy(ch);
}

/* The bytes bound: one batch fits, a second drops the first; queue alone
 * (the sender thread's half) sends nothing, flush fails and keeps it. */
static void queue_bytes_bound(void)
{
	struct sp_clickhouse_opts o = { .url = "clickhouse://127.0.0.1:1/db.t", .host_name = "h",
					.attempts = 1, .backoff_ms = 1, .max_pending = 100,
					.timeout_ms = 500 };
	struct sp_clickhouse *ch;
	struct sp_profile p;
	struct sp_mapdata m;
	struct sp_entry e;
	struct sp_kval k[3];
	struct sp_ch_text t = { .compact = false };
	size_t len;

	profile(&p, &m, &e, k);
	CHECK(sp_ch_rows(&p, "h", NULL, &t) == 0, "rows");
	len = t.len;
	sp_ch_text_free(&t);
	o.max_pending_bytes = len + len / 2; /* one batch, not two */
	ch = sp_clickhouse__open(&o);
	CHECK(ch != NULL, "open: %s", strerror(errno));
	if (!ch)
		return;
	CHECK(sp_clickhouse__queue(ch, &p) == 0, "queue");
	CHECK(sp_clickhouse__dropped_rows(ch) == 0, "one batch fits");
	CHECK(sp_clickhouse__flush(ch) == -EIO, "flush to a closed port fails");
	CHECK(sp_clickhouse__dropped_rows(ch) == 0, "the failed batch is kept");
	CHECK(sp_clickhouse__queue(ch, &p) == 0, "queue again");
	CHECK(sp_clickhouse__dropped_rows(ch) == 1, "past the bound the oldest goes: dropped %llu",
	      (unsigned long long)sp_clickhouse__dropped_rows(ch));
	sp_clickhouse__destroy(ch);
}

/* A batch through the spool: written, listed oldest first, read back whole. */
static void spool(void)
{
	struct sp_profile p;
	struct sp_mapdata m;
	struct sp_entry e;
	struct sp_kval k[3];
	struct sp_ch_text a = { .compact = true, .id = 0x20 }, b = { .compact = true, .id = 0x10 }, r;
	char dir[] = "/tmp/sprof-spool-XXXXXX", **names = NULL;
	size_t size, rsize;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	CHECK(sp_spool_open(dir) == 0, "open");
	profile(&p, &m, &e, k);
	CHECK(sp_ch_rows(&p, "h", NULL, &a) == 0 && sp_ch_rows(&p, "h", NULL, &b) == 0, "rows");
	CHECK(sp_spool_write(dir, &a, &size) == 0 && sp_spool_write(dir, &b, &size) == 0, "write");
	CHECK(sp_spool_list(dir, &names) == 2 && strcmp(names[0], "0000000000000010.c") == 0 &&
	      strcmp(names[1], "0000000000000020.c") == 0, "list: %s", names && names[0] ? names[0] : "-");
	CHECK(sp_spool_read(dir, names[1], &r, &rsize) == 0 && rsize == size && r.id == 0x20 && r.compact &&
	      r.nrows == 1 && r.samples == 7 && r.len == a.len && memcmp(r.rows, a.rows, a.len) == 0 &&
	      r.slen == a.slen && memcmp(r.stacks, a.stacks, a.slen) == 0, "read back");
	sp_ch_text_free(&r);
	for (int i = 0; names && names[i]; i++)
		sp_spool_remove(dir, names[i]);
	sp_spool_names_free(names);
	CHECK(sp_spool_list(dir, &names) == 0, "empty");
	sp_spool_names_free(names);
	sp_ch_text_free(&a);
	sp_ch_text_free(&b);
	rmdir(dir);
}

static void bad_urls(void)
{
	static const char *const bad[] = {
		"http://127.0.0.1/db.t", "clickhouse://127.0.0.1:8123/db", "clickhouse://127.0.0.1:0/db.t",
		"clickhouse://127.0.0.1:99999/db.t", "clickhouse:///db.t", "clickhouse://h/db.t;DROP",
		"clickhouse://[::1/db.t", "clickhouse://[::1]x/db.t",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sp_clickhouse_opts o = { .url = bad[i] };
		struct sp_clickhouse *ch = sp_clickhouse__open(&o);

		CHECK(!ch && errno == EINVAL, "'%s' must be refused", bad[i]);
		sp_clickhouse__destroy(ch);
	}
}

/* IPv6 hosts in brackets, percent-encoded passwords: parsed, then refused by a closed port. */
static void good_urls(void)
{
	static const char *const good[] = {
		"clickhouse://[::1]:1/db.t", "clickhouse://u:p%40ss%3Aword@127.0.0.1:1/db.t",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct sp_clickhouse_opts o = { .url = good[i], .timeout_ms = 500 };
		struct sp_clickhouse *ch = sp_clickhouse__open(&o);

		CHECK(ch != NULL, "'%s' must parse", good[i]);
		CHECK(!ch || sp_clickhouse__prepare(ch) < 0, "'%s': nobody listens on port 1", good[i]);
		sp_clickhouse__destroy(ch);
	}
}

int main(void)
{
	rows();
	spool();
	good_urls();
	queue_bound();
	queue_bytes_bound();
	bad_urls();
	printf("%s clickhouse: %d passed, %d failed\n", failed ? "FAIL" : "ok", passed, failed);
	return failed ? 1 : 0;
}
