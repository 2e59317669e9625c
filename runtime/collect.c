/* runtime/collect.c: read the BPF maps into struct sp_profile.
 *
 * For each plan map: walk its keys, read the value (per-CPU values are
 * merged here), decode the key per the plan's layout and resolve stack ids
 * to symbolized frames. Value layouts per aggregation, as codegen writes
 * them (one slot per CPU when the map is per-CPU):
 *
 *   count, sum      s64/u64                       summed
 *   min, max        s64, or {s64 v; u64 set}      min/max over CPUs that set it
 *   avg, stats      {u64 count; s64 total}        both summed
 *   hist, lhist     u64 count                     summed; the key ends in a
 *                                                 u64 bucket index (as bpftrace)
 *   none            the plan's value field        not per-CPU
 *
 *   tseries         {s64 v; s64 meta; u64 epoch}  reduced as bpftrace 0.27: the
 *                                                 latest epoch's values combined
 *
 * hist/lhist rows (key, bucket) are sorted by key and folded into one entry
 * per key with a bucket array: hist has 66 buckets (negative, zero, then
 * 2 + log2), lhist 2 + (max - min) / step (under- and overflow included).
 *
 * A stack id is looked up once per (id, pid) and shared by every key that
 * holds it. Everything lives in the collector's memory pools and dies with
 * it, so reports may keep pointers until sp_collector__destroy().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "runtime/collect.h"
#include "runtime/format_text.h"
#include "runtime/drain.h"
#include "runtime/langs/interp_usdt.h"
#include "runtime/langs/lang.h"
#include "abi/unwind_table.h"
#include "runtime/stacks/symbolize.h"
#include "runtime/elf/inlines.h"
#include "base/clock.h"
#include "base/hash.h"
#include "base/vec.h"
#include "runtime/cvalue.h"

/* ---- memory pools -------------------------------------------------------- */

struct pool_block {
	struct pool_block *next;
	size_t used, size;
	char data[];
};

struct pool {
	struct pool_block *head;
};

static void *pool_alloc(struct pool *p, size_t n)
{
	struct pool_block *b = p->head;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->size - b->used < n) {
		size_t sz = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + sz);
		if (!b)
			return NULL;
		b->size = sz;
		b->used = 0;
		b->next = p->head;
		p->head = b;
	}
	b->used += n;
	return memset(b->data + b->used - n, 0, n);
}

static char *pool_strndup(struct pool *p, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = pool_alloc(p, len + 1);

	if (d)
		memcpy(d, s, len);
	return d;
}

static void pool_free(struct pool *p)
{
	while (p->head) {
		struct pool_block *n = p->head->next;

		free(p->head);
		p->head = n;
	}
}

/* ---- stack cache ---------------------------------------------------------- */

struct stack_slot {
	uint64_t id;
	uint32_t pid;
	bool kernel, used;
	struct sp_stack *st;
};

struct sp_collector {
	const struct sp_plan *plan;
	struct bpf_object *obj;
	struct sp_symbolizer *sym;
	struct sp_langs *langs;  /* interpreter frames of user stacks, or NULL */
	struct sp_iusdt *iu;     /* or those of --interp usdt, or NULL */
	struct pool keep, scratch;
	struct pool *cur;        /* where decoding allocates */
	int ncpus;               /* possible CPUs: per-CPU value slots */
	int64_t mono_to_wall;    /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	int stacks_fd;
	uint32_t stacks_max;     /* sp_stacks entries */
	uint32_t max_keys;       /* --max-keys: rows a drained map's table may hold */
	struct stack_slot *slots;
	size_t nslots, used;
	struct sp_drain *drain;  /* tables of drained maps, stacks copied out */
	bool take;               /* --continuous: reading a table empties it */
	bool in_key;             /* decoding a map key: pointers print in hex */
};

/* Every key and value of a map through BPF_MAP_LOOKUP_BATCH (two syscalls
 * for a whole map instead of two per key). Returns the number of entries
 * (malloc'd *keys, *vals), or -errno; -EINVAL/-ENOTSUP/-EOPNOTSUPP mean the
 * kernel or map type cannot batch and the caller walks keys instead. */
static long read_batch(int fd, size_t ksz, size_t vsz, uint32_t max, uint8_t **keys,
		       uint8_t **vals)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint64_t in = 0, out = 0; /* hash maps use a u32 bucket cursor */
	size_t n = 0;
	bool first = true;
	long err = 0;

	*keys = malloc(((size_t)max + 1) * ksz);
	*vals = malloc(((size_t)max + 1) * vsz);
	if (!*keys || !*vals) {
		err = -ENOMEM;
		goto out_free;
	}
	while (n < max) {
		__u32 count = (__u32)(max - n);

		if (bpf_map_lookup_batch(fd, first ? NULL : &in, &out, *keys + n * ksz,
					 *vals + n * vsz, &count, &opts)) {
			if (errno != ENOENT) {
				err = -errno;
				goto out_free;
			}
			n += count; /* ENOENT: that was the last batch */
			break;
		}
		n += count;
		in = out;
		first = false;
	}
	return (long)n;
out_free:
	free(*keys);
	free(*vals);
	*keys = *vals = NULL;
	return err;
}

static bool batch_unsupported(long err)
{
	return err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP || err == -ENOSPC;
}

static int stack_lookup(struct sp_collector *c, uint64_t id, struct sp_stack_val *v)
{
	if (sp_drain_stack(c->drain, id, v) == 0)
		return 0;
	return c->stacks_fd >= 0 ? bpf_map_lookup_elem(c->stacks_fd, &id, v) : -ENOENT;
}

static uint64_t slot_hash(uint64_t id, uint32_t pid, bool kernel)
{
	return sp_hash_u64(id ^ ((uint64_t)pid << 1) ^ kernel);
}

