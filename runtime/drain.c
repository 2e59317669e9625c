/* runtime/drain.c: aggregations and stacks moved from BPF maps into user-space tables.
 *
 * See drain.h for why. How:
 *
 *  - A drained map is two BPF maps (abi/plan.h SP_FILL_GEN). A drain points
 *    BPF at the other one, waits until each CPU was seen with no update
 *    under way (SP_DROPS_INFLIGHT: an update that looked up a value before
 *    the flip may still add to it), then takes the first whole: an update
 *    is never lost between BPF's lookup and the drain's delete, the race
 *    a drain of one map had (a --continuous period missed an event).
 *  - It reads and deletes in one step: BPF_MAP_LOOKUP_AND_DELETE_BATCH
 *    (256 entries a syscall), else per key BPF_MAP_LOOKUP_AND_DELETE_ELEM,
 *    else (kernels without either for this map type) lookup then delete.
 *  - Per-CPU values are merged into one CPU's layout (the value layouts of
 *    abi/plan.h), then merged into the table's row for the key: counts,
 *    sums, hist/lhist buckets, avg/stats count and total add up; min/max
 *    keep the extreme of the slots that were set.
 *  - A table is an array of rows (key bytes, value bytes) and an
 *    open-addressing index of row positions. It never holds more than
 *    --max-keys rows: a new key beyond that is dropped and counted.
 *  - When: a thread of its own drains a map once half of it is new, and
 *    every 0.5 s the maps an eighth new (a map whose keys stay few stays
 *    in BPF until the end: nothing to gain). BPF counts the keys it inserted since the
 *    last drain (SP_MAP_FILL) and, when a count reaches the mark written
 *    to sp_config, wakes the thread through a small ring buffer of its own
 *    (SP_MAP_DRAIN_RING); the thread also looks at the counts every 10 ms.
 *    Not the run loop: it can be busy for a second reading a new process's
 *    unwind tables, long enough to fill a map at 999 Hz. The thread blocks
 *    every signal (the run loop reads them from a signalfd); it waits in
 *    an epoll set of its own (the ring's and an eventfd), so a stop wakes
 *    it at once instead of at its next 10 ms look (every exit waited for
 *    it). One recursive lock guards the tables and the stack store.
 *  - Stacks: each id copied out of sp_stacks keeps its frames here for the
 *    rest of the run. The same id coming back with other frames is a hash
 *    collision (BPF compares frames too, so this is only across drains):
 *    counted, and the first stack kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "runtime/drain.h"

#define BATCH 256
#define POLL_NS 10000000L   /* fill counts looked at this often */
#define ALL_EVERY 50        /* POLL_NS periods between drains of everything (0.5 s) */
#define ENOTSUPP_ERR 524 /* the kernel's ENOTSUPP, not in libc's errno.h */

struct table {
	const struct sp_plan_map *m;
	int fd, slot;             /* BPF map, fill slot (1 + plan index) */
	int alt_fd;               /* its other half (SP_FILL_GEN), -1: none */
	int drops_fd;             /* its drops counters: SP_DROPS_INFLIGHT */
	bool gen;                 /* the half BPF writes: fd, or alt_fd */
	int taken_fd;             /* drain_all: the half flipped away from, to take */
	uint32_t bpf_max;
	size_t ksz, vsz, pvsz;    /* key, merged value, per-CPU value bytes */
	uint8_t *rows;
	size_t n, cap;
	uint32_t *index;          /* row + 1; icap a power of two */
	size_t icap;
	uint64_t dropped;
};

struct stack_ent {
	uint64_t id;
	uint32_t nr, ninterp;   /* native frames, then interpreter frames in ip */
	uint32_t age;           /* d->age when last copied out of sp_stacks */
	uint64_t *ip;
};

struct sp_drain {
	const struct sp_plan *plan;
	int ncpus;
	uint32_t max_keys;
	int fill_fd, config_fd, stacks_fd;
	uint64_t *inflight;       /* ncpus counts of updates under way (SP_DROPS_INFLIGHT) */
	bool *settled;            /* ncpus: wait_updates saw the CPU's count at 0 */
	struct ring_buffer *ring; /* BPF's wake-ups */
	uint32_t stacks_max;
	struct table *t;          /* plan->nmaps; t[i].m NULL: not drained */
	uint8_t *bk, *bv;         /* batch buffers, sized for the largest map */
	size_t bksz, bvsz;
	struct stack_ent *st;     /* open addressing on id; id 0 = empty */
	size_t nst, stcap;
	uint32_t age;             /* periods aged so far (sp_drain_age_stacks) */
	struct sp_drain_stats stats;
	pthread_mutex_t lock;     /* recursive: tables, stack store, stats */
	pthread_t thread;
	int epfd, wakefd;         /* the thread's wait: the ring's fd and a stop; -1 */
	bool started;
	atomic_bool stop;
};

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* ---- values -------------------------------------------------------------- */

