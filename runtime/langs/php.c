/* runtime/langs/php.c: php processes registered for the BPF walker, functions named.
 *
 * A process is php when its executable (Debian's php8.x CLI has the
 * engine built in) or a libphp it maps exports executor_globals: the NTS
 * build's executor globals, a plain symbol (a ZTS build keeps them in
 * thread-local storage and exports executor_globals_offset instead: not
 * walked). PHP publishes no offsets of its own; its version is read from
 * the file, the "X-Powered-By: PHP/8.2.36" string every build carries, and
 * the offsets come from a table per minor version, each number taken with
 * offsetof() on that release's own headers (php8.2-dev 8.2.36 of Debian 12,
 * php8.4-dev 8.4.27 of Debian sid; 8.3 is no Debian release's: not checked,
 * so not listed): executor_globals.current_execute_data 488;
 * zend_execute_data opline 0, func 24, This.u1.type_info 40,
 * prev_execute_data 48; zend_function type 0, common.function_name 8,
 * common.scope 16, op_array.filename 152 (8.2) / 168 (8.4) and line_start
 * 160 / 176; zend_class_entry name 8; zend_string val 24; zend_op lineno
 * 24; ZEND_CALL_TOP 1 << 17 in both.
 *
 * Names are what PHP's own backtraces print (debug_print_backtrace, an
 * exception's trace): `fib`, `Foo::bar` for a method, `{closure}` (8.4:
 * `{closure:FILE:LINE}`), `{main}` for the script's top-level code,
 * `include` and `eval` for an included file's and eval()'d code. A method
 * is always Class::method, the way __METHOD__ and a static call print it,
 * not Class->method as a trace prints an instance call: the name is the
 * function's, one per method, so the samples of static and instance calls
 * of it add up in one frame. The file is the function's, the line that
 * of the frame's current opline (its first line while it is being
 * entered, before it has one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "abi/interp.h"
#include "abi/php.h"
#include "runtime/langs/interp_common.h"
#include "runtime/langs/interp_walker.h"
#include "runtime/langs/php.h"
#include "runtime/stacks/procmaps.h"

#define UNKNOWN_FRAME "[unknown php frame]"
#define VERSION_MARK "X-Powered-By: PHP/"

/* ph_stats is read with py_stats' indices (sp_interp_warn) */
_Static_assert((int)SP_PH_ST_WALKS == (int)SP_PY_ST_WALKS &&
	       (int)SP_PH_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_PH_ST_READERR == (int)SP_PY_ST_READERR,
	       "ph_stats and py_stats differ");

/* One PHP minor version's layouts, x86-64. */
struct phver {
	int major, minor;
	struct sp_ph_proc w;
};

#define PH_LAYOUT(filename, line_start)                                                       \
	{ .call_top = 1u << 17, .eg_current_ex = 488, .ex_opline = 0, .ex_func = 24,           \
	  .ex_call_info = 40, .ex_prev = 48, .fn_type = 0, .fn_name = 8, .fn_scope = 16,       \
	  .fn_filename = filename, .fn_line_start = line_start, .ce_name = 8, .str_val = 24,   \
	  .op_lineno = 24 }

static const struct phver versions[] = {
	{ 8, 2, PH_LAYOUT(152, 160) }, /* Debian 12's 8.2.36 */
	{ 8, 4, PH_LAYOUT(168, 176) }, /* Debian sid's 8.4.27 */
};

#define EXEC_PARTS 4

struct phproc {
	struct sp_iproc ip;                  /* mark: &executor_globals it was seen with */
	struct sp_irange exec[EXEC_PARTS];   /* execute_ex's code */
	int nexec;
};

struct sp_php {
	struct sp_iwalker iw; /* codes: struct sp_icode */
};

/* --- processes -------------------------------------------------------------------------- */

static struct phproc *proc_get(const struct sp_php *ph, pid_t pid)
{
	return (struct phproc *)sp_iwalker__proc(&ph->iw, pid);
}

/* What one mapped file tells (relocated addresses; 0: not exported), and
 * its mapping (valid during add_maps). */
struct found {
	uint64_t eg;
	const struct sp_procmap *map;
};

/* One file named *php*: 1 when it is the engine (it exports executor_globals). */
static int probe_file(pid_t pid, const struct sp_procmap *m, void *arg)
{
	static const char *const names[] = { "executor_globals" };
	uint64_t a[1];
	struct found *out = arg;

	if (!sp_interp_symbols(pid, m, names, a, 1))
		return 0;
	*out = (struct found){ a[0], m };
	return 1;
}

/* The version the file of m carries ("8.2.36" after VERSION_MARK) into vs;
 * false when it has none. */
static bool file_version(pid_t pid, const struct sp_procmap *m, char *vs, size_t size)
{
	enum { CHUNK = 1 << 20, KEEP = 64 };
	size_t mlen = strlen(VERSION_MARK);
	char *buf = malloc(CHUNK + KEEP + 1);
	int fd = sp_procmap__open(m, pid, true);
	off_t off = 0;
	bool found = false;

	if (!buf || fd < 0)
		goto out;
	for (;;) {
		ssize_t n = pread(fd, buf, CHUNK + KEEP, off);
		char *hit;

		if (n <= 0)
			break;
		buf[n] = 0;
		hit = memmem(buf, (size_t)n, VERSION_MARK, mlen);
		if (hit && hit + mlen < buf + n) {
			size_t i = 0;

			for (hit += mlen; i + 1 < size && hit < buf + n &&
					  (*hit == '.' || (*hit >= '0' && *hit <= '9'));
			     hit++)
				vs[i++] = *hit;
			vs[i] = 0;
			found = i > 0;
			break;
		}
		if (n < CHUNK + KEEP)
			break;
		off += CHUNK; /* the next read overlaps by KEEP: a mark across the seam */
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return found;
}

static const struct phver *version_for(const char *vs)
{
	int major = 0, minor = 0;

	if (sscanf(vs, "%d.%d", &major, &minor) != 2)
		return NULL;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].major == major && versions[i].minor == minor)
			return &versions[i];
	return NULL;
}