static int cache_grow(struct sp_collector *c)
{
	size_t n = c->nslots ? c->nslots * 2 : 1024;
	struct stack_slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++) {
		struct stack_slot *o = &c->slots[i];
		size_t j = slot_hash(o->id, o->pid, o->kernel) & (n - 1);

		if (!o->used)
			continue;
		while (s[j].used)
			j = (j + 1) & (n - 1);
		s[j] = *o;
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

static struct stack_slot *cache_find(struct sp_collector *c, uint64_t id, uint32_t pid,
				     bool kernel)
{
	size_t j;

	if ((c->used + 1) * 2 > c->nslots && cache_grow(c))
		return NULL;
	j = slot_hash(id, pid, kernel) & (c->nslots - 1);
	while (c->slots[j].used &&
	       !(c->slots[j].id == id && c->slots[j].pid == pid && c->slots[j].kernel == kernel))
		j = (j + 1) & (c->nslots - 1);
	return &c->slots[j];
}

static struct sp_frame truncated_frame(void)
{
	return (struct sp_frame){ .addr = SP_UNW_IP_TRUNCATED, .sym = "[truncated]",
				  .kind = SP_FRAME_UNKNOWN };
}

/* A stack cut because its task had left its address space (exiting). */
static struct sp_frame exiting_frame(void)
{
	return (struct sp_frame){ .addr = SP_UNW_IP_EXITING, .sym = "[exiting]",
				  .kind = SP_FRAME_UNKNOWN };
}

/* The native frames of a stack, symbolized, each user frame after the
 * functions inlined at it; *n of them in a malloc'd array, NULL when
 * memory runs out. A stack that filled all SP_MAX_FRAMES slots was cut
 * there (not at a limit the program asked for: those are below it) and
 * ends in a [truncated] frame, as one the unwinder could not finish. */
static struct sp_frame *native_frames(struct sp_collector *c, const uint64_t *ip, uint32_t nr,
				      uint32_t pid, bool kernel, bool *truncated, int *n)
{
	struct sp_frame *v = NULL;
	size_t cap = 0;
	int k = 0;

	for (uint32_t i = 0; i <= nr; i++) {
		if (SP_GROW(v, cap, (size_t)k + SP_INLINE_MAX + 1, 64)) {
			free(v);
			return NULL;
		}
		if (i == nr)
			break;
		if (!kernel && (ip[i] == SP_UNW_IP_TRUNCATED || ip[i] == SP_UNW_IP_EXITING)) {
			v[k++] = ip[i] == SP_UNW_IP_EXITING ? exiting_frame() : truncated_frame();
			*truncated = true;
		} else if (kernel) {
			sp_symbolize_kernel(c->sym, ip[i], i == 0, &v[k++]);
		} else {
			k += sp_symbolize_user_inline(c->sym, (pid_t)pid, ip[i], i == 0, &v[k],
						      SP_INLINE_MAX + 1);
		}
	}
	if (nr >= SP_MAX_FRAMES && !*truncated) { /* room: grown above */
		v[k++] = truncated_frame();
		*truncated = true;
	}
	*n = k;
	return v;
}

/* Frames for a stack id, symbolized; an unknown id gives an empty stack. */
/* Stacks decoded while running (printf, print) go to the scratch pool and
 * are not cached: a process's libraries may become known only later, and
 * the final report must not inherit an early, partly hex symbolization. */
static struct sp_stack *load_stack(struct sp_collector *c, uint64_t id, uint32_t pid,
				   bool kernel, int limit)
{
	bool final = c->cur == &c->keep;
	struct stack_slot *slot = final ? cache_find(c, id, pid, kernel) : NULL;
	struct sp_stack_val v;
	struct sp_stack *st;

	if (slot && slot->used)
		return slot->st;
	st = pool_alloc(c->cur, sizeof(*st));
	if (!st)
		return NULL;
	if (id && stack_lookup(c, id, &v) == 0) {
		uint32_t nr = v.nr < SP_MAX_FRAMES ? v.nr : SP_MAX_FRAMES;
		uint32_t ni = kernel || v.ninterp > SP_MAX_FRAMES - nr ? 0 : v.ninterp;

		int nf = 0;
		struct sp_frame *nat = native_frames(c, v.ip, nr, pid, kernel, &st->truncated, &nf);

		st->frames = nat ? pool_alloc(c->cur, sizeof(*st->frames) * (nf + ni ? nf + ni : 1)) : NULL;
		if (!st->frames) {
			free(nat);
			return NULL;
		}
		memcpy(st->frames, nat, sizeof(*nat) * (size_t)nf);
		free(nat);
		if (c->iu)
			st->n = sp_iusdt__splice(c->iu, v.ip + nr, (int)ni, st->frames, nf);
		else
			st->n = sp_langs__splice(c->langs, (pid_t)pid, v.ip + nr, (int)ni, st->frames, nf);
		st->truncated = st->truncated || (limit > 0 && (int)nr >= limit);
	}
	if (slot) {
		*slot = (struct stack_slot){ .id = id, .pid = pid, .kernel = kernel, .used = true,
					     .st = st };
		c->used++;
	}
	return st;
}

/* ---- decoding -------------------------------------------------------------- */

static int64_t read_int(const uint8_t *p, uint32_t size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? (int64_t)*(const int8_t *)p : (int64_t)*p;
	case 2: { int16_t v; memcpy(&v, p, 2); return is_signed ? v : (int64_t)(uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, p, 4); return is_signed ? v : (int64_t)(uint32_t)v; }
	default: { int64_t v; memcpy(&v, p, 8); return v; }
	}
}

/* bpftrace's %r: printable bytes as is, others as \xNN; the raw bytes
 * follow the text's NUL in the same allocation (*raw, *len: for %rx, %rh). */
