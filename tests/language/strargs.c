/* strargs: a target for the language tier's u-probe cases (str, buf,
 * uaddr, usym, func, retval, argN, ustack).
 *
 *   strargs [N]      (default 3)
 *
 * take_str(s, n)  called N times with "hello world" and 11; returns n + i
 * take_fn(f, i)   called N times with the address of cb, for usym(arg0)
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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	sink += hello[0] + greeting[0]; /* fault the strings in: a probe cannot */
	for (int i = 0; i < n; i++) {
		take_str(hello, 11, i);
		sink += take_fn(cb, i);
	}
	return (int)(sink & 0);
}
