/* runtime/langs/interp_common.c: the interpreter walkers' shared user side (interp_common.h).
 *
 * Written once for the CPython and Ruby walkers: process memory, the
 * interpreter's file and symbols, the table of announced code objects and
 * the splicing of interpreter frames into native stacks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/unwind_table.h"
#include "runtime/elf/ehframe.h"
#include "runtime/elf/syms.h"
#include "runtime/langs/interp_common.h"
#include "runtime/stacks/procmaps.h"
#include "runtime/stacks/walkstats.h"

/* --- processes ------------------------------------------------------------------------ */

int sp_rmem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	if (!addr)
		return -EFAULT;
	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

bool sp_pid_gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

int sp_interp_map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -1;
}

void sp_interp_mark_live(int fd, bool *done)
{
	uint32_t zero = 0, one = 1;

	if (*done || fd < 0)
		return;
	*done = bpf_map_update_elem(fd, &zero, &one, BPF_ANY) == 0;
}

void *sp_interp_alloc(struct bpf_object *obj, const char *name, size_t size, int *fd)
{
	*fd = sp_interp_map_fd(obj, name);
	if (*fd < 0) {
		errno = ENOENT;
		return NULL;
	}
	return calloc(1, size);
}

int sp_interp_find(pid_t pid, const struct sp_procmaps *pm, const char *name,
		   sp_interp_try_fn fn, void *arg)
{
	const char *last = NULL;
	int ret = 0;

	for (int i = 0; i < pm->n && !ret; i++) {
		const struct sp_procmap *m = &pm->maps[i];
		const char *b = m->path ? strrchr(m->path, '/') : NULL;

		if (m->kind != SP_MAP_FILE || !b || !strstr(b, name) ||
		    (last && strcmp(last, m->path) == 0))
			continue;
		last = m->path;
		ret = fn(pid, m, arg);
	}
	return ret;
}

bool sp_interp_symbols(pid_t pid, const struct sp_procmap *m, const char *const *names,
		       uint64_t *addrs, int n)
{
	char root[64];
	uint64_t a, v0;
	struct sp_elf *e;
	int fd = sp_procmap__open(m, pid, true);
	bool ok = false;

	if (fd < 0)
		return false;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	e = sp_elf__open_fd(fd, m->path, root);
	if (!e)
		return false;
	if (sp_elf__symbol_vaddr(e, names[0], &a) == 0 && sp_elf__foff_to_vaddr(e, m->pgoff, &v0)) {
		uint64_t bias = m->start - v0;

		addrs[0] = a + bias;
		for (int i = 1; i < n; i++)
			addrs[i] = sp_elf__symbol_vaddr(e, names[i], &a) == 0 ? a + bias : 0;
		ok = true;
	}
	sp_elf__destroy(e);
	return ok;
}

bool sp_irange_has(const struct sp_irange *ranges, int n, uint64_t addr)
{
	for (int i = 0; i < n; i++)
		if (addr >= ranges[i].start && addr < ranges[i].end)
			return true;
	return false;
}

#define PART_CODE_MAX (256u << 10) /* bytes of a function scanned for jumps */
#define PART_MAX 8                 /* other FDEs counted */

struct part_count {
	const struct sp_eh_fde *fde;
	int hits;
};

/* One jump from the function [lo, hi) to target: counted for the FDE it
 * lands inside of, when that is not the function's own and the jump is no
 * tail call (which lands on an FDE's start). */
static void count_jump(const struct sp_eh_fdes *f, uint64_t lo, uint64_t hi, uint64_t target,
		       struct part_count *c, int *nc)
{
	const struct sp_eh_fde *fde;
	int i;

	if (target >= lo && target < hi)
		return;
	fde = sp_eh_fdes__find(f, target);
	if (!fde || fde->start == target || (lo >= fde->start && lo < fde->end))
		return;
	for (i = 0; i < *nc && c[i].fde != fde; i++)
		;
	if (i == *nc && *nc == PART_MAX)
		return;
	if (i == *nc)
		c[(*nc)++] = (struct part_count){ fde, 0 };
	c[i].hits++;
}

/* The jmp rel32 and jcc rel32 of code (at vaddr) counted by the FDE they
 * land in. A byte scan, not a disassembly: a stray match lands at random,
 * so a part must be hit twice. */