static char *decode_buf(struct pool *p, const uint8_t *d, uint32_t size, const uint8_t **raw,
			int64_t *len)
{
	uint32_t n = d[0] < size - 1 ? d[0] : size - 1;
	char *s = pool_alloc(p, (size_t)n * 5 + 1), *o = s;

	if (s) {
		memcpy(s + (size_t)n * 4 + 1, d + 1, n);
		*raw = (const uint8_t *)s + (size_t)n * 4 + 1;
		*len = n;
	}
	for (uint32_t i = 0; s && i < n; i++) {
		uint8_t ch = d[1 + i];

		if (ch >= 32 && ch < 127)
			*o++ = (char)ch;
		else
			o += sprintf(o, "\\x%02x", ch);
	}
	return s;
}

/* The pid of the first user stack in a key, for USYM parts. */
static uint32_t find_pid(const struct sp_plan_field *f, const uint8_t *data)
{
	struct sp_ustack_key k;

	if (f->kind == SP_F_USTACK) {
		memcpy(&k, data + f->offset, sizeof(k));
		return k.pid;
	}
	for (int i = 0; f->kind == SP_F_TUPLE && i < f->nelems; i++) {
		uint32_t pid = find_pid(&f->elems[i], data);

		if (pid)
			return pid;
	}
	return 0;
}

/* strftime(fmt, ns): ns is bpf_ktime_get_ns() (CLOCK_MONOTONIC); "%f" is
 * the microseconds, as in bpftrace. */
static char *decode_time(struct sp_collector *c, const char *fmt, uint64_t ns)
{
	int64_t wall = (int64_t)ns + c->mono_to_wall;
	time_t secs = (time_t)(wall / 1000000000);
	char f[256], us[16], out[512];
	size_t o = 0;
	struct tm tm;

	snprintf(us, sizeof(us), "%06lld", (long long)(wall % 1000000000 / 1000));
	for (const char *p = fmt ? fmt : "%H:%M:%S"; *p && o + 8 < sizeof(f); p++) {
		if (p[0] == '%' && p[1] == 'f') {
			o += (size_t)snprintf(f + o, sizeof(f) - o, "%s", us);
			p++;
		} else if (p[0] == '%' && p[1]) {
			f[o++] = *p++;
			f[o++] = *p;
		} else {
			f[o++] = *p;
		}
	}
	f[o] = '\0';
	localtime_r(&secs, &tm);
	if (strftime(out, sizeof(out), f, &tm) == 0)
		out[0] = '\0';
	return pool_strndup(c->cur, out, sizeof(out));
}

static char *decode_inet(struct sp_collector *c, const uint8_t *d, uint32_t size)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(size == 16 ? AF_INET6 : AF_INET, d, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "?");
	return pool_strndup(c->cur, buf, sizeof(buf));
}

static int decode_text(struct sp_collector *c, const struct sp_plan_field *f, const uint8_t *d,
		       struct sp_kval *out)
{
	char *text;

	out->kind = SP_F_STR;
	/* bool: 1 byte; an enum value: signed as its type */
	out->i = read_int(d, f->size && f->size < 8 ? f->size : 8, f->is_signed);
	text = sp_format_text(f->fmt, (uint64_t)out->i);
	out->s = pool_strndup(c->cur, text ? text : "", text ? strlen(text) + 1 : 1);
	free(text);
	if (out->s && f->fmt && !strcmp(f->fmt, "bool"))
		out->json = out->s; /* JSON's true and false, unquoted */
	if (f->fmt && !strncmp(f->fmt, "enum ", 5)) { /* JSON keeps the number, as bpftrace */
		char num[32];

		snprintf(num, sizeof(num), "%lld", (long long)out->i);
		out->json = pool_strndup(c->cur, num, strlen(num) + 1);
	}
	return out->s ? 0 : -ENOMEM;
}

static int decode_c(struct sp_collector *c, const struct sp_plan_field *f, const uint8_t *base,
		    struct sp_kval *out)
{
	char *text = c->in_key ? sp_cvalue_key_text(f, base) : sp_cvalue_text(f, base, false);
	char *json = sp_cvalue_text(f, base, true);

	out->kind = SP_F_STR;
	out->i = f->kind == SP_F_PTR ? read_int(base + f->offset, 8, false) : 0;
	out->s = text ? pool_strndup(c->cur, text, strlen(text) + 1) : NULL;
	out->json = json ? pool_strndup(c->cur, json, strlen(json) + 1) : NULL;
	free(text);
	free(json);
	return out->s && out->json ? 0 : -ENOMEM;
}

