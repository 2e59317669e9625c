/* tests/workloads/unwind_deep.c: a call chain deeper than a stack can hold.
 *
 *   unwind_deep [SECONDS] [DEPTH]   (default 1 s, 300 frames of deep())
 *
 * deep() recurses DEPTH times, then spins in leaf(): every sample is a
 * stack of more than SP_MAX_FRAMES (127) frames, which sprof keeps cut and
 * must end with a [truncated] frame. SECONDS are of the process's CPU time,
 * so a loaded machine gives as many samples as an idle one, later.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void leaf(double end)
{
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) static void deep(int n, double end)
{
	if (n > 0)
		deep(n - 1, end);
	else
		leaf(end);
	sink++; /* not a tail call */
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int depth = argc > 2 ? atoi(argv[2]) : 300;

	deep(depth, now() + secs);
	return 0;
}
