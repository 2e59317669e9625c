/* tests/unit/test_reports.c: the report writers on synthetic profiles.
 *
 *   test_reports [OUTDIR]
 *
 * Text is checked byte for byte against bpftrace 0.17's printing
 * (shared/research/bpftrace.md §3), json line by line, folded output is
 * round-tripped against the stack counts, and the svg, pprof and speedscope
 * files are left in OUTDIR (default ".") for tests/tier_formats.py to hand
 * to the real consumers (Chromium, go tool pprof, protoc, a schema check).
 * Prints "N passed, N failed" last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/types/types.h"
#include "runtime/report/input.h"
#include "runtime/report/report.h"

#include "tests/unit/check.h"

static const char *outdir = ".";

/* --- building synthetic profiles ------------------------------------------------ */

/* Fixture memory, freed at the end so sanitizer builds see no leaks. */
static void **fixtures;
static int nfixtures;

static void *fixture(void *p)
{
	void **v = realloc(fixtures, (nfixtures + 1) * sizeof(*v));

	if (!p || !v) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	fixtures = v;
	fixtures[nfixtures++] = p;
	return p;
}
#define FX(p) fixture(p)

static struct sp_plan_map *plan_map(const char *name, int agg, enum sp_field_kind key)
{
	struct sp_plan_map *m = FX(calloc(1, sizeof(*m)));

	m->name = FX(strdup(name));
	m->agg = agg;
	m->key.kind = key;
	m->value.kind = SP_F_INT;
	return m;
}

static struct sp_kval kint(int64_t v)
{
	return (struct sp_kval){ .kind = SP_F_INT, .i = v, .is_signed = true };
}

static struct sp_kval kstr(const char *s)
{
	return (struct sp_kval){ .kind = SP_F_STR, .s = s };
}

static struct sp_kval ktuple(int n, const struct sp_kval *el)
{
	struct sp_kval *e = FX(calloc(n, sizeof(*e)));

	memcpy(e, el, n * sizeof(*e));
	return (struct sp_kval){ .kind = SP_F_TUPLE, .n = n, .elems = e };
}

/* A stack from "sym+off" / "0xaddr" strings, leaf first. */
static struct sp_stack *stack_of(enum sp_frame_kind kind, const char *module, int n, const char *const *fr)
{
	struct sp_stack *st = FX(calloc(1, sizeof(*st)));

	st->n = n;
	st->frames = FX(calloc(n ? n : 1, sizeof(*st->frames)));
	for (int i = 0; i < n; i++) {
		struct sp_frame *f = &st->frames[i];
		const char *plus = strchr(fr[i], '+');

		f->kind = kind;
		f->module = module;
		f->build_id = module ? "0123456789abcdef" : NULL;
		if (strncmp(fr[i], "0x", 2) == 0) {
			f->addr = strtoull(fr[i], NULL, 16);
			f->kind = kind == SP_FRAME_KERNEL ? kind : SP_FRAME_UNKNOWN;
			continue;
		}
		f->sym = FX(strndup(fr[i], plus ? (size_t)(plus - fr[i]) : strlen(fr[i])));
		f->off = plus ? strtoull(plus + 1, NULL, 10) : 0;
		f->addr = (kind == SP_FRAME_KERNEL ? 0xffffffff81000000ull : 0x555555554000ull) +
			  0x1000 * (uint64_t)(f->sym[0]) + f->off;
		f->map_start = 0x555555554000ull;
		f->map_end = 0x555555600000ull;
		f->file_off = f->addr - f->map_start;
		f->srcfile = kind == SP_FRAME_USER ? "hotwarm.c" : NULL;
		f->srcline = kind == SP_FRAME_USER ? 10 + f->sym[0] % 20 : 0;
	}
	return st;
}

static struct sp_kval kustack(int n, const char *const *fr)
{
	return (struct sp_kval){ .kind = SP_F_USTACK, .pid = 4242,
				 .stack = stack_of(SP_FRAME_USER, "/tmp/hotwarm", n, fr) };
}

static struct sp_kval kkstack(int n, const char *const *fr)
{
	return (struct sp_kval){ .kind = SP_F_KSTACK, .stack = stack_of(SP_FRAME_KERNEL, "[kernel]", n, fr) };
}

static struct sp_mapdata mapdata(struct sp_plan_map *pm, int n)
{
	return (struct sp_mapdata){ .map = pm, .n = n, .entries = FX(calloc(n ? n : 1, sizeof(struct sp_entry))) };
}

static struct sp_entry scalar(int64_t v)
{
	return (struct sp_entry){ .key.kind = SP_F_NONE, .val.v = v };
}

/* --- output capture ---------------------------------------------------------------- */

