/* runtime/langs/python.c: CPython processes registered for the BPF walker, code objects named.
 *
 * 3.8 to 3.12: the offsets are per minor version (shared/research/
 * interpreters.md §1: checked with gdb on pyenv 3.10.13/3.11.7/3.12.1 and
 * Debian 3.11.2; 3.8.18 and 3.9.18 with gdb `ptype /o` here). 3.13 and
 * later describe themselves: the offsets come from the _Py_DebugOffsets
 * that opens _PyRuntime (runtime/langs/pydebug.h), so any build of 3.13
 * or 3.14, and a later minor version whose description still fits 3.14's
 * positions, is walked with its own numbers; one that does not fit gets
 * a warning saying what did not, and native frames only.
 * A process is CPython when its executable or a libpython defines
 * _PyRuntime; the version is Py_Version (3.11+) or the file name
 * (python3.10, libpython3.10.so).
 * The evaluation loop's native frames are where Python frames are spliced
 * in: _PyEval_EvalFrameDefault by name, and the parts GCC split off it
 * (Debian's 3.14 runs its loop in a nameless partition of a stripped
 * binary), found from the function's jumps and .eh_frame at registration.
 * Everything read from the process is
 * checked (the code object's type is PyCode_Type, strings are short,
 * compact and printable) so a bad read shows as "[unknown python frame]",
 * never as garbage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "abi/interp.h"
#include "runtime/stacks/kofs.h"
#include "runtime/langs/interp_common.h"
#include "runtime/stacks/procmaps.h"
#include "runtime/langs/pydebug.h"
#include "runtime/langs/pylines.h"
#include "runtime/langs/python.h"
#include "base/vec.h"

#define MAX_STR 1024
#define MAX_LINETABLE (1u << 20)
#define UNKNOWN_FRAME "[unknown python frame]"
#define SEEN_CODES_MAX 16384 /* py_code_seen's size (bpf/python.bpf.c) */
#define CODE_READ 256        /* bytes of a code object read at once: its fields are inside */
#define EVAL_PARTS 4         /* ranges of the evaluation loop kept per process */

/* Where a code object and its strings keep what a frame shows. */
struct code_layout {
	uint16_t firstlineno, filename, qualname, linetable;
	uint16_t ascii_data, compact_data; /* str data after the header */
};

struct pyver {
	int minor;
	struct sp_py_proc walk;
	struct code_layout code;
};

/* PyThreadState.thread_id (unsigned long, pthread_self() of the thread
 * that made it) in 3.8, 3.9 and 3.10: the same 176 in all three (gdb on
 * pyenv's builds: `p &((PyThreadState *)0)->thread_id`). */
#define PY_TSTATE_THREAD_ID 176

static const struct pyver versions[] = {
	{ 8, { .interp_head = 32, .tstate_current = 1368, .interp_tstate_head = 8,
	       .tstate_next = 8, .tstate_frame = 24, .cframe_frame = -1, .frame_code = 32,
	       .frame_back = 24, .frame_instr = 104, .tstate_how = SP_PY_TS_GIL,
	       .marker = SP_PY_MK_NONE, .instr = SP_PY_IN_LASTI_BYTES },
	  { 40, 104, 112, 120, 48, 72 } },
	{ 9, { .interp_head = 32, .tstate_current = 568, .interp_tstate_head = 8,
	       .tstate_next = 8, .tstate_frame = 24, .cframe_frame = -1, .frame_code = 32,
	       .frame_back = 24, .frame_instr = 104, .tstate_how = SP_PY_TS_GIL,
	       .marker = SP_PY_MK_NONE, .instr = SP_PY_IN_LASTI_BYTES },
	  { 40, 104, 112, 120, 48, 72 } },
	{ 10, { .interp_head = 32, .tstate_current = 568, .interp_tstate_head = 8,
		.tstate_next = 8, .tstate_frame = 24, .cframe_frame = -1, .frame_code = 32,
		.frame_back = 24, .frame_instr = 96, .tstate_how = SP_PY_TS_GIL,
		.marker = SP_PY_MK_NONE, .instr = SP_PY_IN_LASTI },
	  { 40, 104, 112, 120, 48, 72 } },
	{ 11, { .interp_head = 40, .tstate_current = 576, .interp_tstate_head = 16,
		.tstate_next = 8, .tstate_native_tid = 160, .tstate_frame = 56, .cframe_frame = 8,
		.frame_code = 32, .frame_back = 48, .frame_instr = 56, .frame_marker = 68,
		.code_start = 184, .tstate_how = SP_PY_TS_LIST, .marker = SP_PY_MK_ENTRY,
		.instr = SP_PY_IN_PTR },
	  { 72, 112, 128, 136, 48, 72 } },
	{ 12, { .interp_head = 40, .interp_tstate_head = 72, .tstate_next = 8,
		.tstate_native_tid = 144, .tstate_frame = 56, .cframe_frame = 0, .frame_code = 0,
		.frame_back = 8, .frame_instr = 56, .frame_marker = 70, .code_start = 192,
		.tstate_how = SP_PY_TS_LIST, .marker = SP_PY_MK_SHIM, .instr = SP_PY_IN_PTR },
	  { 68, 112, 128, 136, 40, 56 } },
};