static int scan_jumps(const struct sp_eh_fdes *f, const uint8_t *code, uint64_t size,
		      uint64_t vaddr, struct part_count *c)
{
	int nc = 0;

	for (uint64_t i = 0; i + 6 <= size; i++) {
		int32_t rel;

		if (code[i] == 0xe9) {
			memcpy(&rel, code + i + 1, 4);
			count_jump(f, vaddr, vaddr + size, vaddr + i + 5 + (uint64_t)(int64_t)rel, c, &nc);
		} else if (code[i] == 0x0f && (code[i + 1] & 0xf0) == 0x80) {
			memcpy(&rel, code + i + 2, 4);
			count_jump(f, vaddr, vaddr + size, vaddr + i + 6 + (uint64_t)(int64_t)rel, c, &nc);
		}
	}
	return nc;
}

/* The other parts of the function at vaddr (size bytes, code its bytes)
 * into out[0..max), moved by bias. How many. */
static int other_parts(struct sp_elf *e, const uint8_t *code, uint64_t vaddr, uint64_t size,
		       uint64_t bias, struct sp_irange *out, int max)
{
	struct part_count c[PART_MAX];
	struct sp_eh_fdes f;
	int nc, n = 0;

	if (!sp_elf__libelf(e) || sp_eh_fdes__from_elf(&f, sp_elf__libelf(e)))
		return 0;
	nc = scan_jumps(&f, code, size, vaddr, c);
	for (int i = 0; i < nc && n < max; i++)
		if (c[i].hits >= 2)
			out[n++] = (struct sp_irange){ c[i].fde->start + bias, c[i].fde->end + bias };
	sp_eh_fdes__free(&f);
	return n;
}

/* The file of m opened for pid (its debug file too), its load bias in *bias. */
static struct sp_elf *open_mapped(pid_t pid, const struct sp_procmap *m, uint64_t *bias)
{
	char root[64];
	uint64_t v0;
	struct sp_elf *e;
	int fd = sp_procmap__open(m, pid, true);

	if (fd < 0)
		return NULL;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	e = sp_elf__open_fd(fd, m->path, root);
	if (e && !sp_elf__foff_to_vaddr(e, m->pgoff, &v0)) {
		sp_elf__destroy(e);
		return NULL;
	}
	if (e)
		*bias = m->start - v0;
	return e;
}

/* The code of the function `name` (malloc'd, as the process has it), its
 * link-time address and size; NULL when absent, empty or too big. */
static uint8_t *func_code(struct sp_elf *e, pid_t pid, uint64_t bias, const char *name,
			  uint64_t *vaddr, uint64_t *size)
{
	uint8_t *code;

	if (sp_elf__symbol(e, name, vaddr, size) || *size == 0 || *size > PART_CODE_MAX ||
	    !(code = malloc(*size)))
		return NULL;
	if (sp_rmem(pid, *vaddr + bias, code, *size)) {
		free(code);
		return NULL;
	}
	return code;
}

int sp_interp_func_parts(pid_t pid, const struct sp_procmap *m, const char *name,
			 struct sp_irange *out, int max)
{
	uint64_t vaddr, size, bias = 0;
	uint8_t *code = NULL;
	struct sp_elf *e = max > 0 ? open_mapped(pid, m, &bias) : NULL;
	int n = 0;

	if (!e || sp_elf__symbol(e, name, &vaddr, &size))
		goto out;
	out[n++] = (struct sp_irange){ vaddr + bias, vaddr + size + bias };
	code = func_code(e, pid, bias, name, &vaddr, &size);
	if (code)
		n += other_parts(e, code, vaddr, size, bias, out + 1, max - 1);
out:
	free(code);
	sp_elf__destroy(e);
	return n;
}

/* The starts of .eh_frame functions that code (at vaddr) calls or jumps to
 * with a rel32 (a byte scan, as scan_jumps), into t[0..max); how many. */
