/* runtime/langs/interp_usdt.c: names and places the frames of --interp usdt (see interp_usdt.h).
 *
 * A frame word is a name id, the line the entry probe gave and the
 * language (abi/interp_usdt.h). Python frames show the function's name, Ruby
 * frames Class#method; both with file and line. Marker words show as
 * "[unknown frames before attach]" (the thread ran code before its first
 * probe fired) and "[deeper interpreter frames not kept]".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/interp_usdt.h"
#include "base/vec.h"
#include "runtime/langs/interp_common.h"
#include "runtime/langs/interp_usdt.h"
#include "runtime/stacks/walkstats.h"

#define BASE_FRAME "[unknown frames before attach]"
#define DEEP_FRAME "[deeper interpreter frames not kept]"
#define UNKNOWN_FRAME "[unknown interpreter frame]"

struct iu_name {
	uint32_t id;
	bool ok;
	char *sym, *file;
};

struct sp_iusdt {
	int names_fd, stats_fd;
	struct iu_name *names; /* sorted by id */
	size_t nnames, cap;
	uint64_t unknown;
	bool warned;           /* the probes-not-firing warning was given */
};

struct sp_iusdt *sp_iusdt__open(struct bpf_object *obj)
{
	int fd;
	struct sp_iusdt *iu = sp_interp_alloc(obj, SP_IU_MAP_NAMES, sizeof(*iu), &fd);

	if (!iu)
		return NULL;
	iu->names_fd = fd;
	iu->stats_fd = sp_interp_map_fd(obj, SP_IU_MAP_STATS);
	return iu;
}

void sp_iusdt__destroy(struct sp_iusdt *iu)
{
	if (!iu)
		return;
	for (size_t i = 0; i < iu->nnames; i++)
		free(iu->names[i].sym), free(iu->names[i].file);
	free(iu->names);
	free(iu);
}

