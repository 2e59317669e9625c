/* tests/fuzz/fuzz_report.c: libFuzzer entry for every report writer.
 *
 * The input is read as a recipe for a profile (runtime/profile/profile.h):
 * a few maps, each with a key layout (none, int, string, buf, user or kernel
 * stack, symbol, or a tuple of those), an aggregation, and entries whose
 * numbers, strings and stack frames (some inlined into the next) come from
 * the input bytes. Strings are
 * any non-NUL bytes (symbol names and perf map names are: quotes, '<', '&',
 * bad UTF-8), numbers any 64 bits. The profile keeps the invariants collect.c
 * guarantees (hist: 66 buckets; lhist: as many as its bounds make) and is
 * written in every format (text, json, folded, svg, pprof, speedscope) into a
 * scratch folder, plus the print()/printf pieces the session uses.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a stream; reads past its end give zeros. */
struct in {
	const uint8_t *p;
	size_t n;
	void **owned;        /* every allocation, freed after the run */
	size_t nowned, cap;
};

static uint8_t u8(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint64_t u64(struct in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)u8(in) << (8 * i);
	return v;
}

static void *own(struct in *in, size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		abort();
	if (in->nowned == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 64;
		in->owned = realloc(in->owned, in->cap * sizeof(*in->owned));
		if (!in->owned)
			abort();
	}
	in->owned[in->nowned++] = p;
	return p;
}

/* A string of up to 31 input bytes (a NUL ends it early); NULL one time in 8. */
static const char *str(struct in *in, bool may_be_null)
{
	uint8_t len = u8(in);
	char *s;

	if (may_be_null && (len & 7) == 7)
		return NULL;
	len = (uint8_t)(len >> 3);
	s = own(in, (size_t)len + 1);
	for (int i = 0; i < len && in->n; i++)
		s[i] = (char)u8(in);
	return s;
}

static struct sp_stack *stack(struct in *in, bool kernel)
{
	struct sp_stack *st = own(in, sizeof(*st));

	st->n = u8(in) % 9;
	st->truncated = st->n == 8;
	st->frames = own(in, sizeof(*st->frames) * (size_t)(st->n ? st->n : 1));
	for (int i = 0; i < st->n; i++) {
		struct sp_frame *f = &st->frames[i];
		uint8_t b = u8(in);

		f->addr = b & 1 ? u64(in) : (uint64_t)b << 4;
		f->sym = str(in, true);
		f->off = b & 2 ? u8(in) : 0;
		f->module = kernel ? "[kernel.kallsyms]" : str(in, true);
		f->build_id = b & 4 ? str(in, true) : NULL;
		f->file_off = f->addr & 0xffff;
		f->map_start = f->addr & ~0xfffull;
		f->map_end = f->map_start + 0x1000;
		f->srcfile = b & 8 ? str(in, true) : NULL;
		f->srcline = f->srcfile ? u8(in) : 0;
		f->kind = kernel ? SP_FRAME_KERNEL : b & 16 ? SP_FRAME_UNKNOWN : SP_FRAME_USER;
		/* a function inlined into the next frame: usually at its address */
		f->inlined = !kernel && (b & 32);
		if ((b & 64) && i > 0 && st->frames[i - 1].inlined)
			st->frames[i - 1].addr = f->addr;
	}
	return st;
}

static const enum sp_field_kind part_kinds[] = {
	SP_F_INT, SP_F_STR, SP_F_BUF, SP_F_USTACK, SP_F_KSTACK, SP_F_USYM, SP_F_KSYM,
};

/* One key part's layout. */
static void field(struct in *in, struct sp_plan_field *f, enum sp_field_kind kind)
{
	static char *names[] = { NULL, "pid", "tid", "comm", "cpu" };
	uint8_t b = u8(in);

	f->kind = kind;
	f->size = kind == SP_F_STR ? 16 : 8;
	f->is_signed = b & 1;
	f->stack_mode = (b >> 1) % 3;
	f->stack_limit = 127;
	f->name = names[(b >> 3) % 5];
}

static void kval(struct in *in, const struct sp_plan_field *f, struct sp_kval *k)
{
	k->kind = f->kind;
	k->is_signed = f->is_signed;
	switch (f->kind) {
	case SP_F_INT:
		k->i = (int64_t)u64(in);
		break;
	case SP_F_STR:
	case SP_F_BUF:
		k->s = str(in, false);
		break;
	case SP_F_USTACK:
		k->pid = u8(in);
		k->stack = stack(in, false);
		break;
	case SP_F_KSTACK:
		k->stack = stack(in, true);
		break;
	case SP_F_USYM:
	case SP_F_KSYM:
		k->i = (int64_t)u64(in);
		k->s = str(in, true);
		break;
	case SP_F_TUPLE:
		k->n = f->nelems;
		k->elems = own(in, sizeof(*k->elems) * (size_t)f->nelems);
		for (int i = 0; i < f->nelems; i++)
			kval(in, &f->elems[i], &k->elems[i]);
		break;
	default:
		break;
	}
}