struct pyproc {
	pid_t pid;
	bool registered, warned;
	int minor;                 /* 0 until registered */
	uint64_t runtime, code_type;
	struct code_layout code;   /* the table's, or from _Py_DebugOffsets (3.13+) */
	struct sp_irange eval[EVAL_PARTS]; /* the evaluation loop's code */
	int neval;
};

struct pycode {
	struct sp_icode ic; /* id, pid, addr, ok, name (qualified), file */
	bool retried;
	int minor, firstline;
	uint8_t *lt;
	size_t ltlen;
};

struct sp_python {
	int procs_fd, stats_fd, seen_fd, live_fd;
	bool live;              /* live_fd set: BPF looks processes up */
	struct pyproc *procs;
	size_t nprocs, proccap;
	struct sp_icodes codes; /* struct pycode */
	uint64_t unknown;      /* frames shown as UNKNOWN_FRAME */
};

/* --- process memory ------------------------------------------------------------------- */

/* One code point as UTF-8 into o (room for 4); returns the bytes written. */
static int utf8(uint32_t c, char *o)
{
	if (c < 0x80)
		return o[0] = (char)c, 1;
	if (c < 0x800)
		return o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3f)), 2;
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f)), o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A str object as UTF-8 (malloc'd), NULL when it is not a short compact
 * string or holds control characters. */
static char *read_str(pid_t pid, uint64_t obj, const struct code_layout *cl)
{
	uint8_t hdr[40], data[MAX_STR * 4];
	uint32_t state, kind;
	uint64_t len;
	char *s, *o;

	if (sp_rmem(pid, obj, hdr, sizeof(hdr)))
		return NULL;
	len = sp_u64_at(hdr, 16);
	memcpy(&state, hdr + 32, sizeof(state));
	kind = (state >> 2) & 7;
	if (len == 0 || len > MAX_STR || !(state & 0x20) || (kind != 1 && kind != 2 && kind != 4))
		return NULL;
	if (sp_rmem(pid, obj + ((state & 0x40) ? cl->ascii_data : cl->compact_data), data, len * kind))
		return NULL;
	s = o = malloc(len * 4 + 1);
	for (uint64_t i = 0; s && i < len; i++) {
		uint32_t c = kind == 1 ? data[i] : kind == 2 ? ((uint16_t *)data)[i] : ((uint32_t *)data)[i];

		if (c < 0x20 || c == 0x7f || c > 0x10ffff) {
			free(s);
			return NULL;
		}
		o += utf8(c, o);
	}
	if (s)
		*o = 0;
	return s;
}

/* A bytes object's contents (malloc'd), NULL when unreadable. */
static uint8_t *read_bytes(pid_t pid, uint64_t obj, size_t *len)
{
	uint8_t hdr[24], *b;
	uint64_t n;

	if (sp_rmem(pid, obj, hdr, sizeof(hdr)))
		return NULL;
	n = sp_u64_at(hdr, 16);
	if (n == 0 || n > MAX_LINETABLE || !(b = malloc(n)))
		return NULL;
	if (sp_rmem(pid, obj + 32, b, n)) {
		free(b);
		return NULL;
	}
	*len = n;
	return b;
}

/* --- processes -------------------------------------------------------------------------- */

static struct pyproc *proc_get(struct sp_python *py, pid_t pid, bool add)
{
	for (size_t i = 0; i < py->nprocs; i++)
		if (py->procs[i].pid == pid)
			return &py->procs[i];
	if (!add)
		return NULL;
	if (SP_GROW(py->procs, py->proccap, py->nprocs + 1, 16))
		return NULL;
	py->procs[py->nprocs] = (struct pyproc){ .pid = pid };
	return &py->procs[py->nprocs++];
}

/* "3.N" from a file name like python3.11 or libpython3.10.so.1.0: major*100+minor, 0 if none. */
static int version_from_path(const char *path)
{
	const char *b = strrchr(path, '/'), *p;
	int major, minor;

	b = b ? b + 1 : path;
	p = strstr(b, "python");
	if (!p || sscanf(p + 6, "%d.%d", &major, &minor) != 2)
		return 0;
	return major * 100 + minor;
}

/* What one mapped file tells: _PyRuntime, PyCode_Type, Py_Version, and
 * the mapping it came from (valid during sp_python__add_maps). */
struct found {
	uint64_t runtime, code_type;
	uint32_t hexversion;
	int pathver;
	const struct sp_procmap *map;
};

static bool probe_file(pid_t pid, const struct sp_procmap *m, struct found *out)
{
	static const char *const names[] = { "_PyRuntime", "PyCode_Type", "Py_Version" };
	uint64_t a[3];

	if (!sp_interp_symbols(pid, m, names, a, 3))
		return false;
	out->runtime = a[0];
	out->code_type = a[1];
	if (a[2])
		sp_rmem(pid, a[2], &out->hexversion, sizeof(out->hexversion));
	return true;
}

/* One file of the interpreter (sp_interp_find): 1 when it is CPython 3, 2
 * when python 2 (no _PyRuntime, but an interpreter), else 0. */
static int try_file(pid_t pid, const struct sp_procmap *m, void *arg)
{
	struct found *out = arg;

	out->pathver = version_from_path(m->path);
	out->map = m;
	if (probe_file(pid, m, out))
		return 1;
	return out->pathver && out->pathver < 300 ? 2 : 0;
}

static const struct pyver *version_for(int minor)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].minor == minor)
			return &versions[i];
	return NULL;
}

