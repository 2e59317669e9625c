/* runtime/stacks/perfmap.h: a process's JIT symbols from its perf map (/tmp/perf-PID.map).
 *
 * JIT runtimes (node --perf-basic-prof, the JVM's Compiler.perfmap, LuaJIT,
 * .NET, ...) write one line per compiled function: `START SIZE name`, START
 * and SIZE in hex (with or without 0x), the name to the end of the line.
 * The file is opened once (through /proc/PID/root, under the pid the
 * process sees in its own namespace) and the descriptor kept, so it can be
 * read again after the process exited. sp_perfmap__refresh() re-reads it
 * when its size or mtime changed: only the new lines when it grew (node
 * appends), all of it otherwise (the JVM rewrites it).
 *
 * A later line wins where ranges overlap (code freed and reused). Lines
 * that do not parse are skipped and counted. Names returned stay valid
 * until sp_perfmap__destroy(), across refreshes.
 */
#ifndef SPROF_RUNTIME_STACKS_PERFMAP_H
#define SPROF_RUNTIME_STACKS_PERFMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sp_perfsym {
	uint64_t start, size;
	const char *name;
	uint32_t seq;           /* line order: a later line wins an overlap */
};

struct sp_perfmap;

/* The perf map of `pid`; NULL and errno (ENOENT: none) when it cannot be opened.
 * Once the process is gone, the host's /tmp/perf-PID.map (a map written at
 * exit), whoever owns it. */
struct sp_perfmap *sp_perfmap__open(pid_t pid);
/* One from a file path (tests, or a map copied elsewhere). */
struct sp_perfmap *sp_perfmap__open_path(const char *path, const char *shown);
void sp_perfmap__destroy(struct sp_perfmap *pm); /* accepts NULL */

/* A perf map larger than this is not read (any further). */
#define SP_PERFMAP_MAX_MIB 256

/* Read what is new since the last call (all of it the first time): 0, or
 * -errno when the file cannot be read (what was read before stays):
 * -EFBIG past SP_PERFMAP_MAX_MIB. */
int sp_perfmap__refresh(struct sp_perfmap *pm);
/* The symbol holding `addr`, or NULL. */
const struct sp_perfsym *sp_perfmap__find(const struct sp_perfmap *pm, uint64_t addr);
/* The file as the process names it ("/tmp/perf-123.map"): the frames' module. */
const char *sp_perfmap__path(const struct sp_perfmap *pm);

/* Malformed lines skipped so far, and the line number of the first one. */
int sp_perfmap__bad_lines(const struct sp_perfmap *pm, int *first_line);
int sp_perfmap__count(const struct sp_perfmap *pm);

#endif
