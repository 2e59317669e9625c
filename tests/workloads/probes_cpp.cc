// probes_cpp: C++ functions for uprobes by mangled and demangled name.
//
//   probes_cpp [N]   (default 1000)
//
// shapes::Widget::poke(int)      called N times   (_ZN6shapes6Widget4pokeEi)
// shapes::area(int, int)         called N times
// shapes::area(double)           called 2N times
#include <cstdio>
#include <cstdlib>

namespace shapes {

struct Widget {
	long v = 0;
	__attribute__((noinline)) long poke(int x);
};

long Widget::poke(int x)
{
	return v += x;
}

__attribute__((noinline)) long area(int w, int h)
{
	return (long)w * h;
}

__attribute__((noinline)) long area(double r)
{
	return (long)(3 * r * r);
}

} // namespace shapes

volatile long sink;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	shapes::Widget w;

	for (int i = 0; i < n; i++) {
		sink += w.poke(i);
		sink += shapes::area(i, 2);
		sink += shapes::area(1.0 * i);
		sink += shapes::area(2.0);
	}
	printf("done %d\n", n);
	return 0;
}
