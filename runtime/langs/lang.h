/* runtime/langs/lang.h: the one user-space interface of the language walkers.
 *
 * A runtime whose frames BPF walks (abi/langs.h, bpf/NAME.bpf.c) has one
 * user-space file here, runtime/langs/NAME.c, with the same eight calls:
 * open its BPF maps, register a process from a snapshot of its mappings
 * (detect the runtime, read its description), whether it owns a pid, note
 * a code record BPF announced, splice its words into a native stack
 * (symbolize), warn, forget processes gone, count them, destroy.
 * lang.c holds the one table of them, so the session (runtime/run.c), the
 * collector, --continuous and the process snapshots (runtime/stacks/
 * process.c) loop over it instead of naming each runtime.
 *
 * struct sp_langs is one session's walkers, each NULL when the program has
 * none of that runtime's maps.
 */
#ifndef SPROF_RUNTIME_LANGS_LANG_H
#define SPROF_RUNTIME_LANGS_LANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct bpf_object;
struct sp_frame;
struct sp_procmaps;

/* One runtime's calls, on its walker `w` (never NULL here). */
struct sp_lang {
	const char *name;
	void *(*open)(struct bpf_object *obj); /* NULL with errno: no such maps */
	void (*destroy)(void *w);
	/* 1 registered (now or before), 0 not this runtime, -errno */
	int (*add_maps)(void *w, pid_t pid, const struct sp_procmaps *pm);
	/* whether pid's interpreter words are this runtime's; NULL: the last
	 * row takes every pid no other row owns (CPython's) */
	bool (*owns)(const void *w, pid_t pid);
	void (*note_code)(void *w, pid_t pid, uint64_t addr, const void *rec, size_t len);
	int (*splice)(void *w, pid_t pid, const uint64_t *words, int ninterp,
		      struct sp_frame *frames, int nnative);
	void (*warn)(void *w, FILE *f);
	int (*evict)(void *w);
	int (*nprocs)(const void *w);
};

/* The runtimes, in the order a pid is offered to them; the last owns the rest. */
extern const struct sp_lang *const sp_lang_table[];
extern const int sp_nlangs;

struct sp_langs;

/* Every runtime's walker over obj's maps; NULL with errno ENOMEM only. */
struct sp_langs *sp_langs__open(struct bpf_object *obj);
void sp_langs__destroy(struct sp_langs *ls); /* accepts NULL */

/* Whether any runtime has a walker (the program walks interpreter frames). */
bool sp_langs__any(const struct sp_langs *ls);
/* The walker of the runtime called name, or NULL. */
void *sp_langs__get(const struct sp_langs *ls, const char *name);

/* Every walker sees the snapshot; the first -errno, else 0. ls may be NULL. */
int sp_langs__add_maps(struct sp_langs *ls, pid_t pid, const struct sp_procmaps *pm);
/* SP_EV_INTERP_CODE of pid: to the runtime that owns it. */
void sp_langs__note_code(struct sp_langs *ls, pid_t pid, uint64_t addr, const void *rec,
			 size_t len);
/* pid's stack with the words of the runtime that owns it spliced in: its length. */
int sp_langs__splice(struct sp_langs *ls, pid_t pid, const uint64_t *words, int ninterp,
		     struct sp_frame *frames, int nnative);
/* Each runtime's warnings, table order. */
void sp_langs__warn(struct sp_langs *ls, FILE *f);
/* The warnings of the runtime called name alone. */
void sp_langs__warn_one(struct sp_langs *ls, const char *name, FILE *f);
/* --continuous: every runtime forgets processes gone. */
void sp_langs__evict(struct sp_langs *ls);
/* Processes registered with the runtime called name (0: none or no walker). */
int sp_langs__nprocs(const struct sp_langs *ls, const char *name);

#endif