/* 3.13+: the walk from the process's _Py_DebugOffsets (pydebug.h). 0, or
 * -errno with why set. */
static int described(pid_t pid, const struct found *f, struct sp_py_proc *w,
		     struct code_layout *cl, bool *newer, char *why, size_t len)
{
	uint64_t words[SP_PYDBG_WORDS];
	struct sp_pydbg d;
	int err;

	if (sp_rmem(pid, f->runtime, words, sizeof(words))) {
		snprintf(why, len, "_PyRuntime unreadable");
		return -EFAULT;
	}
	err = sp_pydbg_read(words, SP_PYDBG_WORDS, f->hexversion, &d);
	if (!err && (d.co_filename >= CODE_READ - 8 || d.co_qualname >= CODE_READ - 8 ||
		     d.co_linetable >= CODE_READ - 8 || d.co_firstlineno >= CODE_READ - 8)) {
		snprintf(d.why, sizeof(d.why), "code object fields beyond %d bytes", CODE_READ);
		err = -ENOTSUP;
	}
	if (err) {
		snprintf(why, len, "%s", d.why);
		return err;
	}
	*w = (struct sp_py_proc){ .interp_head = d.interp_head, .interp_tstate_head = d.threads_head,
		.tstate_next = d.ts_next, .tstate_native_tid = d.ts_native_tid,
		.tstate_frame = d.ts_frame, .cframe_frame = -1, .frame_code = d.fr_executable,
		.frame_back = d.fr_previous, .frame_instr = d.fr_instr, .frame_marker = d.fr_owner,
		.code_start = d.co_code, .tstate_how = SP_PY_TS_LIST, .marker = SP_PY_MK_SHIM,
		.instr = SP_PY_IN_PTR, .code_tags = d.layout >= 14 ? 7 : 0 };
	*cl = (struct code_layout){ d.co_firstlineno, d.co_filename, d.co_qualname,
				    d.co_linetable, d.ascii_data, (uint16_t)(d.ascii_data + 16) };
	*newer = d.newer;
	return 0;
}

