/* runtime/store/ch_rows.c: the rows --export sends, as JSONEachRow lines.
 *
 * The stack-id layout (what `sprof fleet init` makes): a sample row names
 * its stack by a 64-bit id, and the stack itself goes once to TABLE_stacks:
 *
 *   {"time":"2026-11-25 06:40:00","host":"web1","map":"@","pid":1234,
 *    "comm":"app","key":["tid:1240"],"stack_id":1311768467294899695,
 *    "batch_id":1764403200123456789,"count":57,"period_ns":10101010}
 *   {"stack_id":1311768467294899695,"day":"2026-11-25",
 *    "stack":["_start","main","hot"],
 *    "build_ids":["9f..","9f..","9f.."],"offsets":[4160,4520,4400]}
 *
 * The id is FNV-1a 64 over every frame's name, build id and offset, so the
 * same address stack has the same id on every host and in every period;
 * a batch carries each of its stacks once, and the exporter leaves out the
 * stacks it has sent already (a stack sent twice is harmless: the stacks
 * table is a ReplacingMergeTree and readers join with ANY). `day` (when
 * the stacks table has it) is the batch's UTC day, the stacks table's
 * partition: --retention drops a day's stacks with its samples, so the
 * exporter sends a stack again on each day it is used. batch_id
 * names the export the row came in, so an insert whose outcome is unknown
 * is looked up rather than sent twice. A table of an
 * older sprof (the old layout) gets the stack in every row instead:
 * "stack":[...],"build_ids":[...],"offsets":[...] in place of stack_id.
 *
 * Each entry's path (paths.c) gives the names: frames root first as folded
 * names them (kernel frames keep the "_[k]" suffix, so reading them back
 * tells the kinds apart), the first 16-byte string key part as comm, the
 * user stack's pid (or a pid key part), and every other key part as
 * "label:value" in key. JSON strings are written by the json writer's
 * escaper, which replaces bytes that are not UTF-8. period_ns is the sampling
 * period of a count (1e9/hz), so a report can turn counts into CPU time at
 * the rate each row was sampled at.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/store/ch_rows.h"
#include "runtime/report/impl.h"

static bool is_comm(const struct sp_path *p, const struct sp_pelem *el)
{
	return p->comm && el->kind == SP_PE_LABEL && strcmp(el->name, p->comm) == 0 &&
	       (!el->label || strcmp(el->label, "comm") == 0);
}

static uint32_t row_pid(const struct sp_path *p)
{
	for (int i = 0; !p->pid && i < p->n; i++)
		if (p->el[i].kind == SP_PE_LABEL && p->el[i].label && p->el[i].is_num &&
		    strcmp(p->el[i].label, "pid") == 0)
			return (uint32_t)p->el[i].num;
	return p->pid;
}

static void write_key(FILE *f, const struct sp_path *p)
{
	bool first = true, comm_done = false;

	fputs(",\"key\":[", f);
	for (int i = 0; i < p->n; i++) {
		const struct sp_pelem *el = &p->el[i];
		char *s = NULL;

		if (el->kind != SP_PE_LABEL)
			continue;
		if (!comm_done && is_comm(p, el)) {
			comm_done = true;
			continue;
		}
		if (el->label && (s = malloc(strlen(el->label) + strlen(el->name) + 2)))
			sprintf(s, "%s:%s", el->label, el->name);
		fputs(first ? "" : ",", f);
		sp_json_str(f, s ? s : el->name);
		free(s);
		first = false;
	}
	fputc(']', f);
}

/* The frames of an entry: folded names (root first), build ids, offsets. */
struct frames {
	char **names;
	const char **build_ids;
	uint64_t *offsets;
	int n;
	uint64_t id;
};