static void merge_slot(int agg, int64_t acc[2], const uint8_t *slot)
{
	int64_t s[2] = { 0, 0 };

	memcpy(&s[0], slot, 8);
	if (agg == SP_AGG_MIN || agg == SP_AGG_MAX || agg == SP_AGG_AVG || agg == SP_AGG_STATS)
		memcpy(&s[1], slot + 8, 8);
	switch (agg) {
	case SP_AGG_MIN:
	case SP_AGG_MAX:
		if (s[1] && (!acc[1] || (agg == SP_AGG_MIN ? s[0] < acc[0] : s[0] > acc[0]))) {
			acc[0] = s[0];
			acc[1] = 1;
		}
		break;
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		acc[0] += s[0];
		acc[1] += s[1];
		break;
	default:
		acc[0] += s[0];
		break;
	}
}

/* ---- tables -------------------------------------------------------------- */

static int index_grow(struct table *t)
{
	size_t n = t->icap ? t->icap * 2 : 1024;
	uint32_t *ix = calloc(n, sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t r = 0; r < t->n; r++) {
		size_t j = hash_bytes(t->rows + r * (t->ksz + t->vsz), t->ksz) & (n - 1);

		while (ix[j])
			j = (j + 1) & (n - 1);
		ix[j] = (uint32_t)r + 1;
	}
	free(t->index);
	t->index = ix;
	t->icap = n;
	return 0;
}

/* The row of `key`, added (zeroed) when new; NULL when the table is full. */
static uint8_t *table_row(struct sp_drain *d, struct table *t, const uint8_t *key)
{
	size_t stride = t->ksz + t->vsz, j;
	uint8_t *row;

	if ((t->n + 1) * 2 > t->icap && index_grow(t))
		return NULL;
	for (j = hash_bytes(key, t->ksz) & (t->icap - 1); t->index[j]; j = (j + 1) & (t->icap - 1)) {
		row = t->rows + (t->index[j] - 1) * stride;
		if (memcmp(row, key, t->ksz) == 0)
			return row;
	}
	if (t->n >= d->max_keys)
		return NULL;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		uint8_t *nr = realloc(t->rows, ncap * stride);

		if (!nr)
			return NULL;
		t->rows = nr;
		t->cap = ncap;
	}
	row = t->rows + t->n * stride;
	memcpy(row, key, t->ksz);
	memset(row + t->ksz, 0, t->vsz);
	t->index[j] = (uint32_t)++t->n;
	return row;
}

/* One drained entry (per-CPU values) into the table. */
static void table_merge(struct sp_drain *d, struct table *t, const uint8_t *key,
			const uint8_t *vals)
{
	size_t stride = t->m->percpu ? (t->m->value_size + 7) & ~(size_t)7 : t->m->value_size;
	int n = t->m->percpu ? d->ncpus : 1;
	int64_t in[2] = { 0, 0 }, acc[2] = { 0, 0 };
	uint8_t *row;

	for (int i = 0; i < n; i++)
		merge_slot(t->m->agg, in, vals + stride * (size_t)i);
	row = table_row(d, t, key);
	if (!row) {
		t->dropped++;
		d->stats.dropped_keys++;
		return;
	}
	memcpy(acc, row + t->ksz, t->vsz < 16 ? t->vsz : 16);
	merge_slot(t->m->agg, acc, (const uint8_t *)in);
	memcpy(row + t->ksz, acc, t->vsz < 16 ? t->vsz : 16);
}

/* ---- stacks ------------------------------------------------------------------- */

static size_t stack_slot(const struct sp_drain *d, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 17) & (d->stcap - 1);
}