static char *text_of_map(const struct sp_mapdata *m, int top, int div)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	sp_report_text_map(f, m, top, div);
	fclose(f);
	return s;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, n + 1);
	if (fread(s, 1, n, f) != (size_t)n)
		n = 0;
	fclose(f);
	return s;
}

static char *outpath(const char *name)
{
	char *p = malloc(strlen(outdir) + strlen(name) + 2);

	sprintf(p, "%s/%s", outdir, name);
	return p;
}

static char *report(const struct sp_profile *p, enum sp_format fmt, const char *name, const char *filter)
{
	char *path = outpath(name), *s;
	struct sp_report_opts o = { .format = fmt, .output = path, .map_filter = filter,
				    .title = "sprof test", .width = 1200 };
	int err = sp_report_write(p, &o);

	CHECK(err == 0, "sp_report_write %s: %d", name, err);
	s = slurp(path);
	free(path);
	return s ? s : strdup("");
}

#define EXPECT_STR(got, want)                                                          \
	do {                                                                           \
		char *g_ = (got);                                                       \
		CHECK(g_ && strcmp(g_, (want)) == 0, "text differs:\n--- got\n%s--- want\n%s", \
		      g_ ? g_ : "(null)", (want));                                      \
		free(g_);                                                               \
	} while (0)

/* --- text ---------------------------------------------------------------------------- */

/* bpftrace.md §3's first example: every scalar kind, keyed maps, tuples. */
static struct sp_profile scalars_profile(void)
{
	static struct sp_mapdata maps[10];
	struct sp_plan_map *pa = plan_map("@a", SP_AGG_AVG, SP_F_NONE);
	struct sp_plan_map *ps = plan_map("@st", SP_AGG_STATS, SP_F_NONE);
	struct sp_plan_map *px = plan_map("@x", SP_AGG_NONE, SP_F_STR);
	struct sp_plan_map *py = plan_map("@y", SP_AGG_NONE, SP_F_TUPLE);
	struct sp_plan_map *pz = plan_map("@z", SP_AGG_NONE, SP_F_NONE);
	struct sp_plan_map *pstr = plan_map("@str", SP_AGG_NONE, SP_F_NONE);
	struct sp_kval yk[2] = { kint(1), kstr("a") }, zv[2] = { kint(1), kstr("two") };
	int i = 0;

	/* Deliberately out of name order. */
	maps[i] = mapdata(plan_map("@s", SP_AGG_SUM, SP_F_NONE), 1);
	maps[i++].entries[0] = scalar(12);
	maps[i] = mapdata(pz, 1);
	maps[i].entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val.plain = ktuple(2, zv) };
	i++;
	maps[i] = mapdata(pa, 1);
	maps[i++].entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val = { .count = 2, .total = 30 } };
	maps[i] = mapdata(plan_map("@c", SP_AGG_COUNT, SP_F_NONE), 1);
	maps[i++].entries[0] = scalar(1);
	maps[i] = mapdata(plan_map("@mi", SP_AGG_MIN, SP_F_NONE), 1);
	maps[i++].entries[0] = scalar(-2);
	maps[i] = mapdata(plan_map("@ma", SP_AGG_MAX, SP_F_NONE), 1);
	maps[i++].entries[0] = scalar(9);
	maps[i] = mapdata(ps, 1);
	maps[i++].entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val = { .count = 2, .total = 12 } };
	maps[i] = mapdata(pstr, 1);
	maps[i++].entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val.plain = kstr("hello") };
	maps[i] = mapdata(px, 2);
	maps[i].entries[0] = (struct sp_entry){ .key = kstr("k2"), .val.plain = kint(5) };
	maps[i++].entries[1] = (struct sp_entry){ .key = kstr("k1"), .val.plain = kint(1) };
	maps[i] = mapdata(py, 1);
	maps[i++].entries[0] = (struct sp_entry){ .key = ktuple(2, yk), .val.plain = kint(2) };
	return (struct sp_profile){ .nmaps = i, .maps = maps };
}

