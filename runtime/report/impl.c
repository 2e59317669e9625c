/* runtime/report/impl.c: small helpers over the profile model, shared by every
 * report writer (see runtime/report/impl.h): entry weights and print order,
 * frame names, string interning, and the text pieces shared by text and
 * json. Written once so every format agrees.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/impl.h"
#include "base/hash.h"

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_s64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static uint64_t bucket_total(const struct sp_value *v)
{
	uint64_t t = 0;

	for (int i = 0; i < v->nbuckets; i++)
		t += v->buckets[i];
	return t;
}

uint64_t sp_entry_weight(const struct sp_entry *e)
{
	if (e->val.nbuckets > 0 && e->val.buckets)
		return bucket_total(&e->val);
	if (e->val.count > 0)
		return e->val.count;
	if (e->val.plain.kind == SP_F_INT && e->val.v == 0)
		return e->val.plain.i > 0 ? (uint64_t)e->val.plain.i : 0;
	return e->val.v > 0 ? (uint64_t)e->val.v : 0;
}

/* The file name without its directories. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static int control_len(const unsigned char *p)
{
	if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
		return 1;
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f ? 2 : 0;
}

bool sp_text_needs_escape(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (control_len(p))
			return true;
	return false;
}

const char *sp_text_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && o + 1 < len; p++) {
		int n = control_len(p);

		if (!n) {
			buf[o++] = (char)*p;
			continue;
		}
		for (int i = 0; i < n && o + 5 <= len; i++, o += 4)
			snprintf(buf + o, 5, "\\x%02x", p[i]);
		p += n - 1;
		if (o + 5 > len)
			break;
	}
	if (len)
		buf[o] = '\0';
	return buf;
}

void sp_text_safe(FILE *f, const char *s)
{
	size_t cap = strlen(s) * 4 + 1;
	char *buf = sp_text_needs_escape(s) ? malloc(cap) : NULL;

	fputs(buf ? sp_text_escape(s, buf, cap) : s, f);
	free(buf);
}

static const char *frame_text(const struct sp_frame *f, char *buf, size_t len);

const char *sp_frame_text(const struct sp_frame *f, char *buf, size_t len)
{
	char raw[512];

	frame_text(f, raw, sizeof(raw));
	if (!sp_text_needs_escape(raw)) {
		snprintf(buf, len, "%s", raw);
		return buf;
	}
	return sp_text_escape(raw, buf, len);
}

static const char *frame_text(const struct sp_frame *f, char *buf, size_t len)
{
	if (f->kind == SP_FRAME_INTERP && f->sym && f->srcfile && f->srcline > 0)
		snprintf(buf, len, "%s (%s:%d)", f->sym, base_name(f->srcfile), f->srcline);
	else if (f->kind == SP_FRAME_INTERP && f->sym && f->srcfile)
		snprintf(buf, len, "%s (%s)", f->sym, base_name(f->srcfile));
	else if (f->sym && f->inlined)
		snprintf(buf, len, "%s (inlined)", f->sym);
	else if (f->sym && (f->kind == SP_FRAME_INTERP || f->kind == SP_FRAME_UNKNOWN)) /* [truncated] is a mark */
		snprintf(buf, len, "%s", f->sym);
	else if (f->sym)
		snprintf(buf, len, "%s+%" PRIu64, f->sym, f->off);
	else
		snprintf(buf, len, "0x%" PRIx64, f->addr);
	return buf;
}

const char *sp_frame_func(const struct sp_frame *f, char *buf, size_t len)
{
	const char *base;

	if (f->kind == SP_FRAME_INTERP && f->sym && f->srcfile) {
		snprintf(buf, len, "%s (%s)", f->sym, base_name(f->srcfile));
		return buf;
	}
	if (f->sym)
		return f->sym;
	if (!f->module || !*f->module || f->kind == SP_FRAME_KERNEL)
		return "[unknown]";
	base = strrchr(f->module, '/');
	base = base && base[1] ? base + 1 : f->module;
	snprintf(buf, len, base[0] == '[' ? "%s" : "[%s]", base);
	return buf;
}

/* --- print order ------------------------------------------------------------ */

static int64_t avg_of(const struct sp_value *v)
{
	if (v->count == 0)
		return v->v;
	return v->total / (int64_t)v->count;
}

static int sp_kval_cmp(const struct sp_kval *a, const struct sp_kval *b);

static int stack_cmp(const struct sp_stack *a, const struct sp_stack *b)
{
	int na = a ? a->n : 0, nb = b ? b->n : 0;

	for (int i = 0; i < na && i < nb; i++) {
		int c = cmp_u64(a->frames[i].addr, b->frames[i].addr);
		if (c)
			return c;
	}
	return (na > nb) - (na < nb);
}

