/* tests/workloads/unwind_fork.c: short-lived forked children (no exec).
 *
 *   unwind_fork [N] [MS]    fork N children (default 200) one after
 *                           another, each burning MS ms of CPU (default 20)
 *                           in child_burn <- child_main <- main, then
 *                           exiting; the parent waits for each
 *
 * Built -O2 without frame pointers: a child's stack is whole only by the
 * parent's unwind tables, which it must get from its first sample on.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void child_burn(double ms)
{
	double end = cpu_ms() + ms;
	unsigned long h = 1;

	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			h = (h ^ (unsigned long)i) * 1099511628211ul;
	sink = h;
}

__attribute__((noinline)) static void child_main(double ms)
{
	child_burn(ms);
	sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	double ms = argc > 2 ? atof(argv[2]) : 20;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			child_main(ms);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}
