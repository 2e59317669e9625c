/* tests/workloads/printf_check.c: checks its own snprintf results while being traced.
 *
 * For SECONDS (default 10), formats "%s: %d uprobes %.3f" a thousand times a
 * second and compares the result with what it must be; prints
 * "n=N bad=B" at the end (and the first wrong strings). A uprobe that
 * corrupts the process (one on an instruction the kernel mishandles)
 * shows here as bad > 0. Ends early on SIGINT/SIGTERM, still printing.
 *
 *   printf_check [SECONDS]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);
	long bad = 0, n = 0;
	char buf[256];

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop && time(NULL) < end) {
		snprintf(buf, sizeof(buf), "%s: %d uprobes %.3f", "abc", 42, 1.5);
		if (strcmp(buf, "abc: 42 uprobes 1.500") != 0 && bad++ < 3)
			printf("wrong: %s\n", buf);
		n++;
		usleep(1000);
	}
	printf("n=%ld bad=%ld\n", n, bad);
	return 0;
}
