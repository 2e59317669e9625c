/* tests/workloads/unwind_libc.c: stacks through libc code without frame pointers.
 *
 * main -> sort_outer -> qsort (libc: msort_with_tmp, no frame pointer) ->
 * by_key, the comparison function, which burns CPU and every 64th call
 * makes a getppid() system call (a stack taken in kernel mode: the
 * unwinder starts from the task's saved user registers).
 *
 *   unwind_libc [SECONDS]      (default 2)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define N 4096

static volatile uint64_t sink;
static unsigned calls;

__attribute__((noipa)) int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b, h = x;

	for (int i = 0; i < 200; i++)
		h = (h ^ (uint64_t)i) * 1099511628211ull;
	sink += h;
	if (++calls % 64 == 0)
		sink += (uint64_t)getppid();
	return (x > y) - (x < y);
}

__attribute__((noipa)) void sort_outer(uint64_t *v, unsigned seed)
{
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed;
	}
	qsort(v, N, sizeof(*v), by_key);
	sink += v[0];
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static uint64_t v[N];
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);
	unsigned seed = 1;

	while (now() < end)
		sort_outer(v, seed++);
	return 0;
}