static void test_text_scalars(void)
{
	struct sp_profile p = scalars_profile();

	EXPECT_STR(report(&p, SP_FMT_TEXT, "scalars.txt", NULL),
		   "@a: 15\n"
		   "\n"
		   "@c: 1\n"
		   "@ma: 9\n"
		   "@mi: -2\n"
		   "@s: 12\n"
		   "@st: count 2, average 6, total 12\n"
		   "\n"
		   "@str: hello\n"
		   "@x[k1]: 1\n"
		   "@x[k2]: 5\n"
		   "@y[1, a]: 2\n"
		   "@z: (1, two)\n");
	EXPECT_STR(report(&p, SP_FMT_JSON, "scalars.json", NULL),
		   "{\"type\": \"stats\", \"data\": {\"@a\": 15}}\n"
		   "{\"type\": \"map\", \"data\": {\"@c\": 1}}\n"
		   "{\"type\": \"map\", \"data\": {\"@ma\": 9}}\n"
		   "{\"type\": \"map\", \"data\": {\"@mi\": -2}}\n"
		   "{\"type\": \"map\", \"data\": {\"@s\": 12}}\n"
		   "{\"type\": \"stats\", \"data\": {\"@st\": {\"count\": 2, \"average\": 6, \"total\": 12}}}\n"
		   "{\"type\": \"map\", \"data\": {\"@str\": \"hello\"}}\n"
		   "{\"type\": \"map\", \"data\": {\"@x\": {\"k1\": 1, \"k2\": 5}}}\n"
		   "{\"type\": \"map\", \"data\": {\"@y\": {\"1,a\": 2}}}\n"
		   "{\"type\": \"map\", \"data\": {\"@z\": [1,\"two\"]}}\n");
	EXPECT_STR(report(&p, SP_FMT_TEXT, "filtered.txt", "@x"), "@x[k1]: 1\n@x[k2]: 5\n");
}

static const char *const hot_stack[] = { "hot+20", "main+60", "__libc_start_call_main+122" };
static const char *const warm_stack[] = { "warm+12", "main+72", "__libc_start_call_main+122" };
static const char *const raw_stack[] = { "0x55c631575177", "main+60" };
static const char *const k_stack[] = { "read_zero+5", "vfs_read+187" };
static const char *const u_read[] = { "__libc_read+13" };

static struct sp_mapdata ustack_map(void)
{
	struct sp_plan_map *pm = plan_map("@", SP_AGG_COUNT, SP_F_USTACK);
	struct sp_mapdata m = mapdata(pm, 4);

	m.entries[0] = (struct sp_entry){ .key = kustack(3, hot_stack), .val.v = 200 };
	m.entries[1] = (struct sp_entry){ .key = kustack(2, raw_stack), .val.v = 3 };
	m.entries[2] = (struct sp_entry){ .key = kustack(3, warm_stack), .val.v = 100 };
	m.entries[3] = (struct sp_entry){ .key = kustack(0, NULL), .val.v = 1 };
	return m;
}

static void test_text_stacks(void)
{
	struct sp_mapdata m = ustack_map();
	struct sp_plan_map *pk = plan_map("@ku", SP_AGG_COUNT, SP_F_TUPLE);
	struct sp_kval ku[2] = { kkstack(2, k_stack), kustack(1, u_read) };
	struct sp_mapdata mk = mapdata(pk, 1);

	char want[1024];
	const struct sp_stack *hs;

	EXPECT_STR(text_of_map(&m, 0, 0),
		   "@[]: 1\n"
		   "@[\n"
		   "    0x55c631575177\n"
		   "    main+60\n"
		   "]: 3\n"
		   "@[\n"
		   "    warm+12\n"
		   "    main+72\n"
		   "    __libc_start_call_main+122\n"
		   "]: 100\n"
		   "@[\n"
		   "    hot+20\n"
		   "    main+60\n"
		   "    __libc_start_call_main+122\n"
		   "]: 200\n");
	EXPECT_STR(text_of_map(&m, 1, 10),
		   "@[\n"
		   "    hot+20\n"
		   "    main+60\n"
		   "    __libc_start_call_main+122\n"
		   "]: 20\n");
	((struct sp_plan_map *)m.map)->key.stack_mode = SP_STACK_PERF;
	hs = m.entries[0].key.stack;
	snprintf(want, sizeof(want), "@[\n\t%lx hot+20 (/tmp/hotwarm)\n\t%lx main+60 (/tmp/hotwarm)\n"
		 "\t%lx __libc_start_call_main+122 (/tmp/hotwarm)\n]: 200\n",
		 (unsigned long)hs->frames[0].addr, (unsigned long)hs->frames[1].addr,
		 (unsigned long)hs->frames[2].addr);
	EXPECT_STR(text_of_map(&m, 1, 1), want);
	((struct sp_plan_map *)m.map)->key.stack_mode = SP_STACK_RAW;
	snprintf(want, sizeof(want), "@[\n%lx\n%lx\n%lx\n]: 200\n", (unsigned long)hs->frames[0].addr,
		 (unsigned long)hs->frames[1].addr, (unsigned long)hs->frames[2].addr);
	EXPECT_STR(text_of_map(&m, 1, 1), want);
	((struct sp_plan_map *)m.map)->key.stack_mode = SP_STACK_BPFTRACE;
	mk.entries[0] = (struct sp_entry){ .key = ktuple(2, ku), .val.v = 5 };
	pk->key.nelems = 2;
	pk->key.elems = FX(calloc(2, sizeof(struct sp_plan_field)));
	pk->key.elems[0].kind = SP_F_KSTACK;
	pk->key.elems[1].kind = SP_F_USTACK;
	EXPECT_STR(text_of_map(&mk, 0, 1),
		   "@ku[\n"
		   "    read_zero+5\n"
		   "    vfs_read+187\n"
		   ", \n"
		   "    __libc_read+13\n"
		   "]: 5\n");
	pk->key.elems[0].stack_mode = SP_STACK_PERF;
	pk->key.elems[1].stack_mode = SP_STACK_PERF;
	hs = mk.entries[0].key.elems[0].stack;
	snprintf(want, sizeof(want), "@ku[\n\t%lx read_zero+5\n\t%lx vfs_read+187\n, \n\t%lx __libc_read+13 (/tmp/hotwarm)\n]: 5\n",
		 (unsigned long)hs->frames[0].addr, (unsigned long)hs->frames[1].addr,
		 (unsigned long)mk.entries[0].key.elems[1].stack->frames[0].addr);
	EXPECT_STR(text_of_map(&mk, 0, 1), want);
}

