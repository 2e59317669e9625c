/* codegen/plan_io.c: a plan (abi/plan.h) to bytes and back, for the script cache.
 *
 * A warm start of a script already compiled on this kernel by this binary
 * loads the BPF object from the object cache; the plan is the other half
 * of codegen's answer, so it is stored beside it (codegen/codegen.c,
 * script_get/script_put) and the start does no LLVM work at all.
 *
 * The format is private to one build of sprof (the cache key holds the
 * binary's build id): little-endian words and length-prefixed strings in
 * the order of the structs' fields. The reader checks every length against
 * what is left and fails on any excess, so a damaged entry is a miss.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"

#define PLAN_MAGIC 0x73706c31u /* "spl1" */
#define FIELD_DEPTH 64          /* nested tuples and records; sema stops far earlier */
#define NO_STR 0xffffffffu

struct wbuf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
};

static void put(struct wbuf *w, const void *v, size_t n)
{
	if (w->oom)
		return;
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap : 1024;
		unsigned char *np;

		while (cap < w->n + n)
			cap *= 2;
		np = realloc(w->p, cap);
		if (!np) {
			w->oom = true;
			return;
		}
		w->p = np;
		w->cap = cap;
	}
	memcpy(w->p + w->n, v, n);
	w->n += n;
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	put(w, &v, sizeof(v));
}

static void put_str(struct wbuf *w, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : NO_STR;

	put(w, &n, sizeof(n));
	if (s)
		put(w, s, n);
}

static void put_field(struct wbuf *w, const struct sp_plan_field *f)
{
	put_u64(w, (uint64_t)f->kind);
	put_u64(w, f->offset);
	put_u64(w, f->size);
	put_u64(w, f->is_signed);
	put_u64(w, (uint64_t)(int64_t)f->stack_limit);
	put_u64(w, (uint64_t)(int64_t)f->stack_mode);
	put_u64(w, f->bit_off | (uint64_t)f->bit_size << 8);
	put_str(w, f->fmt);
	put_str(w, f->name);
	put_str(w, f->member);
	put_u64(w, (uint64_t)f->nelems);
	for (int i = 0; i < f->nelems; i++)
		put_field(w, &f->elems[i]);
}

static void put_probe(struct wbuf *w, const struct sp_plan_probe *p)
{
	put_u64(w, (uint64_t)p->type);
	put_str(w, p->spec);
	put_str(w, p->prog);
	put_str(w, p->target);
	put_str(w, p->func);
	put_str(w, p->ns);
	put_str(w, p->unit);
	put_u64(w, p->value);
	put_u64(w, p->offset);
	put_u64(w, p->has_value | p->has_offset << 1 | p->is_addr << 2 | p->uses_names << 3 |
		   p->sleepable << 4);
	put_u64(w, p->line | (uint64_t)p->col << 32);
	put_u64(w, (uint64_t)(int64_t)p->block);
}

static void put_map(struct wbuf *w, const struct sp_plan_map *m)
{
	put_str(w, m->name);
	put_str(w, m->bpf_name);
	put_u64(w, (uint64_t)(int64_t)m->agg);
	put_field(w, &m->key);
	put_field(w, &m->value);
	put_u64(w, m->key_size | (uint64_t)m->value_size << 32);
	put_u64(w, m->percpu | m->drain << 1);
	put_u64(w, (uint64_t)m->lhist_min);
	put_u64(w, (uint64_t)m->lhist_max);
	put_u64(w, (uint64_t)m->lhist_step);
	put_str(w, m->drops_name);
	put_u64(w, m->declared_max);
}

int sp_plan_to_bytes(const struct sp_plan *p, void **out, size_t *len)
{
	struct wbuf w = { 0 };
	uint32_t magic = PLAN_MAGIC;

	put(&w, &magic, sizeof(magic));
	put_u64(&w, (uint64_t)p->nprobes);
	for (int i = 0; i < p->nprobes; i++)
		put_probe(&w, &p->probes[i]);
	put_u64(&w, (uint64_t)p->nmaps);
	for (int i = 0; i < p->nmaps; i++)
		put_map(&w, &p->maps[i]);
	put_u64(&w, (uint64_t)p->nprintfs);
	for (int i = 0; i < p->nprintfs; i++) {
		put_str(&w, p->printfs[i].fmt);
		put_field(&w, &p->printfs[i].args);
	}
	put_u64(&w, p->uses_ustack | p->uses_kstack << 1);
	put_u64(&w, (uint64_t)(int64_t)p->cookie_fallbacks);
	if (w.oom) {
		free(w.p);
		return -ENOMEM;
	}
	*out = w.p;
	*len = w.n;
	return 0;
}

/* ---- reading ------------------------------------------------------------------ */

struct rbuf {
	const unsigned char *p;
	size_t n, at;
	bool bad;
};

static void get(struct rbuf *r, void *v, size_t n)
{
	if (r->bad || n > r->n - r->at) {
		r->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, r->p + r->at, n);
	r->at += n;
}

static uint64_t get_u64(struct rbuf *r)
{
	uint64_t v;

	get(r, &v, sizeof(v));
	return v;
}