static int stacks_grow(struct sp_drain *d)
{
	size_t n = d->stcap ? d->stcap * 2 : 1024, old = d->stcap;
	struct stack_ent *o = d->st;

	d->st = calloc(n, sizeof(*d->st));
	if (!d->st) {
		d->st = o;
		return -ENOMEM;
	}
	d->stcap = n;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!o[i].id)
			continue;
		for (j = stack_slot(d, o[i].id); d->st[j].id; j = (j + 1) & (n - 1))
			;
		d->st[j] = o[i];
	}
	free(o);
	return 0;
}

static struct stack_ent *stack_find(const struct sp_drain *d, uint64_t id)
{
	for (size_t j = d->stcap ? stack_slot(d, id) : 0; d->stcap && d->st[j].id;
	     j = (j + 1) & (d->stcap - 1))
		if (d->st[j].id == id)
			return &d->st[j];
	return NULL;
}

static void stack_keep(struct sp_drain *d, uint64_t id, const struct sp_stack_val *v)
{
	uint32_t nr = v->nr < SP_MAX_FRAMES ? v->nr : SP_MAX_FRAMES;
	uint32_t ni = v->ninterp <= SP_MAX_FRAMES - nr ? v->ninterp : SP_MAX_FRAMES - nr;
	uint32_t all = nr + ni;
	struct stack_ent *e = stack_find(d, id);
	size_t j;

	if (e) {
		e->age = d->age;
		if (e->nr != nr || e->ninterp != ni ||
		    memcmp(e->ip, v->ip, all * sizeof(uint64_t)) != 0)
			d->stats.collisions++;
		return;
	}
	if ((d->nst + 1) * 2 > d->stcap && stacks_grow(d))
		return;
	for (j = stack_slot(d, id); d->st[j].id; j = (j + 1) & (d->stcap - 1))
		;
	d->st[j].ip = malloc(sizeof(uint64_t) * (all ? all : 1));
	if (!d->st[j].ip)
		return;
	memcpy(d->st[j].ip, v->ip, all * sizeof(uint64_t));
	d->st[j].nr = nr;
	d->st[j].ninterp = ni;
	d->st[j].age = d->age;
	d->st[j].id = id;
	d->nst++;
}

int sp_drain_stack(struct sp_drain *d, uint64_t id, struct sp_stack_val *out)
{
	const struct stack_ent *e;
	int err = -ENOENT;

	if (!d || !id)
		return -ENOENT;
	pthread_mutex_lock(&d->lock);
	e = stack_find(d, id);
	if (e) {
		out->nr = e->nr;
		out->ninterp = e->ninterp;
		memcpy(out->ip, e->ip, (e->nr + e->ninterp) * sizeof(uint64_t));
		err = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return err;
}

/* ---- draining ------------------------------------------------------------------ */

typedef void (*take_fn)(struct sp_drain *d, void *arg, const uint8_t *key, const uint8_t *val);

static void take_row(struct sp_drain *d, void *arg, const uint8_t *key, const uint8_t *val)
{
	table_merge(d, arg, key, val);
}

static void take_stack(struct sp_drain *d, void *arg, const uint8_t *key, const uint8_t *val)
{
	uint64_t id;
	struct sp_stack_val v;

	(void)arg;
	memcpy(&id, key, sizeof(id));
	memcpy(&v, val, sizeof(v));
	stack_keep(d, id, &v);
}

static bool batch_unsupported(int err)
{
	return err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP || err == ENOTSUPP_ERR;
}

/* Every entry of fd, read and deleted: in batches, else key by key.
 * Returns the number of entries taken, or -errno. */
static long take_all(struct sp_drain *d, int fd, size_t ksz, size_t vsz, uint32_t max,
		     take_fn fn, void *arg)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint64_t in = 0, out = 0;
	bool first = true;
	long taken = 0;

	for (;;) {
		__u32 count = BATCH;
		int r = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out, d->bk, d->bv,
							&count, &opts);
		int e = r ? errno : 0;

		if (r && e != ENOENT) {
			if (first && batch_unsupported(e))
				break;
			return -e;
		}
		for (__u32 i = 0; i < count; i++)
			fn(d, arg, d->bk + i * ksz, d->bv + i * vsz);
		taken += count;
		if (r)
			return taken;
		in = out;
		first = false;
	}
	/* no batches here: one key at a time, always the first one left */
	for (uint64_t left = 2 * (uint64_t)max + 16; left--;) {
		if (bpf_map_get_next_key(fd, NULL, d->bk))
			break;
		if (bpf_map_lookup_and_delete_elem(fd, d->bk, d->bv)) {
			if (!batch_unsupported(errno) || bpf_map_lookup_elem(fd, d->bk, d->bv))
				continue; /* gone meanwhile */
			bpf_map_delete_elem(fd, d->bk);
		}
		fn(d, arg, d->bk, d->bv);
		taken++;
	}
	return taken;
}

