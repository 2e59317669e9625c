/* runtime/langs/lang.c: the table of language walkers, and a session's set of them.
 *
 * Each row wraps one runtime's typed calls (runtime/langs/NAME.h) in the
 * untyped ones of struct sp_lang; a new runtime is one SP_LANG_ROW line
 * and its header's include (SP_LANG_IROW for one built on interp_walker.c,
 * whose life cycle and splice are the shared ones). CPython's row comes
 * first (warnings and registration in the order they always had) but is
 * the fallback when a stack's words are spliced: it owns every pid no
 * other runtime claims.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/langs/hotspot.h"
#include "runtime/langs/interp_walker.h"
#include "runtime/langs/lang.h"
#include "runtime/langs/node.h"
#include "runtime/langs/perl.h"
#include "runtime/langs/php.h"
#include "runtime/langs/python.h"
#include "runtime/langs/ruby.h"

/* The calls of runtime NAME's own: sp_NAME__open, add_maps, note_code. */
#define SP_LANG_CALLS(NAME, T)                                                               \
	static void *NAME##_open(struct bpf_object *obj)                                     \
	{                                                                                    \
		return sp_##NAME##__open(obj);                                               \
	}                                                                                    \
	static int NAME##_add_maps(void *w, pid_t pid, const struct sp_procmaps *pm)        \
	{                                                                                    \
		return sp_##NAME##__add_maps((T *)w, pid, pm);                               \
	}                                                                                    \
	static void NAME##_note_code(void *w, pid_t pid, uint64_t addr, const void *rec,     \
				     size_t len)                                             \
	{                                                                                    \
		sp_##NAME##__note_code((T *)w, pid, addr, rec, len);                         \
	}

/* sp_NAME__splice (T its walker type) */
#define SP_LANG_SPLICE(NAME, T)                                                              \
	static int NAME##_splice(void *w, pid_t pid, const uint64_t *words, int ninterp,     \
				 struct sp_frame *frames, int nnative)                       \
	{                                                                                    \
		return sp_##NAME##__splice((T *)w, pid, words, ninterp, frames, nnative);    \
	}

/* struct sp_lang of sp_NAME__* (T its walker type); owns given apart. */
#define SP_LANG_ROW(NAME, T, OWNS)                                                           \
	SP_LANG_CALLS(NAME, T)                                                               \
	SP_LANG_SPLICE(NAME, T)                                                              \
	static void NAME##_destroy(void *w)                                                  \
	{                                                                                    \
		sp_##NAME##__destroy((T *)w);                                                \
	}                                                                                    \
	static void NAME##_warn(void *w, FILE *f)                                            \
	{                                                                                    \
		sp_##NAME##__warn((T *)w, f);                                                \
	}                                                                                    \
	static int NAME##_evict(void *w)                                                     \
	{                                                                                    \
		return sp_##NAME##__evict((T *)w);                                           \
	}                                                                                    \
	static int NAME##_nprocs(const void *w)                                              \
	{                                                                                    \
		return sp_##NAME##__nprocs((const T *)w);                                    \
	}                                                                                    \
	static const struct sp_lang NAME##_lang = { #NAME,           NAME##_open,   NAME##_destroy, \
						    NAME##_add_maps, OWNS,          NAME##_note_code, \
						    NAME##_splice,   NAME##_warn,   NAME##_evict,     \
						    NAME##_nprocs };

/* owns of a runtime whose header has sp_NAME__owns */
#define SP_LANG_OWNS(NAME, T)                                  \
	static bool NAME##_owns(const void *w, pid_t pid)      \
	{                                                      \
		return sp_##NAME##__owns((const T *)w, pid);   \
	}

/* The calls interp_walker.c makes for the walkers built on it (their
 * struct sp_iwalker first): the life cycle, and splice for those that
 * splice where their loop ran. */
static void iw_destroy(void *w)
{
	sp_iwalker__destroy(w);
}

static void iw_warn(void *w, FILE *f)
{
	sp_iwalker__warn(w, f);
}

static int iw_evict(void *w)
{
	return sp_iwalker__evict(w);
}

static int iw_nprocs(const void *w)
{
	return sp_iwalker__nprocs(w);
}

static int iw_splice(void *w, pid_t pid, const uint64_t *words, int ninterp,
		     struct sp_frame *frames, int nnative)
{
	return sp_iwalker__splice(w, pid, words, ninterp, frames, nnative);
}

/* struct sp_lang of a walker on interp_walker.c: open, add_maps, owns and
 * note_code its own (sp_NAME__*), SPLICE iw_splice or its own. */
#define SP_LANG_IROW(NAME, T, SPLICE)                                                        \
	SP_LANG_CALLS(NAME, T)                                                               \
	SP_LANG_OWNS(NAME, T)                                                                \
	static const struct sp_lang NAME##_lang = { #NAME,           NAME##_open, iw_destroy,  \
						    NAME##_add_maps, NAME##_owns, NAME##_note_code, \
						    SPLICE,          iw_warn,     iw_evict,    \
						    iw_nprocs };

