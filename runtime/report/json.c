/* runtime/report/json.c: bpftrace 0.17's `-f json` lines.
 *
 * One object per line so tools reading bpftrace's NDJSON read ours:
 * {"type": "map"|"stats"|"hist", "data": {"@name": VALUE}} where VALUE is a
 * number/string/array for a scalar map and {"key": VALUE, ...} for a keyed
 * one (multi-part keys joined with ",", stacks as their text form). avg is a
 * "stats" line with a plain number. Entries keep the text report's order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/impl.h"

static int map_agg(const struct sp_mapdata *m)
{
	return m->map ? m->map->agg : SP_AGG_COUNT;
}

static const char *json_type(int agg)
{
	switch (agg) {
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		return "stats";
	case SP_AGG_HIST:
	case SP_AGG_LHIST:
		return "hist";
	case SP_AGG_TSERIES:
		return "tseries";
	default:
		return "map";
	}
}

/* Plain values: tuples as arrays without spaces, like bpftrace. */
static void json_kval(FILE *f, const struct sp_kval *k, const struct sp_plan_field *fld)
{
	char *s = NULL;
	size_t len = 0;
	FILE *mf;

	if (k->json) { /* a C value, already JSON */
		fputs(k->json, f);
		return;
	}
	switch (k->kind) {
	case SP_F_INT:
		sp_text_int(f, k);
		return;
	case SP_F_TUPLE:
		fputc('[', f);
		for (int i = 0; i < k->n; i++) {
			if (i)
				fputc(',', f);
			json_kval(f, &k->elems[i], fld && fld->kind == SP_F_TUPLE && i < fld->nelems
				  ? &fld->elems[i] : NULL);
		}
		fputc(']', f);
		return;
	default:
		mf = open_memstream(&s, &len);
		if (!mf)
			return;
		sp_text_kval(mf, k, fld, false);
		fclose(mf);
		sp_json_strn(f, s, len);
		free(s);
		return;
	}
}

static void json_hist(FILE *f, const struct sp_value *v, int div)
{
	int lo, hi;

	sp_bucket_span(v, &lo, &hi);
	fputc('[', f);
	for (int i = lo; i <= hi; i++) {
		fputs(i > lo ? ", {" : "{", f);
		if (i == 0)
			fputs("\"max\": -1, ", f);
		else if (i <= 2)
			fprintf(f, "\"min\": %d, \"max\": %d, ", i - 1, i - 1);
		else
			fprintf(f, "\"min\": %" PRIu64 ", \"max\": %" PRIu64 ", ", (uint64_t)1 << (i - 2),
				i - 1 < 64 ? ((uint64_t)1 << (i - 1)) - 1 : UINT64_MAX); /* the last: [2^63, 2^64) */
		fprintf(f, "\"count\": %" PRIu64 "}", v->buckets[i] / (uint64_t)div);
	}
	fputc(']', f);
}

static void json_lhist(FILE *f, const struct sp_mapdata *m, const struct sp_value *v)
{
	int64_t min, step, max;
	int lo, hi, nb = v->nbuckets - 2;

	sp_lhist_bounds(m, v, &min, &step, &max);
	sp_bucket_span(v, &lo, &hi);
	fputc('[', f);
	for (int i = lo; i <= hi; i++) {
		fputs(i > lo ? ", {" : "{", f);
		if (i == 0)
			fprintf(f, "\"max\": %" PRId64 ", ", min - 1);
		else if (i == nb + 1)
			fprintf(f, "\"min\": %" PRId64 ", ", max);
		else
			fprintf(f, "\"min\": %" PRId64 ", \"max\": %" PRId64 ", ", (i - 1) * step + min,
				i * step + min - 1);
		fprintf(f, "\"count\": %" PRIu64 "}", v->buckets[i]);
	}
	fputc(']', f);
}

