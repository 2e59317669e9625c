/* runtime/langs/ruby.c: Ruby processes registered for the BPF walker, iseqs and C methods named.
 *
 * Offsets are per minor version. 3.1's (shared/research/interpreters.md
 * §4) were checked by reading a running Debian 3.1.2's memory with gdb:
 * the EC's thread_ptr at 48, the thread's ec at 40 and pthread_t at 80,
 * the main ractor's main thread at 0x210, the iseq body's label at 80 and
 * insns_info at 120. 3.3's follow its vm_core.h (rb_control_frame_t
 * without bp, rb_native_thread, an int first_lineno) and were checked the
 * same way on Debian sid's 3.3.8, from /proc/PID/mem.
 * A process is Ruby when its executable or a libruby exports
 * ruby_version (its version string). Debian's libruby-3.3 is built with
 * hidden symbols: ruby_single_main_ractor is then found in the code of
 * rb_ractor_stdin (its rb_ractor_main_p() test loads it first), and
 * rb_vm_exec, where frames are spliced in, as the one function
 * rb_iseq_eval and rb_iseq_eval_main both call (interp_common.h).
 * ruby_current_ec is a general-dynamic TLS variable, but libruby comes
 * with the program, so it sits in static TLS at one offset below every
 * thread's FS base: found by looking below the main thread's FS base for
 * its ec (find_ec_tls), so BPF reads each thread's own context.
 *
 * C method names: a method entry's called_id is an ID; its name is the
 * fstring in the VM's global symbol table (symbol.c's
 * ruby_global_symbols.ids, an array of 512-entry arrays of (string,
 * symbol) pairs). That table is not exported: its address is taken from
 * the code of rb_id2str (a jmp to get_id_serial_entry, whose first
 * `mov disp32(%rip),%rdi` loads ids), and checked (last_id 16 bytes before
 * it is a plausible count). Without it C methods show as "[cfunc]".
 * Everything read is checked (types of the objects, printable strings), so
 * a bad read shows "[unknown ruby frame]", never garbage.
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
#include "abi/ruby.h"
#include "runtime/langs/interp_common.h"
#include "runtime/langs/interp_walker.h"
#include "runtime/stacks/kofs.h"
#include "runtime/stacks/procmaps.h"
#include "runtime/langs/rblines.h"
#include "runtime/langs/ruby.h"

#define MAX_STR 1024
#define MAX_ENTRIES (1u << 20)
#define UNKNOWN_FRAME "[unknown ruby frame]"
#define CFUNC_FRAME "[cfunc]"

/* rb_stats is read with py_stats' indices (sp_interp_warn) */
_Static_assert((int)SP_RB_ST_WALKS == (int)SP_PY_ST_WALKS &&
	       (int)SP_RB_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_RB_ST_READERR == (int)SP_PY_ST_READERR,
	       "rb_stats and py_stats differ");

/* One Ruby minor version's layouts, x86-64: what BPF walks, and what
 * user space reads of the VM, iseq bodies and objects. */
struct rbver {
	int minor;
	struct sp_rb_proc w;
	uint16_t ractor_main_thread, thread_ec;
	uint16_t body_pathobj, body_label, body_first_lineno, body_insns_info, body_insns_size,
		body_succ;
	bool first_int;       /* first_lineno an int (3.3), not a Fixnum VALUE (3.1) */
	bool str_len_field;   /* RString's len at +16 also when embedded, bytes at +24 (3.2+) */
	uint8_t ary_len_bits; /* bits of an embedded RArray's length, from flag bit 15 */
};

enum { BODY_ISEQ_SIZE = 4, BODY_READ = 152, ME_CALLED_ID = 24 };

