/* tests/workloads/inline_hot.c: a hot function inlined into two callers.
 *
 * hot() (itself with hot_inner() inlined into it) is always_inline, so at
 * -O2 -g its code lives inside caller_a() and caller_b() and only
 * .debug_info's DW_TAG_inlined_subroutine entries tell it is there. The
 * "call:" markers name the lines the tests expect as call sites. Runs
 * until killed; with an argument N, N rounds and exits.
 */
#include <stdlib.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long hot_inner(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static inline __attribute__((always_inline)) unsigned long hot(unsigned long x)
{
	return hot_inner(x) ^ (x >> 3); /* call:hot_inner */
}

__attribute__((noinline)) void caller_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += hot(i); /* call:hot_a */
}

__attribute__((noinline)) void caller_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += hot(i * 7 + 1); /* call:hot_b */
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : -1;

	for (long r = 0; rounds < 0 || r < rounds; r++) {
		caller_a(2000);
		caller_b(2000);
	}
	return 0;
}