/* The walk of CPython 3.minor: the table's (3.8-3.12) or the described
 * one (3.13+). 0, or -errno with why set. */
static int walk_for(pid_t pid, const struct found *f, int minor, struct sp_py_proc *w,
		    struct code_layout *cl, bool *newer, char *why, size_t len)
{
	const struct pyver *v = version_for(minor);

	*newer = false;
	if (minor >= 13)
		return described(pid, f, w, cl, newer, why, len);
	if (!v) {
		snprintf(why, len, "for this version (3.8 and later)");
		return -ENOTSUP;
	}
	*w = v->walk;
	*cl = v->code;
	if (w->tstate_how == SP_PY_TS_GIL && sp_kofs__task_fsbase(&w->task_fsbase) == 0) {
		w->tstate_how = SP_PY_TS_PTHREAD; /* every thread, not only the GIL holder */
		w->tstate_native_tid = PY_TSTATE_THREAD_ID;
	}
	return 0;
}

static void warn_once(struct pyproc *p, const char *fmt, int ver, const char *why)
{
	if (!p->warned)
		sp_log(SP_LOG_WARN, fmt, (int)p->pid, ver / 100, ver % 100, why);
	p->warned = true;
}

static int register_proc(struct sp_python *py, struct pyproc *p, const struct found *f, int ver)
{
	char why[200] = "";
	struct sp_py_proc w;
	bool newer;

	if (ver / 100 != 3 ||
	    walk_for(p->pid, f, ver % 100, &w, &p->code, &newer, why, sizeof(why))) {
		warn_once(p, "sprof: warning: pid %d runs python %d.%d: no interpreter stacks "
			  "(%s), native frames only\n", ver, ver / 100 != 3 ? "not python 3" : why);
		return 0;
	}
	if (newer) {
		snprintf(why, sizeof(why), "3.%d", sp_pydbg_newest());
		warn_once(p, "sprof: warning: pid %d runs python %d.%d, newer than sprof knows: "
			  "its frames are read with %s's _Py_DebugOffsets positions\n", ver, why);
	}
	w.code_firstlineno = p->code.firstlineno;
	w.code_filename = p->code.filename;
	w.code_qualname = p->code.qualname;
	w.code_linetable = p->code.linetable;
	w.str_ascii_data = p->code.ascii_data;
	w.runtime = f->runtime;
	w.version = f->hexversion ? f->hexversion : (uint32_t)(0x03000000 | (ver % 100) << 16);
	p->neval = f->map ? sp_interp_func_parts(p->pid, f->map, "_PyEval_EvalFrameDefault",
						 p->eval, EVAL_PARTS) : 0;
	sp_interp_mark_live(py->live_fd, &py->live);
	if (bpf_map_update_elem(py->procs_fd, &p->pid, &w, BPF_ANY))
		return -errno;
	p->registered = true;
	p->runtime = f->runtime;
	p->code_type = f->code_type;
	p->minor = ver % 100;
	return 1;
}

int sp_python__add_pid(struct sp_python *py, pid_t pid)
{
	struct sp_procmaps pm = { 0 };
	int err;

	if (!py || pid <= 0)
		return 0;
	err = sp_procmaps__read(&pm, pid, NULL);
	if (!err)
		err = sp_python__add_maps(py, pid, &pm);
	sp_procmaps__free(&pm);
	return err;
}

