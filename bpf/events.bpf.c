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