static int decode(struct sp_collector *c, const struct sp_plan_field *f, const uint8_t *base,
		  uint32_t pid, struct sp_kval *out)
{
	const uint8_t *d = base + f->offset;
	struct sp_frame fr;

	memset(out, 0, sizeof(*out));
	out->kind = f->kind;
	out->is_signed = f->is_signed;
	switch (f->kind) {
	case SP_F_INT:
		out->i = read_int(d, f->size, f->is_signed);
		return 0;
	case SP_F_STR:
		out->s = pool_strndup(c->cur, (const char *)d, f->size);
		return out->s ? 0 : -ENOMEM;
	case SP_F_BUF:
		out->s = decode_buf(c->cur, d, f->size, &out->raw, &out->i);
		return out->s ? 0 : -ENOMEM;
	case SP_F_USTACK: {
		struct sp_ustack_key k;

		memcpy(&k, d, sizeof(k));
		out->pid = k.pid;
		out->stack = load_stack(c, k.stack_id, k.pid, false, f->stack_limit);
		return out->stack ? 0 : -ENOMEM;
	}
	case SP_F_KSTACK: {
		uint64_t id;

		memcpy(&id, d, sizeof(id));
		out->stack = load_stack(c, id, 0, true, f->stack_limit);
		return out->stack ? 0 : -ENOMEM;
	}
	case SP_F_USYM:
	case SP_F_KSYM:
		out->i = read_int(d, 8, false);
		if (f->kind == SP_F_USYM && f->size >= sizeof(struct sp_usym) && read_int(d + 8, 4, false))
			pid = (uint32_t)read_int(d + 8, 4, false);
		if (f->kind == SP_F_USYM)
			sp_symbolize_user(c->sym, (pid_t)pid, (uint64_t)out->i, true, &fr);
		else
			sp_symbolize_kernel(c->sym, (uint64_t)out->i, true, &fr);
		out->s = fr.sym;
		out->pid = pid;
		return 0;
	case SP_F_TUPLE:
		out->n = f->nelems;
		out->elems = pool_alloc(c->cur, sizeof(*out->elems) * (size_t)(f->nelems + 1));
		if (!out->elems)
			return -ENOMEM;
		for (int i = 0; i < f->nelems; i++) {
			/* offsets count from the start of the enclosing key/value */
			int err = decode(c, &f->elems[i], base, pid, &out->elems[i]);

			if (err)
				return err;
		}
		return 0;
	case SP_F_TIMESTAMP:
	case SP_F_INET:
		/* shown as text everywhere: hand them to reports as strings */
		out->kind = SP_F_STR;
		out->i = f->kind == SP_F_TIMESTAMP ? read_int(d, 8, false) : 0;
		out->s = f->kind == SP_F_INET ? decode_inet(c, d, f->size) :
			 decode_time(c, f->fmt, (uint64_t)out->i);
		return out->s ? 0 : -ENOMEM;
	case SP_F_TEXT: /* username, strerror ...: text from runtime/format_text.c */
		return decode_text(c, f, d, out);
	case SP_F_RECORD:
	case SP_F_ARRAY:
	case SP_F_PTR: /* C values: shown as text, like timestamps */
		return decode_c(c, f, base, out);
	case SP_F_NONE:
		return 0;
	}
	return -EINVAL;
}

static int decode_key(struct sp_collector *c, const struct sp_plan_map *m, const uint8_t *key,
		      struct sp_kval *out)
{
	int err;

	c->in_key = true;
	err = decode(c, &m->key, key, find_pid(&m->key, key), out);
	c->in_key = false;
	return err;
}

int sp_collect_decode(struct sp_collector *c, const struct sp_plan_field *f, const void *data,
		      uint32_t pid, struct sp_kval *out)
{
	uint32_t p = find_pid(f, data);

	c->cur = &c->scratch;
	return decode(c, f, data, p ? p : pid, out);
}

void sp_collector__reset_scratch(struct sp_collector *c)
{
	pool_free(&c->scratch);
}

/* ---- values ---------------------------------------------------------------- */

static void merge_minmax(const struct sp_plan_map *m, const uint8_t *vals, size_t stride,
			 int n, struct sp_value *out)
{
	bool have = false, flagged = m->value_size >= 16;

	for (int i = 0; i < n; i++) {
		int64_t v, set;

		memcpy(&v, vals + stride * (size_t)i, 8);
		if (flagged)
			memcpy(&set, vals + stride * (size_t)i + 8, 8);
		else
			set = v != 0; /* no flag: a CPU that never wrote holds 0 */
		if (!set)
			continue;
		if (!have || (m->agg == SP_AGG_MIN ? v < out->v : v > out->v))
			out->v = v;
		have = true;
	}
}

/* percpu: vals holds one slot per CPU (a BPF map), else one (a drained table). */
static int merge_value(struct sp_collector *c, const struct sp_plan_map *m, const uint8_t *vals,
		       const uint8_t *key, bool percpu, struct sp_value *out)
{
	size_t stride = percpu ? ((m->value_size + 7) & ~7u) : m->value_size;
	int n = percpu ? c->ncpus : 1;

	memset(out, 0, sizeof(*out));
	switch (m->agg) {
	case SP_AGG_NONE: {
		int err = decode(c, &m->value, vals, find_pid(&m->key, key), &out->plain);

		out->v = out->plain.i;
		return err;
	}
	case SP_AGG_MIN:
	case SP_AGG_MAX:
		merge_minmax(m, vals, stride, n, out);
		return 0;
	default:
		break;
	}
	for (int i = 0; i < n; i++) {
		const uint8_t *v = vals + stride * (size_t)i;
		int64_t a, b;

		memcpy(&a, v, 8);
		if (m->agg == SP_AGG_AVG || m->agg == SP_AGG_STATS) {
			memcpy(&b, v + 8, 8);
			out->count += (uint64_t)a;
			out->total += b;
		} else {
			out->v += a;
		}
	}
	if (m->agg == SP_AGG_AVG || m->agg == SP_AGG_STATS)
		out->v = out->count ? out->total / (int64_t)out->count : 0;
	return 0;
}

/* ---- maps ------------------------------------------------------------------- */