static void json_value(FILE *f, const struct sp_mapdata *m, const struct sp_entry *e, int div)
{
	const struct sp_value *v = &e->val;
	int64_t avg = v->count ? v->total / (int64_t)v->count : v->v;

	switch (map_agg(m)) {
	case SP_AGG_HIST:
		json_hist(f, v, div);
		break;
	case SP_AGG_LHIST:
		json_lhist(f, m, v);
		break;
	case SP_AGG_AVG:
		fprintf(f, "%" PRId64, avg / div);
		break;
	case SP_AGG_STATS:
		fprintf(f, "{\"count\": %" PRIu64 ", \"average\": %" PRId64 ", \"total\": %" PRId64 "}",
			v->count, avg / div, v->total / div);
		break;
	case SP_AGG_NONE:
		if (v->plain.kind == SP_F_INT && div > 1) {
			struct sp_kval k = v->plain;

			k.i = k.is_signed ? k.i / div : (int64_t)((uint64_t)k.i / (uint64_t)div);
			json_kval(f, &k, NULL);
		} else {
			json_kval(f, &v->plain, m->map ? &m->map->value : NULL);
		}
		break;
	case SP_AGG_COUNT:
		fprintf(f, "%" PRIu64, (uint64_t)v->v / (uint64_t)div);
		break;
	default:
		fprintf(f, "%" PRId64, v->v / div);
		break;
	}
}

static void json_key(FILE *f, const struct sp_mapdata *m, const struct sp_kval *k)
{
	char *s = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&s, &len);

	if (!mf)
		return;
	sp_text_key(mf, m, k, ",");
	fclose(mf);
	sp_json_strn(f, s, len);
	free(s);
}

/* {"type": "tseries", "data": {"@name": ROWS}} or {"@name": {"key": ROWS, ...}},
 * keys in key order (bpftrace 0.27) */
static void json_tseries(FILE *f, const struct sp_mapdata *m)
{
	bool scalar = m->map->key.kind == SP_F_NONE;
	uint64_t first, last;

	sp_tseries_window(m, &first, &last);
	fputs("{\"type\": \"tseries\", \"data\": {", f);
	sp_json_str(f, m->map->name);
	fputs(scalar ? ": " : ": {", f);
	for (int i = 0; i < m->n && (!scalar || i < 1); i++) {
		struct sp_tsrow *r = NULL;
		int n = sp_tseries_rows(&m->entries[i].val, first, last, &r);

		if (!scalar) {
			fputs(i ? ", " : "", f);
			json_key(f, m, &m->entries[i].key);
			fputs(": ", f);
		}
		sp_tseries_json(f, m, r, n < 0 ? 0 : n);
		free(r);
	}
	fputs(scalar ? "}}\n" : "}}}\n", f);
}

void sp_report_json_map(FILE *f, const struct sp_mapdata *m, int top, int div)
{
	int n = 0;
	const struct sp_entry **v = m->n ? sp_sorted_entries(m, top, &n) : NULL;
	bool scalar = m->map ? m->map->key.kind == SP_F_NONE : m->n == 1 && m->entries[0].key.kind == SP_F_NONE;

	div = div > 0 ? div : 1;
	if (m->n && m->map && m->map->agg == SP_AGG_TSERIES) {
		free(v);
		json_tseries(f, m);
		return;
	}
	/* bpftrace 0.17 writes nothing for an empty map, except the zero of a
	 * cleared scalar count() */
	if (n == 0 && !(scalar && map_agg(m) == SP_AGG_COUNT)) {
		free(v);
		return;
	}
	fprintf(f, "{\"type\": \"%s\", \"data\": {", json_type(map_agg(m)));
	sp_json_str(f, m->map && m->map->name ? m->map->name : "@");
	fputs(": ", f);
	if (n == 0)
		fputc('0', f);
	else if (scalar)
		json_value(f, m, v[0], div);
	for (int i = 0; !scalar && i < n; i++) {
		fputs(i ? ", " : "{", f);
		json_key(f, m, &v[i]->key);
		fputs(": ", f);
		json_value(f, m, v[i], div);
	}
	if (!scalar && n > 0)
		fputc('}', f);
	fputs("}}\n", f);
	free(v);
}

void sp_report_json_event(FILE *f, const char *type, const char *text)
{
	fputs("{\"type\": ", f);
	sp_json_str(f, type);
	fputs(", \"data\": ", f);
	sp_json_str(f, text);
	fputs("}\n", f);
}

void sp_report_json_printf(FILE *f, const char *text)
{
	sp_report_json_event(f, "printf", text);
}

void sp_report_json_value(FILE *f, const struct sp_kval *v, const struct sp_plan_field *fld)
{
	fputs("{\"type\": \"value\", \"data\": ", f);
	json_kval(f, v, fld);
	fputs("}\n", f);
}

void sp_report_json_attached(FILE *f, int nprobes)
{
	fprintf(f, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %d}}\n", nprobes);
}
