/* runtime/langs/perl.c: perl processes registered for the BPF walker, subs named.
 *
 * A process is perl when its executable (Debian's /usr/bin/perl has the
 * interpreter built in) or a libperl.so it maps exports PL_revision; its
 * version is PL_revision.PL_version.PL_subversion read from its memory.
 * The walk (bpf/perl.bpf.c) needs a threaded perl: the sampled thread's
 * interpreter is pthread_getspecific(PL_thr_key), and PL_curinterp the
 * main thread's. Offsets are per version; those of 5.36 (Debian 12), 5.40
 * (Debian 13) and 5.42 (Debian sid) were taken from offsetof() on each
 * release's own headers (CORE/perl.h and config.h) and are the same in all
 * three (5.38 is no Debian release's: not checked, so not listed): interpreter curcop 208
 * and curstackinfo 224; stackinfo cxstack 8, prev 16, cxix 32; contexts
 * 104 bytes with blk_oldcop at 16, retop at 48 and blk_sub.cv at 72; COP
 * line 36, file 48 (a char * in threaded builds); CV body gv 56, flags 92,
 * stash 32, file 64; GV body name HEK 32, stash 40; gp_egv 56; a stash's name in
 * the xpvhv_aux that follows its 32-byte body. glibc keeps the first 32
 * pthread keys' values in struct pthread at 0x310 + 16 * key + 8 (its
 * pthread_getspecific on Debian 12's 2.36 and sid's 2.43); BPF checks it
 * in the main thread against PL_curinterp.
 *
 * Names are what caller() and Carp print: Pkg::name from the effective
 * GV of the sub (its stash's name and its own), "(eval)" for an eval,
 * require or do FILE, and "<main>" for the program's file scope; the file
 * is the COP's (CopFILE) and the line the COP's. Everything read is
 * checked (printable, bounded), so a bad read shows "[unknown perl
 * frame]", never garbage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "abi/interp.h"
#include "abi/perl.h"
#include "runtime/langs/interp_common.h"
#include "runtime/langs/interp_walker.h"
#include "runtime/stacks/kofs.h"
#include "runtime/langs/perl.h"
#include "runtime/stacks/procmaps.h"

#define MAX_STR 1024
#define UNKNOWN_FRAME "[unknown perl frame]"
#define EVAL_FRAME "(eval)"
#define MAIN_FRAME "<main>"
#define TSD_DATA (0x310 + 8) /* glibc x86-64: specific_1stblock[0].data */

/* pl_stats is read with py_stats' indices (sp_interp_warn) */
_Static_assert((int)SP_PL_ST_WALKS == (int)SP_PY_ST_WALKS &&
	       (int)SP_PL_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_PL_ST_READERR == (int)SP_PY_ST_READERR,
	       "pl_stats and py_stats differ");

/* One perl version's layouts, x86-64: what BPF walks, and what user space
 * reads of GVs, stashes and HEKs. */
struct plver {
	int version; /* PL_version: 36 for 5.36 */
	struct sp_pl_proc w;
	uint16_t cv_stash, gv_name, gv_stash, hv_aux, aux_name_count, hek_len, hek_key;
};

#define PL_LAYOUT_536                                                                             \
	{ .tsd_data = TSD_DATA, .interp_curcop = 208, .interp_curstackinfo = 224, .si_cxstack = 8,   \
	  .si_prev = 16, .si_cxix = 32, .cx_size = 104, .cx_oldcop = 16, .cx_retop = 48,              \
	  .cx_sub_cv = 72, .cop_line = 36, .cop_file = 48, .cv_gv = 56, .cv_flags = 92, .gv_gp = 16,  \
	  .gp_egv = 56, .cv_file = 64, .cvf_named = 0x8000 }

static const struct plver versions[] = {
	{ 36, PL_LAYOUT_536, 32, 32, 40, 32, 28, 4, 8 }, /* Debian 12's 5.36.0 */
	{ 40, PL_LAYOUT_536, 32, 32, 40, 32, 28, 4, 8 }, /* Debian trixie's 5.40.1 */
	{ 42, PL_LAYOUT_536, 32, 32, 40, 32, 28, 4, 8 }, /* Debian sid's 5.42.3 */
};

#define RUNOPS_PARTS 4

struct plproc {
	struct sp_iproc ip;       /* mark: &PL_curinterp it was registered with */
	const struct plver *v;    /* set when registered */
	struct sp_irange runops[RUNOPS_PARTS]; /* Perl_runops_standard's code */
	int nrunops;
};

struct plcode {
	struct sp_icode ic; /* id, pid, addr, ok, name, file */
	uint32_t kind;
};

struct sp_perl {
	struct sp_iwalker iw; /* codes: struct plcode */
	uint32_t fsbase_off;
	bool have_fsbase;
};

/* --- process memory ------------------------------------------------------------------- */

/* A C string of the process (a COP's file name), malloc'd; NULL when
 * unreadable, unterminated within MAX_STR or not printable. */