/* A string BPF copied: NUL-terminated within len, printable. */
static bool printable(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	if (n == 0 || n == len)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static void name_read(struct sp_iusdt *iu, struct iu_name *n)
{
	struct sp_iu_name r;

	if (bpf_map_lookup_elem(iu->names_fd, &n->id, &r) || !printable(r.fn, sizeof(r.fn)))
		return;
	if (r.lang != SP_IU_LANG_PYTHON && printable(r.cls, sizeof(r.cls))) {
		if (asprintf(&n->sym, "%s#%s", r.cls, r.fn) < 0)
			n->sym = NULL;
	} else {
		n->sym = strdup(r.fn);
	}
	n->file = printable(r.file, sizeof(r.file)) ? strdup(r.file) : NULL;
	n->ok = n->sym != NULL;
}

static struct iu_name *name_get(struct sp_iusdt *iu, uint32_t id)
{
	size_t lo = 0, hi = iu->nnames;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (iu->names[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < iu->nnames && iu->names[lo].id == id)
		return &iu->names[lo];
	if (SP_GROW(iu->names, iu->cap, iu->nnames + 1, 64))
		return NULL;
	memmove(&iu->names[lo + 1], &iu->names[lo], (iu->nnames - lo) * sizeof(*iu->names));
	iu->names[lo] = (struct iu_name){ .id = id };
	iu->nnames++;
	name_read(iu, &iu->names[lo]);
	return &iu->names[lo];
}

static void word_frame(struct sp_iusdt *iu, uint64_t w, struct sp_frame *f)
{
	uint32_t id = (uint32_t)w;
	struct iu_name *n = id && id <= SP_IU_ID_MAX ? name_get(iu, id) : NULL;

	memset(f, 0, sizeof(*f));
	f->addr = id ? id : 1; /* never 0: a zero address ends a stack */
	f->kind = SP_FRAME_INTERP;
	if (id == SP_IU_ID_BASE || id == SP_IU_ID_DEEP) {
		f->sym = id == SP_IU_ID_BASE ? BASE_FRAME : DEEP_FRAME;
		return;
	}
	if (!n || !n->ok) {
		f->sym = UNKNOWN_FRAME;
		iu->unknown++;
		return;
	}
	f->sym = n->sym;
	f->srcfile = n->file;
	f->srcline = (int)((w >> SP_IU_LINE_SHIFT) & SP_IU_LINE_MASK);
}

static bool is_eval_frame(const struct sp_frame *f)
{
	return f->sym && (!strncmp(f->sym, "_PyEval_EvalFrameDefault", 24) ||
			  !strcmp(f->sym, "vm_exec_core") || !strcmp(f->sym, "rb_vm_exec"));
}

int sp_iusdt__splice(struct sp_iusdt *iu, const uint64_t *words, int ninterp,
		     struct sp_frame *frames, int nnative)
{
	int at = 0, n = 0;
	struct sp_frame *nat;

	if (!iu || ninterp <= 0)
		return nnative;
	while (at < nnative && !is_eval_frame(&frames[at]))
		at++;
	nat = malloc(sizeof(*nat) * (size_t)(nnative ? nnative : 1));
	if (!nat)
		return nnative;
	memcpy(nat, frames, sizeof(*nat) * (size_t)nnative);
	for (int i = 0; i < at; i++)
		frames[n++] = nat[i];
	for (int k = 0; k < ninterp; k++)
		word_frame(iu, words[k], &frames[n++]);
	for (int i = at < nnative ? at + 1 : nnative; i < nnative; i++)
		frames[n++] = nat[i];
	free(nat);
	return n;
}

static void read_stats(const struct sp_iusdt *iu, uint64_t *st)
{
	for (uint32_t i = 0; i < SP_IU_NSTATS; i++)
		st[i] = sp_percpu_sum(iu->stats_fd, i);
}

/* Entries of functions written in the language (Ruby's C methods fire
 * without a TracePoint). */
static uint64_t code_entries(const uint64_t *st)
{
	return st[SP_IU_ST_ENTRIES] - st[SP_IU_ST_ENTRIES_C];
}

/* The probes are not enabled in the program: enabled, the returns without
 * entries are the profile hook's own (two a call at most); not enabled,
 * CPython fires returns only, Ruby 3.1 its C methods' probes only. `sure`
 * (while running) asks for more evidence than the end of the run does,
 * so a program still starting up is not warned. */
static bool not_firing(const uint64_t *st, bool sure)
{
	uint64_t code = code_entries(st), samples = st[SP_IU_ST_SAMPLES] + st[SP_IU_ST_NOSTACK];
	uint64_t unmatched = st[SP_IU_ST_UNMATCHED];

	if (sure)
		return (code == 0 && samples >= 200) ||
		       (unmatched >= 100000 && unmatched > 20 * code);
	return (code == 0 && samples >= 10) ||
	       (unmatched + st[SP_IU_ST_RETURNS] >= 100 && unmatched > 20 * code);
}

static void say_not_firing(struct sp_iusdt *iu, const uint64_t *st, FILE *f)
{
	iu->warned = true;
	fprintf(f, "sprof: warning: --interp usdt: the interpreter's entry probes barely fired "
		"(%" PRIu64 " entries, %" PRIu64 " returns): few or no interpreter frames. They "
		"fire only while a profiler or tracer is active in the interpreter: in Python 3.11 "
		"call sys.setprofile(lambda *a: None) and threading.setprofile(lambda *a: None) "
		"before the code to profile; in Ruby, TracePoint.new(:call, :return, :c_call, "
		":c_return) {}.enable. Or use --interp memory\n", code_entries(st),
		st[SP_IU_ST_UNMATCHED] + st[SP_IU_ST_RETURNS]);
}

bool sp_iusdt__check(struct sp_iusdt *iu, bool attached, FILE *f)
{
	uint64_t st[SP_IU_NSTATS];

	if (!iu || !attached || iu->warned)
		return false;
	read_stats(iu, st);
	if (!not_firing(st, true))
		return false;
	say_not_firing(iu, st, f);
	return true;
}

void sp_iusdt__warn(struct sp_iusdt *iu, bool attached, bool verbose, FILE *f)
{
	uint64_t st[SP_IU_NSTATS];

	if (!iu)
		return;
	read_stats(iu, st);
	if (verbose)
		fprintf(f, "sprof: --interp usdt: %" PRIu64 " entries, %" PRIu64 " returns, %" PRIu64
			" returns without their entry, %" PRIu64 " stacks with interpreter frames, %"
			PRIu64 " without\n", st[SP_IU_ST_ENTRIES], st[SP_IU_ST_RETURNS],
			st[SP_IU_ST_UNMATCHED], st[SP_IU_ST_SAMPLES], st[SP_IU_ST_NOSTACK]);
	if (attached && !iu->warned && not_firing(st, false))
		say_not_firing(iu, st, f);
	if (st[SP_IU_ST_DEEP] || st[SP_IU_ST_NONAME] || st[SP_IU_ST_CUT])
		fprintf(f, "sprof: --interp usdt: %" PRIu64 " entries deeper than %d frames not "
			"kept, %" PRIu64 " names not stored (map full), %" PRIu64 " stacks cut for "
			"room\n", st[SP_IU_ST_DEEP], SP_IU_DEPTH, st[SP_IU_ST_NONAME], st[SP_IU_ST_CUT]);
	if (iu->unknown)
		fprintf(f, "sprof: --interp usdt: %" PRIu64 " frames of distinct stacks shown as "
			UNKNOWN_FRAME "\n", iu->unknown);
}