static const struct rbver versions[] = {
	/* 3.1 (Debian 3.1.2) */
	{ 1, { .ractor_running_ec = 0x208, .ec_vm_stack = 0, .ec_vm_stack_size = 8, .ec_cfp = 16,
	       .ec_thread = 48, .thread_id = 80, .cfp_size = 64, .cfp_pc = 0, .cfp_iseq = 16,
	       .cfp_ep = 32, .iseq_body = 16, .body_encoded = 8, .body_label = 80, .me_def = 16,
	       .me_called_id = 24 },
	  0x210, 40, 64, 80, 88, 120, 136, 144, false, false, 3 },
	/* 3.3 (Debian 3.3.8): rb_control_frame_t lost bp (56 bytes), the
	 * ractor's running_ec/main moved to 0x180/0x188, a thread's pthread_t
	 * is in its rb_native_thread (th->nt at 40, thread_id at 16), its ec at
	 * 48; first_lineno is an int, so insns_info moved up by 8 */
	{ 3, { .ractor_running_ec = 0x180, .ec_vm_stack = 0, .ec_vm_stack_size = 8, .ec_cfp = 16,
	       .ec_thread = 48, .thread_id = 16, .thread_nt = 40, .cfp_size = 56, .cfp_pc = 0,
	       .cfp_iseq = 16, .cfp_ep = 32, .iseq_body = 16, .body_encoded = 8, .body_label = 80,
	       .me_def = 16, .me_called_id = 24 },
	  0x188, 48, 64, 80, 88, 112, 128, 136, true, true, 7 },
};

#define VM_EXEC_PARTS 4

struct rbproc {
	/* mark: &ruby_single_main_ractor it was registered with (0: never) */
	struct sp_iproc ip;
	const struct rbver *v;     /* set when registered */
	struct sp_irange exec[VM_EXEC_PARTS]; /* rb_vm_exec's code, when it has no name */
	int nexec;
	struct sp_rb_proc w; /* its rb_procs entry */
	int tls_tries;    /* looks for ec_tls after registering (the VM may not be up yet) */
	uint64_t ids_var; /* &ruby_global_symbols.ids, 0: unknown */
};

struct rbcode {
	struct sp_icode ic; /* id, pid, addr, ok, name (label), file (path) */
	bool cfunc;
	int firstline;
	uint8_t *entries, *succ;
	uint32_t nentries;
	size_t succlen;
};

struct sp_ruby {
	struct sp_iwalker iw; /* codes: struct rbcode */
	uint32_t fsbase_off;
	bool have_fsbase;
};

/* --- process memory ------------------------------------------------------------------- */

/* A String (T_STRING, 0x05) as a C string (malloc'd); NULL when it is
 * something else, too long or not printable. Heap strings (flag bit 13)
 * have len at +16 and ptr at +24; embedded ones in 3.1 their bytes at +16
 * and the length in flag bits 14-18, in 3.2+ len at +16 and bytes at +24. */
static char *read_rstring(pid_t pid, const struct rbver *rv, uint64_t v)
{
	uint64_t hdr[4], len, ptr;
	char *s;

	if (!v || (v & 7) || sp_rmem(pid, v, hdr, sizeof(hdr)) || (hdr[0] & 0x1f) != 0x05)
		return NULL;
	if (hdr[0] & (1u << 13))
		len = hdr[2], ptr = hdr[3];
	else if (rv->str_len_field)
		len = hdr[2], ptr = v + 24;
	else
		len = (hdr[0] >> 14) & 0x1f, ptr = v + 16;
	if (len == 0 || len > MAX_STR || !(s = malloc(len + 1)))
		return NULL;
	if (sp_rmem(pid, ptr, s, len) || !sp_printable(s, len)) {
		free(s);
		return NULL;
	}
	s[len] = 0;
	return s;
}

/* Element i of an Array (T_ARRAY, 0x07); 0 when out of range or unreadable.
 * Embedded (flag bit 13): elements at +16, length in the bits from 15
 * (3 in 3.1, 7 in 3.3); else len at +16, ptr at +32. */
static uint64_t ary_entry(pid_t pid, const struct rbver *rv, uint64_t a, uint64_t i)
{
	uint64_t hdr[5], len, ptr;

	if (!a || (a & 7) || sp_rmem(pid, a, hdr, sizeof(hdr)) || (hdr[0] & 0x1f) != 0x07)
		return 0;
	if (hdr[0] & (1u << 13))
		len = (hdr[0] >> 15) & ((1u << rv->ary_len_bits) - 1), ptr = a + 16;
	else
		len = hdr[2], ptr = hdr[4];
	return i < len ? sp_rd64(pid, ptr + 8 * i) : 0;
}

