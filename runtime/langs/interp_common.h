/* runtime/langs/interp_common.h: what the user sides of the interpreter walkers share.
 *
 * The CPython walker (python.c) and the Ruby walker (ruby.c) do the same
 * things around their language-specific reads: they read the process's
 * memory, find the interpreter's file among its mappings and relocate its
 * symbols, keep what BPF announced (SP_EV_INTERP_CODE) in a table by
 * (pid, code id), turn frame words (abi/interp.h) into frames and splice
 * them into the native stack where the evaluation loop ran. That logic is
 * here once; the layouts, versions and names stay in the two walkers.
 * --interp usdt (interp_usdt.c) opens its maps the same way.
 */
#ifndef SPROF_RUNTIME_LANGS_INTERP_COMMON_H
#define SPROF_RUNTIME_LANGS_INTERP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "abi/interp.h"
#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_procmap;
struct sp_procmaps;

/* --- processes ------------------------------------------------------------------------ */

/* len bytes of pid's memory at addr: 0, or -EFAULT (also for addr 0). */
int sp_rmem(pid_t pid, uint64_t addr, void *buf, size_t len);

/* The u64 at byte off of a buffer read with sp_rmem(). */
static inline uint64_t sp_u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Whether pid no longer exists. */
bool sp_pid_gone(pid_t pid);

/* The fd of the BPF object's map called name, -1 when it has none. */
int sp_interp_map_fd(struct bpf_object *obj, const char *name);
/* Before a walker's first process goes into its procs map: sets its live
 * flag (abi/interp.h SP_PY_MAP_LIVE), which BPF reads before any lookup in
 * procs. *done keeps it to one write; fd -1: no such map, nothing to do. */
void sp_interp_mark_live(int fd, bool *done);
/* A walker's state: size bytes zeroed, when obj has the map called name
 * (its fd in *fd); else NULL with errno ENOENT (the program takes no
 * stacks of this kind), or ENOMEM. */
void *sp_interp_alloc(struct bpf_object *obj, const char *name, size_t size, int *fd);

/* Calls try on pid's mapped files whose file name contains name (the
 * executable or a library of the interpreter), each file once, until fn
 * returns non-zero; returns that, 0 when it never did. */
typedef int (*sp_interp_try_fn)(pid_t pid, const struct sp_procmap *m, void *arg);
int sp_interp_find(pid_t pid, const struct sp_procmaps *pm, const char *name,
		   sp_interp_try_fn fn, void *arg);

/* The addresses in pid of the symbols names[0..n) of the file mapped by m,
 * relocated (0 for one it does not define). False when it does not define
 * names[0] (the interpreter's mark) or cannot be read. */
bool sp_interp_symbols(pid_t pid, const struct sp_procmap *m, const char *const *names,
		       uint64_t *addrs, int n);

/* A range of a process's addresses, [start, end). */
struct sp_irange {
	uint64_t start, end;
};

/* The parts of the function `name` of the file mapped by m, as ranges of
 * pid's addresses: out[0] its symbol's range, then each other part of it
 * in .eh_frame (GCC's hot/cold partitions, which a stripped file leaves
 * nameless), found as the FDEs its jumps land inside of, at least twice.
 * How many were stored (at most max); 0 when the file has no such symbol. */
int sp_interp_func_parts(pid_t pid, const struct sp_procmap *m, const char *name,
			 struct sp_irange *out, int max);
/* The one function both a and b (functions of the file mapped by m) call
 * or tail-call, when there is exactly one: its .eh_frame range in *out
 * (pid's addresses), 1. 0 when none or several. For a function a stripped
 * file leaves nameless whose exported callers are known (Debian's
 * libruby-3.3: rb_vm_exec, called by rb_iseq_eval and rb_iseq_eval_main). */
int sp_interp_shared_callee(pid_t pid, const struct sp_procmap *m, const char *a, const char *b,
			    struct sp_irange *out);
