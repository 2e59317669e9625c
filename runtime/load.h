/* runtime/load.h: BPF object bytes -> loaded object, or a diagnostic that
 * points at the script.
 */
#ifndef SPROF_RUNTIME_LOAD_H
#define SPROF_RUNTIME_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "abi/plan.h"
#include "runtime/runtime.h"

struct bpf_object;

#define SP_LIBBPF_LINES 8

struct sp_loader {
	struct bpf_object *obj;
	char *vlog;        /* verifier log, shared by every program (loaded one by one) */
	size_t vlogsz;
	int verbose;
	/* last libbpf warnings, shown when something fails */
	char *lines[SP_LIBBPF_LINES];
	int nlines;
	char failed_prog[128]; /* program named in "prog 'X': BPF program load failed" */
	const void *obj_bytes; /* the caller's object (BTF line info for columns) */
	size_t obj_len;
	char *statlog;     /* SPROF_TIMINGS: each program's verifier statistics */
};

/* 0 when we are root or hold CAP_BPF and CAP_PERFMON; else prints
 * "sprof needs root or CAP_BPF and CAP_PERFMON" and returns -EPERM. */
int sp_check_privileges(void);
/* --unsafe (signal(), system()) is for root only: a user running sprof
 * with file capabilities would use them to signal any process and to run
 * commands as the traced events ask. 0, or -EPERM with the reason said. */
int sp_check_unsafe(bool unsafe);

/* Opens the object from memory and sizes maps; NULL with errno set and a
 * message printed on failure. */
struct sp_loader *sp_loader__open(const struct sp_plan *plan, const void *obj, size_t len,
				  const struct sp_run_opts *o);
/* Loads into the kernel; on a verifier failure shows the log's last lines
 * (all of it with -v) and reports the script line through o->diag. */
int sp_loader__load(struct sp_loader *l, const struct sp_plan *plan, const struct sp_run_opts *o);
/* Writes struct sp_config (target pid, -c child, start time) into SP_MAP_CONFIG. */
int sp_loader__set_config(struct sp_loader *l, pid_t target, pid_t cpid, uint32_t test_hash_bits);
void sp_loader__destroy(struct sp_loader *l);

/* Verifier log -> LINE of the last "; ... @ FILE:LINE" naming the script
 * (basename of `script`; any file when NULL); 0 if none. `msg` receives the
 * last line that is the verifier's complaint (not an instruction or state). */
uint32_t sp_vlog_script_line(const char *log, const char *script, char *msg, size_t msglen);

/* Plan probe served by program `prog`, or NULL. */
const struct sp_plan_probe *sp_plan_probe_by_prog(const struct sp_plan *plan, const char *prog);

#endif