static struct sp_value hist_value(int n, const uint64_t *b)
{
	struct sp_value v = { .nbuckets = n, .buckets = FX(calloc(n, sizeof(uint64_t))) };

	memcpy(v.buckets, b, n * sizeof(uint64_t));
	return v;
}

static void test_text_hist(void)
{
	/* bpftrace.md §3's hist example (with the [2K, 4K) row it left out). */
	uint64_t b[66] = { [1] = 1, [11] = 14, [12] = 28, [14] = 111, [15] = 78 };
	uint64_t small[66] = { [3] = 4 }, neg[66] = { [0] = 2, [2] = 1 };
	uint64_t big[66] = { [22] = 1, [32] = 2, [42] = 3 };
	struct sp_mapdata m = mapdata(plan_map("@h", SP_AGG_HIST, SP_F_NONE), 1);
	struct sp_mapdata k = mapdata(plan_map("@k", SP_AGG_HIST, SP_F_STR), 2);

	m.entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val = hist_value(66, b) };
	EXPECT_STR(text_of_map(&m, 0, 1),
		   "@h: \n"
		   "[0]                    1 |                                                    |\n"
		   "[1]                    0 |                                                    |\n"
		   "[2, 4)                 0 |                                                    |\n"
		   "[4, 8)                 0 |                                                    |\n"
		   "[8, 16)                0 |                                                    |\n"
		   "[16, 32)               0 |                                                    |\n"
		   "[32, 64)               0 |                                                    |\n"
		   "[64, 128)              0 |                                                    |\n"
		   "[128, 256)             0 |                                                    |\n"
		   "[256, 512)             0 |                                                    |\n"
		   "[512, 1K)             14 |@@@@@@                                              |\n"
		   "[1K, 2K)              28 |@@@@@@@@@@@@@                                       |\n"
		   "[2K, 4K)               0 |                                                    |\n"
		   "[4K, 8K)             111 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "[8K, 16K)             78 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                |\n"
		   "\n");
	m.entries[0].val = hist_value(66, big);
	EXPECT_STR(text_of_map(&m, 0, 1),
		   "@h: \n"
		   "[1M, 2M)               1 |@@@@@@@@@@@@@@@@@                                   |\n"
		   "[2M, 4M)               0 |                                                    |\n"
		   "[4M, 8M)               0 |                                                    |\n"
		   "[8M, 16M)              0 |                                                    |\n"
		   "[16M, 32M)             0 |                                                    |\n"
		   "[32M, 64M)             0 |                                                    |\n"
		   "[64M, 128M)            0 |                                                    |\n"
		   "[128M, 256M)           0 |                                                    |\n"
		   "[256M, 512M)           0 |                                                    |\n"
		   "[512M, 1G)             0 |                                                    |\n"
		   "[1G, 2G)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n"
		   "[2G, 4G)               0 |                                                    |\n"
		   "[4G, 8G)               0 |                                                    |\n"
		   "[8G, 16G)              0 |                                                    |\n"
		   "[16G, 32G)             0 |                                                    |\n"
		   "[32G, 64G)             0 |                                                    |\n"
		   "[64G, 128G)            0 |                                                    |\n"
		   "[128G, 256G)           0 |                                                    |\n"
		   "[256G, 512G)           0 |                                                    |\n"
		   "[512G, 1T)             0 |                                                    |\n"
		   "[1T, 2T)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "\n");
	/* Keyed: each histogram gets its blank line; the larger total last. */
	k.entries[0] = (struct sp_entry){ .key = kstr("b"), .val = hist_value(66, neg) };
	k.entries[1] = (struct sp_entry){ .key = kstr("a"), .val = hist_value(66, small) };
	EXPECT_STR(text_of_map(&k, 0, 1),
		   "@k[b]: \n"
		   "(..., 0)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "[0]                    0 |                                                    |\n"
		   "[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		   "\n"
		   "@k[a]: \n"
		   "[2, 4)                 4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "\n");
}

static void test_text_lhist(void)
{
	/* lhist(v, 0, 40, 10): (..., 0) [0, 10) ... [30, 40) [40, ...) */
	uint64_t b[6] = { 0, 2, 0, 5, 0, 1 }, kb[4] = { 1, 0, 3, 0 };
	struct sp_plan_map *pm = plan_map("@l", SP_AGG_LHIST, SP_F_NONE);
	struct sp_plan_map *pk = plan_map("@lk", SP_AGG_LHIST, SP_F_NONE);
	struct sp_mapdata m = mapdata(pm, 1), mk = mapdata(pk, 1);

	pm->lhist_min = 0, pm->lhist_max = 40, pm->lhist_step = 10;
	pk->lhist_min = 1024, pk->lhist_max = 3072, pk->lhist_step = 1024;
	m.entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val = hist_value(6, b) };
	mk.entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val = hist_value(4, kb) };
	EXPECT_STR(text_of_map(&m, 0, 1),
		   "@l: \n"
		   "[0, 10)                2 |@@@@@@@@@@@@@@@@@@@@                                |\n"
		   "[10, 20)               0 |                                                    |\n"
		   "[20, 30)               5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "[30, 40)               0 |                                                    |\n"
		   "[40, ...)              1 |@@@@@@@@@@                                          |\n"
		   "\n");
	EXPECT_STR(text_of_map(&mk, 0, 1),
		   "@lk: \n"
		   "(..., 1K)              1 |@@@@@@@@@@@@@@@@@                                   |\n"
		   "[1K, 2K)               0 |                                                    |\n"
		   "[2K, 3K)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		   "\n");
}