static uint64_t sum_percpu_counter(struct sp_collector *c, const char *name)
{
	struct bpf_map *m = name ? bpf_object__find_map_by_name(c->obj, name) : NULL;
	uint64_t *v, sum = 0;
	uint32_t zero = 0;

	if (!m)
		return 0;
	v = calloc((size_t)c->ncpus, sizeof(*v));
	if (v && bpf_map_lookup_elem(bpf_map__fd(m), &zero, v) == 0)
		for (int i = 0; i < c->ncpus; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* One slot of the per-CPU SP_MAP_LOST array, summed. */
static uint64_t lost_counter(struct sp_collector *c, uint32_t cause)
{
	struct bpf_map *m = bpf_object__find_map_by_name(c->obj, SP_MAP_LOST);
	uint64_t *v, sum = 0;

	if (!m)
		return 0;
	v = calloc((size_t)c->ncpus, sizeof(*v));
	if (v && bpf_map_lookup_elem(bpf_map__fd(m), &cause, v) == 0)
		for (int i = 0; i < c->ncpus; i++)
			sum += v[i];
	free(v);
	return sum;
}

uint64_t sp_collect_lost(struct sp_collector *c, int cause)
{
	return cause >= 0 && cause < SP_LOST__COUNT ? lost_counter(c, (uint32_t)cause) : 0;
}

static uint64_t drain_collisions(struct sp_collector *c)
{
	struct sp_drain_stats st;

	sp_drain_stats(c->drain, &st);
	return st.collisions;
}

static bool is_hist(const struct sp_plan_map *m)
{
	return m->agg == SP_AGG_HIST || m->agg == SP_AGG_LHIST;
}

static int nbuckets(const struct sp_plan_map *m)
{
	return (int)sp_hist_nbuckets(m->agg, m->lhist_min, m->lhist_max, m->lhist_step);
}

/* hist rows: key (bucket index last) followed by the merged count. */
struct rows {
	uint8_t *v;
	size_t n, cap, width;
};

static int rows_add(struct rows *r, const uint8_t *key, uint64_t count)
{
	void *v = r->v;

	if (sp_grow(&v, &r->cap, r->n + 1, r->width, 256))
		return -ENOMEM;
	r->v = v;
	memcpy(r->v + r->n * r->width, key, r->width - 8);
	memcpy(r->v + r->n * r->width + r->width - 8, &count, 8);
	r->n++;
	return 0;
}

static int cmp_rows(const void *a, const void *b, void *len)
{
	return memcmp(a, b, *(size_t *)len);
}

static int grow_entries(struct sp_collector *c, struct sp_mapdata *out, int *cap)
{
	int ncap = *cap ? *cap * 2 : 64;
	struct sp_entry *ne;

	if (out->n < *cap)
		return 0;
	ne = pool_alloc(c->cur, sizeof(*ne) * (size_t)ncap);
	if (!ne)
		return -ENOMEM;
	if (out->n)
		memcpy(ne, out->entries, sizeof(*ne) * (size_t)out->n);
	out->entries = ne;
	*cap = ncap;
	return 0;
}

/* Sorts the rows by key and makes one entry per key with its buckets. */
static int fold_hist(struct sp_collector *c, const struct sp_plan_map *m, struct rows *r,
		     struct sp_mapdata *out)
{
	size_t klen = m->key_size - 8;
	size_t cmp_len = r->width - 8; /* key and bucket */
	int cap = 0, nb = nbuckets(m), err;

	if (r->n) /* qsort_r(NULL, 0) is undefined (UBSan) */
		qsort_r(r->v, r->n, r->width, cmp_rows, &cmp_len);
	for (size_t i = 0; i < r->n; i++) {
		const uint8_t *row = r->v + i * r->width;
		struct sp_entry *e;
		uint64_t b, cnt;

		if (i == 0 || memcmp(row, row - r->width, klen) != 0) {
			if ((err = grow_entries(c, out, &cap)))
				return err;
			e = &out->entries[out->n++];
			err = decode_key(c, m, row, &e->key);
			e->val.nbuckets = nb;
			e->val.buckets = pool_alloc(c->cur, sizeof(uint64_t) * (size_t)nb);
			if (err || !e->val.buckets)
				return err ? err : -ENOMEM;
		}
		e = &out->entries[out->n - 1];
		memcpy(&b, row + klen, 8);
		memcpy(&cnt, row + klen + 8, 8);
		if (b < (uint64_t)nb)
			e->val.buckets[b] += cnt;
		e->val.count += cnt;
	}
	return 0;
}

static int add_entry(struct sp_collector *c, const struct sp_plan_map *m, struct sp_mapdata *out,
		     int *cap, const uint8_t *key, const uint8_t *vals, bool percpu)
{
	struct sp_entry *e;
	int err = grow_entries(c, out, cap);

	if (err)
		return err;
	e = &out->entries[out->n];
	err = decode_key(c, m, key, &e->key);
	if (!err)
		err = merge_value(c, m, vals, key, percpu, &e->val);
	if (!err)
		out->n++;
	return err;
}

/* ---- tseries ---------------------------------------------------------------- */

/* One tseries row's CPU slots -> (epoch, value) like bpftrace's
 * reduce_tseries_value(): slots of the latest epoch are combined by the
 * map's function (no function: the latest write, by its time in meta);
 * slots never written (epoch 0) count for nothing, and a row with none
 * gives (0, 0). */
static void reduce_tseries(const struct sp_plan_map *m, const uint8_t *vals, size_t stride, int n,
			   uint64_t *epoch, int64_t *val)
{
	bool sgn = m->value.is_signed;
	int64_t v = 0, meta = 0;
	uint64_t latest = 0;

	for (int i = 0; i < n; i++) {
		uint64_t e;

		memcpy(&e, vals + stride * (size_t)i + 16, 8);
		latest = e > latest ? e : latest;
	}
	for (int i = 0, first = 1; latest && i < n; i++) {
		const uint8_t *p = vals + stride * (size_t)i;
		int64_t x, mx;
		uint64_t e;

		memcpy(&e, p + 16, 8);
		if (e != latest)
			continue;
		memcpy(&x, p, 8);
		memcpy(&mx, p + 8, 8);
		if (first) {
			v = x, meta = mx, first = 0;
			continue;
		}
		switch (m->lhist_step) {
		case SP_TS_AVG:
			meta += mx;
			/* fall through */
		case SP_TS_SUM:
			v += x;
			break;
		case SP_TS_MIN:
			if (sgn ? x < v : (uint64_t)x < (uint64_t)v)
				v = x;
			break;
		case SP_TS_MAX:
			if (sgn ? x > v : (uint64_t)x > (uint64_t)v)
				v = x;
			break;
		default:
			if ((uint64_t)mx > (uint64_t)meta)
				v = x, meta = mx;
			break;
		}
	}
	if (latest && m->lhist_step == SP_TS_AVG && meta)
		v = sgn ? v / meta : (int64_t)((uint64_t)v / (uint64_t)meta);
	*epoch = latest;
	*val = latest ? v : 0;
}

static int rows_add_ts(struct rows *r, const uint8_t *key, uint64_t epoch, int64_t v)
{
	void *p = r->v;

	if (sp_grow(&p, &r->cap, r->n + 1, r->width, 256))
		return -ENOMEM;
	r->v = p;
	memcpy(r->v + r->n * r->width, key, r->width - 16);
	memcpy(r->v + r->n * r->width + r->width - 16, &epoch, 8);
	memcpy(r->v + r->n * r->width + r->width - 8, &v, 8);
	r->n++;
	return 0;
}

static int cmp_ts_points(const void *a, const void *b)
{
	const struct sp_tspoint *x = a, *y = b;

	return (x->epoch > y->epoch) - (x->epoch < y->epoch);
}

/* Rows (key, bucket, epoch, value) sorted by key: one entry per key with
 * its points by epoch, one per epoch (the first row's, as bpftrace keeps). */
static int fold_tseries(struct sp_collector *c, const struct sp_plan_map *m, struct rows *r,
			struct sp_mapdata *out)
{
	size_t klen = m->key_size - 8, cmp_len = m->key_size;
	int cap = 0, err;

	if (r->n)
		qsort_r(r->v, r->n, r->width, cmp_rows, &cmp_len);
	for (size_t i = 0, j; i < r->n; i = j) {
		const uint8_t *row = r->v + i * r->width;
		struct sp_entry *e;
		int n = 0;

		for (j = i; j < r->n && memcmp(r->v + j * r->width, row, klen) == 0; j++)
			;
		if ((err = grow_entries(c, out, &cap)))
			return err;
		e = &out->entries[out->n++];
		memset(&e->val, 0, sizeof(e->val));
		err = decode_key(c, m, row, &e->key);
		e->val.points = pool_alloc(c->cur, sizeof(*e->val.points) * (j - i));
		if (err || !e->val.points)
			return err ? err : -ENOMEM;
		for (size_t k = i; k < j; k++) {
			const uint8_t *rk = r->v + k * r->width + m->key_size;
			struct sp_tspoint pt;
			bool dup = false;

			memcpy(&pt.epoch, rk, 8);
			memcpy(&pt.v, rk + 8, 8);
			for (int q = 0; q < n && !dup; q++)
				dup = e->val.points[q].epoch == pt.epoch;
			if (!dup)
				e->val.points[n++] = pt;
		}
		qsort(e->val.points, (size_t)n, sizeof(*e->val.points), cmp_ts_points);
		e->val.npoints = n;
	}
	return 0;
}

static int add_row(struct sp_collector *c, const struct sp_plan_map *m, struct sp_mapdata *out,
		   int *cap, struct rows *rows, const uint8_t *key, const uint8_t *vals, bool percpu)
{
	struct sp_value v;
	int err;

	if (m->agg == SP_AGG_TSERIES) {
		uint64_t epoch;
		int64_t x;

		reduce_tseries(m, vals, percpu ? ((m->value_size + 7) & ~7u) : m->value_size,
			       percpu ? c->ncpus : 1, &epoch, &x);
		return rows_add_ts(rows, key, epoch, x);
	}
	if (!is_hist(m))
		return add_entry(c, m, out, cap, key, vals, percpu);
	err = merge_value(c, m, vals, key, percpu, &v);
	return err ? err : rows_add(rows, key, (uint64_t)v.v);
}

static size_t value_bytes(const struct sp_collector *c, const struct sp_plan_map *m)
{
	return m->percpu ? ((m->value_size + 7) & ~7u) * (size_t)c->ncpus : m->value_size;
}

static int read_rows_batch(struct sp_collector *c, const struct sp_plan_map *m, int fd,
			   struct sp_mapdata *out, struct rows *rows)
{
	size_t vsz = value_bytes(c, m);
	uint8_t *keys, *vals;
	long n = read_batch(fd, m->key_size, vsz, out->max_entries, &keys, &vals);
	int cap = 0, err = 0;

	if (n < 0)
		return (int)n;
	for (long i = 0; !err && i < n; i++)
		err = add_row(c, m, out, &cap, rows, keys + (size_t)i * m->key_size,
			      vals + (size_t)i * vsz, m->percpu);
	free(keys);
	free(vals);
	return err;
}

static int read_rows(struct sp_collector *c, const struct sp_plan_map *m, int fd,
		     struct sp_mapdata *out, struct rows *rows)
{
	size_t vsz = value_bytes(c, m);
	uint8_t *key, *next, *vals;
	uint64_t left = 2 * (uint64_t)out->max_entries + 16; /* keys deleted meanwhile restart the walk */
	int cap = 0, err = read_rows_batch(c, m, fd, out, rows);
	void *prev = NULL;

	if (!batch_unsupported(err))
		return err;
	out->n = 0;
	rows->n = 0;
	key = calloc(1, m->key_size + 8);
	next = calloc(1, m->key_size + 8);
	vals = calloc(1, vsz + 8);
	if (!key || !next || !vals) {
		err = -ENOMEM;
		goto out_free;
	}
	err = 0;
	while (!err && left-- && bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, m->key_size);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, vals))
			continue; /* deleted meanwhile */
		err = add_row(c, m, out, &cap, rows, key, vals, m->percpu);
	}
