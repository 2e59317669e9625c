/* runtime/report/pprof.c: a stack map as a gzip'd pprof profile.proto.
 *
 * `go tool pprof`, Parca, Pyroscope and speedscope read this. The encoder is
 * hand-written, as Go's runtime/pprof and async-profiler do: the format is a
 * handful of varints, length-delimited strings and nested messages, built
 * bottom-up in growable buffers (a nested message is encoded first, then
 * copied in behind its length). Field numbers: shared/research/profilers.md
 * §6.4 and tests/data/profile.proto.
 *
 * Conventions (Go's CPU profiles): sample types samples/count and
 * cpu/nanoseconds, period_type cpu/nanoseconds, period 1e9/hz (for count
 * maps; a sum/min/max map has one sample type named after it); frames become
 * functions (with source file and line when known) and locations (a frame
 * and the functions inlined at it are one location, its Line entries
 * innermost first, each with its own line), modules
 * become mappings with their build ids and has_functions set, since sprof
 * has symbolized already and pprof must not try again. The key's comm, the
 * user stack's pid and other non-stack key parts become sample labels.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "runtime/report/impl.h"

#define DEFAULT_PERIOD_NS (1000000000ull / 99)
/* Line entries of one location at most: the function and up to 39 inlined
 * into it (the symbolizer gives 32 at most). */
#define LOC_LINES 40

/* --- protobuf encoding ------------------------------------------------------------ */

struct pb {
	uint8_t *d;
	size_t n, cap;
	int err;
};

static void pb_raw(struct pb *b, const void *p, size_t n)
{
	if (b->err || n == 0) /* an empty message's bytes may be NULL (memcpy: UB) */
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->n + n)
			cap *= 2;
		d = realloc(b->d, cap);
		if (!d) {
			b->err = -ENOMEM;
			return;
		}
		b->d = d;
		b->cap = cap;
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	int n = 0;

	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_raw(b, buf, n);
}