/* A count of things each at least `min` bytes long: no more than what is left. */
static int get_count(struct rbuf *r, size_t min)
{
	uint64_t v = get_u64(r);

	if (v > (r->n - r->at) / min || v > INT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (int)v;
}

static char *get_str(struct rbuf *r)
{
	uint32_t n;
	char *s;

	get(r, &n, sizeof(n));
	if (r->bad || n == NO_STR)
		return NULL;
	if (n > r->n - r->at) {
		r->bad = true;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		r->bad = true;
		return NULL;
	}
	memcpy(s, r->p + r->at, n);
	s[n] = '\0';
	r->at += n;
	return s;
}

static void get_field(struct rbuf *r, struct sp_plan_field *f, int depth)
{
	uint64_t bits;

	f->kind = (enum sp_field_kind)get_u64(r);
	f->offset = (uint32_t)get_u64(r);
	f->size = (uint32_t)get_u64(r);
	f->is_signed = get_u64(r) != 0;
	f->stack_limit = (int)(int64_t)get_u64(r);
	f->stack_mode = (int)(int64_t)get_u64(r);
	bits = get_u64(r);
	f->bit_off = (uint8_t)bits;
	f->bit_size = (uint8_t)(bits >> 8);
	f->fmt = get_str(r);
	f->name = get_str(r);
	f->member = get_str(r);
	f->nelems = get_count(r, 8);
	if (f->nelems && depth >= FIELD_DEPTH)
		r->bad = true;
	if (r->bad || !f->nelems) {
		f->nelems = 0;
		return;
	}
	f->elems = calloc((size_t)f->nelems, sizeof(*f->elems));
	if (!f->elems) {
		f->nelems = 0;
		r->bad = true;
		return;
	}
	for (int i = 0; i < f->nelems; i++)
		get_field(r, &f->elems[i], depth + 1);
}

static void get_probe(struct rbuf *r, struct sp_plan_probe *p)
{
	uint64_t bits, lc;

	p->type = (enum sp_probe_type)get_u64(r);
	if ((unsigned)p->type >= SP_PROBE__COUNT)
		r->bad = true;
	p->spec = get_str(r);
	p->prog = get_str(r);
	p->target = get_str(r);
	p->func = get_str(r);
	p->ns = get_str(r);
	p->unit = get_str(r);
	p->value = get_u64(r);
	p->offset = get_u64(r);
	bits = get_u64(r);
	p->has_value = bits & 1;
	p->has_offset = bits >> 1 & 1;
	p->is_addr = bits >> 2 & 1;
	p->uses_names = bits >> 3 & 1;
	p->sleepable = bits >> 4 & 1;
	lc = get_u64(r);
	p->line = (uint32_t)lc;
	p->col = (uint32_t)(lc >> 32);
	p->block = (int)(int64_t)get_u64(r);
}

static void get_map(struct rbuf *r, struct sp_plan_map *m)
{
	uint64_t v;

	m->name = get_str(r);
	m->bpf_name = get_str(r);
	m->agg = (int)(int64_t)get_u64(r);
	get_field(r, &m->key, 0);
	get_field(r, &m->value, 0);
	v = get_u64(r);
	m->key_size = (uint32_t)v;
	m->value_size = (uint32_t)(v >> 32);
	v = get_u64(r);
	m->percpu = v & 1;
	m->drain = v >> 1 & 1;
	m->lhist_min = (int64_t)get_u64(r);
	m->lhist_max = (int64_t)get_u64(r);
	m->lhist_step = (int64_t)get_u64(r);
	m->drops_name = get_str(r);
	m->declared_max = (uint32_t)get_u64(r);
}

/* calloc'd room for n things, or NULL (then r is bad unless n is 0) */
static void *get_array(struct rbuf *r, int n, size_t size)
{
	void *v;

	if (r->bad || n == 0)
		return NULL;
	v = calloc((size_t)n, size);
	if (!v)
		r->bad = true;
	return v;
}

struct sp_plan *sp_plan_from_bytes(const void *bytes, size_t len)
{
	struct rbuf r = { bytes, len, 0, false };
	struct sp_plan *p = calloc(1, sizeof(*p));
	uint32_t magic;
	uint64_t flags;
	int n;

	if (!p)
		return NULL;
	get(&r, &magic, sizeof(magic));
	if (magic != PLAN_MAGIC)
		r.bad = true;
	n = get_count(&r, 8);
	if ((p->probes = get_array(&r, n, sizeof(*p->probes))))
		for (; p->nprobes < n && !r.bad; p->nprobes++)
			get_probe(&r, &p->probes[p->nprobes]);
	n = get_count(&r, 8);
	if ((p->maps = get_array(&r, n, sizeof(*p->maps))))
		for (; p->nmaps < n && !r.bad; p->nmaps++)
			get_map(&r, &p->maps[p->nmaps]);
	n = get_count(&r, 8);
	if ((p->printfs = get_array(&r, n, sizeof(*p->printfs))))
		for (; p->nprintfs < n && !r.bad; p->nprintfs++) {
			p->printfs[p->nprintfs].fmt = get_str(&r);
			get_field(&r, &p->printfs[p->nprintfs].args, 0);
		}
	flags = get_u64(&r);
	p->uses_ustack = flags & 1;
	p->uses_kstack = flags >> 1 & 1;
	p->cookie_fallbacks = (int)(int64_t)get_u64(&r);
	if (r.bad || r.at != r.n) {
		sp_plan_free(p);
		errno = EBADMSG;
		return NULL;
	}
	return p;
}