static char *read_cstr(pid_t pid, uint64_t addr)
{
	char buf[MAX_STR + 1];
	size_t n = 0;

	/* a page at a time: a short string may end right before an unmapped page */
	while (n < MAX_STR) {
		size_t chunk = 4096 - ((addr + n) & 4095);

		if (chunk > MAX_STR - n)
			chunk = MAX_STR - n;
		if (sp_rmem(pid, addr + n, buf + n, chunk))
			return NULL;
		if (memchr(buf + n, 0, chunk))
			break;
		n += chunk;
	}
	buf[MAX_STR] = 0;
	n = strlen(buf);
	return n && sp_printable(buf, n) ? strdup(buf) : NULL;
}

/* A HEK's key (hek_len at +4, bytes at +8), malloc'd; NULL when bad. */
static char *read_hek(pid_t pid, const struct plver *v, uint64_t hek)
{
	int32_t len = 0;
	char *s;

	if (!hek || sp_rmem(pid, hek + v->hek_len, &len, sizeof(len)) || len <= 0 || len > MAX_STR ||
	    !(s = malloc((size_t)len + 1)))
		return NULL;
	if (sp_rmem(pid, hek + v->hek_key, s, (size_t)len) || !sp_printable(s, (size_t)len)) {
		free(s);
		return NULL;
	}
	s[len] = 0;
	return s;
}

/* A stash's name (HvNAME): the name HEK in the xpvhv_aux after its body,
 * or the first of its names when it has several. */
static char *stash_name(pid_t pid, const struct plver *v, uint64_t hv)
{
	uint64_t body = sp_rd64(pid, hv), aux, name;
	int32_t count = 0;

	if (!body)
		return NULL;
	aux = body + v->hv_aux;
	name = sp_rd64(pid, aux);
	if (sp_rmem(pid, aux + v->aux_name_count, &count, sizeof(count)))
		return NULL;
	return read_hek(pid, v, count ? sp_rd64(pid, name) : name);
}

static char *join_name(char *pkg, char *name)
{
	char *s = NULL;

	if (pkg && name && asprintf(&s, "%s::%s", pkg, name) < 0)
		s = NULL;
	free(pkg);
	free(name);
	return s;
}

/* Pkg::name of a sub: from its GV, or (a lexical sub) its name HEK and
 * the stash of its CV. */
static char *sub_name(pid_t pid, const struct plver *v, uint64_t cv, uint64_t gv, bool named)
{
	uint64_t body;

	if (!gv)
		return NULL;
	if (named) {
		body = sp_rd64(pid, cv);
		return body ? join_name(stash_name(pid, v, sp_rd64(pid, body + v->cv_stash)),
					read_hek(pid, v, gv))
			    : NULL;
	}
	body = sp_rd64(pid, gv);
	if (!body)
		return NULL;
	return join_name(stash_name(pid, v, sp_rd64(pid, body + v->gv_stash)),
			 read_hek(pid, v, sp_rd64(pid, body + v->gv_name)));
}

/* --- processes -------------------------------------------------------------------------- */

static struct plproc *proc_get(const struct sp_perl *pl, pid_t pid)
{
	return (struct plproc *)sp_iwalker__proc(&pl->iw, pid);
}

/* What one mapped file tells, relocated (0: not exported), and its mapping
 * (valid during add_maps). */
struct found {
	uint64_t revision, version, subversion, thr_key, curinterp;
	const struct sp_procmap *map;
};

/* One file named *perl* (the executable or a libperl): 1 when it is the
 * interpreter (it exports PL_revision). */
static int probe_file(pid_t pid, const struct sp_procmap *m, void *arg)
{
	static const char *const names[] = { "PL_revision", "PL_version", "PL_subversion",
					      "PL_thr_key", "PL_curinterp" };
	uint64_t a[5];
	struct found *out = arg;

	if (!sp_interp_symbols(pid, m, names, a, 5))
		return 0;
	*out = (struct found){ a[0], a[1], a[2], a[3], a[4], m };
	return 1;
}

static const struct plver *version_for(int rev, int ver)
{
	for (size_t i = 0; rev == 5 && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].version == ver)
			return &versions[i];
	return NULL;
}

/* What the walk of a supported version still lacks in this process; NULL
 * when nothing. */
static const char *missing(struct sp_perl *pl, struct plproc *p, struct found *f)
{
	if (!pl->have_fsbase)
		return "no task_struct thread.fsbase in the kernel's BTF";
	if (!f->thr_key || !f->curinterp)
		return "no PL_thr_key/PL_curinterp: an unthreaded perl";
	p->nrunops = sp_interp_func_parts(p->ip.pid, f->map, "Perl_runops_standard", p->runops,
					  RUNOPS_PARTS);
	if (!p->nrunops)
		return "no Perl_runops_standard";
	return NULL;
}