int sp_python__add_maps(struct sp_python *py, pid_t pid, const struct sp_procmaps *pm)
{
	struct found f = { 0 };
	struct pyproc *p;
	int ret, ver;

	if (!py || pid <= 0)
		return 0;
	p = proc_get(py, pid, true);
	if (!p)
		return -ENOMEM;
	ret = sp_interp_find(pid, pm, "python", try_file, &f);
	if (ret <= 0)
		return ret;
	ver = f.hexversion ? (int)(f.hexversion >> 24) * 100 + (int)((f.hexversion >> 16) & 0xff)
			   : f.pathver;
	if (p->registered && p->runtime == f.runtime)
		return 1;
	if (!ver) {
		if (!p->warned)
			sp_warn("pid %d: python of unknown version: no "
				"interpreter stacks, native frames only\n", (int)pid);
		p->warned = true;
		return 0;
	}
	return register_proc(py, p, &f, ver);
}

/* --- code objects ----------------------------------------------------------------------- */

static void code_free(struct sp_icode *ic)
{
	struct pycode *c = (struct pycode *)ic;

	free(c->ic.name);
	free(c->ic.file);
	free(c->lt);
	free(c);
}

/* What the process still has: the parts the record did not carry. */
static void code_read(const struct pyproc *p, struct pycode *c)
{
	const struct code_layout *cl = &p->code;
	uint8_t b[CODE_READ];
	int32_t first;
	size_t need = 16; /* no further than its last field: a smaller object may end a page */

	need = cl->firstlineno + 4u > need ? cl->firstlineno + 4u : need;
	need = cl->filename + 8u > need ? cl->filename + 8u : need;
	need = cl->qualname + 8u > need ? cl->qualname + 8u : need;
	need = cl->linetable + 8u > need ? cl->linetable + 8u : need;
	if (!(c->ic.name && c->ic.file && c->lt) && need <= sizeof(b) &&
	    !sp_rmem(p->pid, c->ic.addr, b, need) &&
	    (!p->code_type || sp_u64_at(b, 8) == p->code_type)) {
		memcpy(&first, b + cl->firstlineno, sizeof(first));
		c->firstline = first > 0 ? first : 0;
		if (!c->ic.name)
			c->ic.name = read_str(p->pid, sp_u64_at(b, cl->qualname), cl);
		if (!c->ic.file)
			c->ic.file = read_str(p->pid, sp_u64_at(b, cl->filename), cl);
		if (!c->lt)
			c->lt = read_bytes(p->pid, sp_u64_at(b, cl->linetable), &c->ltlen);
	}
	c->ic.ok = c->ic.name && c->ic.file;
}

/* A copied string if it is printable ASCII, else NULL. */
static char *rec_str(const char *s, size_t len, size_t max)
{
	if (len == 0 || len >= max)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return NULL;
	return strndup(s, len);
}

/* What BPF copied when it first saw the code object. */
static void code_from_rec(struct pycode *c, const struct sp_py_code_rec *r)
{
	c->firstline = r->firstlineno > 0 ? r->firstlineno : 0;
	c->ic.name = rec_str(r->name, r->name_len, sizeof(r->name));
	c->ic.file = rec_str(r->file, r->file_len, sizeof(r->file));
	if (r->lt_len && r->lt_len <= sizeof(r->linetable) && (c->lt = malloc(r->lt_len))) {
		memcpy(c->lt, r->linetable, r->lt_len);
		c->ltlen = r->lt_len;
	}
}

/* A new code id of pid: what BPF copied, the rest read from the process now. */
static void code_add(struct sp_python *py, pid_t pid, uint64_t addr,
		     const struct sp_py_code_rec *rec)
{
	struct pyproc *p = proc_get(py, pid, false);
	struct pycode *c;

	if (!p || !p->minor || !rec->id || sp_icodes__reserve(&py->codes) ||
	    sp_icodes__get(&py->codes, pid, rec->id) || !(c = calloc(1, sizeof(*c))))
		return;
	*c = (struct pycode){ .ic = { .id = rec->id, .addr = addr, .pid = pid },
			      .minor = p->minor };
	code_from_rec(c, rec);
	code_read(p, c);
	sp_icodes__add(&py->codes, &c->ic);
}

/* The code of a frame word; one more read when the first one failed (a
 * process still alive may have it now). */
static struct pycode *code_get(struct sp_python *py, pid_t pid, uint32_t id)
{
	struct pyproc *p = proc_get(py, pid, false);
	struct pycode *c;