static int sp_kval_cmp(const struct sp_kval *a, const struct sp_kval *b)
{
	if (a->kind != b->kind)
		return (a->kind > b->kind) - (a->kind < b->kind);
	switch (a->kind) {
	case SP_F_INT:
	case SP_F_USYM:
	case SP_F_KSYM:
		if (a->is_signed)
			return cmp_s64(a->i, b->i);
		return cmp_u64((uint64_t)a->i, (uint64_t)b->i);
	case SP_F_STR:
	case SP_F_BUF:
		return strcmp(a->s ? a->s : "", b->s ? b->s : "");
	case SP_F_USTACK:
	case SP_F_KSTACK:
		return stack_cmp(a->stack, b->stack);
	case SP_F_TUPLE:
		for (int i = 0; i < a->n && i < b->n; i++) {
			int c = sp_kval_cmp(&a->elems[i], &b->elems[i]);
			if (c)
				return c;
		}
		return (a->n > b->n) - (a->n < b->n);
	default:
		return 0;
	}
}

/* bpftrace sorts integer-valued maps by value, hist/lhist by total count,
 * avg/stats by average; everything else by key. Ties go by key so output
 * is stable. */
static int value_cmp(int agg, const struct sp_entry *a, const struct sp_entry *b)
{
	switch (agg) {
	case SP_AGG_HIST:
	case SP_AGG_LHIST:
		return cmp_u64(bucket_total(&a->val), bucket_total(&b->val));
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		return cmp_s64(avg_of(&a->val), avg_of(&b->val));
	case SP_AGG_NONE:
		if (a->val.plain.kind != SP_F_INT)
			return 0;
		if (a->val.plain.is_signed)
			return cmp_s64(a->val.plain.i, b->val.plain.i);
		return cmp_u64((uint64_t)a->val.plain.i, (uint64_t)b->val.plain.i);
	default:
		return cmp_s64(a->val.v, b->val.v);
	}
}

static int entry_cmp(int agg, const struct sp_entry *a, const struct sp_entry *b)
{
	int c = value_cmp(agg, a, b);

	return c ? c : sp_kval_cmp(&a->key, &b->key);
}

