/* usdt_args: USDT probes with known arguments, for sp_usdt_arg decoding.
 *
 *   usdt_args [N] [SLEEP_US]   (default 100, 0)
 *
 * For i in 0..N-1, through a non-inlined function so the compiler picks
 * register and memory operands (built with -O2 the specs look like
 * "-4@%edi 8@(%rsi) -4@8(%rsi) 8@%rdx"):
 *   sptest:args(neg = -(i+1), pt->x = 1000+i, pt->y = -7, s = "hello")
 *   sptest:small(i % 4, (short)-2, (unsigned char)200)
 *   other:small(42)                  (a second provider with the same name)
 *   sptest:indexed(garr[i % 8], garr[1])  base+index*scale and sym+off(%rip)
 *                                    operands: 10 + i % 8 and 11
 *   sptest:global(garr[2])           a global: "-4@8+garr(%rip)" at -O2: 12
 *   sptest:many(k)                   at 10 sites, k = 0..9 (sites share one link)
 *   sptest:guarded(i)                only when its semaphore is raised
 * At the end: "guarded N" = how often the semaphore was seen raised.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

struct pt {
	long x;
	int y;
};

/* With _SDT_HAS_SEMAPHORES every probe records a semaphore; only
 * sptest:guarded checks its own. */
#define SEMAPHORE(p, n) \
	__extension__ unsigned short p##_##n##_semaphore __attribute__((section(".probes"), used))
SEMAPHORE(sptest, args);
SEMAPHORE(sptest, small);
SEMAPHORE(other, small);
SEMAPHORE(sptest, guarded);
SEMAPHORE(sptest, indexed);
SEMAPHORE(sptest, global);
SEMAPHORE(sptest, many);

int garr[8] = { 10, 11, 12, 13, 14, 15, 16, 17 };

static volatile long sink;

__attribute__((noinline)) static void fire(int neg, const struct pt *p, const char *s)
{
	STAP_PROBE4(sptest, args, neg, p->x, p->y, s);
	sink += neg;
}

__attribute__((noinline)) static void fire_small(int i, short h, unsigned char c)
{
	STAP_PROBE3(sptest, small, i % 4, h, c);
	STAP_PROBE1(other, small, 42);
	sink += c;
}

__attribute__((noinline)) static void fire_indexed(int i)
{
	STAP_PROBE2(sptest, indexed, garr[i % 8], garr[1]);
	sink += i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int us = argc > 2 ? atoi(argv[2]) : 0;
	long guarded = 0;
	struct pt p = { 0, -7 };
	char msg[16];

	/* On the stack, so its page is present: BPF cannot fault pages in. */
	snprintf(msg, sizeof(msg), "%s", "hello");

	for (int i = 0; i < n; i++) {
		p.x = 1000 + i;
		fire(-(i + 1), &p, msg);
		fire_small(i, -2, 200);
		fire_indexed(i);
		STAP_PROBE1(sptest, global, garr[2]);
		STAP_PROBE1(sptest, many, 0);
		STAP_PROBE1(sptest, many, 1);
		STAP_PROBE1(sptest, many, 2);
		STAP_PROBE1(sptest, many, 3);
		STAP_PROBE1(sptest, many, 4);
		STAP_PROBE1(sptest, many, 5);
		STAP_PROBE1(sptest, many, 6);
		STAP_PROBE1(sptest, many, 7);
		STAP_PROBE1(sptest, many, 8);
		STAP_PROBE1(sptest, many, 9);
		if (sptest_guarded_semaphore) {
			guarded++;
			STAP_PROBE1(sptest, guarded, i);
		}
		if (us)
			usleep(us);
	}
	printf("guarded %ld\n", guarded);
	return 0;
}