	if (!p || !p->minor)
		return NULL;
	c = (struct pycode *)sp_icodes__get(&py->codes, pid, id);
	if (c && !c->ic.ok && !c->retried) {
		c->retried = true;
		code_read(p, c);
	}
	return c;
}

void sp_python__note_code(struct sp_python *py, pid_t pid, uint64_t addr, const void *rec,
			  size_t len)
{
	struct sp_py_code_rec r;

	if (!py || !rec || len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	code_add(py, pid, addr, &r);
}

/* --- frames ----------------------------------------------------------------------------- */

static void interp_frame(void *w, pid_t pid, uint64_t word, struct sp_frame *f)
{
	struct sp_python *py = w;
	uint64_t off = sp_interp_word_off(word);
	struct pycode *c = code_get(py, pid, sp_interp_word_id(word));

	if (!sp_interp_frame(f, c ? &c->ic : NULL, UNKNOWN_FRAME, &py->unknown))
		return;
	f->srcline = off == SP_PY_OFF_NONE ? c->firstline
					   : sp_py_line(c->minor, c->lt, c->ltlen, c->firstline,
							(uint32_t)off);
}

static bool is_eval_frame(void *w, pid_t pid, const struct sp_frame *f)
{
	struct pyproc *p;

	if (f->sym && strncmp(f->sym, "_PyEval_EvalFrameDefault", 24) == 0)
		return true;
	/* by address: the frame of the function itself, not those inlined at its pc */
	p = f->inlined ? NULL : proc_get(w, pid, false);
	return p && sp_irange_has(p->eval, p->neval, f->addr);
}

/* Each _PyEval_EvalFrameDefault activation gives way to its frames. */
int sp_python__splice(struct sp_python *py, pid_t pid, const uint64_t *words, int ninterp,
		      struct sp_frame *frames, int nnative)
{
	struct sp_interp_walker iw = { is_eval_frame, interp_frame, py };

	if (!py)
		return nnative;
	return sp_interp_splice(&iw, 0, pid, words, ninterp, frames, nnative);
}

/* --- life cycle ------------------------------------------------------------------------- */

struct sp_python *sp_python__open(struct bpf_object *obj)
{
	int fd;
	struct sp_python *py = sp_interp_alloc(obj, SP_PY_MAP_PROCS, sizeof(*py), &fd);

	if (!py)
		return NULL;
	py->procs_fd = fd;
	py->stats_fd = sp_interp_map_fd(obj, SP_PY_MAP_STATS);
	py->seen_fd = sp_interp_map_fd(obj, SP_PY_MAP_SEEN);
	py->live_fd = sp_interp_map_fd(obj, SP_PY_MAP_LIVE);
	return py;
}

void sp_python__destroy(struct sp_python *py)
{
	if (!py)
		return;
	sp_icodes__free(&py->codes, code_free);
	free(py->procs);
	free(py);
}

/* --- a long run: processes gone ----------------------------------------------------------- */

/* Code objects of gone processes: ours, and BPF's record that they were sent. */
static void evict_codes(struct sp_python *py)
{
	if (sp_icodes__evict(&py->codes, code_free) == 0)
		sp_interp_forget_seen(py->seen_fd, sizeof(struct sp_py_code_key),
				      offsetof(struct sp_py_code_key, pid), SEEN_CODES_MAX);
}

int sp_python__nprocs(const struct sp_python *py)
{
	return py ? (int)py->nprocs : 0;
}

int sp_python__evict(struct sp_python *py)
{
	size_t k = 0, n;

	if (!py)
		return 0;
	for (size_t i = 0; i < py->nprocs; i++) {
		uint32_t key = (uint32_t)py->procs[i].pid;

		if (!sp_pid_gone(py->procs[i].pid))
			py->procs[k++] = py->procs[i];
		else if (py->procs[i].registered)
			bpf_map_delete_elem(py->procs_fd, &key);
	}
	n = py->nprocs - k;
	py->nprocs = k;
	if (n)
		evict_codes(py);
	return (int)n;
}

void sp_python__warn(struct sp_python *py, FILE *f)
{
	if (!py)
		return;
	sp_interp_warn(f, "python", py->stats_fd, py->unknown, UNKNOWN_FRAME,
		       "code objects that could not be read");
}
