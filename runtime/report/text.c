/* runtime/report/text.c: maps printed exactly as bpftrace 0.17 prints them.
 *
 * People and scripts already read bpftrace's output, so every byte matters:
 * entries ascending by value (hist/lhist by total), `@name[k1, k2]: v`,
 * stack keys as indented frame lines, `count N, average N, total N`, and the
 * ASCII histograms (16-column labels with K/M/G/T, 8-column counts, 52-column
 * bars scaled in float like bpftrace). avg, stats and each histogram are
 * followed by a blank line. The format is described in
 * shared/research/bpftrace.md §3; the code mirrors bpftrace's output.cpp.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "runtime/report/impl.h"

#define BAR_WIDTH 52

/* Kernel frames print no module in perf mode, like bpftrace's kstack(perf). */
static bool kernel_frame(const struct sp_frame *fr)
{
	return fr->kind == SP_FRAME_KERNEL || (fr->module && strncmp(fr->module, "[kernel", 7) == 0);
}

static void text_frame(FILE *f, const struct sp_frame *fr, int mode, int indent)
{
	char buf[512];

	switch (mode) {
	case SP_STACK_PERF:
		fprintf(f, "\t%" PRIx64 " %s", fr->addr, sp_frame_text(fr, buf, sizeof(buf)));
		if (!kernel_frame(fr))
			fprintf(f, " (%s)", fr->module ? fr->module : "[unknown]");
		fputc('\n', f);
		break;
	case SP_STACK_RAW:
		fprintf(f, "%" PRIx64 "\n", fr->addr);
		break;
	default:
		fprintf(f, "%*s%s\n", indent, "", sp_frame_text(fr, buf, sizeof(buf)));
		break;
	}
}

void sp_report_text_stack(FILE *f, const struct sp_stack *st, int mode, int indent)
{
	if (!st || st->n == 0)
		return;
	fputc('\n', f);
	/* Like bpftrace, a zero address ends the stack. */
	for (int i = 0; i < st->n && (st->frames[i].addr || st->frames[i].sym); i++)
		text_frame(f, &st->frames[i], mode, indent);
}

