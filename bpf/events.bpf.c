/* bpf/events.bpf.c: the event ring buffer every program writes to.
 *
 * Events that need user space (printf, exit, a new process to read maps
 * of ...) go on one ring buffer; when it is full the event is counted in
 * sp_event_drops, which the runtime prints at the end, instead of being
 * lost silently. Its own file because both the stack helpers
 * (common.bpf.c) and the unwinder (unwind.bpf.c) send events.
 */
#include "bpf/sp_bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} sp_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sp_event_drops SEC(".maps");

SP_NODEBUG void sp_event_drop(void)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(&sp_event_drops, &zero);

	if (d)
		*d += 1;
}

/* 0, or non-zero when the ring buffer is full (not counted: the caller
 * retries later). */
SP_NODEBUG long sp_send_event(__u32 type, __u32 id, __u64 arg)
{
	struct sp_event_hdr h = { .type = type, .id = id, .arg = arg };

	return bpf_ringbuf_output(&sp_events, &h, sizeof(h), BPF_RB_FORCE_WAKEUP);
}

/* A whole record (struct sp_event_hdr first) of a constant size; 0 or
 * non-zero when the ring buffer is full (not counted). */
SP_NODEBUG long sp_send_record(const void *rec, __u32 size)
{
	return bpf_ringbuf_output(&sp_events, (void *)rec, size, BPF_RB_FORCE_WAKEUP);
}

/* An event that is lost when the ring buffer is full, and counted. */
SP_NODEBUG void sp_emit_event(__u32 type, __u32 id, __u64 arg)
{
	if (sp_send_event(type, id, arg))
		sp_event_drop();
}

/* join(argv): the strings of a NULL-ended array of pointers, at most
 * SP_JOIN_ARGNUM, in one record (SP_EV_JOIN); an empty slot ends them. */
SP_NODEBUG void sp_join(__u32 id, const void *arr, int user)
{
	struct sp_event_hdr *h = bpf_ringbuf_reserve(&sp_events, sizeof(*h) +
						     SP_JOIN_ARGNUM * SP_JOIN_ARGSIZE, 0);
	const void *p;
	char *slot;
	long r;
	int i;

	if (!h) {
		sp_event_drop();
		return;
	}
	h->type = SP_EV_JOIN;
	h->id = id;
	h->arg = 0;
	for (i = 0; i < SP_JOIN_ARGNUM; i++) {
		slot = (char *)(h + 1) + i * SP_JOIN_ARGSIZE;
		slot[0] = 0;
		p = NULL;
		r = user ? -1 : bpf_probe_read_kernel(&p, sizeof(p), (const char *)arr + i * 8);
		if (r < 0)
			r = bpf_probe_read_user(&p, sizeof(p), (const char *)arr + i * 8);
		if (r < 0 || !p)
			break;
		r = user ? -1 : bpf_probe_read_kernel_str(slot, SP_JOIN_ARGSIZE, p);
		if (r < 0)
			r = bpf_probe_read_user_str(slot, SP_JOIN_ARGSIZE, p);
		if (r < 0)
			slot[0] = 0;
	}
	bpf_ringbuf_submit(h, 0);
}