/* A fill word starts counting afresh, its SP_FILL_GEN bit as given. */
static int reset_fill(struct sp_drain *d, uint32_t slot, bool gen)
{
	uint64_t w = gen ? SP_FILL_GEN : 0;

	if (d->fill_fd < 0)
		return -ENOENT;
	return bpf_map_update_elem(d->fill_fd, &slot, &w, BPF_ANY) ? -errno : 0;
}

/* Restarts t's fill count (before the take: keys added meanwhile count)
 * and points BPF at t's other half; returns the half BPF wrote until now,
 * the one to take (a map without halves: the map, BPF still writing it). */
static int flip(struct sp_drain *d, struct table *t)
{
	int cur = t->gen ? t->alt_fd : t->fd;

	if (t->alt_fd < 0)
		reset_fill(d, (uint32_t)t->slot, false);
	else if (reset_fill(d, (uint32_t)t->slot, !t->gen) == 0)
		t->gen = !t->gen;
	return cur;
}

/* Returns once no update of t that read its SP_FILL_GEN bit before the
 * flip is still under way: each CPU's SP_DROPS_INFLIGHT count seen at 0
 * once (an update counted later reads the new bit: bpf/common.bpf.c
 * sp_map_enter). An update lasts microseconds; one not done within a
 * second (a probe preempted that long) is waited for no more, and counted. */
static void wait_updates(struct sp_drain *d, struct table *t)
{
	struct timespec t0, now, nap = { 0, 20000 };
	uint32_t slot = SP_DROPS_INFLIGHT;
	int left = d->ncpus;

	if (t->alt_fd < 0 || t->drops_fd < 0)
		return;
	memset(d->settled, 0, (size_t)d->ncpus * sizeof(*d->settled));
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the flip, then the counts */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (bpf_map_lookup_elem(t->drops_fd, &slot, d->inflight))
			return;
		for (int c = 0; c < d->ncpus; c++)
			if (!d->settled[c] && d->inflight[c] == 0) {
				d->settled[c] = true;
				left--;
			}
		if (!left)
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000000000L + now.tv_nsec - t0.tv_nsec > 1000000000L) {
			if (!d->stats.unsettled++)
				sp_warn("an update of %s ran for over 1 s (a "
					"preempted probe?); a drain went on without it, and it may be "
					"lost (--stats counts these)\n", t->m->name);
			return;
		}
		nanosleep(&nap, NULL);
	}
}

static int take_half(struct sp_drain *d, struct table *t, int fd)
{
	long n = take_all(d, fd, t->ksz, t->pvsz, t->bpf_max, take_row, t);

	if (n < 0)
		return (int)n;
	d->stats.entries += (uint64_t)n;
	d->stats.drains += n > 0;
	return 0;
}

static int drain_map(struct sp_drain *d, struct table *t)
{
	int fd = flip(d, t);

	wait_updates(d, t);
	return take_half(d, t, fd);
}

static int drain_stacks(struct sp_drain *d)
{
	long n;

	if (d->stacks_fd < 0)
		return 0;
	reset_fill(d, 0, false);
	n = take_all(d, d->stacks_fd, sizeof(uint64_t), sizeof(struct sp_stack_val), d->stacks_max,
		     take_stack, NULL);
	if (n < 0)
		return (int)n;
	d->stats.entries += (uint64_t)n;
	return 0;
}

/* Every map flipped first (one moment for all: a --continuous cut), then
 * each old half waited for and taken. */
static int drain_all(struct sp_drain *d)
{
	int err = 0;

	for (int i = 0; i < d->plan->nmaps; i++)
		if (d->t[i].m)
			d->t[i].taken_fd = flip(d, &d->t[i]);
	for (int i = 0; i < d->plan->nmaps; i++) {
		int e = 0;

		if (d->t[i].m) {
			wait_updates(d, &d->t[i]);
			e = take_half(d, &d->t[i], d->t[i].taken_fd);
		}
		err = err ? err : e;
	}
	if (!err)
		err = drain_stacks(d); /* after the maps: their keys' stacks are in */
	return err;
}