static int callees(const struct sp_eh_fdes *f, const uint8_t *code, uint64_t size,
		   uint64_t vaddr, uint64_t *t, int max)
{
	int n = 0;

	for (uint64_t i = 0; i + 5 <= size && n < max; i++) {
		const struct sp_eh_fde *fde;
		uint64_t to;
		int32_t rel;

		if (code[i] != 0xe8 && code[i] != 0xe9)
			continue;
		memcpy(&rel, code + i + 1, 4);
		to = vaddr + i + 5 + (uint64_t)(int64_t)rel;
		fde = sp_eh_fdes__find(f, to);
		if (fde && fde->start == to && (vaddr < fde->start || vaddr >= fde->end))
			t[n++] = to;
	}
	return n;
}

#define CALLEES_MAX 64

/* The functions both a and b call; 1 with their one range, else 0. */
static int shared_callee(struct sp_elf *e, pid_t pid, uint64_t bias, const char *a,
			 const char *b, struct sp_irange *out)
{
	uint64_t ta[CALLEES_MAX], tb[CALLEES_MAX], va, sa, vb, sb, found = 0;
	uint8_t *ca = func_code(e, pid, bias, a, &va, &sa);
	uint8_t *cb = ca ? func_code(e, pid, bias, b, &vb, &sb) : NULL;
	struct sp_eh_fdes f = { 0 };
	int na, nb, hits = 0;

	if (!cb || !sp_elf__libelf(e) || sp_eh_fdes__from_elf(&f, sp_elf__libelf(e)))
		goto out;
	na = callees(&f, ca, sa, va, ta, CALLEES_MAX);
	nb = callees(&f, cb, sb, vb, tb, CALLEES_MAX);
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (ta[i] == tb[j] && ta[i] != found)
				hits++, found = ta[i];
	if (hits == 1) {
		const struct sp_eh_fde *fde = sp_eh_fdes__find(&f, found);

		*out = (struct sp_irange){ fde->start + bias, fde->end + bias };
	}
out:
	sp_eh_fdes__free(&f);
	free(ca);
	free(cb);
	return hits == 1;
}

int sp_interp_shared_callee(pid_t pid, const struct sp_procmap *m, const char *a, const char *b,
			    struct sp_irange *out)
{
	uint64_t bias = 0;
	struct sp_elf *e = open_mapped(pid, m, &bias);
	int n = e ? shared_callee(e, pid, bias, a, b, out) : 0;

	sp_elf__destroy(e);
	return n;
}

void sp_interp_warn(FILE *f, const char *lang, int stats_fd, uint64_t unknown,
		    const char *unknown_frame, const char *what)
{
	sp_walk_warn(f, lang, sp_percpu_sum(stats_fd, SP_PY_ST_WALKS),
		     sp_percpu_sum(stats_fd, SP_PY_ST_TRUNCATED),
		     sp_percpu_sum(stats_fd, SP_PY_ST_READERR), unknown, unknown_frame, what);
}

/* --- what BPF announced, by (pid, code id) ------------------------------------------------ */

static size_t code_hash(pid_t pid, uint32_t id)
{
	uint64_t h = (id ^ ((uint64_t)(uint32_t)pid << 32)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17);
}

/* The slot of (pid, id): its record's, or the empty one it would take. */
static struct sp_icode **code_slot(const struct sp_icodes *m, pid_t pid, uint32_t id)
{
	size_t j = code_hash(pid, id) & (m->cap - 1);

	while (m->slots[j] && !(m->slots[j]->pid == pid && m->slots[j]->id == id))
		j = (j + 1) & (m->cap - 1);
	return &m->slots[j];
}

struct sp_icode *sp_icodes__get(const struct sp_icodes *m, pid_t pid, uint32_t id)
{
	return id && m->cap ? *code_slot(m, pid, id) : NULL;
}

/* The records of old[0..ocap) that keep (all, or those of live processes)
 * into m's slots, sized already; the others freed. */
static void code_rehash(struct sp_icodes *m, struct sp_icode **old, size_t ocap,
			sp_icode_free_fn free_gone)
{
	m->n = 0;
	for (size_t i = 0; i < ocap; i++) {
		if (old[i] && free_gone && sp_pid_gone(old[i]->pid)) {
			free_gone(old[i]);
		} else if (old[i]) {
			*code_slot(m, old[i]->pid, old[i]->id) = old[i];
			m->n++;
		}
	}
	free(old);
}