out_free:
	free(key);
	free(next);
	free(vals);
	return err;
}

/* A drained map: drained once more, then its table's rows. */
static int read_table(struct sp_collector *c, const struct sp_plan_map *m, struct sp_mapdata *out,
		      struct rows *rows)
{
	int id = (int)(m - c->plan->maps), cap = 0, err = 0;
	size_t n, stride;
	bool take = c->take && c->cur == &c->keep; /* a period's profile, not print() */
	uint8_t *r = take ? sp_drain_take(c->drain, id, &n, &stride, &out->table_dropped) :
		     sp_drain_rows(c->drain, id, &n, &stride, &out->table_dropped);

	if (!r)
		return -errno;
	out->max_keys = c->max_keys;
	for (size_t i = 0; !err && i < n; i++)
		err = add_row(c, m, out, &cap, rows, r + i * stride, r + i * stride + m->key_size,
			      false);
	free(r);
	return err;
}

static int collect_map(struct sp_collector *c, const struct sp_plan_map *m,
		       struct sp_mapdata *out, struct pool *pool)
{
	struct bpf_map *bm = bpf_object__find_map_by_name(c->obj, m->bpf_name);
	struct rows rows = { .width = (size_t)m->key_size + (m->agg == SP_AGG_TSERIES ? 16 : 8) };
	int err;