static void test_json_stacks_hists(void)
{
	struct sp_mapdata maps[3] = { ustack_map(), mapdata(plan_map("@h", SP_AGG_HIST, SP_F_NONE), 1),
				      mapdata(plan_map("@l", SP_AGG_LHIST, SP_F_STR), 1) };
	struct sp_profile p = { .nmaps = 3, .maps = maps };
	uint64_t h[6] = { 1, 2, 0, 3, 0, 0 }, l[6] = { 1, 2, 0, 0, 0, 4 };
	struct sp_plan_map *pl = (struct sp_plan_map *)maps[2].map;

	pl->lhist_min = 0, pl->lhist_max = 40, pl->lhist_step = 10;
	maps[0].n = 3;
	maps[1].entries[0] = (struct sp_entry){ .key.kind = SP_F_NONE, .val = hist_value(6, h) };
	maps[2].entries[0] = (struct sp_entry){ .key = kstr("k"), .val = hist_value(6, l) };
	EXPECT_STR(report(&p, SP_FMT_JSON, "stacks.json", NULL),
		   "{\"type\": \"map\", \"data\": {\"@\": {\"\\n    0x55c631575177\\n    main+60\\n\": 3, "
		   "\"\\n    warm+12\\n    main+72\\n    __libc_start_call_main+122\\n\": 100, "
		   "\"\\n    hot+20\\n    main+60\\n    __libc_start_call_main+122\\n\": 200}}}\n"
		   "{\"type\": \"hist\", \"data\": {\"@h\": [{\"max\": -1, \"count\": 1}, "
		   "{\"min\": 0, \"max\": 0, \"count\": 2}, {\"min\": 1, \"max\": 1, \"count\": 0}, "
		   "{\"min\": 2, \"max\": 3, \"count\": 3}]}}\n"
		   "{\"type\": \"hist\", \"data\": {\"@l\": {\"k\": [{\"max\": -1, \"count\": 1}, "
		   "{\"min\": 0, \"max\": 9, \"count\": 2}, {\"min\": 10, \"max\": 19, \"count\": 0}, "
		   "{\"min\": 20, \"max\": 29, \"count\": 0}, {\"min\": 30, \"max\": 39, \"count\": 0}, "
		   "{\"min\": 40, \"count\": 4}]}}}\n");
}