int sp_drain_all(struct sp_drain *d)
{
	int err;

	if (!d)
		return 0;
	pthread_mutex_lock(&d->lock);
	err = drain_all(d);
	pthread_mutex_unlock(&d->lock);
	return err;
}

int sp_drain_map(struct sp_drain *d, int id)
{
	int err = 0;

	if (!sp_drain_has(d, id))
		return 0;
	pthread_mutex_lock(&d->lock);
	err = drain_map(d, &d->t[id]);
	pthread_mutex_unlock(&d->lock);
	return err;
}

static uint64_t fill_count(struct sp_drain *d, uint32_t slot)
{
	uint64_t n = 0;

	if (d->fill_fd >= 0)
		bpf_map_lookup_elem(d->fill_fd, &slot, &n);
	return n & ~SP_FILL_GEN;
}

/* Maps (and the stack map) with at least 1/2^shift of their size inserted
 * since the last drain: only maps that need the room are drained while
 * probes run. */
static void drain_filling(struct sp_drain *d, unsigned shift)
{
	for (int i = 0; i < d->plan->nmaps; i++) {
		struct table *t = &d->t[i];

		if (t->m && fill_count(d, (uint32_t)t->slot) << shift >= t->bpf_max)
			drain_map(d, t);
	}
	if (d->stacks_fd >= 0 && fill_count(d, 0) << shift >= d->stacks_max)
		drain_stacks(d);
}

static void close_wait(struct sp_drain *d)
{
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->wakefd >= 0)
		close(d->wakefd);
	d->epfd = d->wakefd = -1;
}

static int on_wake(void *ctx, void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0; /* the counts say what to drain */
}

/* Up to POLL_NS for BPF's wake-up or a stop; the ring's records read. */
static void wait_ring(struct sp_drain *d)
{
	struct epoll_event ev[2];
	int n = epoll_wait(d->epfd, ev, 2, (int)(POLL_NS / 1000000));

	for (int i = 0; i < n; i++)
		if (ev[i].data.fd != d->wakefd)
			ring_buffer__consume(d->ring);
}

/* The thread's epoll set (d->epfd, d->wakefd); both -1 when it cannot be
 * made (then it polls the ring and notices a stop within POLL_NS). */
static void open_wait(struct sp_drain *d)
{
	struct epoll_event ev = { .events = EPOLLIN };

	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->epfd < 0 || d->wakefd < 0)
		goto out_close;
	ev.data.fd = d->wakefd;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->wakefd, &ev))
		goto out_close;
	ev.data.fd = d->ring ? ring_buffer__epoll_fd(d->ring) : -1;
	if (d->ring && epoll_ctl(d->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev))
		goto out_close;
	return;
out_close:
	close_wait(d);
}

static void *drain_thread(void *arg)
{
	struct sp_drain *d = arg;
	struct timespec ts = { 0, POLL_NS };
	uint64_t next_all = 0, now;

	while (!atomic_load(&d->stop)) {
		if (d->epfd >= 0)
			wait_ring(d);
		else if (!d->ring || ring_buffer__poll(d->ring, (int)(POLL_NS / 1000000)) < 0)
			nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		ts = (struct timespec){ 0, POLL_NS };
		pthread_mutex_lock(&d->lock);
		if (now >= next_all) { /* the periodic pass: maps an eighth full */
			drain_filling(d, 3);
			next_all = now + ALL_EVERY * (uint64_t)POLL_NS;
		} else {
			drain_filling(d, 1);
		}
		pthread_mutex_unlock(&d->lock);
	}
	return NULL;
}

/* The drain marks in sp_config: half of each map's size (the rest of it,
 * the test hook SPROF_TEST_STACK_HASH_BITS among it, is the loader's). */
static int set_marks(struct sp_drain *d)
{
	struct sp_config c;
	uint32_t zero = 0;

	if (d->config_fd < 0 || bpf_map_lookup_elem(d->config_fd, &zero, &c))
		return 0;
	c.stack_drain_at = d->stacks_fd >= 0 ? (d->stacks_max + 1) / 2 : 0;
	c.drain_at = 0;
	for (int i = 0; i < d->plan->nmaps; i++)
		if (d->t[i].m && (!c.drain_at || (d->t[i].bpf_max + 1) / 2 < c.drain_at))
			c.drain_at = (d->t[i].bpf_max + 1) / 2;
	return bpf_map_update_elem(d->config_fd, &zero, &c, BPF_ANY) ? -errno : 0;
}

