/* tests/workloads/unwind_signal.c: stacks through a signal frame.
 *
 * main -> main_work spins; a 20 ms interval timer (SIGALRM) runs on_signal
 * -> sig_burn, which burns about 5 ms each time. A stack taken in sig_burn
 * goes sig_burn <- on_signal <- __restore_rt (glibc's signal trampoline,
 * unwound through the saved ucontext) <- main_work <- main.
 *
 *   unwind_signal [SECONDS]      (default 2)
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noipa)) void sig_burn(void)
{
	double end = now() + 0.005;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink = (sink ^ (uint64_t)i) * 1099511628211ull;
}

__attribute__((noipa)) void on_signal(int sig)
{
	sig_burn();
	sink += (uint64_t)sig;
}

__attribute__((noipa)) void main_work(double end)
{
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink = (sink ^ (uint64_t)i) * 1099511628211ull;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	main_work(now() + (argc > 1 ? atof(argv[1]) : 2.0));
	return 0;
}