static void frames_free(struct frames *fr)
{
	for (int i = 0; i < fr->n; i++)
		free(fr->names[i]);
	free(fr->names);
	free(fr->build_ids);
	free(fr->offsets);
	memset(fr, 0, sizeof(*fr));
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int frames_of(const struct sp_path *p, struct frames *fr)
{
	uint64_t h = 0xcbf29ce484222325ull;

	memset(fr, 0, sizeof(*fr));
	fr->names = calloc((size_t)p->n + 1, sizeof(*fr->names));
	fr->build_ids = calloc((size_t)p->n + 1, sizeof(*fr->build_ids));
	fr->offsets = calloc((size_t)p->n + 1, sizeof(*fr->offsets));
	if (!fr->names || !fr->build_ids || !fr->offsets) {
		frames_free(fr);
		return -ENOMEM;
	}
	for (int i = 0; i < p->n; i++) {
		const struct sp_pelem *el = &p->el[i];
		size_t len = 0;
		FILE *m;

		if (el->kind == SP_PE_LABEL)
			continue;
		m = open_memstream(&fr->names[fr->n], &len);
		if (!m) {
			frames_free(fr);
			return -ENOMEM;
		}
		sp_folded_name(m, el->name, el->kind);
		if (fclose(m) != 0) {
			frames_free(fr);
			return -ENOMEM;
		}
		fr->build_ids[fr->n] = el->frame && el->frame->build_id ? el->frame->build_id : "";
		fr->offsets[fr->n] = el->frame ? el->frame->file_off : 0;
		h = fnv(h, fr->names[fr->n], len + 1);
		h = fnv(h, fr->build_ids[fr->n], strlen(fr->build_ids[fr->n]) + 1);
		h = fnv(h, &fr->offsets[fr->n], sizeof(fr->offsets[fr->n]));
		fr->n++;
	}
	fr->id = h ? h : 1;
	return 0;
}

/* ,"stack":[...],"build_ids":[...],"offsets":[...] */
static void write_frames(FILE *f, const struct frames *fr)
{
	fputs(",\"stack\":[", f);
	for (int i = 0; i < fr->n; i++) {
		fputs(i ? "," : "", f);
		sp_json_str(f, fr->names[i]);
	}
	fputs("],\"build_ids\":[", f);
	for (int i = 0; i < fr->n; i++) {
		fputs(i ? "," : "", f);
		sp_json_str(f, fr->build_ids[i]);
	}
	fputs("],\"offsets\":[", f);
	for (int i = 0; i < fr->n; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", fr->offsets[i]);
	fputc(']', f);
}

struct rows {
	FILE *f, *stacks;         /* stacks NULL: the old layout */
	const char *stamp, *host;
	char day[16];             /* the stack rows' "day", or "" (no such column) */
	struct sp_ch_ids *known;  /* stacks sent before (or NULL) */
	struct sp_ch_ids batch;   /* stacks in this batch */
	uint64_t batch_id;
	uint64_t nrows, samples;
};

static int write_row(struct rows *r, const struct sp_path *p, const char *map, uint64_t period_ns)
{
	const char *comm = "";
	struct frames fr;
	int e = frames_of(p, &fr);

	if (e)
		return e;
	for (int i = 0; i < p->n; i++)
		if (is_comm(p, &p->el[i])) {
			comm = p->el[i].name;
			break;
		}
	fprintf(r->f, "{\"time\":\"%s\",\"host\":", r->stamp);
	sp_json_str(r->f, r->host);
	fputs(",\"map\":", r->f);
	sp_json_str(r->f, map);
	fprintf(r->f, ",\"pid\":%" PRIu32 ",\"comm\":", row_pid(p));
	sp_json_str(r->f, comm);
	write_key(r->f, p);
	if (r->stacks) {
		fprintf(r->f, ",\"stack_id\":%" PRIu64 ",\"batch_id\":%" PRIu64, fr.id, r->batch_id);
		e = r->known && sp_ch_ids_has(r->known, fr.id) ? 0 : sp_ch_ids_add(&r->batch, fr.id);
		if (e == 1) { /* new in this batch */
			fprintf(r->stacks, "{\"stack_id\":%" PRIu64, fr.id);
			if (r->day[0])
				fprintf(r->stacks, ",\"day\":\"%s\"", r->day);
			write_frames(r->stacks, &fr);
			fputs("}\n", r->stacks);
		}
		e = e < 0 ? e : 0;
	} else {
		write_frames(r->f, &fr);
	}
	fprintf(r->f, ",\"count\":%" PRIu64 ",\"period_ns\":%" PRIu64 "}\n", p->weight, period_ns);
	frames_free(&fr);
	return e;
}

/* period_ns: the profile probe's 1e9/hz for count maps (their counts are
 * samples), 0 for sums and for runs without a profile probe. */
static int map_rows(struct rows *r, const struct sp_mapdata *m, uint64_t period_ns)
{
	const char *name = m->map && m->map->name ? m->map->name : "@";
	int agg = m->map ? m->map->agg : SP_AGG_COUNT;

	if (agg != SP_AGG_COUNT && agg != SP_AGG_HIST && agg != SP_AGG_LHIST)
		period_ns = 0;

	for (int i = 0; i < m->n; i++) {
		struct sp_path p;
		int err = sp_entry_path(m, &m->entries[i], &p);

		if (err)
			return err;
		if (p.weight) {
			err = write_row(r, &p, name, period_ns);
			r->nrows++;
			r->samples += p.weight;
		}
		sp_path_free(&p);
		if (err)
			return err;
	}
	return 0;
}

int sp_ch_rows(const struct sp_profile *p, const char *host, struct sp_ch_ids *known, struct sp_ch_text *out)
{
	char stamp[32];
	time_t now = out->id ? (time_t)(out->id / 1000000000ull) : time(NULL);
	struct tm tm;
	struct rows r = { .stamp = stamp, .host = host, .known = known, .batch_id = out->id };
	bool compact = out->compact, days = out->days;
	uint64_t id = out->id;
	int stacks = 0, err = 0;

	memset(out, 0, sizeof(*out));
	out->compact = compact;
	out->days = days;
	out->id = id;
	r.f = open_memstream(&out->rows, &out->len);
	r.stacks = compact ? open_memstream(&out->stacks, &out->slen) : NULL;
	if (!r.f || (compact && !r.stacks)) {
		err = -errno;
		goto out_close;
	}
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	if (days)
		strftime(r.day, sizeof(r.day), "%Y-%m-%d", &tm);
	for (int i = 0; i < p->nmaps; i++)
		stacks += sp_map_has_stack(&p->maps[i]);
	for (int i = 0; i < p->nmaps && !err; i++)
		if (stacks ? sp_map_has_stack(&p->maps[i]) : sp_map_is_flame(&p->maps[i]))
			err = map_rows(&r, &p->maps[i], p->sample_period_ns);
out_close:
	if (r.f && fclose(r.f) != 0 && !err)
		err = -ENOMEM;
	if (r.stacks && fclose(r.stacks) != 0 && !err)
		err = -ENOMEM;
	out->nrows = r.nrows;
	out->samples = r.samples;
	out->ids = r.batch;
	if (err)
		sp_ch_text_free(out);
	return err;
}

void sp_ch_text_free(struct sp_ch_text *t)
{
	free(t->rows);
	free(t->stacks);
	sp_ch_ids_free(&t->ids);
	t->rows = t->stacks = NULL;
	t->len = t->slen = 0;
}

/* --- a set of stack ids: open addressing, 0 is the empty slot ------------------------ */

bool sp_ch_ids_has(const struct sp_ch_ids *s, uint64_t id)
{
	if (!s->cap)
		return false;
	for (size_t i = id & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->v[i] == id)
			return true;
		if (!s->v[i])
			return false;
	}
}

int sp_ch_ids_add(struct sp_ch_ids *s, uint64_t id)
{
	if (sp_ch_ids_has(s, id))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		struct sp_ch_ids bigger = { .cap = s->cap ? s->cap * 2 : 64 };

		bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
		if (!bigger.v)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				sp_ch_ids_add(&bigger, s->v[i]);
		free(s->v);
		*s = bigger;
	}
	for (size_t i = id & (s->cap - 1);; i = (i + 1) & (s->cap - 1))
		if (!s->v[i]) {
			s->v[i] = id;
			s->n++;
			return 1;
		}
}

void sp_ch_ids_free(struct sp_ch_ids *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