/* Code compiled under "<internal:/dir/file.rb>" (RubyGems 3.3 defines
 * Kernel#require that way, so Ruby's backtraces skip it) is the file's: the
 * wrapper goes (it made "kernel_require.rb>" of the base name). Paths
 * without a directory ("<internal:kernel>", "<main>") stay as they are. */
static char *unwrap_internal(char *s)
{
	static const char pre[] = "<internal:/";
	size_t n = s ? strlen(s) : 0;

	if (n > sizeof(pre) && strncmp(s, pre, sizeof(pre) - 1) == 0 && s[n - 1] == '>') {
		memmove(s, s + sizeof(pre) - 2, n - sizeof(pre) + 1); /* from the '/' on */
		s[n - sizeof(pre) + 1] = '\0';                       /* the '>' goes */
	}
	return s;
}

/* pathobj: the path String, or the Array [path, realpath]. */
static char *read_path(pid_t pid, const struct rbver *rv, uint64_t v)
{
	char *s = read_rstring(pid, rv, v);

	return unwrap_internal(s ? s : read_rstring(pid, rv, ary_entry(pid, rv, v, 0)));
}

/* The name of an ID (symbol.c: get_id_serial_entry). */
static char *id_name(pid_t pid, const struct rbver *rv, uint64_t ids_var, uint64_t id)
{
	uint64_t serial = id > 0xa9 ? id >> 4 : id; /* tLAST_OP_ID, RUBY_ID_SCOPE_SHIFT */
	uint64_t ids = sp_rd64(pid, ids_var);

	if (!ids_var || !serial)
		return NULL;
	return read_rstring(pid, rv, ary_entry(pid, rv, ary_entry(pid, rv, ids, serial / 512),
					       serial % 512 * 2));
}

/* --- processes -------------------------------------------------------------------------- */

static struct rbproc *proc_get(const struct sp_ruby *rb, pid_t pid)
{
	return (struct rbproc *)sp_iwalker__proc(&rb->iw, pid);
}

/* What one mapped file tells, relocated: the version string, the main
 * ractor pointer (0: not exported), rb_id2str, rb_vm_exec (0: not
 * exported), rb_ractor_stdin; and the mapping (valid during add_maps). */
struct found {
	uint64_t version, ractor, id2str, vm_exec, stdin_fn;
	const struct sp_procmap *map;
};

/* &ruby_single_main_ractor when libruby does not export it (Debian's 3.3
 * is built with hidden symbols): rb_ractor_stdin begins with
 * rb_ractor_main_p(), whose first load is that pointer: the first
 * rip-relative lea/mov/cmpq $0 of its first 32 bytes. 0 when none. */
static uint64_t find_ractor_var(pid_t pid, uint64_t fn)
{
	uint8_t c[32];
	int32_t d;

	if (!fn || sp_rmem(pid, fn, c, sizeof(c)))
		return 0;
	for (int i = 0; i + 8 <= (int)sizeof(c); i++) {
		bool ldst = (c[i] == 0x48 || c[i] == 0x4c) && (c[i + 1] == 0x8d || c[i + 1] == 0x8b) &&
			    (c[i + 2] & 0xc7) == 0x05;
		bool cmp0 = c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0x3d && c[i + 7] == 0;

		if (!ldst && !cmp0)
			continue;
		memcpy(&d, c + i + 3, 4);
		return fn + (uint64_t)i + (cmp0 ? 8 : 7) + (uint64_t)(int64_t)d;
	}
	return 0;
}

/* One file named *ruby* (the executable or a libruby): 1 when it is the VM
 * (it exports ruby_version); its main ractor found in rb_ractor_stdin's
 * code when not exported. */
static int probe_file(pid_t pid, const struct sp_procmap *m, void *arg)
{
	static const char *const names[] = { "ruby_version", "ruby_single_main_ractor",
					      "rb_id2str", "rb_vm_exec", "rb_ractor_stdin" };
	uint64_t a[5];
	struct found *out = arg;

	if (!sp_interp_symbols(pid, m, names, a, 5))
		return 0;
	*out = (struct found){ a[0], a[1], a[2], a[3], a[4], m };
	if (!out->ractor)
		out->ractor = find_ractor_var(pid, out->stdin_fn);
	return 1;
}

