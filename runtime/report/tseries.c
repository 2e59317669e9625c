/* runtime/report/tseries.c: tseries() maps, printed as bpftrace 0.27 prints them.
 *
 * A tseries key holds up to N intervals (plan.h's layout, folded by
 * runtime/collect.c into points by epoch: the interval's number, wall ns /
 * interval ns). Like bpftrace's types_format.cpp, every key of a map is
 * shown over one window, the N intervals ending at the latest one any key
 * wrote, each key from its own first interval in that window on; intervals
 * without a value are gaps ("-" in the graph, left out of JSON). The text
 * graph mirrors bpftrace's output/text.cpp byte for byte: a header with the
 * minimum and maximum, one 53-column row per interval with its local
 * wall-clock time to the interval's unit, a '.' column at zero when the
 * values cross it, and the footer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/report/impl.h"

#define GRAPH_WIDTH 53
#define PADDING 21

/* The window every key is shown over: [*first, *last] (empty when the
 * subtraction wraps, as bpftrace's unsigned arithmetic does for a map of
 * zeroed keys). */
void sp_tseries_window(const struct sp_mapdata *m, uint64_t *first, uint64_t *last)
{
	uint64_t hi = 0, num = m->map && m->map->lhist_max > 0 ? (uint64_t)m->map->lhist_max : 1;

	for (int i = 0; i < m->n; i++)
		for (int k = 0; k < m->entries[i].val.npoints; k++)
			if (m->entries[i].val.points[k].epoch > hi)
				hi = m->entries[i].val.points[k].epoch;
	*last = hi;
	*first = hi - num + 1;
}

/* The rows of one key in the window; returns how many (malloc'd *out). */
int sp_tseries_rows(const struct sp_value *v, uint64_t first, uint64_t last,
		    struct sp_tsrow **out)
{
	uint64_t from = last;
	int n, k = 0;

	*out = NULL;
	if (first > last)
		return 0;
	for (int i = 0; i < v->npoints; i++)
		if (v->points[i].epoch >= first && v->points[i].epoch < from)
			from = v->points[i].epoch;
	n = (int)(last - from + 1);
	*out = calloc((size_t)n, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		(*out)[i].epoch = from + (uint64_t)i;
		while (k < v->npoints && v->points[k].epoch < from + (uint64_t)i)
			k++;
		if (k < v->npoints && v->points[k].epoch == from + (uint64_t)i) {
			(*out)[i].have = true;
			(*out)[i].v = v->points[k].v;
		}
	}
	return n;
}

static bool less(int64_t a, int64_t b, bool sgn)
{
	return sgn ? a < b : (uint64_t)a < (uint64_t)b;
}

/* a - b wrapping like bpftrace's int64 distance(), without C's overflow */
static int64_t dist(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static void print_num(FILE *f, int64_t v, bool sgn, int width, bool left)
{
	char buf[32];

	if (sgn)
		snprintf(buf, sizeof(buf), "%" PRId64, v);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v);
	fprintf(f, left ? "%-*s" : "%*s", width, buf);
}

/* bpftrace's util::duration_str(): digits of the fraction and the unit's name */
static int time_unit(uint64_t ns, const char **name)
{
	if (ns >= 1000000000ull)
		return *name = "s", 0;
	if (ns >= 1000000ull)
		return *name = "ms", 3;
	if (ns >= 1000ull)
		return *name = "\xce\xbcs", 6; /* μs */
	return *name = "ns", 9;
}

static void print_time(FILE *f, uint64_t ns, int digits)
{
	time_t t = (time_t)(ns / 1000000000ull);
	uint64_t frac = (uint64_t)(ns % 1000000000ull);
	struct tm tm;
	char buf[64];

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fputs(buf, f);
	for (int d = 9; d > digits; d--)
		frac /= 10;
	if (digits)
		fprintf(f, ".%0*" PRIu64, digits, frac);
}

static void print_bounds(FILE *f, int width, int64_t lo, int64_t hi, bool sgn)
{
	fprintf(f, "%*s", width, "");
	print_num(f, lo, sgn, PADDING, true);
	print_num(f, hi, sgn, GRAPH_WIDTH - PADDING, false);
	fputc('\n', f);
}

/* The graph of one key's rows (bpftrace's TextEmitter<TimeSeries>), or
 * "<no data>"; no newline after the last line's. */