/* A small merge sort: qsort has no context argument in C11. */
static void sort_entries(int agg, const struct sp_entry **v, const struct sp_entry **tmp, int n)
{
	int h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sort_entries(agg, v, tmp, h);
	sort_entries(agg, v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = entry_cmp(agg, v[j], v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

const struct sp_entry **sp_sorted_entries(const struct sp_mapdata *m, int top, int *n)
{
	const struct sp_entry **v, **tmp;
	int agg = m->map ? m->map->agg : SP_AGG_COUNT;

	v = calloc(m->n + 1, sizeof(*v));
	tmp = calloc(m->n + 1, sizeof(*tmp));
	if (!v || !tmp) {
		free(v);
		free(tmp);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < m->n; i++)
		v[i] = &m->entries[i];
	sort_entries(agg, v, tmp, m->n);
	free(tmp);
	*n = m->n;
	if (top > 0 && top < m->n) {
		memmove(v, v + (m->n - top), top * sizeof(*v));
		*n = top;
	}
	return v;
}

void sp_bucket_span(const struct sp_value *v, int *lo, int *hi)
{
	*lo = 0;
	*hi = -1;
	for (int i = 0; i < v->nbuckets; i++) {
		if (v->buckets[i] == 0)
			continue;
		if (*hi < 0)
			*lo = i;
		*hi = i;
	}
}

void sp_lhist_bounds(const struct sp_mapdata *m, const struct sp_value *v, int64_t *min,
		     int64_t *step, int64_t *max)
{
	*min = m->map ? m->map->lhist_min : 0;
	*step = m->map && m->map->lhist_step > 0 ? m->map->lhist_step : 1;
	*max = m->map ? m->map->lhist_max : v->nbuckets - 2;
}

static const char *map_name(const struct sp_mapdata *m)
{
	return m->map && m->map->name ? m->map->name : "@";
}

const struct sp_mapdata **sp_sorted_maps(const struct sp_profile *p, const char *filter, int *n)
{
	const struct sp_mapdata **v = calloc(p->nmaps + 1, sizeof(*v));
	int k = 0;

	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < p->nmaps; i++) {
		const struct sp_mapdata *m = &p->maps[i];
		int j = k;

		if (filter && strcmp(filter, map_name(m)) != 0)
			continue;
		while (j > 0 && strcmp(map_name(v[j - 1]), map_name(m)) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = m;
		k++;
	}
	*n = k;
	return v;
}

static bool field_has_stack(const struct sp_plan_field *f)
{
	if (f->kind == SP_F_USTACK || f->kind == SP_F_KSTACK)
		return true;
	for (int i = 0; f->kind == SP_F_TUPLE && i < f->nelems; i++)
		if (field_has_stack(&f->elems[i]))
			return true;
	return false;
}

static bool kval_has_stack(const struct sp_kval *k)
{
	if (k->kind == SP_F_USTACK || k->kind == SP_F_KSTACK)
		return true;
	for (int i = 0; k->kind == SP_F_TUPLE && i < k->n; i++)
		if (kval_has_stack(&k->elems[i]))
			return true;
	return false;
}

bool sp_map_has_stack(const struct sp_mapdata *m)
{
	if (m->map)
		return field_has_stack(&m->map->key);
	return m->n > 0 && kval_has_stack(&m->entries[0].key);
}

bool sp_map_is_flame(const struct sp_mapdata *m)
{
	int agg = m->map ? m->map->agg : SP_AGG_COUNT;

	if (sp_map_has_stack(m))
		return true;
	return m->map && m->map->key.kind != SP_F_NONE && (agg == SP_AGG_COUNT || agg == SP_AGG_SUM);
}

const struct sp_plan_field *sp_key_field(const struct sp_mapdata *m, int i)
{
	const struct sp_plan_field *k = m->map ? &m->map->key : NULL;

	if (!k)
		return NULL;
	if (i < 0)
		return k;
	if (k->kind == SP_F_TUPLE)
		return i < k->nelems ? &k->elems[i] : NULL;
	return i == 0 ? k : NULL;
}

/* --- interning: string keys -> 1-based ids ------------------------------------------ */

static int intern_grow(struct sp_intern *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	char **keys = calloc(cap, sizeof(*keys));
	uint64_t *ids = calloc(cap, sizeof(*ids));

	if (!keys || !ids) {
		free(keys);
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j = sp_hash_str(t->keys[i] ? t->keys[i] : "") & (cap - 1);

		if (!t->keys[i])
			continue;
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = t->keys[i];
		ids[j] = t->ids[i];
	}
	free(t->keys);
	free(t->ids);
	t->keys = keys;
	t->ids = ids;
	t->cap = cap;
	return 0;
}

/* Returns the key's id; *fresh tells whether it was just added (id n). 0 on ENOMEM. */
uint64_t sp_intern(struct sp_intern *t, const char *key, bool *fresh)
{
	size_t j;

	*fresh = false;
	if ((t->n + 1) * 2 > t->cap && intern_grow(t))
		return 0;
	for (j = sp_hash_str(key) & (t->cap - 1); t->keys[j]; j = (j + 1) & (t->cap - 1))
		if (strcmp(t->keys[j], key) == 0)
			return t->ids[j];
	t->keys[j] = strdup(key);
	if (!t->keys[j])
		return 0;
	t->ids[j] = ++t->n;
	*fresh = true;
	return t->n;
}

void sp_intern_free(struct sp_intern *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->ids);
}

/* --- text pieces shared by text and json ------------------------------------- */

size_t sp_utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
		   : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;

	if (len == 0 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((len == 3 && s[0] == 0xe0 && s[1] < 0xa0) || (len == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (len == 4 && s[0] == 0xf4 && s[1] > 0x8f) || (len == 3 && s[0] == 0xed && s[1] > 0x9f))
		return 0; /* overlong, beyond U+10FFFF, surrogates */
	return len;
}

void sp_json_strn(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t u = c >= 0x80 ? sp_utf8_len((const unsigned char *)s + i, n - i) : 1;

		if (u == 0) {
			fputs("\\ufffd", f); /* not UTF-8: JSON readers would reject it */
		} else if (u > 1) {
			fwrite(s + i, 1, u, f);
			i += u - 1;
		} else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void sp_json_str(FILE *f, const char *s)
{
	s = s ? s : "";
	sp_json_strn(f, s, strlen(s));
}

/* An address printed where a symbol was asked for: the name when it
 * resolved, else bpftrace's "0x%lx" ("0" for a null address). */
void sp_text_addr(FILE *f, const char *name, uint64_t addr)
{
	if (name)
		sp_text_safe(f, name);
	else if (addr == 0)
		fputc('0', f);
	else
		fprintf(f, "0x%" PRIx64, addr);
}

void sp_text_int(FILE *f, const struct sp_kval *k)
{
	if (k->is_signed)
		fprintf(f, "%" PRId64, k->i);
	else
		fprintf(f, "%" PRIu64, (uint64_t)k->i);
}