	memset(out, 0, sizeof(*out));
	out->map = m;
	if (!bm)
		return -ENOENT;
	c->cur = pool;
	out->max_entries = bpf_map__max_entries(bm);
	if ((is_hist(m) || m->agg == SP_AGG_TSERIES) && m->key_size < 8)
		return -EINVAL;
	if (sp_drain_has(c->drain, (int)(m - c->plan->maps)))
		err = read_table(c, m, out, &rows);
	else
		err = read_rows(c, m, bpf_map__fd(bm), out, &rows);
	if (!err && c->take && pool == &c->keep && m->drain && !sp_drain_has(c->drain, (int)(m - c->plan->maps)))
		err = sp_collect_clear(c, m); /* not drained (SPROF_NO_DRAIN): emptied here */
	if (!err && is_hist(m))
		err = fold_hist(c, m, &rows, out);
	if (!err && m->agg == SP_AGG_TSERIES)
		err = fold_tseries(c, m, &rows, out);
	free(rows.v);
	out->dropped = sum_percpu_counter(c, m->drops_name);
	return err;
}

int sp_collect_drain_all(struct sp_collector *c)
{
	return sp_drain_all(c->drain);
}

int sp_collect_map(struct sp_collector *c, const struct sp_plan_map *m, struct sp_mapdata *out)
{
	return collect_map(c, m, out, &c->scratch);
}

static struct bpf_map *plan_map(struct sp_collector *c, const struct sp_plan_map *m)
{
	return bpf_object__find_map_by_name(c->obj, m->bpf_name);
}

/* Keys present now, as one array of key_size slots; probes may keep adding
 * keys meanwhile, so the walk is capped at max_entries. */
static uint8_t *snapshot_keys(int fd, const struct sp_plan_map *m, uint32_t max, size_t *n)
{
	uint8_t *keys = malloc(((size_t)max + 1) * m->key_size), *prev = NULL;

	*n = 0;
	while (keys && *n < max && bpf_map_get_next_key(fd, prev, keys + *n * m->key_size) == 0) {
		prev = keys + *n * m->key_size;
		(*n)++;
	}
	return keys;
}

int sp_collect_clear(struct sp_collector *c, const struct sp_plan_map *m)
{
	struct bpf_map *bm = plan_map(c, m);
	uint8_t *keys;
	size_t n;
	int fd;

	if (!bm)
		return -ENOENT;
	if (sp_drain_has(c->drain, (int)(m - c->plan->maps)))
		return sp_drain_clear(c->drain, (int)(m - c->plan->maps));
	fd = bpf_map__fd(bm);
	keys = snapshot_keys(fd, m, bpf_map__max_entries(bm), &n);
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * m->key_size); /* ENOENT: gone already */
	free(keys);
	return 0;
}

int sp_collect_zero(struct sp_collector *c, const struct sp_plan_map *m)
{
	struct bpf_map *bm = plan_map(c, m);
	size_t vsz = m->percpu ? ((m->value_size + 7) & ~7u) * (size_t)c->ncpus : m->value_size;
	uint8_t *keys, *zero;
	size_t n;
	int fd, err = 0;

	if (!bm)
		return -ENOENT;
	if (sp_drain_has(c->drain, (int)(m - c->plan->maps)))
		return sp_drain_zero(c->drain, (int)(m - c->plan->maps));
	fd = bpf_map__fd(bm);
	zero = calloc(1, vsz + 8);
	keys = snapshot_keys(fd, m, bpf_map__max_entries(bm), &n);
	if (!keys || !zero)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++)
		bpf_map_update_elem(fd, keys + i * m->key_size, zero, BPF_EXIST);
	free(keys);
	free(zero);
	return err;
}

static void warn_drops(const struct sp_mapdata *d)
{
	if (d->dropped)
		sp_log(SP_LOG_WARN, "%s: %llu updates dropped, map full at %u keys\n", d->map->name,
		       (unsigned long long)d->dropped, d->max_entries);
	if (d->table_dropped)
		sp_log(SP_LOG_WARN, "%s: %llu drained entries dropped, table full at %u keys (--max-keys)\n",
		       d->map->name, (unsigned long long)d->table_dropped, d->max_keys);
}