/* A drained map, or stacks to move. */
static bool has_work(const struct sp_drain *d)
{
	for (int i = 0; i < d->plan->nmaps; i++)
		if (d->t[i].m)
			return true;
	return d->stacks_fd >= 0 && (d->plan->uses_ustack || d->plan->uses_kstack);
}

int sp_drain__start(struct sp_drain *d)
{
	sigset_t all, old;
	int err;

	if (!d || d->started)
		return 0;
	err = set_marks(d);
	if (err || !d->max_keys || !has_work(d))
		return err;
	open_wait(d);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&d->thread, NULL, drain_thread, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	d->started = err == 0;
	if (err)
		close_wait(d);
	return -err;
}

void sp_drain__stop(struct sp_drain *d)
{
	uint64_t one = 1;

	if (!d || !d->started)
		return;
	atomic_store(&d->stop, true);
	/* a failed write: it notices the stop at its next look, within POLL_NS */
	if (d->wakefd >= 0 && write(d->wakefd, &one, sizeof(one)) < 0) {
	}
	pthread_join(d->thread, NULL);
	close_wait(d);
	d->started = false;
}

/* ---- the tables' users ---------------------------------------------------------- */

bool sp_drain_has(const struct sp_drain *d, int id)
{
	return d && id >= 0 && id < d->plan->nmaps && d->t[id].m;
}

uint8_t *sp_drain_rows(struct sp_drain *d, int id, size_t *n, size_t *stride, uint64_t *dropped)
{
	struct table *t = &d->t[id];
	uint8_t *copy;
	int err;

	pthread_mutex_lock(&d->lock);
	err = drain_map(d, t);
	*n = t->n;
	*stride = t->ksz + t->vsz;
	*dropped = t->dropped;
	copy = malloc(t->n * *stride + 1);
	if (copy && t->n)
		memcpy(copy, t->rows, t->n * *stride);
	pthread_mutex_unlock(&d->lock);
	if (err) {
		free(copy);
		errno = -err;
		return NULL;
	}
	if (!copy)
		errno = ENOMEM;
	return copy;
}

int sp_drain_clear(struct sp_drain *d, int id)
{
	struct table *t = &d->t[id];
	int err;

	pthread_mutex_lock(&d->lock);
	err = drain_map(d, t);
	t->n = 0;
	if (t->index)
		memset(t->index, 0, t->icap * sizeof(*t->index));
	pthread_mutex_unlock(&d->lock);
	return err;
}

uint8_t *sp_drain_take(struct sp_drain *d, int id, size_t *n, size_t *stride, uint64_t *dropped)
{
	struct table *t = &d->t[id];
	uint8_t *rows;

	pthread_mutex_lock(&d->lock); /* recursive: the copy and the clear are one step */
	rows = sp_drain_rows(d, id, n, stride, dropped);
	if (rows) {
		t->n = 0;
		t->dropped = 0;
		if (t->index)
			memset(t->index, 0, t->icap * sizeof(*t->index));
	}
	pthread_mutex_unlock(&d->lock);
	return rows;
}

/* Rebuilds the store with the stacks copied out at age `keep` or later. */
static void stacks_keep_from(struct sp_drain *d, uint32_t keep)
{
	size_t old = d->stcap;
	struct stack_ent *o = d->st;

	d->st = NULL;
	d->stcap = d->nst = 0;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!o[i].id)
			continue;
		if ((int32_t)(o[i].age - keep) < 0 ||
		    ((d->nst + 1) * 2 > d->stcap && stacks_grow(d))) {
			free(o[i].ip);
			continue;
		}
		for (j = stack_slot(d, o[i].id); d->st[j].id; j = (j + 1) & (d->stcap - 1))
			;
		d->st[j] = o[i];
		d->nst++;
	}
	free(o);
}

size_t sp_drain_age_stacks(struct sp_drain *d)
{
	size_t before;

	if (!d)
		return 0;
	pthread_mutex_lock(&d->lock);
	before = d->nst;
	d->age++;
	stacks_keep_from(d, d->age - 1);
	before -= d->nst;
	pthread_mutex_unlock(&d->lock);
	return before;
}

int sp_drain_zero(struct sp_drain *d, int id)
{
	struct table *t = &d->t[id];
	int err;

	pthread_mutex_lock(&d->lock);
	err = drain_map(d, t);
	for (size_t r = 0; r < t->n; r++)
		memset(t->rows + r * (t->ksz + t->vsz) + t->ksz, 0, t->vsz);
	pthread_mutex_unlock(&d->lock);
	return err;
}

