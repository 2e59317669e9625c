/* runtime/langs/interp_walker.h: the life cycle the memory walkers' user sides share.
 *
 * Perl (perl.c), Ruby (ruby.c), Node.js (node.c) and PHP (php.c) keep the
 * same state around their own reads: four BPF maps (the registered
 * processes, pid -> what their walk needs; per-CPU counters; the code
 * objects BPF announced; a flag saying a process is registered), the
 * processes seen, each registered or warned about once, and the code
 * records BPF announced, by (pid, id). They do the same with it: look for
 * the interpreter's file in each snapshot of a process's mappings,
 * register the process once per interpreter (again after an exec: the
 * interpreter's mark is at another address), unregister it when it runs
 * something else, forget it when it is gone, splice its words where the
 * evaluation loop ran and count the frames they could not name. That is
 * written here once. A walker describes itself in a constant struct
 * sp_iwalker_kind and keeps what differs: its layouts and versions, what
 * it registers, how it names a frame.
 */
#ifndef SPROF_RUNTIME_LANGS_INTERP_WALKER_H
#define SPROF_RUNTIME_LANGS_INTERP_WALKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/langs/interp_common.h"

struct bpf_object;
struct sp_procmaps;
struct sp_iwalker;

/* --- what the walkers read of a process -------------------------------------------------- */

/* The u64 at addr in pid's memory, 0 when it cannot be read. */
uint64_t sp_rd64(pid_t pid, uint64_t addr);
/* Whether s[0..n) has no control character (true when n is 0). */
bool sp_printable(const char *s, size_t n);

/* --- processes and code records ----------------------------------------------------------- */

/* The first member of a walker's record of one process. */
struct sp_iproc {
	pid_t pid;
	bool registered; /* in the procs map */
	bool warned;     /* told why not: not tried again with the same mark */
	uint64_t mark;   /* the interpreter it was tried with (register_proc sets it) */
};

/* One runtime's walker, constant. */
struct sp_iwalker_kind {
	const char *lang; /* "perl": its interpreter's file names contain it; its warnings */
	const char *procs_map, *stats_map, *seen_map, *live_map;
	size_t proc_size; /* its process record, struct sp_iproc first */
	/* its seen map's keys (sp_interp_forget_seen): size, the pid's offset, how many */
	size_t seen_key_size, seen_pid_off, seen_max;
	/* one mapped file of a process: 1 when it is the interpreter, what it
	 * tells written to found (sp_iwalker__add_maps' found) */
	sp_interp_try_fn probe;
	size_t found_mark; /* the offset in found of the u64 an exec changes */
	/* p (new, or found with another mark) into the procs map from found:
	 * 1; 0 when it cannot be (warned once), -errno */
	int (*register_proc)(struct sp_iwalker *w, struct sp_iproc *p, void *found);
	/* whether f, a native frame of pid, runs the evaluation loop */
	bool (*is_eval)(void *w, pid_t pid, const struct sp_frame *f);
	/* names a word; NULL: its record's name and file, its offset the line */
	void (*frame)(void *w, pid_t pid, uint64_t word, struct sp_frame *f);
	sp_icode_free_fn code_free; /* NULL: free name, file and the record */
	const char *unknown_frame;  /* "[unknown perl frame]" */
	const char *unread;         /* the warning's "subs that could not be read" */
};

/* A kind's maps and code-record key, named by abi/NAME.h as
 * SP_PL_MAP_PROCS ... struct sp_pl_code_key: SP_IWALKER_ABI(PL, pl). */
#define SP_IWALKER_ABI(P, p)                                                                      \
	.procs_map = SP_##P##_MAP_PROCS, .stats_map = SP_##P##_MAP_STATS,                        \
	.seen_map = SP_##P##_MAP_SEEN, .live_map = SP_##P##_MAP_LIVE,                            \
	.seen_key_size = sizeof(struct sp_##p##_code_key),                                       \
	.seen_pid_off = offsetof(struct sp_##p##_code_key, pid), .seen_max = SP_##P##_SEEN_MAX

/* The first member of a walker (a pointer to the walker converts to one
 * to it: its own functions pass theirs, lang.c's table the void *). */
struct sp_iwalker {
	const struct sp_iwalker_kind *k;
	int procs_fd, stats_fd, seen_fd, live_fd;
	bool live;              /* live_fd set: BPF looks processes up */
	unsigned char *procs;   /* nprocs records of k->proc_size bytes */
	size_t nprocs, proccap;
	struct sp_icodes codes; /* what BPF announced */
	uint64_t unknown;       /* frames shown as k->unknown_frame */
};

/* A walker of size bytes (struct sp_iwalker first), zeroed but for its
 * maps' fds; NULL with errno ENOENT when obj has no k->procs_map, ENOMEM. */
void *sp_iwalker__open(struct bpf_object *obj, const struct sp_iwalker_kind *k, size_t size);
void sp_iwalker__destroy(struct sp_iwalker *w); /* frees w too; accepts NULL */

/* The record of pid, NULL when it was never seen. */
struct sp_iproc *sp_iwalker__proc(const struct sp_iwalker *w, pid_t pid);
/* A snapshot of pid's mappings: registers pid when the interpreter's file
 * is there (k->probe fills found, zeroed by the caller) and pid is new or
 * runs another interpreter; unregisters it when the file is gone. 1 when
 * registered (now or before), 0 when not, -errno. w may be NULL. */
int sp_iwalker__add_maps(struct sp_iwalker *w, pid_t pid, const struct sp_procmaps *pm,
			 void *found);

/* A zeroed code record of size bytes (struct sp_icode first) for (pid,
 * id) at addr, for the caller to fill and sp_icodes__add(); NULL when id
 * is 0, (pid, id) has one already or memory is short. */
void *sp_iwalker__new_code(struct sp_iwalker *w, pid_t pid, uint32_t id, uint64_t addr,
			   size_t size);

/* sp_interp_splice() with k->is_eval and k->frame, the loop's activations
 * that run no frame of their own (more than the words' groups) left
 * native at the leaf side. w may be NULL. */
int sp_iwalker__splice(struct sp_iwalker *w, pid_t pid, const uint64_t *words, int ninterp,
		       struct sp_frame *frames, int nnative);
/* f as the frame of word: its record's name and file, the word's offset
 * its line (the default k->frame). */
void sp_iwalker__line_frame(void *w, pid_t pid, uint64_t word, struct sp_frame *f);

/* The end-of-run lines (sp_interp_warn). w may be NULL. */
void sp_iwalker__warn(struct sp_iwalker *w, FILE *f);
/* Processes gone forgotten, here and in BPF, their code records too: how
 * many. w may be NULL. */
int sp_iwalker__evict(struct sp_iwalker *w);
/* Processes registered or warned about. w may be NULL. */
int sp_iwalker__nprocs(const struct sp_iwalker *w);

#endif
