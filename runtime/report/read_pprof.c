/* runtime/report/read_pprof.c: a pprof profile.proto read back, for `sprof diff`.
 *
 * The decoding half of pprof.c's hand-written encoder: gunzip with zlib when
 * the bytes start with gzip's magic, then walk the protobuf wire format
 * (varints and length-delimited fields; fixed32/64 fields are skipped). Only
 * what a flame graph needs is kept: the string table, functions (name),
 * mappings (file name, for frames without a function), locations (mapping
 * and the functions of their lines, inlined ones first as pprof orders them)
 * and samples (location ids leaf first, the first value as the weight).
 * Field numbers as in tests/data/profile.proto. Works for sprof's own files
 * and for Go's and other producers' profiles; labels are ignored.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/log.h"
#include "runtime/report/input.h"
#include "base/vec.h"

enum { P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5, P_STRING = 6 };

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			break;
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* Next field: its number and wire type; a length-delimited one's bytes in
 * *sub, a varint's value in *v. false at the end or on bad input. */
static bool rd_field(struct rd *r, int *field, struct rd *sub, uint64_t *v)
{
	uint64_t key, len;

	if (r->bad || r->p >= r->end)
		return false;
	key = rd_varint(r);
	*field = (int)(key >> 3);
	*sub = (struct rd){ 0 };
	*v = 0;
	switch (key & 7) {
	case 0:
		*v = rd_varint(r);
		break;
	case 1:
		r->bad |= r->end - r->p < 8;
		r->p += r->bad ? 0 : 8;
		break;
	case 2:
		len = rd_varint(r);
		if (len > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			break;
		}
		*sub = (struct rd){ .p = r->p, .end = r->p + len };
		r->p += len;
		break;
	case 5:
		r->bad |= r->end - r->p < 4;
		r->p += r->bad ? 0 : 4;
		break;
	default:
		r->bad = true;
	}
	return !r->bad;
}

/* A repeated uint64 field, packed (sub set) or one plain varint. */
static int push_u64s(uint64_t **v, int *n, int *cap, struct rd *sub, uint64_t one)
{
	if (!sub->p) {
		if (SP_GROW(*v, *cap, *n + 1, 16))
			return -ENOMEM;
		(*v)[(*n)++] = one;
		return 0;
	}
	while (sub->p < sub->end && !sub->bad) {
		uint64_t x = rd_varint(sub);

		if (SP_GROW(*v, *cap, *n + 1, 16))
			return -ENOMEM;
		(*v)[(*n)++] = x;
	}
	return sub->bad ? -EINVAL : 0;
}

struct idrec {
	uint64_t id;
	uint64_t a;          /* function: name; mapping: file name; location: mapping */
	uint64_t *funcs;     /* location: function ids of its lines */
	int nfuncs, cap;
};

struct pp {
	struct rd *strs;     /* string table entries */
	int nstrs, cstrs;
	struct idrec *fns, *maps, *locs;
	int nfns, cfns, nmaps, cmaps, nlocs, clocs;
	struct rd *samples;
	int nsamples, csamples;
};

/* A location's Line message: the function id goes to rec->funcs. */
static int line_func(struct idrec *rec, struct rd line)
{
	uint64_t fn = 0, x;
	struct rd sub;
	int f;

	while (rd_field(&line, &f, &sub, &x))
		if (f == 1)
			fn = x;
	if (!fn)
		return 0;
	return push_u64s(&rec->funcs, &rec->nfuncs, &rec->cap, &(struct rd){ 0 }, fn);
}

/* A function, mapping or location: its id, the field `afield` (function
 * name 2, mapping file name 5, location mapping id 2) and, for locations,
 * the functions of its lines. */
static int add_rec(struct idrec **v, int *n, int *cap, struct rd msg, int afield, bool loc)
{
	struct idrec rec = { 0 };
	struct rd sub;
	uint64_t x;
	int f, err = 0;

	while (!err && rd_field(&msg, &f, &sub, &x)) {
		if (f == 1)
			rec.id = x;
		else if (f == afield && !sub.p)
			rec.a = x;
		else if (f == 4 && loc)
			err = line_func(&rec, sub);
	}
	if (!err && msg.bad)
		err = -EINVAL;
	if (!err && SP_GROW(*v, *cap, *n + 1, 64))
		err = -ENOMEM;
	if (err) {
		free(rec.funcs);
		return err;
	}
	(*v)[(*n)++] = rec;
	return 0;
}

