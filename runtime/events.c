/* runtime/events.c: read the event ring buffer.
 *
 * A thin layer over libbpf's ring_buffer: records are checked for a full
 * header and handed to the run loop's callback in the order BPF wrote them.
 * The loop polls the ring buffer's own epoll fd next to its signal and
 * timer fds, so an exit() record is seen the moment it is written. A drain
 * stops after a budget of records or of time (the callback's negative
 * return makes libbpf stop after consuming that record), so a producer as
 * fast as the consumer (printf on every syscall, sprof's own writes
 * included) or records slow to handle (system() on every context switch)
 * cannot keep the loop from seeing Ctrl-C.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "runtime/events.h"
#include "base/clock.h"

#define BUDGET_STOP (-EAGAIN)

struct sp_events {
	struct ring_buffer *rb;
	sp_event_fn fn;
	void *ctx;
	long left;      /* records this drain may still handle; < 0: no limit */
	uint64_t until; /* sp_mono_ns() time this drain stops at; 0: none */
};

static int on_record(void *ctx, void *data, size_t len)
{
	struct sp_events *e = ctx;
	const struct sp_event_hdr *h = data;

	int err;

	if (len < sizeof(*h))
		return 0; /* not ours: ignore */
	err = e->fn(e->ctx, h, h + 1, len - sizeof(*h));
	if (err)
		return err;
	if (e->until && sp_mono_ns() >= e->until)
		return BUDGET_STOP;
	return e->left < 0 || --e->left > 0 ? 0 : BUDGET_STOP;
}

struct sp_events *sp_events__open(struct bpf_object *obj, sp_event_fn fn, void *ctx)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, SP_MAP_EVENTS);
	struct sp_events *e = calloc(1, sizeof(*e));
	int err;

	if (!e)
		return NULL;
	e->fn = fn;
	e->ctx = ctx;
	if (!m)
		return e;
	e->rb = ring_buffer__new(bpf_map__fd(m), on_record, e, NULL);
	if (!e->rb) {
		err = errno;
		free(e);
		errno = err;
		return NULL;
	}
	return e;
}

int sp_events__fd(const struct sp_events *e)
{
	return e->rb ? ring_buffer__epoll_fd(e->rb) : -1;
}

int sp_events__drain(struct sp_events *e, long budget, uint64_t max_ns)
{
	int n;

	if (!e || !e->rb)
		return 0;
	e->left = budget > 0 ? budget : -1;
	e->until = max_ns ? sp_mono_ns() + max_ns : 0;
	n = ring_buffer__consume(e->rb);
	return n == BUDGET_STOP ? (int)budget : n;
}

void sp_events__destroy(struct sp_events *e)
{
	if (!e)
		return;
	ring_buffer__free(e->rb);
	free(e);
}
