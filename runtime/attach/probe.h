/* runtime/attach/probe.h: one table row per probe type.
 *
 * Adding a probe type means one runtime/probe_<kind>.c defining a
 * `const struct sp_probe_ops sp_probe_<kind>_ops` and one row in
 * probe.c's table. validate() runs before load (bad paths, missing symbols,
 * missing kernel features), attach() after load; links are collected in
 * struct sp_links and destroyed on every exit path.
 */
#ifndef SPROF_RUNTIME_ATTACH_PROBE_H
#define SPROF_RUNTIME_ATTACH_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "abi/plan.h"

struct bpf_object;
struct bpf_program;
struct bpf_link;

struct sp_links {
	struct bpf_link **v;
	int n, cap;
	int *fds;       /* raw perf event fds to close (when not owned by a link) */
	int nfds, fdcap;
};

/* What a probe type resolved for an attach point (files, offsets, USDT
 * sites), kept for the run: validate() resolves, count() and attach() find
 * the same result again instead of reading the binaries a second and third
 * time. Keyed by the plan probe and the pid it was resolved for. */
struct sp_resolved {
	const struct sp_plan_probe *p;
	pid_t pid;
	void *data;
	void (*free)(void *data);
	struct sp_resolved *next;
};

struct sp_attach_ctx {
	struct bpf_object *obj;
	pid_t pid;          /* -p / -c target, 0 = system wide */
	int ncpus;          /* online CPUs: cpus[0..ncpus) */
	const int *cpus;
	bool verbose;
	char *err;          /* message buffer for failures: "probe 'X': cannot attach: ..." */
	size_t errlen;
	struct sp_resolved **resolved; /* the run's memo (may be NULL: no memo) */
	const char *cmd_path; /* -c: the command's program file, or NULL */
};

/* The memo entry of (p, pid), or NULL. */
void *sp_resolved_find(const struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, pid_t pid);
/* Keep `data` for (p, pid) and return it; NULL (data freed) when memory
 * runs out. Without a memo the data is returned and stays the caller's. */
void *sp_resolved_keep(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, pid_t pid,
		       void *data, void (*free_fn)(void *data));
void sp_resolved_free(struct sp_resolved **memo);
/* A probe type's resolver: fills `out` (size bytes, zeroed) or returns
 * -errno with ctx->err set; `free_fn` releases what it filled and `out`. */
typedef int (*sp_resolve_fn)(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, void *out);

/* The resolver's result for (p, ctx->pid), made on first use and kept for
 * the run; give it back with sp_resolved_put(). 0 or the resolver's -errno. */
int sp_resolved_get(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, size_t size,
		    sp_resolve_fn resolve, void (*free_fn)(void *data), void **out);
/* Frees data when the ctx keeps no memo (it was the caller's). */
void sp_resolved_put(struct sp_attach_ctx *ctx, void *data, void (*free_fn)(void *data));

/* `sprof -l`: where the lines go, the whole-line filter, and what -p names
 * (runtime/attach/listing.c fills it, each probe type's list op uses it). */
struct sp_lister {
	FILE *out;
	pid_t pid;
	bool verbose;
	const char *line_glob; /* whole-line filter, or NULL */
	const char *what;      /* the pattern, for messages */
	/* -v on uprobes and raw tracepoints: the driver's parameter lister
	 * (runtime/attach/listing.h's sp_list_params_fn), or NULL */
	int (*params)(void *ctx, const char *binary, const char *func, FILE *out);
	void *params_ctx;
};
/* params()'s binary for a kernel function (fentry -lv): its BTF arguments
 * and return type (parser/types/ctypes_btf.c's sp_list_args knows the marker). */
#define SP_LIST_KFUNC "[kernel]"
/* Print one attach point unless the filter rejects it; true when printed. */
bool sp_lister_emit(struct sp_lister *l, const char *line);
/* The files a uprobe/usdt pattern (f[1] = BINARY, or -p) names: *paths
 * (free with sp_strv_free) may be empty; -errno after a message. */
int sp_lister_user_targets(struct sp_lister *l, const char *prov, char **f, int nf, bool wild,
			   char ***paths, int *n);

struct sp_probe_ops {
	enum sp_probe_type type;
	/* Before load: 0 or -errno with ctx->err filled. May be NULL. */
	int (*validate)(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx);
	/* After load: attach prog, push links; 0 or -errno with ctx->err filled. */
	int (*attach)(const struct sp_plan_probe *p, struct bpf_program *prog,
		      struct sp_attach_ctx *ctx, struct sp_links *links);
	/* Between open and load: program flags (uprobe_multi), the attach
	 * target of a wildcard (fentry). May be NULL. */
	int (*prepare)(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx);
	/* How many attach points the spec expands to, for sizing the names
	 * map before load; -errno when it cannot be resolved. NULL: 1. */
	int (*count)(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx);
	/* `sprof -l`: print the attach points matching the pattern's fields
	 * f[1..nf) (f[0] is the provider `prov` as asked: "uprobe" for "u");
	 * `wild` when the provider itself was a glob. 0 or -errno after a
	 * message. May be NULL (BEGIN, END, profile, interval: nothing to list). */
	int (*list)(struct sp_lister *l, const char *prov, char **f, int nf, bool wild);
};

const struct sp_probe_ops *sp_probe_ops_for(enum sp_probe_type t);

/* Call after bpf_object__open, before bpf_object__load: runs each probe
 * type's prepare op and sizes SP_MAP_PROBE_NAMES for the probes that read
 * `func`/`probe` (runtime/attach/names.h). 0 or -errno. */
int sp_probes_prepare(struct bpf_object *obj, const struct sp_plan *plan,
		      struct sp_attach_ctx *ctx);
int sp_links_push(struct sp_links *l, struct bpf_link *link);
int sp_links_push_fd(struct sp_links *l, int fd);
void sp_links_destroy(struct sp_links *l); /* detaches everything; accepts empty */
/* The end of a run's links once its probes are stopped: detached now when
 * that is quick, else (many tracepoints, kprobes, uprobes: a kernel grace
 * period each, seconds in all) by a background process, so the run need
 * not wait (runtime/attach/detach.c). l is empty after. */
void sp_links_detach(struct sp_links *l);

/* Fills ctx->err ("probe 'SPEC': ...") and returns err. */
int sp_probe_fail(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, int err,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Online CPUs from /sys/devices/system/cpu/online; count or -errno. */
int sp_online_cpus(int **cpus);

/* probe_special.c: runs every BEGIN (or END) program once, in plan order,
 * through BPF_PROG_TEST_RUN; 0 or -errno with ctx->err filled. */
int sp_probe_run_special(const struct sp_plan *plan, enum sp_probe_type t,
			 struct sp_attach_ctx *ctx);

#endif