void sp_tseries_text(FILE *f, const struct sp_mapdata *m, const struct sp_tsrow *r, int n)
{
	bool sgn = m->map ? m->map->value.is_signed : true;
	uint64_t iv = m->map && m->map->lhist_min > 0 ? (uint64_t)m->map->lhist_min : 1;
	int64_t lo, hi;
	int digits, tsize, zero = 0, at;
	const char *unit;
	char line[GRAPH_WIDTH + 1], fmt[32];

	if (n == 0) {
		fputs("<no data>", f);
		return;
	}
	lo = hi = r[0].v;
	for (int i = 0; i < n; i++) {
		if (!r[i].have)
			continue;
		lo = less(r[i].v, lo, sgn) ? r[i].v : lo;
		hi = less(hi, r[i].v, sgn) ? r[i].v : hi;
	}
	if (lo == hi) { /* room on both sides, short of the type's bounds */
		if (sgn ? lo > INT64_MIN : (uint64_t)lo > 0)
			lo--;
		if (sgn ? hi < INT64_MAX : (uint64_t)hi < UINT64_MAX)
			hi++;
	}
	digits = time_unit((r[n - 1].epoch - r[0].epoch) * iv / (uint64_t)(n > 1 ? n - 1 : 1), &unit);
	tsize = 8 + (digits ? 1 + digits : 0);
	snprintf(fmt, sizeof(fmt), "hh:mm:ss%s%s", digits ? "." : "", digits ? unit : "");
	print_bounds(f, tsize + 1, lo, hi, sgn);
	memset(line, '_', GRAPH_WIDTH - 2);
	line[GRAPH_WIDTH - 2] = '\0';
	fprintf(f, "%-*s|%s|\n", tsize + 1, fmt, line);
	if (sgn && lo < 0 && hi > 0)
		zero = (int)((float)GRAPH_WIDTH * (float)lo / (float)dist(lo, hi));
	for (int i = 0; i < n; i++) {
		memset(line, ' ', GRAPH_WIDTH);
		line[GRAPH_WIDTH] = '\0';
		line[0] = line[GRAPH_WIDTH - 1] = '|';
		if (zero > 0)
			line[zero] = '.';
		print_time(f, r[i].epoch * iv, digits);
		fputc(' ', f);
		if (!r[i].have) {
			fprintf(f, "%s -\n", line);
			continue;
		}
		at = (int)((float)(GRAPH_WIDTH - 1) * (float)dist(lo, r[i].v) / (float)dist(lo, hi));
		line[at < 0 ? 0 : at > GRAPH_WIDTH - 1 ? GRAPH_WIDTH - 1 : at] = '*';
		fprintf(f, "%s ", line);
		print_num(f, r[i].v, sgn, 0, true);
		fputc('\n', f);
	}
	memset(line, '_', GRAPH_WIDTH);
	line[0] = line[GRAPH_WIDTH - 1] = 'v';
	fprintf(f, "%*s %s\n", tsize, "", line);
	fprintf(f, "%*s ", tsize, "");
	print_num(f, lo, sgn, PADDING, true);
	print_num(f, hi, sgn, GRAPH_WIDTH - PADDING, false);
	fputc('\n', f);
}

/* One key's rows as JSON: [{"interval_start": "UTC time", "value": v}, ...],
 * gaps left out. */
void sp_tseries_json(FILE *f, const struct sp_mapdata *m, const struct sp_tsrow *r, int n)
{
	bool sgn = m->map ? m->map->value.is_signed : true;
	uint64_t iv = m->map && m->map->lhist_min > 0 ? (uint64_t)m->map->lhist_min : 1;
	bool first = true;

	fputc('[', f);
	for (int i = 0; i < n; i++) {
		uint64_t ns = r[i].epoch * iv;
		time_t t = (time_t)(ns / 1000000000ull);
		struct tm tm;
		char buf[64];

		if (!r[i].have)
			continue;
		gmtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, "%s{\"interval_start\": \"%s.%09" PRIu64 "\", \"value\": ", first ? "" : ", ",
			buf, (uint64_t)(ns % 1000000000ull));
		print_num(f, r[i].v, sgn, 0, true);
		fputc('}', f);
		first = false;
	}
	fputc(']', f);
}