static void text_buf(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

void sp_text_kval(FILE *f, const struct sp_kval *k, const struct sp_plan_field *fld, bool in_tuple)
{
	int mode = fld && (fld->kind == SP_F_USTACK || fld->kind == SP_F_KSTACK) ? fld->stack_mode : 0;

	switch (k->kind) {
	case SP_F_INT:
		sp_text_int(f, k);
		break;
	case SP_F_STR:
		sp_text_safe(f, k->s ? k->s : "");
		break;
	case SP_F_BUF:
		text_buf(f, k->s);
		break;
	case SP_F_USYM:
	case SP_F_KSYM:
		sp_text_addr(f, k->s, (uint64_t)k->i);
		break;
	case SP_F_USTACK:
	case SP_F_KSTACK:
		sp_report_text_stack(f, k->stack, mode, 4);
		break;
	case SP_F_TUPLE:
		fputc('(', f);
		for (int i = 0; i < k->n; i++) {
			const struct sp_plan_field *e = fld && fld->kind == SP_F_TUPLE && i < fld->nelems
				? &fld->elems[i] : NULL;

			if (i)
				fputs(", ", f);
			sp_text_kval(f, &k->elems[i], e, true);
		}
		fputc(')', f);
		break;
	default:
		break;
	}
	(void)in_tuple;
}

void sp_text_key(FILE *f, const struct sp_mapdata *m, const struct sp_kval *k, const char *sep)
{
	if (k->kind != SP_F_TUPLE) {
		sp_text_kval(f, k, sp_key_field(m, 0), false);
		return;
	}
	for (int i = 0; i < k->n; i++) {
		if (i)
			fputs(sep, f);
		sp_text_kval(f, &k->elems[i], sp_key_field(m, i), false);
	}
}

static void text_name(FILE *f, const struct sp_mapdata *m, const struct sp_entry *e)
{
	fputs(m->map && m->map->name ? m->map->name : "@", f);
	if (e->key.kind == SP_F_NONE)
		return;
	fputc('[', f);
	sp_text_key(f, m, &e->key, ", ");
	fputc(']', f);
}

/* --- histograms ---------------------------------------------------------------- */

static void hist_label(char *buf, size_t len, int power)
{
	static const char suffix[] = " KMGT";
	int s = power >= 40 ? 4 : power / 10;

	power -= s * 10;
	if (s)
		snprintf(buf, len, "%" PRIu64 "%c", (uint64_t)1 << power, suffix[s]);
	else
		snprintf(buf, len, "%" PRIu64, (uint64_t)1 << power);
}

static void hist_row(FILE *f, const char *label, uint64_t v, uint64_t shown, uint64_t max)
{
	int bar = max ? (int)((float)v / (float)max * BAR_WIDTH) : 0;

	fprintf(f, "%-16s%8" PRIu64 " |", label, shown);
	for (int i = 0; i < BAR_WIDTH; i++)
		fputc(i < bar ? '@' : ' ', f);
	fputs("|\n", f);
}

static uint64_t max_bucket(const uint64_t *b, int n)
{
	uint64_t m = 0;

	for (int i = 0; i < n; i++)
		if (b[i] > m)
			m = b[i];
	return m;
}

/* Buckets: 0 negative, 1 zero, 2 one, i >= 3 [2^(i-2), 2^(i-1)). */
static void text_hist(FILE *f, const struct sp_value *v, int div)
{
	int lo, hi;
	uint64_t max = max_bucket(v->buckets, v->nbuckets);

	sp_bucket_span(v, &lo, &hi);
	for (int i = lo; i <= hi; i++) {
		char label[64], a[24], b[24];

		if (i <= 2) {
			snprintf(label, sizeof(label), "%s", i == 0 ? "(..., 0)" : i == 1 ? "[0]" : "[1]");
		} else {
			hist_label(a, sizeof(a), i - 2);
			hist_label(b, sizeof(b), i - 1);
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		hist_row(f, label, v->buckets[i], v->buckets[i] / (uint64_t)div, max);
	}
}

static void lhist_label(char *buf, size_t len, int64_t n)
{
	if (n != 0 && n % 1048576 == 0)
		snprintf(buf, len, "%" PRId64 "M", n / 1048576);
	else if (n != 0 && n % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "K", n / 1024);
	else
		snprintf(buf, len, "%" PRId64, n);
}

/* Buckets: 0 below min, 1..n [min + (i-1)*step, min + i*step), n+1 >= max. */
static void text_lhist(FILE *f, const struct sp_mapdata *m, const struct sp_value *v)
{
	int64_t min, step, max;
	int nb = v->nbuckets - 2, lo, hi;
	uint64_t top = max_bucket(v->buckets, v->nbuckets);

	sp_lhist_bounds(m, v, &min, &step, &max);
	sp_bucket_span(v, &lo, &hi);
	for (int i = lo; i <= hi; i++) {
		char label[64], a[24], b[24];

		if (i == 0) {
			lhist_label(a, sizeof(a), min);
			snprintf(label, sizeof(label), "(..., %s)", a);
		} else if (i == nb + 1) {
			lhist_label(a, sizeof(a), max);
			snprintf(label, sizeof(label), "[%s, ...)", a);
		} else {
			lhist_label(a, sizeof(a), (i - 1) * step + min);
			lhist_label(b, sizeof(b), i * step + min);
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		hist_row(f, label, v->buckets[i], v->buckets[i], top);
	}
}

/* --- maps -------------------------------------------------------------------- */

static int64_t avg_value(const struct sp_value *v)
{
	return v->count ? v->total / (int64_t)v->count : v->v;
}

static void text_entry(FILE *f, const struct sp_mapdata *m, const struct sp_entry *e, int div)
{
	int agg = m->map ? m->map->agg : SP_AGG_COUNT;

	text_name(f, m, e);
	fputs(": ", f);
	switch (agg) {
	case SP_AGG_HIST:
	case SP_AGG_LHIST:
		fputc('\n', f);
		if (agg == SP_AGG_HIST)
			text_hist(f, &e->val, div);
		else
			text_lhist(f, m, &e->val);
		fputc('\n', f);
		return;
	case SP_AGG_AVG:
		fprintf(f, "%" PRId64 "\n", avg_value(&e->val) / div);
		return;
	case SP_AGG_STATS:
		fprintf(f, "count %" PRIu64 ", average %" PRId64 ", total %" PRId64 "\n",
			e->val.count, avg_value(&e->val) / div, e->val.total / div);
		return;
	case SP_AGG_NONE:
		if (e->val.plain.kind == SP_F_INT && div > 1) {
			struct sp_kval k = e->val.plain;

			k.i = k.is_signed ? k.i / div : (int64_t)((uint64_t)k.i / (uint64_t)div);
			sp_text_kval(f, &k, NULL, false);
		} else {
			sp_text_kval(f, &e->val.plain, m->map ? &m->map->value : NULL, false);
		}
		fputc('\n', f);
		return;
	case SP_AGG_COUNT:
		fprintf(f, "%" PRIu64 "\n", (uint64_t)e->val.v / (uint64_t)div);
		return;
	default:
		fprintf(f, "%" PRId64 "\n", e->val.v / div);
		return;
	}
}

/* bpftrace prints `@a: 0` for an untouched scalar count/sum/min/max and a
 * bare empty line for any other map without entries. */
static void text_empty(FILE *f, const struct sp_mapdata *m)
{
	int agg = m->map ? m->map->agg : SP_AGG_COUNT;
	bool scalar = m->map && m->map->key.kind == SP_F_NONE;

	/* bpftrace 0.17: a cleared count() scalar still prints its zero; any
	 * other empty map prints an empty line, and avg/stats maps add the
	 * blank line that follows them when they have entries */
	if (scalar && agg == SP_AGG_COUNT) {
		fprintf(f, "%s: 0\n", m->map->name);
		return;
	}
	fputc('\n', f);
	if (agg == SP_AGG_AVG || agg == SP_AGG_STATS)
		fputc('\n', f);
}

/* tseries: each key's graph after `@name[key]:`, in key order, a blank
 * line after each (bpftrace 0.27). */
static void text_tseries(FILE *f, const struct sp_mapdata *m)
{
	uint64_t first, last;

	sp_tseries_window(m, &first, &last);
	for (int i = 0; i < m->n; i++) {
		struct sp_tsrow *r;
		int n = sp_tseries_rows(&m->entries[i].val, first, last, &r);

		if (n < 0) {
			sp_err("cannot print '%s': %s\n", m->map->name, strerror(-n));
			return;
		}
		text_name(f, m, &m->entries[i]);
		fputs(":\n", f);
		sp_tseries_text(f, m, r, n);
		fputs("\n", f);
		free(r);
	}
}

void sp_report_text_map(FILE *f, const struct sp_mapdata *m, int top, int div)
{
	int agg = m->map ? m->map->agg : SP_AGG_COUNT, n = 0;
	const struct sp_entry **v;

	div = div > 0 ? div : 1;
	if (m->n == 0) {
		text_empty(f, m);
		return;
	}
	if (agg == SP_AGG_TSERIES) {
		text_tseries(f, m);
		return;
	}
	v = sp_sorted_entries(m, top, &n);
	if (!v) {
		sp_err("cannot print '%s': %s\n", m->map ? m->map->name : "@", strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++)
		text_entry(f, m, v[i], div);
	if (agg == SP_AGG_AVG || agg == SP_AGG_STATS)
		fputc('\n', f);
	free(v);
}
