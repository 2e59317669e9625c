/* runtime/report/ch_rows.c: the rows --export sends, as JSONEachRow lines.
 *
 *   {"time":"2026-11-25 06:40:00","host":"web1","map":"@","pid":1234,
 *    "comm":"app","key":["tid:1240"],"stack":["_start","main","hot"],
 *    "build_ids":["9f..","9f..","9f.."],"offsets":[4160,4520,4400],"count":57,
 *    "period_ns":10101010}
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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/report/ch_rows.h"
#include "runtime/report/impl.h"

static void name_json(FILE *f, const struct sp_pelem *el)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);

	if (!m) {
		sp_json_str(f, el->name);
		return;
	}
	sp_folded_name(m, el->name, el->kind);
	if (fclose(m) == 0)
		sp_json_strn(f, s, n);
	else
		sp_json_str(f, el->name);
	free(s);
}

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

static void write_frames(FILE *f, const struct sp_path *p)
{
	int k = 0;

	fputs(",\"stack\":[", f);
	for (int i = 0; i < p->n; i++)
		if (p->el[i].kind != SP_PE_LABEL) {
			fputs(k++ ? "," : "", f);
			name_json(f, &p->el[i]);
		}
	fputs("],\"build_ids\":[", f);
	k = 0;
	for (int i = 0; i < p->n; i++)
		if (p->el[i].kind != SP_PE_LABEL) {
			fputs(k++ ? "," : "", f);
			sp_json_str(f, p->el[i].frame && p->el[i].frame->build_id ? p->el[i].frame->build_id : "");
		}
	fputs("],\"offsets\":[", f);
	k = 0;
	for (int i = 0; i < p->n; i++)
		if (p->el[i].kind != SP_PE_LABEL)
			fprintf(f, "%s%" PRIu64, k++ ? "," : "", p->el[i].frame ? p->el[i].frame->file_off : 0);
	fputc(']', f);
}

static void write_row(FILE *f, const struct sp_path *p, const char *stamp, const char *host, const char *map,
		      uint64_t period_ns)
{
	const char *comm = "";

	for (int i = 0; i < p->n; i++)
		if (is_comm(p, &p->el[i])) {
			comm = p->el[i].name;
			break;
		}
	fprintf(f, "{\"time\":\"%s\",\"host\":", stamp);
	sp_json_str(f, host);
	fputs(",\"map\":", f);
	sp_json_str(f, map);
	fprintf(f, ",\"pid\":%" PRIu32 ",\"comm\":", row_pid(p));
	sp_json_str(f, comm);
	write_key(f, p);
	write_frames(f, p);
	fprintf(f, ",\"count\":%" PRIu64 ",\"period_ns\":%" PRIu64 "}\n", p->weight, period_ns);
}

/* period_ns: the profile probe's 1e9/hz for count maps (their counts are
 * samples), 0 for sums and for runs without a profile probe. */
static int map_rows(FILE *f, const struct sp_mapdata *m, const char *stamp, const char *host,
		    uint64_t period_ns, uint64_t *nrows)
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
			write_row(f, &p, stamp, host, name, period_ns);
			(*nrows)++;
		}
		sp_path_free(&p);
	}
	return 0;
}

int sp_ch_rows(const struct sp_profile *p, const char *host, char **out, size_t *len, uint64_t *nrows)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int stacks = 0, err = 0;
	FILE *f = open_memstream(out, len);

	if (!f)
		return -errno;
	*nrows = 0;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
	for (int i = 0; i < p->nmaps; i++)
		stacks += sp_map_has_stack(&p->maps[i]);
	for (int i = 0; i < p->nmaps && !err; i++)
		if (stacks ? sp_map_has_stack(&p->maps[i]) : sp_map_is_flame(&p->maps[i]))
			err = map_rows(f, &p->maps[i], stamp, host, p->sample_period_ns, nrows);
	if (fclose(f) != 0 && !err)
		err = -ENOMEM;
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}