/* &ruby_global_symbols.ids from rb_id2str's code (see the top of the file). */
static uint64_t find_ids_var(pid_t pid, uint64_t id2str)
{
	uint8_t c[128];
	uint64_t fn = 0, var;
	int32_t d;
	uint32_t last_id = 0;

	if (sp_rmem(pid, id2str, c, 32))
		return 0;
	for (int i = 0; i + 5 <= 32 && !fn; i++)
		if (c[i] == 0xe9)
			memcpy(&d, c + i + 1, 4), fn = id2str + (uint64_t)i + 5 + (uint64_t)(int64_t)d;
	if (!fn || sp_rmem(pid, fn, c, sizeof(c)))
		return 0;
	for (int i = 0; i + 7 <= (int)sizeof(c); i++) {
		if (c[i] != 0x48 || c[i + 1] != 0x8b || c[i + 2] != 0x3d)
			continue;
		memcpy(&d, c + i + 3, 4);
		var = fn + (uint64_t)i + 7 + (uint64_t)(int64_t)d;
		if (sp_rmem(pid, var - 16, &last_id, sizeof(last_id)) || last_id == 0 ||
		    last_id > 100000000)
			return 0;
		return var;
	}
	return 0;
}

/* Where ruby_current_ec sits below a thread's FS base. libruby's TLS block
 * is in static TLS (loaded with the program), at the same offset from every
 * thread's FS base: found in the main thread (ractor -> main thread ->
 * pthread_t = FS base, and its ec) as the one word below its FS base that
 * holds its ec. 0 when not found once and only once. */
static uint64_t find_ec_tls(pid_t pid, const struct rbver *rv, uint64_t ractor_var)
{
	uint64_t chunk[64], ractor = sp_rd64(pid, ractor_var), th, nt, ec, fsbase, off = 0;

	th = ractor ? sp_rd64(pid, ractor + rv->ractor_main_thread) : 0;
	ec = th ? sp_rd64(pid, th + rv->thread_ec) : 0;
	nt = th && rv->w.thread_nt ? sp_rd64(pid, th + rv->w.thread_nt) : th;
	fsbase = nt ? sp_rd64(pid, nt + rv->w.thread_id) : 0;
	if (!ec || fsbase < 4096)
		return 0;
	/* downwards from the FS base, up to 4 KiB or the first unreadable chunk */
	for (uint64_t below = sizeof(chunk); below <= 4096; below += sizeof(chunk)) {
		if (sp_rmem(pid, fsbase - below, chunk, sizeof(chunk)))
			break;
		for (size_t i = 0; i < 64; i++) {
			if (chunk[i] != ec)
				continue;
			if (off)
				return 0;
			off = below - i * 8;
		}
	}
	return off;
}

static const struct rbver *version_for(int major, int minor)
{
	for (size_t i = 0; major == 3 && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i].minor == minor)
			return &versions[i];
	return NULL;
}

/* What the walk of a supported version still lacks in this process: the
 * main ractor, and rb_vm_exec (by name, or its code when nameless). NULL
 * when nothing. */
static const char *missing(struct sp_ruby *rb, struct rbproc *p, struct found *f)
{
	if (!rb->have_fsbase)
		return "no task_struct thread.fsbase in the kernel's BTF";
	if (!f->ractor)
		return "libruby exports no ruby_single_main_ractor and rb_ractor_stdin does not "
		       "show where it is";
	p->nexec = 0;
	if (!f->vm_exec && sp_interp_shared_callee(p->ip.pid, f->map, "rb_iseq_eval",
						   "rb_iseq_eval_main", &p->exec[0]))
		p->nexec = 1;
	if (!f->vm_exec && !p->nexec)
		return "libruby exports no rb_vm_exec and rb_iseq_eval/rb_iseq_eval_main do not "
		       "show where it is";
	return NULL;
}

