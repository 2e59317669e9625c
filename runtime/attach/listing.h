/* runtime/attach/listing.h: `sprof -l [PATTERN]` and wildcard expansion of attach points.
 *
 * Listing prints one attach point per line, in the syntax a script uses:
 *     tracepoint:sched:sched_switch
 *     rawtracepoint:sched_switch          (only when asked for: rt:* / rawtracepoint:*)
 *     software:cpu-clock:
 *     hardware:cycles:
 *     uprobe:/usr/bin/app:parse_args      (-l 'uprobe:./app:*')
 *     usdt:/usr/bin/app:provider:name     (-l 'usdt:./app:*')
 *     fentry:vmlinux:vfs_read             (-l 'fentry:vfs_*', -l 'kfunc:*'; fexit too)
 * With verbose, tracepoints are followed by their fields, USDT probes
 * by their argument specs and fentry/fexit functions by their BTF arguments
 * and return type, indented. With pid > 0 and no target (or a '*'
 * target), uprobes and USDT probes come from that process's executable and
 * every library it has mapped; `-l -p PID` alone lists just those. Probe
 * type aliases (t, rt, s, h, u, ur, U, k, kr) are accepted in the pattern.
 */
#ifndef SPROF_RUNTIME_ATTACH_LISTING_H
#define SPROF_RUNTIME_ATTACH_LISTING_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Returns 0, or -errno after printing a message naming the problem on
 * stderr ("cannot list 'uprobe:./app:*': binary './app' not found"). A
 * pattern that matches nothing prints nothing and returns 0. */
int sp_list_probes(const char *pattern, pid_t pid, bool verbose, FILE *out);
/* Same; with verbose, each uprobe function and raw tracepoint is followed by
 * what params() prints for it (binary NULL for a raw tracepoint, SP_LIST_KFUNC
 * "[kernel]" for a kernel function; the driver
 * passes the front end's DWARF/BTF lister: this layer reads no types). */
typedef int (*sp_list_params_fn)(void *ctx, const char *binary, const char *func, FILE *out);
int sp_list_probes_ex(const char *pattern, pid_t pid, bool verbose, sp_list_params_fn params,
		      void *params_ctx, FILE *out);

/* Canonical probe type name for a provider or its alias ("t" ->
 * "tracepoint"); NULL when unknown. */
const char *sp_probe_alias(const char *provider);

#endif
