/* tests/workloads/unwind_chain.c: a known call chain for the DWARF unwinder.
 *
 * main -> chain_outer -> chain_mid -> chain_leaf, each noipa (no inlining,
 * no clones, no tail calls: every caller uses the result), the leaf burning
 * CPU. Built -O2 -fomit-frame-pointer (no frame pointers anywhere: a
 * frame-pointer walk gives garbage) and -O1 -fno-omit-frame-pointer (gcc
 * leaves the leaf frameless, so a frame-pointer walk skips chain_mid).
 *
 * Also built by clang (-fuse-ld=lld: lld's segment layout), where noipa
 * is spelled noinline.
 *
 *   unwind_chain [SECONDS]      (default 2, of CPU time: as many samples on a loaded
 *                               machine as on an idle one)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif

static volatile uint64_t sink;

NOIPA uint64_t chain_leaf(uint64_t seed)
{
	uint64_t h = seed;

	for (int i = 0; i < 200000; i++)
		h = (h ^ (uint64_t)i) * 1099511628211ull;
	return h;
}

NOIPA uint64_t chain_mid(uint64_t seed)
{
	uint64_t a = chain_leaf(seed);

	return a ^ (seed >> 3);
}

NOIPA uint64_t chain_outer(uint64_t seed)
{
	uint64_t a = chain_mid(seed + 1);

	return a + seed * 7;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);
	uint64_t seed = 1;

	while (now() < end)
		sink += chain_outer(seed++);
	return 0;
}