static int register_proc(struct sp_iwalker *iw, struct sp_iproc *ip, void *found)
{
	struct sp_ruby *rb = (struct sp_ruby *)iw;
	struct rbproc *p = (struct rbproc *)ip;
	struct found *f = found;
	char ver[16] = "";
	int major = 0, minor = 0, teeny = 0;
	const struct rbver *rv;
	const char *why = NULL;
	struct sp_rb_proc w;

	if (f->version)
		sp_rmem(ip->pid, f->version, ver, sizeof(ver) - 1);
	if (sscanf(ver, "%d.%d.%d", &major, &minor, &teeny) < 2)
		major = minor = 0;
	rv = version_for(major, minor);
	if (!rv || (why = missing(rb, p, f))) {
		if (!ip->warned)
			sp_warn("pid %d runs ruby %s: no interpreter stacks "
				"%s%s%s, native frames only\n", (int)ip->pid,
				ver[0] ? ver : "(unknown version)", why ? "(" : "",
				why ? why : "for this version (3.1, 3.3)", why ? ")" : "");
		ip->warned = true;
		return 0;
	}
	w = rv->w;
	w.main_ractor = f->ractor;
	w.ec_tls = find_ec_tls(ip->pid, rv, f->ractor);
	w.task_fsbase = rb->fsbase_off;
	w.version = (uint32_t)(major * 10000 + minor * 100 + teeny);
	sp_interp_mark_live(iw->live_fd, &iw->live);
	if (bpf_map_update_elem(iw->procs_fd, &ip->pid, &w, BPF_ANY))
		return -errno;
	p->v = rv;
	p->w = w;
	p->tls_tries = 0;
	p->ids_var = f->id2str ? find_ids_var(ip->pid, f->id2str) : 0;
	ip->mark = f->ractor;
	ip->registered = true;
	return 1;
}

int sp_ruby__add_maps(struct sp_ruby *rb, pid_t pid, const struct sp_procmaps *pm)
{
	struct found f = { 0 };

	return sp_iwalker__add_maps((struct sp_iwalker *)rb, pid, pm, &f);
}

bool sp_ruby__owns(const struct sp_ruby *rb, pid_t pid)
{
	struct rbproc *p = rb ? proc_get(rb, pid) : NULL;

	return p && p->ip.mark != 0; /* stacks taken before an exec too */
}

/* --- iseqs and method entries ----------------------------------------------------------- */

/* An iseq body: label, path, first line, insns_info entries and succ table. */
static void read_iseq(pid_t pid, const struct rbver *rv, uint64_t body, struct rbcode *c)
{
	uint8_t b[BODY_READ];
	uint32_t size, isz;
	uint64_t first;

	if (sp_rmem(pid, body, b, sizeof(b)))
		return;
	c->ic.name = read_rstring(pid, rv, sp_u64_at(b, rv->body_label));
	c->ic.file = read_path(pid, rv, sp_u64_at(b, rv->body_pathobj));
	memcpy(&first, b + rv->body_first_lineno, sizeof(first));
	if (rv->first_int)
		c->firstline = (int32_t)first > 0 ? (int32_t)first : 0;
	else
		c->firstline = (first & 1) && (int64_t)first > 0 && first < (1ull << 32)
				       ? (int)(first >> 1) : 0;
	memcpy(&size, b + rv->body_insns_size, sizeof(size));
	memcpy(&isz, b + BODY_ISEQ_SIZE, sizeof(isz));
	if (size == 0 || size > MAX_ENTRIES || isz > MAX_ENTRIES ||
	    !(c->entries = malloc((size_t)size * SP_RB_INSN_INFO_SIZE)))
		return;
	if (sp_rmem(pid, sp_u64_at(b, rv->body_insns_info), c->entries,
		 (size_t)size * SP_RB_INSN_INFO_SIZE)) {
		free(c->entries), c->entries = NULL;
		return;
	}
	c->nentries = size;
	c->succlen = sp_rb_succ_size(isz);
	if (size > 1 && (c->succ = malloc(c->succlen)) &&
	    sp_rmem(pid, sp_u64_at(b, rv->body_succ), c->succ, c->succlen))
		free(c->succ), c->succ = NULL;
}

static void code_read(const struct rbproc *p, struct rbcode *c, uint32_t kind, uint64_t aux)
{
	if (kind == SP_RB_CFUNC) {
		c->cfunc = true;
		c->ic.name = id_name(p->ip.pid, p->v, p->ids_var,
				     sp_rd64(p->ip.pid, c->ic.addr + ME_CALLED_ID));
		if (!c->ic.name)
			c->ic.name = strdup(CFUNC_FRAME);
		c->ic.ok = c->ic.name != NULL;
		return;
	}
	read_iseq(p->ip.pid, p->v, aux, c);
	c->ic.ok = c->ic.name && c->ic.file;
}

