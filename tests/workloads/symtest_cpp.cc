// tests/workloads/symtest_cpp.cc: C++ names for the symbolizer's demangling test.
// Prints `NAME ADDRESS` for a namespaced method and an overload, then "ready",
// then loops until killed.
#include <cstdio>
#include <ctime>

namespace symtest {
struct Worker {
	__attribute__((noinline)) static long run(int n);
	__attribute__((noinline)) static long run(double d);
};

static volatile long sink;

long Worker::run(int n)
{
	struct timespec ts = { 0, 2000000 };
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
	return sink += n;
}

long Worker::run(double d)
{
	return sink += (long)d;
}
} // namespace symtest

int main()
{
	long (*ri)(int) = symtest::Worker::run;
	long (*rd)(double) = symtest::Worker::run;

	std::printf("run_int %p\n", (void *)ri);
	std::printf("run_double %p\n", (void *)rd);
	std::printf("ready\n");
	std::fflush(stdout);
	for (;;)
		rd(ri(1));
}