int sp_collect(struct sp_collector *c, struct sp_profile *out)
{
	struct bpf_map *sm = bpf_object__find_map_by_name(c->obj, SP_MAP_STACKS);
	int err;

	out->nmaps = c->plan->nmaps;
	out->maps = pool_alloc(&c->keep, sizeof(*out->maps) * (size_t)(out->nmaps + 1));
	if (!out->maps)
		return -ENOMEM;
	err = sp_drain_all(c->drain); /* the stacks too: every id resolves from the store */
	if (err)
		sp_warn("cannot drain the maps: %s\n", strerror(-err));
	for (int i = 0; i < c->plan->nmaps; i++) {
		err = collect_map(c, &c->plan->maps[i], &out->maps[i], &c->keep);
		if (err) {
			sp_err("cannot read map '%s': %s\n", c->plan->maps[i].name,
			       strerror(-err));
			return err;
		}
	}
	out->lost_events = sum_percpu_counter(c, SP_MAP_EVENT_DROPS);
	out->lost_stacks = sum_percpu_counter(c, SP_MAP_STACK_DROPS);
	out->lost_collisions = lost_counter(c, SP_LOST_STACK_COLLISION) + drain_collisions(c);
	out->cut_stacks = lost_counter(c, SP_LOST_STACK_TRUNCATED);
	out->stack_entries = sm ? bpf_map__max_entries(sm) : 0;
	return 0;
}

static void warn_lost(uint64_t n, const char *what, const char *why)
{
	if (n)
		sp_err("lost: %llu %s (%s)\n", (unsigned long long)n, what, why);
}

void sp_profile_warn(const struct sp_profile *p)
{
	char why[96];

	for (int i = 0; i < p->nmaps; i++)
		warn_drops(&p->maps[i]);
	warn_lost(p->lost_events, "events", "ring buffer full: printf, exit, ... records");
	snprintf(why, sizeof(why), "stack map full at %u entries: counted without their stack",
		 p->stack_entries);
	warn_lost(p->lost_stacks, "stacks", why);
	warn_lost(p->lost_collisions, "stacks", "hash collision: counted without their stack");
	if (p->cut_stacks)
		sp_err("cut: %llu stacks deeper than %d frames (kept, truncated)\n",
		       (unsigned long long)p->cut_stacks, SP_MAX_FRAMES);
}

void sp_collect_print_stats(struct sp_collector *c, FILE *f)
{
	struct sp_drain_stats st;

	sp_drain_stats(c->drain, &st);
	fprintf(f, "drain: %llu passes, %llu entries moved, %zu stacks held, %llu entries not kept, "
		"%llu stack collisions, %llu updates not waited for\n", (unsigned long long)st.drains,
		(unsigned long long)st.entries, st.stacks, (unsigned long long)st.dropped_keys,
		(unsigned long long)st.collisions, (unsigned long long)st.unsettled);
}

uint64_t sp_lost_total(const struct sp_lost *l)
{
	return l->map_full + l->table_full + l->ring + l->stack_full + l->collision;
}

void sp_collect_counters(struct sp_collector *c, uint64_t *stacks, struct sp_lost *lost)
{
	struct sp_drain_stats st;
	uint64_t k, n = 0;
	void *prev = NULL;

	sp_drain_stats(c->drain, &st);
	/* not drained yet (some may be in the store too); the drain thread
	 * deletes keys meanwhile, which restarts the walk: bounded */
	while (c->stacks_fd >= 0 && n < c->stacks_max &&
	       bpf_map_get_next_key(c->stacks_fd, prev, &k) == 0) {
		prev = &k;
		n++;
	}
	memset(lost, 0, sizeof(*lost));
	for (int i = 0; i < c->plan->nmaps; i++)
		lost->map_full += sum_percpu_counter(c, c->plan->maps[i].drops_name);
	lost->table_full = st.dropped_keys;
	lost->ring = sum_percpu_counter(c, SP_MAP_EVENT_DROPS);
	lost->stack_full = sum_percpu_counter(c, SP_MAP_STACK_DROPS);
	lost->collision = lost_counter(c, SP_LOST_STACK_COLLISION) + st.collisions;
	lost->truncated = lost_counter(c, SP_LOST_STACK_TRUNCATED);
	*stacks = st.stacks + n;
}

struct sp_collector *sp_collector__open(const struct sp_plan *plan, struct bpf_object *obj,
					struct sp_symbolizer *sym, uint32_t max_keys)
{
	struct sp_collector *c = calloc(1, sizeof(*c));
	struct bpf_map *sm;
	int err;

	if (!c)
		return NULL;
	c->plan = plan;
	c->obj = obj;
	c->sym = sym;
	c->cur = &c->keep;
	c->mono_to_wall = (int64_t)sp_clock_ns(CLOCK_REALTIME) - (int64_t)sp_clock_ns(CLOCK_MONOTONIC);
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0) {
		free(c);
		errno = EIO;
		return NULL;
	}
	sm = bpf_object__find_map_by_name(obj, SP_MAP_STACKS);
	c->stacks_fd = sm ? bpf_map__fd(sm) : -1;
	c->stacks_max = sm ? bpf_map__max_entries(sm) : 0;
	c->max_keys = max_keys;
	c->drain = sp_drain__open(plan, obj, max_keys);
	err = c->drain ? sp_drain__start(c->drain) : -errno;
	if (err) {
		sp_collector__destroy(c);
		errno = -err;
		return NULL;
	}
	return c;
}

void sp_collector__set_take(struct sp_collector *c, bool take)
{
	c->take = take;
}

size_t sp_collector__end_period(struct sp_collector *c)
{
	pool_free(&c->keep);
	pool_free(&c->scratch);
	free(c->slots);
	c->slots = NULL;
	c->nslots = c->used = 0;
	c->cur = &c->keep;
	return sp_drain_age_stacks(c->drain);
}

void sp_collector__set_langs(struct sp_collector *c, struct sp_langs *langs)
{
	c->langs = langs;
}

void sp_collector__set_iusdt(struct sp_collector *c, struct sp_iusdt *iu)
{
	c->iu = iu;
}

void sp_collector__destroy(struct sp_collector *c)
{
	if (!c)
		return;
	pool_free(&c->keep);
	pool_free(&c->scratch);
	free(c->slots);
	sp_drain__destroy(c->drain);
	free(c);
}
