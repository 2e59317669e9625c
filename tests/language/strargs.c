/* strargs: a target for the language tier's u-probe cases (str, buf,
 * uaddr, usym, func, retval, argN, ustack).
 *
 *   strargs [N]      (default 3)
 *
 * take_str(s, n)  called N times with "hello world" and 11; returns n + i
 * take_fn(f, i)   called N times with the address of cb, for usym(arg0)
 * take_many(1..8) called N times: its 7th and 8th arguments are on the
 *                 stack (sarg0, sarg1), the others in registers (reg("di"))
 * greeting        a global string, for uaddr("greeting")
 * Built -O0 with frame pointers, so ustack is main <- take_str.
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline, used))

const char greeting[] = "greeting from a global";
const char hello[] = "hello world";
volatile long sink;

NOINLINE int take_str(const char *s, int n, int i)
{
	sink += s[0] + n;
	return n + i;
}

NOINLINE int cb(int i)
{
	return i * 2;
}

NOINLINE int take_fn(int (*f)(int), int i)
{
	return f(i);
}

NOINLINE long take_many(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	sink += hello[0] + greeting[0]; /* fault the strings in: a probe cannot */
	for (int i = 0; i < n; i++) {
		take_str(hello, 11, i);
		sink += take_fn(cb, i);
		sink += take_many(1, 2, 3, 4, 5, 6, 70 + i, 80 + i);
	}
	return (int)(sink & 0);
}