static int register_proc(struct sp_iwalker *iw, struct sp_iproc *ip, void *found)
{
	struct sp_perl *pl = (struct sp_perl *)iw;
	struct plproc *p = (struct plproc *)ip;
	struct found *f = found;
	uint8_t rev = 0, ver = 0, sub = 0;
	const struct plver *v;
	const char *why = NULL;
	struct sp_pl_proc w;
	char vs[32] = "(unknown version)";

	if (!sp_rmem(ip->pid, f->revision, &rev, 1) && !sp_rmem(ip->pid, f->version, &ver, 1) &&
	    !sp_rmem(ip->pid, f->subversion, &sub, 1))
		snprintf(vs, sizeof(vs), "%u.%u.%u", rev, ver, sub);
	v = version_for(rev, ver);
	ip->mark = f->curinterp;
	if (!v || (why = missing(pl, p, f))) {
		if (!ip->warned)
			sp_warn("pid %d runs perl %s: no interpreter stacks "
				"%s%s%s, native frames only\n", (int)ip->pid, vs, why ? "(" : "",
				why ? why : "for this version (5.36, 5.40, 5.42)", why ? ")" : "");
		ip->warned = true;
		return 0;
	}
	w = v->w;
	w.thr_key = f->thr_key;
	w.curinterp = f->curinterp;
	w.task_fsbase = pl->fsbase_off;
	w.version = (uint32_t)(rev * 10000 + ver * 100 + sub);
	sp_interp_mark_live(iw->live_fd, &iw->live);
	if (bpf_map_update_elem(iw->procs_fd, &ip->pid, &w, BPF_ANY))
		return -errno;
	p->v = v;
	ip->registered = true;
	return 1;
}

int sp_perl__add_maps(struct sp_perl *pl, pid_t pid, const struct sp_procmaps *pm)
{
	struct found f = { 0 };

	return sp_iwalker__add_maps((struct sp_iwalker *)pl, pid, pm, &f);
}

bool sp_perl__owns(const struct sp_perl *pl, pid_t pid)
{
	struct plproc *p = pl ? proc_get(pl, pid) : NULL;

	return p && p->v; /* stacks taken before an exec too */
}

/* --- code records ----------------------------------------------------------------------- */

void sp_perl__note_code(struct sp_perl *pl, pid_t pid, uint64_t addr, const void *rec, size_t len)
{
	struct sp_pl_code_rec r;
	struct plproc *p;
	struct plcode *c;

	if (!pl || !rec || len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	p = proc_get(pl, pid);
	if (r.magic != SP_PL_REC_MAGIC || !p || !p->v ||
	    !(c = sp_iwalker__new_code(&pl->iw, pid, r.id, addr ? addr : r.file, sizeof(*c))))
		return;
	c->kind = r.kind;
	if (r.kind == SP_PL_SUB)
		c->ic.name = sub_name(pid, p->v, addr, r.gv, r.named != 0);
	else
		c->ic.name = strdup(r.kind == SP_PL_EVAL ? EVAL_FRAME : MAIN_FRAME);
	/* the name as BPF copied it when it saw the frame; else read now */
	r.file_name[SP_PL_FILE_MAX - 1] = 0;
	if (r.file_name[0] && sp_printable(r.file_name, strlen(r.file_name)))
		c->ic.file = strdup(r.file_name);
	else
		c->ic.file = r.file ? read_cstr(pid, r.file) : NULL;
	c->ic.ok = c->ic.name && c->ic.file;
	sp_icodes__add(&pl->iw.codes, &c->ic);
}

/* --- frames ----------------------------------------------------------------------------- */

/* The interpreter's loop: each Perl_runops_standard activation runs the
 * contexts from one entered from C (or the program's start) up. */
static bool is_runops(void *w, pid_t pid, const struct sp_frame *f)
{
	struct plproc *p;

	if (f->sym && (strcmp(f->sym, "Perl_runops_standard") == 0 ||
		       strcmp(f->sym, "Perl_runops_debug") == 0))
		return true;
	p = w && !f->inlined ? proc_get(w, pid) : NULL;
	return p && sp_irange_has(p->runops, p->nrunops, f->addr);
}


/* --- life cycle ------------------------------------------------------------------------- */

static const struct sp_iwalker_kind perl_kind = {
	.lang = "perl",
	SP_IWALKER_ABI(PL, pl),
	.proc_size = sizeof(struct plproc),
	.probe = probe_file,
	.found_mark = offsetof(struct found, curinterp),
	.register_proc = register_proc,
	.is_eval = is_runops,
	.unknown_frame = UNKNOWN_FRAME,
	.unread = "subs that could not be read",
};

struct sp_perl *sp_perl__open(struct bpf_object *obj)
{
	struct sp_perl *pl = sp_iwalker__open(obj, &perl_kind, sizeof(*pl));

	if (pl)
		pl->have_fsbase = sp_kofs__task_fsbase(&pl->fsbase_off) == 0;
	return pl;
}