static void pb_key(struct pb *b, int field, int wire)
{
	pb_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

/* Scalars at their proto3 default (0) are left out. */
static void pb_uint(struct pb *b, int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, 0);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, int field, const void *p, size_t n)
{
	pb_key(b, field, 2);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

static void pb_msg(struct pb *b, int field, struct pb *sub)
{
	if (sub->err)
		b->err = sub->err;
	pb_bytes(b, field, sub->d, sub->n);
	sub->n = 0;
}

static void pb_packed(struct pb *b, int field, const uint64_t *v, int n)
{
	struct pb t = { 0 };

	for (int i = 0; i < n; i++)
		pb_varint(&t, v[i]);
	pb_msg(b, field, &t);
	free(t.d);
}

/* --- the profile ------------------------------------------------------------------- */

struct pprof {
	struct pb out;     /* Profile fields, in any order (protobuf allows it) */
	struct pb tmp, tmp2;
	struct sp_intern strs, funcs, locs, maps;
	int err;
};

enum { P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE,
       P_TIME = 9, P_DURATION, P_PERIOD_TYPE, P_PERIOD, P_COMMENT };

/* Index of s in the string table, adding it to the output when new. */
static uint64_t str_id(struct pprof *pp, const char *s)
{
	bool fresh;
	uint64_t id = sp_intern(&pp->strs, s ? s : "", &fresh);

	if (!id)
		pp->err = -ENOMEM;
	if (fresh)
		pb_bytes(&pp->out, P_STRING_TABLE, s ? s : "", s ? strlen(s) : 0);
	return id ? id - 1 : 0;
}

static void value_type(struct pprof *pp, int field, const char *type, const char *unit)
{
	uint64_t t = str_id(pp, type), u = str_id(pp, unit);

	pb_uint(&pp->tmp, 1, t);
	pb_uint(&pp->tmp, 2, u);
	pb_msg(&pp->out, field, &pp->tmp);
}

static uint64_t mapping_id(struct pprof *pp, const struct sp_frame *f)
{
	char key[600];
	bool fresh;
	uint64_t id, file, bid;

	if (!f->module)
		return 0;
	snprintf(key, sizeof(key), "%s|%" PRIx64 "|%" PRIx64 "|%" PRIx64, f->module, f->map_start,
		 f->map_end, f->map_pgoff);
	id = sp_intern(&pp->maps, key, &fresh);
	if (!fresh)
		return id;
	file = str_id(pp, f->module);
	bid = str_id(pp, f->build_id);
	pb_uint(&pp->tmp, 1, id);
	pb_uint(&pp->tmp, 2, f->map_start);
	pb_uint(&pp->tmp, 3, f->map_end);
	pb_uint(&pp->tmp, 4, f->map_pgoff);
	pb_uint(&pp->tmp, 5, file);
	pb_uint(&pp->tmp, 6, bid);
	pb_uint(&pp->tmp, 7, 1); /* has_functions */
	pb_uint(&pp->tmp, 8, f->srcfile ? 1 : 0);
	pb_uint(&pp->tmp, 9, f->srcline ? 1 : 0);
	pb_msg(&pp->out, P_MAPPING, &pp->tmp);
	return id;
}

static uint64_t function_id(struct pprof *pp, const struct sp_frame *f)
{
	char key[1024];
	bool fresh;
	uint64_t id, name, file;

	if (!f->sym)
		return 0;
	snprintf(key, sizeof(key), "%s|%s", f->sym, f->srcfile ? f->srcfile : "");
	id = sp_intern(&pp->funcs, key, &fresh);
	if (!fresh)
		return id;
	name = str_id(pp, f->sym);
	file = str_id(pp, f->srcfile);
	pb_uint(&pp->tmp, 1, id);
	pb_uint(&pp->tmp, 2, name);
	pb_uint(&pp->tmp, 3, name);
	pb_uint(&pp->tmp, 4, file);
	pb_msg(&pp->out, P_FUNCTION, &pp->tmp);
	return id;
}

/* One Location for a frame and the functions inlined at it: fr[0] the
 * innermost, fr[n-1] the function they were inlined into (pprof's order of
 * Line entries: the last is the caller of the others). */
static uint64_t location_id(struct pprof *pp, const struct sp_frame *const *fr, int n)
{
	const struct sp_frame *f = fr[n - 1];
	uint64_t map = mapping_id(pp, f), fn[LOC_LINES], id;
	char key[2048];
	size_t k;
	bool fresh;

	k = (size_t)snprintf(key, sizeof(key), "%" PRIx64 "|%" PRIu64, f->addr, map);
	for (int i = 0; i < n; i++) {
		fn[i] = function_id(pp, fr[i]);
		if (k < sizeof(key))
			k += (size_t)snprintf(key + k, sizeof(key) - k, "|%" PRIu64 ":%d", fn[i],
					      fr[i]->srcline);
	}
	id = sp_intern(&pp->locs, key, &fresh);
	if (!fresh)
		return id;
	pb_uint(&pp->tmp, 1, id);
	pb_uint(&pp->tmp, 2, map);
	pb_uint(&pp->tmp, 3, f->addr);
	for (int i = 0; i < n; i++) {
		if (!fn[i])
			continue;
		pb_uint(&pp->tmp2, 1, fn[i]);
		pb_uint(&pp->tmp2, 2, fr[i]->srcline > 0 ? (uint64_t)fr[i]->srcline : 0);
		pb_msg(&pp->tmp, 4, &pp->tmp2);
	}
	pb_msg(&pp->out, P_LOCATION, &pp->tmp);
	return id;
}

/* The location of path element *i (leaf side) and of the functions inlined
 * at it: inlined frames are followed, toward the root, by the frame they
 * were inlined into, at the same address. Moves *i to the last one used. */
static uint64_t path_location(struct pprof *pp, const struct sp_path *p, int *i)
{
	const struct sp_frame *g[LOC_LINES];
	int n = 0;

	g[n++] = p->el[*i].frame;
	while (g[n - 1]->inlined && n < LOC_LINES && *i > 0 && p->el[*i - 1].frame &&
	       p->el[*i - 1].frame->addr == g[0]->addr)
		g[n++] = p->el[--*i].frame;
	return location_id(pp, g, n);
}

static void label(struct pprof *pp, struct pb *sample, const char *key, const char *str, uint64_t num)
{
	uint64_t k = str_id(pp, key), s = str ? str_id(pp, str) : 0;

	pb_uint(&pp->tmp2, 1, k);
	pb_uint(&pp->tmp2, 2, s);
	pb_uint(&pp->tmp2, 3, num);
	pb_msg(sample, 3, &pp->tmp2);
}

/* period 0: one value (a sum, max, ... map); else samples and cpu time. */
static int add_sample(struct pprof *pp, const struct sp_path *p, uint64_t period, uint64_t cpu_ns)
{
	uint64_t *locs = calloc(p->n + 1, sizeof(*locs)), vals[2] = { p->weight, cpu_ns };
	struct pb s = { 0 };
	int n = 0, nlabel = 0;
	bool has_pid = false;

	if (!locs)
		return -ENOMEM;
	for (int i = p->n - 1; i >= 0; i--)
		if (p->el[i].frame)
			locs[n++] = path_location(pp, p, &i);
	for (int i = 0; i < p->n; i++) {
		char key[32];

		if (p->el[i].kind != SP_PE_LABEL)
			continue;
		snprintf(key, sizeof(key), "key%d", nlabel++);
		if (p->el[i].label && p->el[i].is_num) {
			label(pp, &s, p->el[i].label, NULL, (uint64_t)p->el[i].num);
			has_pid |= !strcmp(p->el[i].label, "pid");
		} else {
			label(pp, &s, p->el[i].label ? p->el[i].label :
				      p->comm && strcmp(p->comm, p->el[i].name) == 0 ? "comm" : key,
			      p->el[i].name, 0);
		}
	}
	if (p->pid && !has_pid)
		label(pp, &s, "pid", NULL, p->pid);
	pb_packed(&s, 1, locs, n);
	pb_packed(&s, 2, vals, period ? 2 : 1);
	pb_msg(&pp->out, P_SAMPLE, &s);
	free(s.d);
	free(locs);
	return s.err ? s.err : pp->err;
}

static const char *agg_name(int agg)
{
	static const char *const names[] = {
		"value",
#define X(k, str) str,
		SP_AGG_KINDS(X)
#undef X
	};

	return agg >= 0 && agg < (int)(sizeof(names) / sizeof(names[0])) ? names[agg] : "value";
}

static int encode(struct pprof *pp, const struct sp_profile *prof, const struct sp_mapdata *m)
{
	uint64_t period = prof->sample_period_ns ? prof->sample_period_ns : DEFAULT_PERIOD_NS;
	int agg = m->map ? m->map->agg : SP_AGG_COUNT;
	bool samples = agg == SP_AGG_COUNT || agg == SP_AGG_HIST || agg == SP_AGG_LHIST;
	char comment[256];
	int err = 0;

	str_id(pp, ""); /* string_table[0] must be "" */
	if (samples) {
		value_type(pp, P_SAMPLE_TYPE, "samples", "count");
		value_type(pp, P_SAMPLE_TYPE, "cpu", "nanoseconds");
	} else {
		/* sum(), max(), ... of something sprof knows no unit of */
		value_type(pp, P_SAMPLE_TYPE, agg == SP_AGG_NONE ? "value" : agg_name(agg), "count");
		period = 0;
	}
	for (int i = 0; i < m->n && !err; i++) {
		struct sp_path p;

		err = sp_entry_path(m, &m->entries[i], &p);
		if (err)
			break;
		if (p.weight && p.n)
			err = add_sample(pp, &p, period, prof->cpu_ns_in_total ? (uint64_t)m->entries[i].val.total :
							 p.weight * period);
		sp_path_free(&p);
	}
	pb_uint(&pp->out, P_TIME, prof->start_time_ns);
	pb_uint(&pp->out, P_DURATION, prof->duration_ns);
	if (samples) {
		value_type(pp, P_PERIOD_TYPE, "cpu", "nanoseconds");
		pb_uint(&pp->out, P_PERIOD, period);
	}
	snprintf(comment, sizeof(comment), "sprof map %s", m->map && m->map->name ? m->map->name : "@");
	pb_uint(&pp->tmp, P_COMMENT, str_id(pp, comment));
	pb_raw(&pp->out, pp->tmp.d, pp->tmp.n);
	pp->tmp.n = 0;
	return err ? err : pp->err ? pp->err : pp->out.err ? pp->out.err : pp->tmp.err;
}

/* gzip (windowBits 15 + 16) straight into the file, at the fastest level
 * like Go's runtime/pprof: profiles are written while the user waits. */
static int gzip_write(FILE *f, const uint8_t *d, size_t n)
{
	z_stream z = { 0 };
	uint8_t buf[65536];
	int zr;

	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)d;
	z.avail_in = (uInt)n;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			break;
		if (fwrite(buf, 1, sizeof(buf) - z.avail_out, f) != sizeof(buf) - z.avail_out) {
			zr = Z_ERRNO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}

int sp_report_pprof(FILE *f, const struct sp_profile *prof, const struct sp_mapdata *m)
{
	struct pprof pp = { 0 };
	int err = encode(&pp, prof, m);

	if (!err)
		err = gzip_write(f, pp.out.d, pp.out.n);
	free(pp.out.d);
	free(pp.tmp.d);
	free(pp.tmp2.d);
	sp_intern_free(&pp.strs);
	sp_intern_free(&pp.funcs);
	sp_intern_free(&pp.locs);
	sp_intern_free(&pp.maps);
	return err;
}