void sp_drain_stats(struct sp_drain *d, struct sp_drain_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	*st = d->stats;
	st->stacks = d->nst;
	pthread_mutex_unlock(&d->lock);
}

/* ---- life ------------------------------------------------------------------------ */

static int map_fd(struct bpf_object *obj, const char *name, uint32_t *max)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	if (!m)
		return -1;
	if (max)
		*max = bpf_map__max_entries(m);
	return bpf_map__fd(m);
}

static int setup_tables(struct sp_drain *d, struct bpf_object *obj)
{
	char alt[256];

	d->bksz = sizeof(uint64_t);
	d->bvsz = sizeof(struct sp_stack_val);
	for (int i = 0; i < d->plan->nmaps; i++) {
		const struct sp_plan_map *m = &d->plan->maps[i];
		struct table *t = &d->t[i];

		t->fd = map_fd(obj, m->bpf_name, &t->bpf_max);
		t->alt_fd = t->drops_fd = -1;
		if (!m->drain || t->fd < 0 || !d->max_keys)
			continue;
		if (sp_map_alt_name(alt, sizeof(alt), m->bpf_name))
			t->alt_fd = map_fd(obj, alt, NULL);
		t->drops_fd = map_fd(obj, m->drops_name, NULL);
		t->m = m;
		t->slot = 1 + i;
		t->ksz = m->key_size;
		t->vsz = m->value_size;
		t->pvsz = m->percpu ? ((m->value_size + 7) & ~(size_t)7) * (size_t)d->ncpus :
				      m->value_size;
		d->bksz = t->ksz > d->bksz ? t->ksz : d->bksz;
		d->bvsz = t->pvsz > d->bvsz ? t->pvsz : d->bvsz;
	}
	d->bk = malloc(d->bksz * BATCH);
	d->bv = malloc(d->bvsz * BATCH);
	return d->bk && d->bv ? 0 : -ENOMEM;
}

struct sp_drain *sp_drain__open(const struct sp_plan *plan, struct bpf_object *obj,
				uint32_t max_keys)
{
	struct sp_drain *d = calloc(1, sizeof(*d));
	pthread_mutexattr_t ma;
	int err;

	if (!d)
		return NULL;
	d->epfd = d->wakefd = -1;
	d->plan = plan;
	d->max_keys = max_keys;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&d->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	d->ncpus = libbpf_num_possible_cpus();
	d->t = calloc((size_t)plan->nmaps + 1, sizeof(*d->t));
	if (d->ncpus <= 0 || !d->t) {
		err = d->ncpus <= 0 ? EIO : ENOMEM;
		goto out_free;
	}
	d->fill_fd = map_fd(obj, SP_MAP_FILL, NULL);
	d->config_fd = map_fd(obj, SP_MAP_CONFIG, NULL);
	if (max_keys && map_fd(obj, SP_MAP_DRAIN_RING, NULL) >= 0)
		d->ring = ring_buffer__new(map_fd(obj, SP_MAP_DRAIN_RING, NULL), on_wake, d, NULL);
	d->stacks_fd = max_keys ? map_fd(obj, SP_MAP_STACKS, &d->stacks_max) : -1;
	if (setup_tables(d, obj)) {
		err = ENOMEM;
		goto out_free;
	}
	d->inflight = calloc((size_t)d->ncpus, sizeof(*d->inflight));
	d->settled = calloc((size_t)d->ncpus, sizeof(*d->settled));
	if (!d->inflight || !d->settled) {
		err = ENOMEM;
		goto out_free;
	}
	return d;
out_free:
	sp_drain__destroy(d);
	errno = err;
	return NULL;
}

void sp_drain__destroy(struct sp_drain *d)
{
	if (!d)
		return;
	sp_drain__stop(d);
	ring_buffer__free(d->ring);
	free(d->inflight);
	free(d->settled);
	pthread_mutex_destroy(&d->lock);
	for (int i = 0; d->t && i < d->plan->nmaps; i++) {
		free(d->t[i].rows);
		free(d->t[i].index);
	}
	for (size_t i = 0; i < d->stcap; i++)
		free(d->st[i].ip);
	free(d->st);
	free(d->t);
	free(d->bk);
	free(d->bv);
	free(d);
}
