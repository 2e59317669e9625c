/* bpf/maps.bpf.c: map updates shared by every generated aggregation.
 *
 * Generated code passes a script map (a .maps global) as `void *map`; after
 * codegen inlines these functions each call site refers to its own map
 * directly, which is what the verifier needs. Every failed insert is
 * counted in the map's drop counter (a per-CPU array of one u64), so a full
 * map is reported at exit instead of losing updates silently.
 */
#include "bpf/sp_bpf.h"

#define SP_EEXIST 17
#define SP_MAX_CPUS 512
#ifdef SP_BPF_COMPAT
#define SP_COMPAT_CPUS 64
#else
#define SP_COMPAT_CPUS SP_MAX_CPUS
#endif

SP_NODEBUG void sp_count_drop(void *drops)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(drops, &zero);

	if (d)
		*d += 1;
}

/* The value slot of `key` on this CPU, inserting `init` first when the key
 * is new; NULL (and a drop counted) when the map is full. `id` is the map's
 * plan index: new keys count towards its drain mark. For a map with no
 * other half: nothing to leave afterwards. */
SP_NODEBUG void *sp_map_upsert1(void *map, void *key, void *init, void *drops, __u32 id)
{
	void *p = bpf_map_lookup_elem(map, key);
	long r;

	if (p)
		return p;
	r = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (r && r != -SP_EEXIST) {
		sp_count_drop(drops);
		return NULL;
	}
	if (r == 0)
		sp_note_insert(id + 1);
	return bpf_map_lookup_elem(map, key);
}

/* sp_map_upsert1 for a drained map, two halves: `alt`, its other half, is
 * written instead while the map's SP_FILL_GEN bit is set (abi/plan.h). The
 * caller calls sp_map_leave(drops) once done with the slot, NULL or not. */
SP_NODEBUG void *sp_map_upsert(void *map, void *alt, void *key, void *init, void *drops, __u32 id)
{
	return sp_map_upsert1(sp_map_enter(drops, id + 1) ? alt : map, key, init, drops, id);
}

/* Stores a plain value; counts a drop when the map is full. */
SP_NODEBUG void sp_map_put(void *map, void *key, void *val, void *drops)
{
	if (bpf_map_update_elem(map, key, val, BPF_ANY))
		sp_count_drop(drops);
}

static __always_inline SP_NODEBUG __s64 div_s64(__s64 a, __s64 b)
{
	int neg = (a < 0) != (b < 0);
	__u64 q;

	if (b == 0)
		return 0;
	q = (__u64)(a < 0 ? -a : a) / (__u64)(b < 0 ? -b : b);
	return neg ? -(__s64)q : (__s64)q;
}

struct pcpu_read {
	void *map, *key;
	__s64 acc, cnt;
	int agg, seen;
};

/* bpf_loop() bodies: merge one CPU's slot (the same merge user space
 * does). Callbacks, because a 512-iteration C loop with these branches is
 * more than the verifier will walk. Two of them, by value size: count and
 * sum hold one word, the others two, and a callback is verified without
 * knowing which aggregation its context names (6.1 refuses a read of the
 * second word of a one-word value on a path it cannot rule out). */
static long pcpu_step1(__u64 cpu, void *c)
{
	struct pcpu_read *x = c;
	__s64 *v = bpf_map_lookup_percpu_elem(x->map, x->key, (__u32)cpu);

	if (!v)
		return 1;
	x->acc += v[0];
	return 0;
}

static long pcpu_step2(__u64 cpu, void *c)
{
	struct pcpu_read *x = c;
	__s64 *v = bpf_map_lookup_percpu_elem(x->map, x->key, (__u32)cpu);

	if (!v)
		return 1;
	if (x->agg == 3 || x->agg == 4) {
		if (v[1] && (!x->seen || (x->agg == 3 ? v[0] < x->acc : v[0] > x->acc)))
			x->acc = v[0];
		x->seen |= v[1] != 0;
	} else {
		x->cnt += v[0];
		x->acc += v[1];
	}
	return 0;
}

/* Reads an aggregation across CPUs the way user space merges it.
 * agg: enum sp_agg_kind (1 count, 2 sum, 3 min, 4 max, 5 avg, 6 stats). */
SP_NODEBUG __s64 sp_percpu_read(void *map, void *key, int agg)
{
	struct pcpu_read x;

	x.map = map; /* field by field: no initializer copied from .rodata */
	x.key = key;
	x.acc = 0;
	x.cnt = 0;
	x.agg = agg;
	x.seen = 0;

	/* before 5.19 there is no bpf_map_lookup_percpu_elem: the kernel
	 * refuses the program and the runtime names the helper; the bound
	 * only keeps SPROF_BPF_COMPAT=1 loadable on newer kernels */
	if (agg >= 3 && agg <= 6)
		sp_loop(SP_MAX_CPUS, pcpu_step2, &x, SP_COMPAT_CPUS);
	else
		sp_loop(SP_MAX_CPUS, pcpu_step1, &x, SP_COMPAT_CPUS);
	if (agg == 5 || agg == 6)
		return div_s64(x.acc, x.cnt);
	return x.acc;
}

/* bpf_for_each_map_elem() body of sp_map_len(): visit the next entry. */
static long len_step(void *map, void *key, void *val, void *c)
{
	return 0;
}

/* len(@m): how many entries the map holds; bpf_for_each_map_elem (Linux
 * 5.13) returns how many it visited. */
SP_NODEBUG __s64 sp_map_len(void *map)
{
	long n, c = 0;

	n = bpf_for_each_map_elem(map, len_step, &c, 0);
	return n < 0 ? 0 : n;
}

/* hist(): 0 for negative values, 1 for 0, then 2 + floor(log2(v)). */
SP_NODEBUG __u64 sp_log2_bucket(__s64 sv)
{
	__u64 v = (__u64)sv, r = 0;

	if (sv < 0)
		return 0;
	if (v == 0)
		return 1;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1)
		r += 1;
	return r + 2;
}

/* lhist(): 0 below min, 1 + (v - min) / step inside, 1 + (max - min) / step
 * at or above max (bpftrace's layout). */
SP_NODEBUG __u64 sp_lin_bucket(__s64 v, __s64 min, __s64 max, __s64 step)
{
	if (step <= 0)
		return 0;
	if (v < min)
		return 0;
	if (v >= max)
		return 1 + (__u64)(max - min) / (__u64)step;
	return 1 + (__u64)(v - min) / (__u64)step;
}
