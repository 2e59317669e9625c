/* runtime/listing.h: `sprof -l [PATTERN]` and wildcard expansion of attach points.
 *
 * Listing prints one attach point per line, in the syntax a script uses:
 *     tracepoint:sched:sched_switch
 *     rawtracepoint:sched_switch          (only when asked for: rt:* / rawtracepoint:*)
 *     software:cpu-clock:
 *     hardware:cycles:
 *     uprobe:/usr/bin/app:parse_args      (-l 'uprobe:./app:*')
 *     usdt:/usr/bin/app:provider:name     (-l 'usdt:./app:*')
 * With verbose, tracepoints are followed by their fields and USDT probes
 * by their argument specs, indented. With pid > 0 and no target (or a '*'
 * target), uprobes and USDT probes come from that process's executable and
 * every library it has mapped; `-l -p PID` alone lists just those. Probe
 * type aliases (t, rt, s, h, u, ur, U, k, kr) are accepted in the pattern.
 */
#ifndef SPROF_RUNTIME_LISTING_H
#define SPROF_RUNTIME_LISTING_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* Returns 0, or -errno after printing a message naming the problem on
 * stderr ("cannot list 'uprobe:./app:*': binary './app' not found"). A
 * pattern that matches nothing prints nothing and returns 0. */
int sp_list_probes(const char *pattern, pid_t pid, bool verbose, FILE *out);
/* Same; with verbose, each uprobe function and raw tracepoint is followed by
 * what params() prints for it (binary NULL for a raw tracepoint; the driver
 * passes the front end's DWARF/BTF lister: this layer reads no types). */
typedef int (*sp_list_params_fn)(void *ctx, const char *binary, const char *func, FILE *out);
int sp_list_probes_ex(const char *pattern, pid_t pid, bool verbose, sp_list_params_fn params,
		      void *params_ctx, FILE *out);

/* The driver's hook for wildcards, when a program needs one BPF program per
 * match (its body uses `probe`): call before codegen and give each concrete
 * attach point its own probe. Without it the runtime attaches one program
 * to every match itself.
 *
 * Expand wildcards of one attach point ("uprobe:./app:parse_*",
 * "usdt:./app:*", "tracepoint:syscalls:sys_enter_*"). *out gets malloc'd
 * concrete attach points with resolved paths ("uprobe:/abs/app:parse_a");
 * an attach point without a wildcard comes back as one entry. Returns 0,
 * -ENOENT when nothing matches, or -errno. Free with sp_strv_free(). */
int sp_expand_probe(const char *spec, pid_t pid, char ***out, int *n);

/* Canonical probe type name for a provider or its alias ("t" ->
 * "tracepoint"); NULL when unknown. */
const char *sp_probe_alias(const char *provider);

#endif