/* A process registered before its VM was up (at exec): its main thread's
 * TLS looked for again with the first iseqs it runs. */
static void retry_ec_tls(struct sp_ruby *rb, struct rbproc *p)
{
	if (p->w.ec_tls || p->tls_tries >= 64)
		return;
	p->tls_tries++;
	p->w.ec_tls = find_ec_tls(p->ip.pid, p->v, p->ip.mark);
	if (p->w.ec_tls)
		bpf_map_update_elem(rb->iw.procs_fd, &p->ip.pid, &p->w, BPF_ANY);
}

void sp_ruby__note_code(struct sp_ruby *rb, pid_t pid, uint64_t addr, const void *rec, size_t len)
{
	struct sp_rb_code_rec r;
	struct rbproc *p;
	struct rbcode *c;

	if (!rb || !rec || len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	p = proc_get(rb, pid);
	if (r.magic != SP_RB_REC_MAGIC || !p || !p->ip.registered || !r.id)
		return;
	retry_ec_tls(rb, p);
	if (!(c = sp_iwalker__new_code(&rb->iw, pid, r.id, addr, sizeof(*c))))
		return;
	code_read(p, c, r.kind, r.aux);
	sp_icodes__add(&rb->iw.codes, &c->ic);
}

/* --- frames ----------------------------------------------------------------------------- */

static void rb_frame(void *w, pid_t pid, uint64_t word, struct sp_frame *f)
{
	struct sp_ruby *rb = w;
	uint64_t off = sp_interp_word_off(word);
	struct rbcode *c = (struct rbcode *)sp_icodes__get(&rb->iw.codes, pid,
							   sp_interp_word_id(word));

	if (!sp_interp_frame(f, c ? &c->ic : NULL, UNKNOWN_FRAME, &rb->iw.unknown) || c->cfunc)
		return; /* a C method: its name alone */
	f->srcline = off == SP_PY_OFF_NONE ? c->firstline
					   : sp_rb_line(c->entries, c->nentries, c->succ, c->succlen,
							(uint32_t)off);
	if (!f->srcline)
		f->srcline = c->firstline;
}

/* The VM's evaluation loop: each rb_vm_exec activation runs the frames
 * from one VM_FRAME_FLAG_FINISH frame up (vm_exec_core, static and so
 * nameless in a stripped libruby, runs inside it). By name, or (Debian's
 * 3.3 exports no rb_vm_exec) by the code registration found. */
static bool is_vm_exec(void *w, pid_t pid, const struct sp_frame *f)
{
	struct rbproc *p;

	if (f->sym && strcmp(f->sym, "rb_vm_exec") == 0)
		return true;
	/* by address: the frame of the function itself, not those inlined at its pc */
	p = w && !f->inlined ? proc_get(w, pid) : NULL;
	return p && sp_irange_has(p->exec, p->nexec, f->addr);
}


/* --- life cycle ------------------------------------------------------------------------- */

static void code_free(struct sp_icode *ic)
{
	struct rbcode *c = (struct rbcode *)ic;

	free(c->ic.name), free(c->ic.file), free(c->entries), free(c->succ), free(c);
}

static const struct sp_iwalker_kind ruby_kind = {
	.lang = "ruby",
	SP_IWALKER_ABI(RB, rb),
	.proc_size = sizeof(struct rbproc),
	.probe = probe_file,
	.found_mark = offsetof(struct found, ractor),
	.register_proc = register_proc,
	.is_eval = is_vm_exec,
	.frame = rb_frame,
	.code_free = code_free,
	.unknown_frame = UNKNOWN_FRAME,
	.unread = "iseqs that could not be read",
};

struct sp_ruby *sp_ruby__open(struct bpf_object *obj)
{
	struct sp_ruby *rb = sp_iwalker__open(obj, &ruby_kind, sizeof(*rb));

	if (rb)
		rb->have_fsbase = sp_kofs__task_fsbase(&rb->fsbase_off) == 0;
	return rb;
}




