/* tests/workloads/stdlib_work.c: one workload per stdlib script, with known answers.
 *
 *   stdlib_work alloc     10 x malloc(1000) freed (alloc_freed), 8 x malloc(4096) leaked
 *                         (leak_some), 3 x calloc(5, 200) freed (calloc_some), 2 x
 *                         realloc to 3000 (realloc_some, freed), then waits 800 ms
 *   stdlib_work lat       5 calls of slow_call(), each sleeping 10 ms
 *   stdlib_work count     count_a() 7 times, count_b() 3 times
 *   stdlib_work sys       getppid() 1234 times (syscall 110), 5 x 20 ms nanosleep
 *   stdlib_work pingpong  sleeper() blocks in read() on a pipe that waker() writes
 *                         after sleeping 5 ms, 40 times
 *   stdlib_work faults    touch_pages() touches 2000 fresh anonymous pages
 *   stdlib_work usdt      stdlib:tick(i, i * 10) for i = 0..19, 10 ms apart
 *   stdlib_work io FILE   16 x write(4 KiB) + fsync of FILE (O_DIRECT where possible)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *keep[64];

NOINLINE static void alloc_freed(void)
{
	for (int i = 0; i < 10; i++) {
		void *p = malloc(1000);
		free(p);
	}
}

NOINLINE static void leak_some(void)
{
	for (int i = 0; i < 8; i++)
		keep[i] = malloc(4096);
}

NOINLINE static void calloc_some(void)
{
	for (int i = 0; i < 3; i++)
		free(calloc(5, 200));
}

NOINLINE static void realloc_some(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = malloc(100);
		p = realloc(p, 3000);
		free(p);
	}
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int do_alloc(void)
{
	msleep(100); /* let the uretprobes settle */
	alloc_freed();
	leak_some();
	calloc_some();
	realloc_some();
	msleep(800);
	return keep[0] == NULL;
}

NOINLINE static void slow_call(void) { msleep(10); }
NOINLINE static void count_a(void) { __asm__ volatile(""); }
NOINLINE static void count_b(void) { __asm__ volatile(""); }

static int do_sys(void)
{
	for (int i = 0; i < 1234; i++)
		syscall(SYS_getppid);
	for (int i = 0; i < 5; i++)
		msleep(20);
	return 0;
}

static int pipes[2][2];

NOINLINE static void *waker(void *arg)
{
	char c = 'x';
	for (int i = 0; i < 40; i++) {
		msleep(5);
		if (write(pipes[0][1], &c, 1) != 1 || read(pipes[1][0], &c, 1) != 1)
			break;
	}
	return arg;
}

NOINLINE static void sleeper(void)
{
	char c;
	for (int i = 0; i < 40; i++)
		if (read(pipes[0][0], &c, 1) != 1 || write(pipes[1][1], &c, 1) != 1)
			break;
}

static int do_pingpong(void)
{
	pthread_t t;
	if (pipe(pipes[0]) || pipe(pipes[1]) || pthread_create(&t, NULL, waker, NULL))
		return 1;
	sleeper();
	return pthread_join(t, NULL);
}

NOINLINE static void touch_pages(char *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
}

static int do_faults(void)
{
	long n = 2000;
	char *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	touch_pages(p, n);
	return munmap(p, (size_t)n * 4096);
}

static int do_usdt(void)
{
	for (long i = 0; i < 20; i++) {
		DTRACE_PROBE2(stdlib, tick, i, i * 10);
		msleep(10);
	}
	return 0;
}

static int do_io(const char *path)
{
	static char buf[4096] __attribute__((aligned(4096)));
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_DIRECT, 0644);
	if (fd < 0)
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_SYNC, 0644);
	if (fd < 0)
		return 1;
	memset(buf, 'a', sizeof(buf));
	for (int i = 0; i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd))
			return 1;
	close(fd);
	return unlink(path);
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "alloc"))
		return do_alloc();
	if (!strcmp(m, "lat")) {
		for (int i = 0; i < 5; i++)
			slow_call();
		return 0;
	}
	if (!strcmp(m, "count")) {
		for (int i = 0; i < 7; i++)
			count_a();
		for (int i = 0; i < 3; i++)
			count_b();
		return 0;
	}
	if (!strcmp(m, "sys"))
		return do_sys();
	if (!strcmp(m, "pingpong"))
		return do_pingpong();
	if (!strcmp(m, "faults"))
		return do_faults();
	if (!strcmp(m, "usdt"))
		return do_usdt();
	if (!strcmp(m, "io") && argc > 2)
		return do_io(argv[2]);
	fprintf(stderr, "usage: stdlib_work alloc|lat|count|sys|pingpong|faults|usdt|io FILE\n");
	return 2;
}
