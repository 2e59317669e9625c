/* tests/unit/test_fdio.c: base/fdio.c's sp_write_all() on real descriptors.
 *
 * 4 MiB through a pipe to a slow reader while a 1 ms timer interrupts
 * the writer (a handler without SA_RESTART): write(2) returns short
 * counts and EINTR, and every byte must arrive once and in order. Then
 * the errors: a pipe nobody reads (-EPIPE, SIGPIPE ignored), a closed
 * descriptor (-EBADF), a full non-blocking pipe (-EAGAIN); nothing to
 * write is 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/fdio.h"
#include "tests/unit/check.h"

#define BIG (4u << 20)

struct reader {
	int fd;
	unsigned char *got;
	size_t n;
};

static void *read_slowly(void *arg)
{
	struct reader *r = arg;
	ssize_t k;

	while ((k = read(r->fd, r->got + r->n, 4096)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		r->n += (size_t)k;
		if (r->n % (256 * 1024) < 4096)
			usleep(2000); /* the pipe fills: the writer blocks and is interrupted */
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_short_writes(void)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	unsigned char *buf = malloc(BIG);
	struct reader r = { .got = calloc(1, BIG + 4096) };
	pthread_t th;
	int p[2], err;

	if (!buf || !r.got || pipe(p)) {
		CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < BIG; i++)
		buf[i] = (unsigned char)(i * 131 + i / 4096);
	r.fd = p[0];
	sigaction(SIGALRM, &sa, NULL);
	pthread_create(&th, NULL, read_slowly, &r);
	setitimer(ITIMER_REAL, &it, NULL);
	err = sp_write_all(p[1], buf, BIG);
	setitimer(ITIMER_REAL, &off, NULL);
	close(p[1]);
	pthread_join(th, NULL);
	close(p[0]);
	CHECK(err == 0, "4 MiB to a slow pipe: %d", err);
	CHECK(r.n == BIG, "the reader got %zu bytes of %u", r.n, BIG);
	CHECK(r.n == BIG && memcmp(r.got, buf, BIG) == 0, "the bytes arrived changed");
	free(buf);
	free(r.got);
}

static void test_errors(void)
{
	char b[65536] = { 0 };
	int p[2], err;

	signal(SIGPIPE, SIG_IGN);
	if (pipe(p) == 0) {
		close(p[0]);
		err = sp_write_all(p[1], "x", 1);
		CHECK(err == -EPIPE, "a pipe nobody reads: %d", err);
		close(p[1]);
	}
	err = sp_write_all(p[1], "x", 1); /* closed above */
	CHECK(err == -EBADF, "a closed descriptor: %d", err);
	if (pipe2(p, O_NONBLOCK) == 0) {
		err = 0;
		for (int i = 0; i < 64 && !err; i++) /* more than the pipe holds */
			err = sp_write_all(p[1], b, sizeof(b));
		CHECK(err == -EAGAIN, "a full non-blocking pipe: %d", err);
		CHECK(sp_write_all(p[1], b, 0) == 0, "nothing to write");
		close(p[0]);
		close(p[1]);
	}
}

int main(void)
{
	test_short_writes();
	test_errors();
	printf("test_fdio: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
