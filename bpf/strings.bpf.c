/* bpf/strings.bpf.c: string functions of the language that need a loop.
 *
 * strcontains(haystack, needle) over the two fixed-size string buffers
 * (each NUL-terminated within its size or filling it); inlined into the
 * program, where the sizes are constants the verifier can bound.
 */
#include "bpf/sp_bpf.h"

/* 1 if nd (of nn bytes) occurs in h (of hn bytes), else 0; "" is in any string. */
SP_NODEBUG __u64 sp_strcontains(const char *h, __u32 hn, const char *nd, __u32 nn)
{
	__u32 i, j;

	if (nn == 0 || !nd[0])
		return 1;
	for (i = 0; i < hn && i < 1024; i++) {
		if (!h[i])
			return 0;
		for (j = 0; j < nn && j < 1024; j++) {
			if (!nd[j])
				return 1;
			if (i + j >= hn || h[i + j] != nd[j])
				break;
		}
		if (j == nn)
			return 1;
	}
	return 0;
}