static void test_json_events(void)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	struct sp_kval t[2] = { kint(1), kstr("two") }, tv = ktuple(2, t), i = kint(-5);

	sp_report_json_attached(f, 1);
	sp_report_json_printf(f, "hi 5\n");
	sp_report_json_event(f, "time", "10:22:03\n");
	sp_report_json_value(f, &tv, NULL);
	sp_report_json_value(f, &i, NULL);
	sp_report_json_printf(f, "caf\xc3\xa9 \xff\xc3");
	fclose(f);
	EXPECT_STR(s, "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n"
		      "{\"type\": \"printf\", \"data\": \"hi 5\\n\"}\n"
		      "{\"type\": \"time\", \"data\": \"10:22:03\\n\"}\n"
		      "{\"type\": \"value\", \"data\": [1,\"two\"]}\n"
		      "{\"type\": \"value\", \"data\": -5}\n"
		      "{\"type\": \"printf\", \"data\": \"caf\xc3\xa9 \\ufffd\\ufffd\"}\n");
}

static void test_text_empty(void)
{
	struct sp_mapdata c = mapdata(plan_map("@c", SP_AGG_COUNT, SP_F_NONE), 0);
	struct sp_mapdata k = mapdata(plan_map("@k", SP_AGG_COUNT, SP_F_INT), 0);

	struct sp_mapdata i = mapdata(plan_map("@i", SP_AGG_NONE, SP_F_INT), 2);

	/* print(@i, 0, 2) divides plain integer values too, like bpftrace. */
	i.entries[0] = (struct sp_entry){ .key = kint(5), .val.plain = kint(10) };
	i.entries[1] = (struct sp_entry){ .key = kint(6), .val.plain = kint(-3) };
	EXPECT_STR(text_of_map(&i, 0, 2), "@i[6]: -1\n@i[5]: 5\n");
	EXPECT_STR(text_of_map(&c, 0, 1), "@c: 0\n");
	EXPECT_STR(text_of_map(&k, 0, 1), "\n");
}

/* --- flame-graph formats ----------------------------------------------------------- */

static const char *const read_stack[] = { "__libc_read+13", "main+80", "__libc_start_call_main+122" };
static const char *const spin_stack[] = { "spin+4", "main+10" };

static struct sp_plan_field *key_fields(int n, const enum sp_field_kind *kinds)
{
	struct sp_plan_field *f = FX(calloc(n, sizeof(*f)));

	for (int i = 0; i < n; i++) {
		f[i].kind = kinds[i];
		f[i].size = kinds[i] == SP_F_STR ? 16 : 8;
	}
	return f;
}

/* @[comm, ustack, kstack] = count() from a hotwarm-like run, plus another process. */
static struct sp_mapdata comm_stack_map(const char *name)
{
	static const enum sp_field_kind kinds[3] = { SP_F_STR, SP_F_USTACK, SP_F_KSTACK };
	struct sp_plan_map *pm = plan_map(name, SP_AGG_COUNT, SP_F_TUPLE);
	struct sp_mapdata m = mapdata(pm, 6);
	struct sp_kval k[3];

	pm->key.nelems = 3;
	pm->key.elems = key_fields(3, kinds);
#define ENTRY(i, comm, u, nu, kst, nk, w)                                                 \
	k[0] = kstr(comm), k[1] = kustack(nu, u), k[2] = kkstack(nk, kst);                \
	m.entries[i] = (struct sp_entry){ .key = ktuple(3, k), .val.v = w }
	ENTRY(0, "hotwarm", hot_stack, 3, NULL, 0, 200);
	ENTRY(1, "hotwarm", warm_stack, 3, NULL, 0, 100);
	ENTRY(2, "hotwarm", read_stack, 3, k_stack, 2, 30);
	ENTRY(3, "hotwarm", raw_stack, 2, NULL, 0, 3);
	ENTRY(4, "my;app 12", spin_stack, 2, NULL, 0, 20);
	m.entries[4].key.elems[1].pid = 777;
	ENTRY(5, "hotwarm", NULL, 0, NULL, 0, 0);
#undef ENTRY
	return m;
}

/* Sums the count of every folded line by its leaf frame. */
static uint64_t leaf_sum(const char *folded, const char *leaf)
{
	uint64_t sum = 0;
	size_t ll = strlen(leaf);

	for (const char *l = folded, *end; (end = strchr(l, '\n')) != NULL; l = end + 1) {
		const char *sp = end, *semi;

		while (sp > l && *sp != ' ')
			sp--;
		for (semi = sp; semi > l && semi[-1] != ';'; semi--)
			;
		if ((size_t)(sp - semi) == ll && strncmp(semi, leaf, ll) == 0)
			sum += strtoull(sp + 1, NULL, 10);
	}
	return sum;
}