static void warn_once(struct sp_iproc *p, const char *vs, const char *why)
{
	if (!p->warned)
		sp_warn("pid %d runs php %s: no PHP frames (%s), native "
			"frames only\n", (int)p->pid, vs, why);
	p->warned = true;
}

static int register_proc(struct sp_iwalker *iw, struct sp_iproc *ip, void *found)
{
	struct phproc *p = (struct phproc *)ip;
	struct found *f = found;
	char vs[32] = "(unknown version)";
	const struct phver *v;
	struct sp_ph_proc w;
	int major = 0, minor = 0, rel = 0;

	ip->mark = f->eg;
	if (!file_version(ip->pid, f->map, vs, sizeof(vs))) {
		warn_once(ip, vs, "no \"" VERSION_MARK "\" version string in its binary");
		return 0;
	}
	if (!(v = version_for(vs))) {
		warn_once(ip, vs, "no layouts for this version; known: 8.2, 8.4");
		return 0;
	}
	p->nexec = sp_interp_func_parts(ip->pid, f->map, "execute_ex", p->exec, EXEC_PARTS);
	if (!p->nexec) {
		warn_once(ip, vs, "no execute_ex symbol");
		return 0;
	}
	sscanf(vs, "%d.%d.%d", &major, &minor, &rel);
	w = v->w;
	w.eg = f->eg;
	w.version = (uint32_t)(major * 10000 + minor * 100 + rel);
	sp_interp_mark_live(iw->live_fd, &iw->live);
	if (bpf_map_update_elem(iw->procs_fd, &ip->pid, &w, BPF_ANY))
		return -errno;
	ip->registered = true;
	return 1;
}

int sp_php__add_maps(struct sp_php *ph, pid_t pid, const struct sp_procmaps *pm)
{
	struct found f = { 0 };

	return sp_iwalker__add_maps((struct sp_iwalker *)ph, pid, pm, &f);
}

bool sp_php__owns(const struct sp_php *ph, pid_t pid)
{
	struct phproc *p = ph ? proc_get(ph, pid) : NULL;

	return p && p->nexec > 0; /* stacks taken before an exec too */
}

/* --- code records ----------------------------------------------------------------------- */

/* The frame's name as PHP's backtraces print it; NULL when unreadable. */
static char *code_name(const struct sp_ph_code_rec *r)
{
	char *s = NULL;

	switch (r->kind) {
	case SP_PH_MAIN:
		return strdup("{main}");
	case SP_PH_INCLUDE:
		return strdup("include");
	case SP_PH_EVAL:
		return strdup("eval");
	case SP_PH_FUNC:
		if (!r->name[0] || !sp_printable(r->name, strlen(r->name)) ||
		    !sp_printable(r->scope, strlen(r->scope)))
			return NULL;
		if (!r->scope[0])
			return strdup(r->name);
		return asprintf(&s, "%s::%s", r->scope, r->name) < 0 ? NULL : s;
	}
	return NULL;
}

void sp_php__note_code(struct sp_php *ph, pid_t pid, uint64_t addr, const void *rec, size_t len)
{
	struct sp_ph_code_rec r;
	struct sp_icode *c;

	if (!ph || !rec || len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	r.name[SP_PH_NAME_MAX - 1] = r.scope[SP_PH_NAME_MAX - 1] = r.file[SP_PH_FILE_MAX - 1] = 0;
	if (r.magic != SP_PH_REC_MAGIC ||
	    !(c = sp_iwalker__new_code(&ph->iw, pid, r.id, addr, sizeof(*c))))
		return;
	c->name = code_name(&r);
	if (r.file[0] && sp_printable(r.file, strlen(r.file)))
		c->file = strdup(r.file);
	c->ok = c->name && c->file;
	sp_icodes__add(&ph->iw.codes, c);
}

/* --- frames ----------------------------------------------------------------------------- */

/* The VM's loop: each execute_ex activation runs the frames from one
 * entered from C (ZEND_CALL_TOP) up; its opcode handlers (the hybrid VM's
 * labels, or ZEND_*_HANDLER functions of a call-threaded build) are its. */
static bool is_exec(void *w, pid_t pid, const struct sp_frame *f)
{
	struct phproc *p;

	if (f->sym && (strcmp(f->sym, "execute_ex") == 0 ||
		       (strncmp(f->sym, "ZEND_", 5) == 0 && strstr(f->sym, "_HANDLER"))))
		return true;
	p = w && !f->inlined ? proc_get(w, pid) : NULL;
	return p && sp_irange_has(p->exec, p->nexec, f->addr);
}


/* --- life cycle ------------------------------------------------------------------------- */

static const struct sp_iwalker_kind php_kind = {
	.lang = "php",
	SP_IWALKER_ABI(PH, ph),
	.proc_size = sizeof(struct phproc),
	.probe = probe_file,
	.found_mark = offsetof(struct found, eg),
	.register_proc = register_proc,
	.is_eval = is_exec,
	.unknown_frame = UNKNOWN_FRAME,
	.unread = "functions that could not be read",
};

struct sp_php *sp_php__open(struct bpf_object *obj)
{
	return sp_iwalker__open(obj, &php_kind, sizeof(struct sp_php));
}