/* Whether addr is inside one of ranges[0..n). */
bool sp_irange_has(const struct sp_irange *ranges, int n, uint64_t addr);

/* The end-of-run lines of a walker whose per-CPU counters (stats_fd) have
 * abi/interp.h's indices (sp_walk_warn(): samples truncated or cut,
 * `unknown` frames shown as unknown_frame, what: what could not be read). */
void sp_interp_warn(FILE *f, const char *lang, int stats_fd, uint64_t unknown,
		    const char *unknown_frame, const char *what);

/* --- what BPF announced, by (pid, code id) ------------------------------------------------ */

/* The first member of a walker's record of one code object (iseq, method). */
struct sp_icode {
	uint32_t id;      /* the id of the frame words (abi/interp.h) */
	pid_t pid;
	uint64_t addr;    /* of the object in the process: the frame's address */
	bool ok;          /* name (and file, for code with a file) were read */
	char *name, *file;
};

struct sp_icodes {
	struct sp_icode **slots; /* open addressing by (pid, id), cap a power of two */
	size_t n, cap;
};

typedef void (*sp_icode_free_fn)(struct sp_icode *c);

/* The record of (pid, id), NULL when there is none. */
struct sp_icode *sp_icodes__get(const struct sp_icodes *m, pid_t pid, uint32_t id);
/* Room for one more record: 0, or -ENOMEM. */
int sp_icodes__reserve(struct sp_icodes *m);
/* Adds c (its (pid, id) not there yet) after sp_icodes__reserve(). */
void sp_icodes__add(struct sp_icodes *m, struct sp_icode *c);
/* Frees the records of processes that are gone: 0, or -ENOMEM (none freed). */
int sp_icodes__evict(struct sp_icodes *m, sp_icode_free_fn free_fn);
/* Frees every record and the table. */
void sp_icodes__free(struct sp_icodes *m, sp_icode_free_fn free_fn);
/* BPF's record of the code objects it sent (a hash map of seen_fd, at most
 * max keys of key_size bytes, the pid a u32 at pid_off): the entries of
 * processes that are gone are deleted, so their ids can be sent again. */
void sp_interp_forget_seen(int seen_fd, size_t key_size, size_t pid_off, size_t max);

/* --- frames ------------------------------------------------------------------------------ */

static inline uint32_t sp_interp_word_id(uint64_t word)
{
	return (uint32_t)((word >> SP_PY_ID_SHIFT) & SP_PY_ID_MASK);
}

static inline uint64_t sp_interp_word_off(uint64_t word)
{
	return word >> SP_PY_OFF_SHIFT;
}

/* f as the interpreter frame of c (NULL: unknown): its address, name and
 * file, or `unknown` (counted in *nunknown) when c is unknown or could not
 * be read. True when c names it (the caller adds the line). */
bool sp_interp_frame(struct sp_frame *f, const struct sp_icode *c, const char *unknown,
		     uint64_t *nunknown);

/* A walker for sp_interp_splice(). */
struct sp_interp_walker {
	/* whether f, a native frame of pid, runs the evaluation loop */
	bool (*is_eval)(void *w, pid_t pid, const struct sp_frame *f);
	void (*frame)(void *w, pid_t pid, uint64_t word, struct sp_frame *f); /* names a word */
	void *w;
};

/* frames[0..nnative) are a stack's native frames, symbolized, leaf first;
 * words its ninterp interpreter words. Each evaluation-loop activation
 * gives way to its words up to and including the next group end, except
 * the first `skip` of them (leaf side), which stay native; words no
 * activation took go at the root end. Rewrites frames (room for nnative +
 * ninterp) and returns the mixed stack's length. */
int sp_interp_splice(const struct sp_interp_walker *iw, int skip, pid_t pid,
		     const uint64_t *words, int ninterp, struct sp_frame *frames, int nnative);

#endif
