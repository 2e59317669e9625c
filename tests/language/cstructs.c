/* cstructs: a target for the language tier's C type cases (struct, union,
 * array, bitfield and pointer reads through uprobe arguments).
 *
 *   cstructs [N]      (default 3)
 *
 * take_foo(f, i)   called N times with a pointer to a struct foo on main's
 *                  stack (f->a = 42 + i) and i
 * take_pk(p)       called once with a packed struct pk
 * take_mixed(in, d, k)  called once with a struct by value, a double and 7:
 *                  k is in the second integer register (arg1), not arg2
 * The same definitions are written in the .t cases' scripts.
 */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, used))

struct inner {
	short x;
	unsigned char y;
};

struct foo {
	int a;
	char name[8];
	long b;
	struct inner in;
	int arr[3];
	struct foo *next;
	unsigned int f1 : 3, f2 : 5;
	int neg : 4;
};

struct pk {
	char c;
	int x;
} __attribute__((packed));

volatile long sink;

NOINLINE int take_foo(struct foo *f, int i)
{
	sink += f->a + i;
	return f->a;
}

NOINLINE int take_pk(struct pk *p)
{
	return p->x;
}

NOINLINE int take_mixed(struct inner in, double d, int k)
{
	return in.x + (int)d + k;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	struct foo second = { .a = 7, .b = -2, .in = { 3, 4 }, .arr = { 9, 8, 7 },
			      .f1 = 5, .f2 = 17, .neg = 3 };
	struct foo f = { .a = 42, .b = 1234567890123L, .in = { -5, 200 }, .arr = { 1, 2, 3 },
			 .next = &second, .f1 = 2, .f2 = 30, .neg = -3 };
	struct pk p = { .c = 'x', .x = 123456 };

	strcpy(f.name, "hello");
	strcpy(second.name, "two");
	for (int i = 0; i < n; i++) {
		f.a = 42 + i;
		take_foo(&f, i);
	}
	take_pk(&p);
	sink += take_mixed(f.in, 2.5, 7);
	return 0;
}