SP_LANG_ROW(python, struct sp_python, NULL)
SP_LANG_IROW(ruby, struct sp_ruby, iw_splice)
SP_LANG_IROW(perl, struct sp_perl, iw_splice)
SP_LANG_SPLICE(node, struct sp_node)
SP_LANG_IROW(node, struct sp_node, node_splice)
SP_LANG_IROW(php, struct sp_php, iw_splice)
SP_LANG_SPLICE(hotspot, struct sp_hotspot)
SP_LANG_IROW(hotspot, struct sp_hotspot, hotspot_splice)

const struct sp_lang *const sp_lang_table[] = { &python_lang, &ruby_lang, &perl_lang, &node_lang,
						   &php_lang, &hotspot_lang };
#define NLANGS ((int)(sizeof(sp_lang_table) / sizeof(sp_lang_table[0])))
const int sp_nlangs = NLANGS;

struct sp_langs {
	void *w[NLANGS]; /* sp_lang_table[i]'s walker, or NULL */
};

struct sp_langs *sp_langs__open(struct bpf_object *obj)
{
	struct sp_langs *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return NULL;
	for (int i = 0; i < NLANGS; i++)
		ls->w[i] = sp_lang_table[i]->open(obj);
	return ls;
}

void sp_langs__destroy(struct sp_langs *ls)
{
	if (!ls)
		return;
	for (int i = 0; i < NLANGS; i++)
		if (ls->w[i])
			sp_lang_table[i]->destroy(ls->w[i]);
	free(ls);
}

bool sp_langs__any(const struct sp_langs *ls)
{
	for (int i = 0; ls && i < NLANGS; i++)
		if (ls->w[i])
			return true;
	return false;
}

void *sp_langs__get(const struct sp_langs *ls, const char *name)
{
	for (int i = 0; ls && i < NLANGS; i++)
		if (strcmp(sp_lang_table[i]->name, name) == 0)
			return ls->w[i];
	return NULL;
}

int sp_langs__add_maps(struct sp_langs *ls, pid_t pid, const struct sp_procmaps *pm)
{
	int err = 0;

	for (int i = 0; ls && i < NLANGS; i++) {
		int e = ls->w[i] ? sp_lang_table[i]->add_maps(ls->w[i], pid, pm) : 0;

		if (e < 0 && !err)
			err = e;
	}
	return err;
}

/* The row whose walker owns pid's words: the first that says so, else the
 * one without owns; -1 when that has no walker either. */
static int owner(const struct sp_langs *ls, pid_t pid)
{
	int fallback = -1;

	for (int i = 0; ls && i < NLANGS; i++) {
		const struct sp_lang *l = sp_lang_table[i];

		if (!l->owns)
			fallback = i;
		else if (ls->w[i] && l->owns(ls->w[i], pid))
			return i;
	}
	return fallback >= 0 && ls->w[fallback] ? fallback : -1;
}

void sp_langs__note_code(struct sp_langs *ls, pid_t pid, uint64_t addr, const void *rec,
			 size_t len)
{
	int i = owner(ls, pid);

	if (i >= 0)
		sp_lang_table[i]->note_code(ls->w[i], pid, addr, rec, len);
}

int sp_langs__splice(struct sp_langs *ls, pid_t pid, const uint64_t *words, int ninterp,
		     struct sp_frame *frames, int nnative)
{
	int i = owner(ls, pid);

	if (i < 0)
		return nnative;
	return sp_lang_table[i]->splice(ls->w[i], pid, words, ninterp, frames, nnative);
}

void sp_langs__warn(struct sp_langs *ls, FILE *f)
{
	for (int i = 0; ls && i < NLANGS; i++)
		if (ls->w[i])
			sp_lang_table[i]->warn(ls->w[i], f);
}

void sp_langs__warn_one(struct sp_langs *ls, const char *name, FILE *f)
{
	for (int i = 0; ls && i < NLANGS; i++)
		if (ls->w[i] && strcmp(sp_lang_table[i]->name, name) == 0)
			sp_lang_table[i]->warn(ls->w[i], f);
}

void sp_langs__evict(struct sp_langs *ls)
{
	for (int i = 0; ls && i < NLANGS; i++)
		if (ls->w[i])
			sp_lang_table[i]->evict(ls->w[i]);
}

int sp_langs__nprocs(const struct sp_langs *ls, const char *name)
{
	for (int i = 0; ls && i < NLANGS; i++)
		if (strcmp(sp_lang_table[i]->name, name) == 0)
			return ls->w[i] ? sp_lang_table[i]->nprocs(ls->w[i]) : 0;
	return 0;
}
