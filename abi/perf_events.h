/* abi/perf_events.h: the perf software and hardware events, one table.
 *
 * The parser checks `software:EVENT` / `hardware:EVENT` names and aliases
 * against it, the runtime turns a name into a perf_event_attr config and a
 * default sample period (bpftrace's), and `sprof -l` lists it.
 * X(name, alias or NULL, PERF_COUNT_* config, default period)
 */
#ifndef SPROF_ABI_PERF_EVENTS_H
#define SPROF_ABI_PERF_EVENTS_H

#include <linux/perf_event.h>

#define SP_SOFTWARE_EVENTS(X)                                            \
	X("alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1)   \
	X("bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT, 1)               \
	X("context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1000) \
	X("cpu-clock", "cpu", PERF_COUNT_SW_CPU_CLOCK, 1000000)          \
	X("cpu-migrations", NULL, PERF_COUNT_SW_CPU_MIGRATIONS, 1)       \
	X("dummy", NULL, PERF_COUNT_SW_DUMMY, 1)                         \
	X("emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS, 1)   \
	X("major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1)        \
	X("minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100)      \
	X("page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, 100)       \
	X("task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, 1)

#define SP_HARDWARE_EVENTS(X)                                                        \
	X("backend-stalls", NULL, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000000)     \
	X("branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100000) \
	X("branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES, 100000)                \
	X("bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES, 100000)                      \
	X("cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES, 1000000)                 \
	X("cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES, 1000000)         \
	X("cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES, 1000000)                 \
	X("frontend-stalls", NULL, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000)   \
	X("instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS, 1000000)                 \
	X("ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000)

#endif