static int top_level(struct pp *pp, struct rd r)
{
	struct rd sub;
	uint64_t x;
	int f, err = 0;

	while (!err && rd_field(&r, &f, &sub, &x)) {
		switch (f) {
		case P_SAMPLE:
			err = SP_GROW(pp->samples, pp->csamples, pp->nsamples + 1, 256);
			if (!err)
				pp->samples[pp->nsamples++] = sub;
			break;
		case P_MAPPING:
			err = add_rec(&pp->maps, &pp->nmaps, &pp->cmaps, sub, 5, false);
			break;
		case P_LOCATION:
			err = add_rec(&pp->locs, &pp->nlocs, &pp->clocs, sub, 2, true);
			break;
		case P_FUNCTION:
			err = add_rec(&pp->fns, &pp->nfns, &pp->cfns, sub, 2, false);
			break;
		case P_STRING:
			err = SP_GROW(pp->strs, pp->cstrs, pp->nstrs + 1, 256);
			if (!err)
				pp->strs[pp->nstrs++] = sub;
			break;
		}
	}
	return err ? err : r.bad ? -EINVAL : 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct idrec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static const struct idrec *rec_find(const struct idrec *v, int n, uint64_t id)
{
	struct idrec key = { .id = id };

	return id && n ? bsearch(&key, v, n, sizeof(*v), rec_cmp) : NULL;
}

/* String i of the table as a malloc'd C string ("" when out of range). */
static char *str_at(const struct pp *pp, uint64_t i)
{
	if (i >= (uint64_t)pp->nstrs)
		return strdup("");
	return strndup((const char *)pp->strs[i].p, pp->strs[i].end - pp->strs[i].p);
}

/* "[file name]" of a location's mapping, or "[unknown]". */
static char *module_name(const struct pp *pp, const struct idrec *loc)
{
	const struct idrec *m = rec_find(pp->maps, pp->nmaps, loc->a);
	char *file = m ? str_at(pp, m->a) : NULL, *base, *out = NULL;

	if (file && *file) {
		base = strrchr(file, '/');
		base = base ? base + 1 : file;
		out = malloc(strlen(base) + 3);
		if (out)
			sprintf(out, base[0] == '[' ? "%s" : "[%s]", base);
	} else {
		out = strdup("[unknown]");
	}
	free(file);
	return out;
}

struct names {
	char **v;
	int n, cap;
};

static int names_push(struct names *nm, char *s)
{
	if (!s || SP_GROW(nm->v, nm->cap, nm->n + 1, 32)) {
		free(s);
		return -ENOMEM;
	}
	nm->v[nm->n++] = s;
	return 0;
}

/* A location's frames, pushed leaf first (its lines in pprof's order). */
static int loc_names(const struct pp *pp, uint64_t id, struct names *nm)
{
	const struct idrec *loc = rec_find(pp->locs, pp->nlocs, id);
	int err = 0;

	if (!loc)
		return names_push(nm, strdup("[unknown]"));
	if (loc->nfuncs == 0)
		return names_push(nm, module_name(pp, loc));
	for (int i = 0; i < loc->nfuncs && !err; i++) {
		const struct idrec *fn = rec_find(pp->fns, pp->nfns, loc->funcs[i]);

		err = names_push(nm, fn ? str_at(pp, fn->a) : strdup("[unknown]"));
	}
	return err;
}

static int add_sample(const struct pp *pp, struct rd s, struct sp_stacks *out)
{
	uint64_t *locs = NULL, *vals = NULL, x;
	int nl = 0, cl = 0, nv = 0, cv = 0, f, err = 0;
	struct names nm = { 0 };
	struct rd sub;

	while (!err && rd_field(&s, &f, &sub, &x)) {
		if (f == 1)
			err = push_u64s(&locs, &nl, &cl, &sub, x);
		else if (f == 2)
			err = push_u64s(&vals, &nv, &cv, &sub, x);
	}
	err = err ? err : s.bad ? -EINVAL : 0;
	for (int i = 0; !err && i < nl; i++)
		err = loc_names(pp, locs[i], &nm);
	for (int i = 0; i < nm.n / 2; i++) { /* leaf first -> root first */
		char *t = nm.v[i];

		nm.v[i] = nm.v[nm.n - 1 - i];
		nm.v[nm.n - 1 - i] = t;
	}
	if (!err && nm.n && nv && (int64_t)vals[0] > 0)
		err = sp_stacks_add(out, nm.v, nm.n, vals[0]);
	for (int i = 0; i < nm.n; i++)
		free(nm.v[i]);
	free(nm.v);
	free(locs);
	free(vals);
	return err;
}

static int gunzip(const uint8_t *d, size_t n, uint8_t **out, size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap = n * 4 + 4096, len = 0;
	uint8_t *buf = malloc(cap);
	int zr = Z_OK;

	if (!buf || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	z.next_in = (uint8_t *)d;
	z.avail_in = (uInt)n;
	while (zr == Z_OK) {
		if (len == cap && SP_GROW(buf, cap, cap * 2, 4096)) {
			zr = Z_MEM_ERROR;
			break;
		}
		z.next_out = buf + len;
		z.avail_out = (uInt)(cap - len);
		zr = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		if (zr == Z_BUF_ERROR && z.avail_in)
			zr = Z_OK; /* output full: grow and go on */
	}
	inflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(buf);
		return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

static void pp_free(struct pp *pp)
{
	struct idrec *all[] = { pp->fns, pp->maps, pp->locs };
	int ns[] = { pp->nfns, pp->nmaps, pp->nlocs };

	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < ns[k]; i++)
			free(all[k][i].funcs);
		free(all[k]);
	}
	free(pp->strs);
	free(pp->samples);
}

int sp_read_pprof(const char *path, const uint8_t *data, size_t len, struct sp_stacks *out)
{
	uint8_t *raw = NULL;
	size_t rawlen = len;
	struct pp pp = { 0 };
	int err = 0;

	if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		err = gunzip(data, len, &raw, &rawlen);
	if (!err)
		err = top_level(&pp, (struct rd){ .p = raw ? raw : data, .end = (raw ? raw : data) + rawlen });
	if (!err) {
		qsort(pp.fns, pp.nfns, sizeof(*pp.fns), rec_cmp);
		qsort(pp.maps, pp.nmaps, sizeof(*pp.maps), rec_cmp);
		qsort(pp.locs, pp.nlocs, sizeof(*pp.locs), rec_cmp);
	}
	for (int i = 0; !err && i < pp.nsamples; i++)
		err = add_sample(&pp, pp.samples[i], out);
	if (err == -EINVAL)
		sp_err("'%s' is not a pprof profile (bad %s)\n", path,
		       raw || len < 2 || data[0] != 0x1f ? "protobuf" : "gzip data");
	else if (err)
		sp_err("cannot read '%s': %s\n", path, strerror(-err));
	pp_free(&pp);
	free(raw);
	return err;
}