static void test_zero_frame(void)
{
	static const char *const z[] = { "handle_amd+10", "0x0", "main+3" };
	struct sp_mapdata m = mapdata(plan_map("@", SP_AGG_COUNT, SP_F_USTACK), 1);
	struct sp_profile p = { .nmaps = 1, .maps = &m };
	char *s;

	m.entries[0] = (struct sp_entry){ .key = kustack(3, z), .val.v = 4 };
	EXPECT_STR(text_of_map(&m, 0, 1), "@[\n    handle_amd+10\n]: 4\n");
	s = report(&p, SP_FMT_FOLDED, "zero.folded", NULL);
	EXPECT_STR(s, "handle_amd 4\n");
}

static void test_folded(void)
{
	struct sp_mapdata maps[3] = { comm_stack_map("@"), ustack_map(), { 0 } };
	struct sp_profile p = { .nmaps = 2, .maps = maps };
	char *s, *path;

	((struct sp_plan_map *)maps[1].map)->name = FX(strdup("@u"));
	s = report(&p, SP_FMT_FOLDED, "two.folded", NULL);
	CHECK(strcmp(s, "hotwarm;__libc_start_call_main;main;__libc_read;vfs_read_[k];read_zero_[k] 30\n"
			"hotwarm;__libc_start_call_main;main;hot 200\n"
			"hotwarm;__libc_start_call_main;main;warm 100\n"
			"hotwarm;main;[hotwarm] 3\n"
			"my:app_12;main;spin 20\n") == 0, "folded:\n%s", s);
	/* Round trip: per-leaf sums equal the counts the text report shows. */
	CHECK(leaf_sum(s, "hot") == 200 && leaf_sum(s, "warm") == 100 && leaf_sum(s, "read_zero_[k]") == 30,
	      "leaf sums %lu %lu", (unsigned long)leaf_sum(s, "hot"), (unsigned long)leaf_sum(s, "warm"));
	free(s);
	path = outpath("two-u.folded");
	s = slurp(path);
	free(path);
	CHECK(strcmp(s, "__libc_start_call_main;main;hot 200\n"
			"__libc_start_call_main;main;warm 100\n"
			"main;[hotwarm] 3\n") == 0, "folded @u:\n%s", s);
	free(s);
	s = report(&p, SP_FMT_FOLDED, "one.folded", "@u");
	CHECK(strstr(s, "__libc_start_call_main;main;hot 200\n") != NULL, "--map @u:\n%s", s);
	free(s);
}

/* Functions inlined at a frame's address: frames of their own, innermost
 * first, in every format (text "(inlined)", folded "_[i]", svg and
 * speedscope "(inlined)", pprof one location: read back, one frame each). */
static void test_inline_frames(void)
{
	static const char *const fr[] = { "hot_inner", "hot", "caller_a+52", "main+48" };
	struct sp_mapdata m = mapdata(plan_map("@", SP_AGG_COUNT, SP_F_USTACK), 1);
	struct sp_profile p = { .nmaps = 1, .maps = &m };
	struct sp_stacks back = { 0 };
	struct sp_stack *st;
	char *s, *path;

	m.entries[0] = (struct sp_entry){ .key = kustack(4, fr), .val.v = 7 };
	st = m.entries[0].key.stack;
	for (int i = 0; i < 2; i++) {
		st->frames[i].inlined = true;
		st->frames[i].addr = st->frames[2].addr;
		st->frames[i].srcline = 30 - i; /* each level its own line */
	}
	EXPECT_STR(text_of_map(&m, 0, 1),
		   "@[\n    hot_inner (inlined)\n    hot (inlined)\n    caller_a+52\n    main+48\n]: 7\n");
	EXPECT_STR(report(&p, SP_FMT_FOLDED, "inline.folded", NULL),
		   "main;caller_a;hot_[i];hot_inner_[i] 7\n");
	s = report(&p, SP_FMT_SVG, "inline.svg", NULL);
	CHECK(strstr(s, "<title>hot_inner (inlined) (7 samples") != NULL, "svg title:\n%.2000s", s);
	free(s);
	s = report(&p, SP_FMT_SPEEDSCOPE, "inline.speedscope.json", NULL);
	CHECK(strstr(s, "\"name\": \"hot (inlined)\"") != NULL, "speedscope:\n%.2000s", s);
	free(s);
	free(report(&p, SP_FMT_PPROF, "inline.pb.gz", NULL));
	path = outpath("inline.pb.gz");
	CHECK(sp_read_stacks(path, &back) == 0 && back.n == 1 && back.paths[0].n == 4 &&
	      !strcmp(back.paths[0].el[2].name, "hot") && !strcmp(back.paths[0].el[3].name, "hot_inner"),
	      "pprof read back: %d paths", back.n);
	sp_stacks_free(&back);
	free(path);
	path = outpath("inline.folded");
	CHECK(sp_read_stacks(path, &back) == 0 && back.n == 1 && back.paths[0].n == 4 &&
	      back.paths[0].el[3].kind == SP_PE_INLINE && !strcmp(back.paths[0].el[3].name, "hot_inner"),
	      "folded read back");
	sp_stacks_free(&back);
	free(path);
}