/* The key layout: none, one part, or a tuple of 2 to 4 parts. */
static void key_layout(struct in *in, struct sp_plan_map *m)
{
	uint8_t b = u8(in);
	int n = b % 5;

	if (n == 0) {
		m->key.kind = SP_F_NONE;
		return;
	}
	if (n == 1) {
		field(in, &m->key, part_kinds[(b >> 3) % 7]);
		return;
	}
	m->key.kind = SP_F_TUPLE;
	m->key.nelems = n;
	m->key.elems = own(in, sizeof(*m->key.elems) * (size_t)n);
	for (int i = 0; i < n; i++)
		field(in, &m->key.elems[i], part_kinds[u8(in) % 7]);
}

static int nbuckets(const struct sp_plan_map *m)
{
	if (m->agg == SP_AGG_HIST)
		return 66;
	return (int)(2 + (m->lhist_max - m->lhist_min) / m->lhist_step);
}

static void value(struct in *in, const struct sp_plan_map *m, struct sp_value *v)
{
	v->v = (int64_t)u64(in);
	v->count = u8(in);
	v->total = (int64_t)u64(in);
	if (m->agg == SP_AGG_HIST || m->agg == SP_AGG_LHIST) {
		v->nbuckets = nbuckets(m);
		v->buckets = own(in, sizeof(*v->buckets) * (size_t)v->nbuckets);
		for (int i = u8(in) % 8; i > 0; i--) {
			uint8_t at = u8(in);

			v->buckets[at % v->nbuckets] += u8(in) & 1 ? u64(in) : at;
		}
	}
	if (m->agg == SP_AGG_NONE)
		kval(in, &m->value, &v->plain);
}

static void map(struct in *in, struct sp_mapdata *md, char *name)
{
	struct sp_plan_map *m = own(in, sizeof(*m));
	uint8_t b = u8(in);

	m->name = name;
	m->agg = b % 9; /* SP_AGG_NONE .. SP_AGG_LHIST */
	m->lhist_min = (int8_t)u8(in);
	m->lhist_step = 1 + u8(in) % 50;
	m->lhist_max = m->lhist_min + 1 + u8(in) * 4;
	key_layout(in, m);
	field(in, &m->value, part_kinds[(b >> 4) % 3]);
	md->map = m;
	md->n = u8(in) % 24;
	md->dropped = b & 0x80 ? u8(in) : 0;
	md->max_entries = 4096;
	md->entries = own(in, sizeof(*md->entries) * (size_t)(md->n ? md->n : 1));
	for (int i = 0; i < md->n; i++) {
		kval(in, &m->key, &md->entries[i].key);
		value(in, m, &md->entries[i].val);
	}
}

static void profile(struct in *in, struct sp_profile *p)
{
	static char *names[] = { "@", "@a", "@b\"<&>", "@stacks" };

	p->nmaps = 1 + u8(in) % 3;
	p->maps = own(in, sizeof(*p->maps) * (size_t)p->nmaps);
	for (int i = 0; i < p->nmaps; i++)
		map(in, &p->maps[i], names[(i + u8(in)) % 4]);
	p->sample_period_ns = u8(in) * 1000ull;
	p->duration_ns = u64(in);
	p->start_time_ns = u64(in);
	p->lost_stacks = u8(in);
	p->lost_events = u8(in);
	p->stack_entries = 1024;
}

static char dir[64];

static void cleanup(void)
{
	static const char *files[] = { "out", "out.svg", "out-@.svg", "out-@a.svg",
		"out-@stacks.svg", "out-@b\"<&>.svg", "out.folded", "out-@.folded",
		"out-@a.folded", "out-@stacks.folded", "out-@b\"<&>.folded", "out.pb.gz",
		"out.speedscope.json", "out.json" };
	char path[128];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void write_all(const struct sp_profile *p)
{
	static const struct { enum sp_format fmt; const char *file; } outs[] = {
		{ SP_FMT_TEXT, "out" }, { SP_FMT_JSON, "out.json" }, { SP_FMT_FOLDED, "out.folded" },
		{ SP_FMT_SVG, "out.svg" }, { SP_FMT_PPROF, "out.pb.gz" },
		{ SP_FMT_SPEEDSCOPE, "out.speedscope.json" },
	};
	char path[128];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/sprof-fuzz-report-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		struct sp_report_opts o = { .format = outs[i].fmt, .output = path,
					    .title = "fuzz <&\">", .width = 1200 };

		snprintf(path, sizeof(path), "%s/%s", dir, outs[i].file);
		sp_report_write(p, &o);
	}
}

/* print(@m, top, div), printf and the other event pieces. */
static void pieces(const struct sp_profile *p, FILE *f)
{
	for (int i = 0; i < p->nmaps; i++) {
		const struct sp_mapdata *m = &p->maps[i];

		sp_report_text_map(f, m, i, i ? 1000 : 0);
		sp_report_json_map(f, m, i, i ? 1000 : 0);
		for (int j = 0; j < m->n && j < 4; j++)
			sp_report_json_value(f, &m->entries[j].key, &m->map->key);
	}
	sp_report_json_attached(f, p->nmaps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { .p = data, .n = size };
	struct sp_profile p = { 0 };
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		abort();
	profile(&in, &p);
	write_all(&p);
	pieces(&p, null);
	sp_report_json_printf(null, (const char *)p.maps[0].map->name);
	fclose(null);
	for (size_t i = 0; i < in.nowned; i++)
		free(in.owned[i]);
	free(in.owned);
	return 0;
}
