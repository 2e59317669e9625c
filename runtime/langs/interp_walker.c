/* runtime/langs/interp_walker.c: the memory walkers' shared life cycle (see interp_walker.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "base/vec.h"
#include "runtime/langs/interp_walker.h"

uint64_t sp_rd64(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;

	return sp_rmem(pid, addr, &v, sizeof(v)) ? 0 : v;
}

bool sp_printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static struct sp_iproc *proc_at(const struct sp_iwalker *w, size_t i)
{
	return (struct sp_iproc *)(w->procs + i * w->k->proc_size);
}

void *sp_iwalker__open(struct bpf_object *obj, const struct sp_iwalker_kind *k, size_t size)
{
	int fd;
	struct sp_iwalker *w = sp_interp_alloc(obj, k->procs_map, size, &fd);

	if (!w)
		return NULL;
	w->k = k;
	w->procs_fd = fd;
	w->stats_fd = sp_interp_map_fd(obj, k->stats_map);
	w->seen_fd = sp_interp_map_fd(obj, k->seen_map);
	w->live_fd = sp_interp_map_fd(obj, k->live_map);
	return w;
}

static void code_free(struct sp_icode *ic)
{
	free(ic->name), free(ic->file), free(ic);
}

void sp_iwalker__destroy(struct sp_iwalker *w)
{
	if (!w)
		return;
	sp_icodes__free(&w->codes, w->k->code_free ? w->k->code_free : code_free);
	free(w->procs);
	free(w);
}

/* --- processes -------------------------------------------------------------------------- */

struct sp_iproc *sp_iwalker__proc(const struct sp_iwalker *w, pid_t pid)
{
	for (size_t i = 0; i < w->nprocs; i++)
		if (proc_at(w, i)->pid == pid)
			return proc_at(w, i);
	return NULL;
}

static struct sp_iproc *proc_add(struct sp_iwalker *w, pid_t pid)
{
	void *v = w->procs;
	struct sp_iproc *p;

	if (sp_grow(&v, &w->proccap, w->nprocs + 1, w->k->proc_size, 16))
		return NULL;
	w->procs = v;
	p = proc_at(w, w->nprocs++);
	memset(p, 0, w->k->proc_size);
	p->pid = pid;
	return p;
}

int sp_iwalker__add_maps(struct sp_iwalker *w, pid_t pid, const struct sp_procmaps *pm,
			 void *found)
{
	struct sp_iproc *p;
	uint64_t mark;

	if (!w || pid <= 0)
		return 0;
	p = sp_iwalker__proc(w, pid);
	if (!sp_interp_find(pid, pm, w->k->lang, w->k->probe, found)) {
		if (p && p->registered) { /* it exec'd something else */
			bpf_map_delete_elem(w->procs_fd, &pid);
			p->registered = false;
		}
		return 0;
	}
	memcpy(&mark, (const char *)found + w->k->found_mark, sizeof(mark));
	if (p && (p->registered || p->warned) && p->mark == mark)
		return p->registered;
	p = p ? p : proc_add(w, pid);
	if (!p)
		return -ENOMEM;
	return w->k->register_proc(w, p, found);
}

int sp_iwalker__nprocs(const struct sp_iwalker *w)
{
	return w ? (int)w->nprocs : 0;
}

int sp_iwalker__evict(struct sp_iwalker *w)
{
	size_t k = 0, n;

	if (!w)
		return 0;
	for (size_t i = 0; i < w->nprocs; i++) {
		struct sp_iproc *p = proc_at(w, i);

		if (!sp_pid_gone(p->pid)) {
			if (k != i)
				memcpy(proc_at(w, k), p, w->k->proc_size);
			k++;
		} else if (p->registered) {
			bpf_map_delete_elem(w->procs_fd, &p->pid);
		}
	}
	n = w->nprocs - k;
	w->nprocs = k;
	if (n && sp_icodes__evict(&w->codes, w->k->code_free ? w->k->code_free : code_free) == 0)
		sp_interp_forget_seen(w->seen_fd, w->k->seen_key_size, w->k->seen_pid_off,
				      w->k->seen_max);
	return (int)n;
}

/* --- code records and frames ------------------------------------------------------------ */

void *sp_iwalker__new_code(struct sp_iwalker *w, pid_t pid, uint32_t id, uint64_t addr,
			   size_t size)
{
	struct sp_icode *c;

	if (!id || sp_icodes__reserve(&w->codes) || sp_icodes__get(&w->codes, pid, id) ||
	    !(c = calloc(1, size)))
		return NULL;
	c->id = id;
	c->pid = pid;
	c->addr = addr;
	return c;
}

void sp_iwalker__line_frame(void *w, pid_t pid, uint64_t word, struct sp_frame *f)
{
	struct sp_iwalker *iw = w;
	uint64_t line = sp_interp_word_off(word);

	if (!sp_interp_frame(f, sp_icodes__get(&iw->codes, pid, sp_interp_word_id(word)),
			     iw->k->unknown_frame, &iw->unknown))
		return;
	f->srcline = line == SP_PY_OFF_NONE ? 0 : (int)line;
}

/* Activations of the loop that run no frame of their own (a Perl sort
 * block, a Ruby block being entered or left, a PHP opcode handler's frame
 * above execute_ex, or the sample caught one starting or ending): groups
 * and activations are matched from the root, so these leaf-side ones stay
 * native frames. */
static int idle_activations(struct sp_iwalker *w, pid_t pid, const uint64_t *words, int ninterp,
			    const struct sp_frame *f, int nf)
{
	int groups = 0, acts = 0;

	for (int k = 0; k < ninterp; k++)
		groups += (words[k] & SP_PY_GROUP_END) != 0;
	for (int i = 0; i < nf; i++)
		acts += w->k->is_eval(w, pid, &f[i]);
	return acts > groups ? acts - groups : 0;
}

int sp_iwalker__splice(struct sp_iwalker *w, pid_t pid, const uint64_t *words, int ninterp,
		       struct sp_frame *frames, int nnative)
{
	struct sp_interp_walker iw;

	if (!w || ninterp <= 0)
		return nnative;
	iw = (struct sp_interp_walker){ w->k->is_eval,
					w->k->frame ? w->k->frame : sp_iwalker__line_frame, w };
	return sp_interp_splice(&iw, idle_activations(w, pid, words, ninterp, frames, nnative), pid,
				words, ninterp, frames, nnative);
}

void sp_iwalker__warn(struct sp_iwalker *w, FILE *f)
{
	if (w)
		sp_interp_warn(f, w->k->lang, w->stats_fd, w->unknown, w->k->unknown_frame,
			       w->k->unread);
}