/* -f residency: shares of the map's total, largest first, stacks leaf first. */
static void test_residency(void)
{
	struct sp_mapdata maps[2] = { comm_stack_map("@"), ustack_map() };
	struct sp_profile p = { .nmaps = 1, .maps = maps };
	char *s = report(&p, SP_FMT_RESIDENCY, "hotwarm.residency", NULL);

	CHECK(strcmp(s, "56.7%  hot;main;__libc_start_call_main;hotwarm\n"
			"28.3%  warm;main;__libc_start_call_main;hotwarm\n"
			" 8.5%  read_zero_[k];vfs_read_[k];__libc_read;main;__libc_start_call_main;hotwarm\n"
			" 5.7%  spin;main;my:app_12\n"
			" 0.8%  [hotwarm];main;hotwarm\n") == 0, "residency:\n%s", s);
	free(s);
}

/* Files for tests/tier_formats.py: one map for the consumers, two maps for naming. */
static void test_consumer_files(void)
{
	struct sp_mapdata maps[2] = { comm_stack_map("@"), ustack_map() };
	struct sp_profile p = { .nmaps = 1, .maps = maps, .sample_period_ns = 1000000000 / 99,
				.duration_ns = 3000000000ull, .start_time_ns = 1763700000000000000ull };
	static const enum sp_format fmts[] = { SP_FMT_SVG, SP_FMT_PPROF, SP_FMT_SPEEDSCOPE, SP_FMT_FOLDED };
	static const char *const names[] = { "hotwarm.svg", "hotwarm.pb.gz", "hotwarm.speedscope.json",
					     "hotwarm.folded" };

	for (int i = 0; i < 4; i++)
		free(report(&p, fmts[i], names[i], NULL));
	/* The same stacks as text and folded, for the tier's round trip. */
	p.maps = &maps[1];
	free(report(&p, SP_FMT_TEXT, "leaf.txt", NULL));
	free(report(&p, SP_FMT_FOLDED, "leaf.folded", NULL));
	p.maps = maps;
	((struct sp_plan_map *)maps[1].map)->name = FX(strdup("@u"));
	p.nmaps = 2;
	free(report(&p, SP_FMT_SVG, "multi.svg", NULL));
	free(report(&p, SP_FMT_PPROF, "multi.pb.gz", NULL));
	free(report(&p, SP_FMT_SPEEDSCOPE, "multi.speedscope.json", NULL));
	((struct sp_plan_map *)maps[1].map)->agg = SP_AGG_SUM;
	free(report(&p, SP_FMT_PPROF, "sum.pb.gz", "@u"));
	((struct sp_plan_map *)maps[1].map)->agg = SP_AGG_COUNT;
	for (int i = 0; i < 4; i++) {
		static const char *const want[] = { "multi.svg", "multi-u.svg", "multi.pb.gz", "multi-u.pb.gz" };
		char *path = outpath(want[i]);
		FILE *f = fopen(path, "r");

		CHECK(f != NULL, "%s was not written", path);
		if (f)
			fclose(f);
		free(path);
	}
	CHECK(sp_format_from_path("x.pb.gz") == SP_FMT_PPROF && sp_format_from_path("a/b.svg") == SP_FMT_SVG &&
	      sp_format_from_path("x.speedscope.json") == SP_FMT_SPEEDSCOPE &&
	      sp_format_from_path("x.json") == SP_FMT_JSON && sp_format_from_path("x.folded") == SP_FMT_FOLDED &&
	      sp_format_from_path("x.out") == SP_FMT_TEXT && sp_format_from_path(NULL) == SP_FMT_TEXT,
	      "sp_format_from_path");
	CHECK(sp_format_parse("pprof") == SP_FMT_PPROF && sp_format_parse("text") == SP_FMT_TEXT &&
	      sp_format_parse("nope") == -1, "sp_format_parse");
}

int main(int argc, char **argv)
{
	if (argc > 1)
		outdir = argv[1];
	test_text_scalars();
	test_text_stacks();
	test_text_hist();
	test_text_lhist();
	test_text_empty();
	test_json_stacks_hists();
	test_json_events();
	test_folded();
	test_zero_frame();
	test_inline_frames();
	test_residency();
	test_consumer_files();
	for (int i = 0; i < nfixtures; i++)
		free(fixtures[i]);
	free(fixtures);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