int sp_icodes__reserve(struct sp_icodes *m)
{
	size_t ocap = m->cap, ncap = ocap ? ocap * 2 : 1024;
	struct sp_icode **old = m->slots;

	if ((m->n + 1) * 2 <= m->cap)
		return 0;
	m->slots = calloc(ncap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->cap = ncap;
	code_rehash(m, old, ocap, NULL);
	return 0;
}

void sp_icodes__add(struct sp_icodes *m, struct sp_icode *c)
{
	*code_slot(m, c->pid, c->id) = c;
	m->n++;
}

int sp_icodes__evict(struct sp_icodes *m, sp_icode_free_fn free_fn)
{
	struct sp_icode **old = m->slots;

	if (!m->cap)
		return 0;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	code_rehash(m, old, m->cap, free_fn);
	return 0;
}

void sp_icodes__free(struct sp_icodes *m, sp_icode_free_fn free_fn)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i])
			free_fn(m->slots[i]);
	free(m->slots);
	m->slots = NULL;
	m->n = m->cap = 0;
}

/* The keys are listed first and deleted after: a delete would restart the walk. */
void sp_interp_forget_seen(int seen_fd, size_t key_size, size_t pid_off, size_t max)
{
	uint8_t *keys;
	size_t n = 0;

	if (seen_fd < 0 || pid_off + sizeof(uint32_t) > key_size || !(keys = malloc(key_size * max)))
		return;
	while (n < max && bpf_map_get_next_key(seen_fd, n ? keys + (n - 1) * key_size : NULL,
					       keys + n * key_size) == 0)
		n++;
	for (size_t i = 0; i < n; i++) {
		uint32_t pid;

		memcpy(&pid, keys + i * key_size + pid_off, sizeof(pid));
		if (sp_pid_gone((pid_t)pid))
			bpf_map_delete_elem(seen_fd, keys + i * key_size);
	}
	free(keys);
}

/* --- frames ------------------------------------------------------------------------------ */

bool sp_interp_frame(struct sp_frame *f, const struct sp_icode *c, const char *unknown,
		     uint64_t *nunknown)
{
	memset(f, 0, sizeof(*f));
	f->addr = c ? c->addr : 1; /* never 0: a zero address ends a stack */
	f->kind = SP_FRAME_INTERP;
	if (!c || !c->ok) {
		f->sym = unknown;
		(*nunknown)++;
		return false;
	}
	f->sym = c->name;
	f->srcfile = c->file;
	return true;
}

int sp_interp_splice(const struct sp_interp_walker *iw, int skip, pid_t pid,
		     const uint64_t *words, int ninterp, struct sp_frame *frames, int nnative)
{
	struct sp_frame *nat;
	int n = 0, k = 0;

	if (ninterp <= 0)
		return nnative;
	nat = malloc(sizeof(*nat) * (size_t)(nnative ? nnative : 1));
	if (!nat)
		return nnative;
	memcpy(nat, frames, sizeof(*nat) * (size_t)nnative);
	for (int i = 0; i < nnative; i++) {
		bool eval;

		/* a gap the unwinder left (bpf/unwind.bpf.c, keep_bottom()):
		 * the activations below it take the last groups, the groups
		 * of those in the gap go before the mark */
		if (nat[i].addr == SP_UNW_IP_TRUNCATED) {
			int below = 0, left = 0;

			for (int j = i + 1; j < nnative; j++)
				below += iw->is_eval(iw->w, pid, &nat[j]);
			for (int j = k; j < ninterp; j++)
				left += (words[j] & SP_PY_GROUP_END) != 0;
			for (; left > below && k < ninterp; left--)
				do
					iw->frame(iw->w, pid, words[k], &frames[n++]);
				while (!(words[k++] & SP_PY_GROUP_END) && k < ninterp);
			frames[n++] = nat[i];
			continue;
		}
		eval = iw->is_eval(iw->w, pid, &nat[i]);

		if (eval && skip > 0) {
			skip--;
			frames[n++] = nat[i];
			continue;
		}
		if (!eval || k >= ninterp) {
			frames[n++] = nat[i];
			continue;
		}
		do
			iw->frame(iw->w, pid, words[k], &frames[n++]);
		while (!(words[k++] & SP_PY_GROUP_END) && k < ninterp);
	}
	/* activations the native unwinder did not reach: at the root end */
	while (k < ninterp)
		iw->frame(iw->w, pid, words[k++], &frames[n++]);
	free(nat);
	return n;
}
