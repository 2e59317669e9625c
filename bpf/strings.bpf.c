/* bpf/strings.bpf.c: string functions of the language that need a loop.
 *
 * strcontains(haystack, needle) over the two fixed-size string buffers
 * (each NUL-terminated within its size or filling it). The two strings are
 * copied into a per-CPU scratch value and searched with nested bpf_loop()
 * callbacks whose indexes are masked into it: the verifier checks each
 * callback once, so the cost does not grow with --strlen (plain nested
 * loops over two 1024-byte strings exceed its jump-sequence limit).
 */
#include "bpf/sp_bpf.h"

#define SP_STR_MAX 1024 /* SP_MAX_STRING: the longest string a program holds */
/* Without bpf_loop (kernels before 5.17, sp_loop() in bpf/sp_bpf.h) the
 * nested loops are verified step by step: the first 64 bytes of the
 * haystack and the needle are searched (docs/language.md). */
#ifdef SP_BPF_COMPAT
#define SP_COMPAT_STR 64
#else
#define SP_COMPAT_STR SP_STR_MAX
#endif

struct sp_strs {
	char h[SP_STR_MAX];
	char n[SP_STR_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_strs);
} sp_str_scratch SEC(".maps");

struct contains_ctx {
	struct sp_strs *s;
	__u32 hn, nn, i;
	__u64 found;
};

/* needle byte j against haystack byte i + j; 1 stops the loop */
static long needle_cb(__u64 j, void *c)
{
	struct contains_ctx *x = c;
	__u64 k = x->i + j;
	char nc;

	if (j >= x->nn) { /* the needle filled its buffer: all of it matched */
		x->found = 1;
		return 1;
	}
	nc = x->s->n[j & (SP_STR_MAX - 1)];
	if (!nc) {
		x->found = 1;
		return 1;
	}
	if (k >= x->hn || x->s->h[k & (SP_STR_MAX - 1)] != nc)
		return 1;
	return 0;
}

/* a match starting at haystack byte i? */
static long start_cb(__u64 i, void *c)
{
	struct contains_ctx *x = c;

	if (!x->s->h[i & (SP_STR_MAX - 1)])
		return 1;
	x->i = (__u32)i;
	sp_loop(x->nn + 1, needle_cb, x, SP_COMPAT_STR + 1);
	return x->found ? 1 : 0;
}

/* 1 if nd (of nn bytes) occurs in h (of hn bytes), else 0; "" is in any string. */
SP_NODEBUG __u64 sp_strcontains(const char *h, __u32 hn, const char *nd, __u32 nn)
{
	__u32 zero = 0;
	struct sp_strs *s = bpf_map_lookup_elem(&sp_str_scratch, &zero);
	struct contains_ctx x = { .s = s };

	if (nn == 0 || !nd[0])
		return 1;
	if (!s)
		return 0;
	x.hn = hn < SP_STR_MAX ? hn : SP_STR_MAX;
	x.nn = nn < SP_STR_MAX ? nn : SP_STR_MAX;
	bpf_probe_read_kernel(s->h, x.hn, h);
	bpf_probe_read_kernel(s->n, x.nn, nd);
	sp_loop(x.hn, start_cb, &x, SP_COMPAT_STR);
	return x.found;
}
