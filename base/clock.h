/* base/clock.h: the one clock. CLOCK_MONOTONIC is bpf_ktime_get_ns()'s
 * clock, so user-space times compare with times taken in BPF. */
#ifndef SPROF_BASE_CLOCK_H
#define SPROF_BASE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t sp_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Monotonic nanoseconds and seconds. */
static inline uint64_t sp_mono_ns(void)
{
	return sp_clock_ns(CLOCK_MONOTONIC);
}

static inline double sp_mono_s(void)
{
	return (double)sp_mono_ns() / 1e9;
}

#endif
