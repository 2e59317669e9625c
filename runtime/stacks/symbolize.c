/* runtime/stacks/symbolize.c: user and kernel addresses -> symbol+offset, also after exit.
 *
 * The first time a process shows up (sp_symbolizer__add_pid), its executable
 * mappings are recorded and each backing file is opened right away, through
 * /proc/PID/map_files/START-END (works for deleted files and other mount
 * namespaces), else /proc/PID/root/PATH, else PATH. The descriptors are kept,
 * so the process can exit before printing and still be symbolized: this is
 * bpftrace's issue #246, and why symbolizers that read /proc at print time
 * show bare hex for `-c` commands.
 *
 * Opened files are deduplicated by (device, inode, size, mtime) of the open
 * descriptor, so a thousand processes of one binary share one symbol table.
 * Re-reading a process's maps (refresh) adds a generation; older ones stay
 * searchable (newest first) for stacks taken before a dlopen or exec.
 *
 * Special mappings: [vdso] is symbolized from sprof's own vDSO image (one
 * kernel, one image); JIT code (anonymous executable memory, or any address
 * no file symbol covers) from the process's perf map (perfmap.h): opened and
 * read at add time, kept open, and read again when an address misses and
 * the file changed, also after the process exited. Kernel addresses come
 * from /proc/kallsyms, read on first use.
 */
#include "base/log.h"
#include "runtime/stacks/symbolize.h"

#include "runtime/elf/file.h"
#include "runtime/elf/inlines.h"
#include "runtime/elf/objcache.h"
#include "runtime/elf/syms.h"
#include "runtime/stacks/kallsyms.h"
#include "runtime/stacks/perfmap.h"
#include "runtime/stacks/procmaps.h"
#include "base/search.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROC_BUCKETS 1024
/* A miss (address in no mapping) re-reads a live process's maps at most this often. */
#define REFRESH_MIN_NS 100000000ull

struct sp_map {
	uint64_t start, end, pgoff, inode;
	enum sp_map_kind kind;
	char *path;             /* owned; "[vdso]", or NULL for anonymous memory */
	struct sp_objfile *file; /* shared by every mapping of it (runtime/elf/objcache.h) */
};

/* The mappings as read at one time, sorted by start. */
struct sp_gen {
	int n;
	struct sp_map *maps;
};

struct sp_proc {
	pid_t pid;
	bool dead;              /* gone when we first or last looked */
	uint64_t read_ns;       /* when the maps were last read */
	int ngens;
	struct sp_gen *gens;    /* oldest first */
	struct sp_perfmap *perf; /* NULL until the process has one */
	bool perf_warned;        /* about its malformed lines, once */
	bool perf_big_warned;    /* about its size past the cap, once */
	bool perf_tried_dead;    /* looked for a perf map written at exit */
	uint64_t gone_ns;        /* when sp_symbolizer__evict() first found it gone; 0: alive */
	struct sp_proc *next;
};

struct sp_modid {
	const char *module;     /* points into the kallsyms table */
	char *build_id;
	struct sp_modid *next;
};

struct sp_symbolizer {
	struct sp_proc *procs[PROC_BUCKETS];
	struct sp_objcache *objs;  /* object files, possibly shared with the unwinder */
	bool own_objs;
	struct sp_kallsyms *ksyms;
	bool ksyms_tried;
	pthread_t ksyms_thread;     /* sp_symbolizer__preload_kernel() */
	bool ksyms_loading;
	char *kernel_build_id;
	struct sp_modid *modids;   /* kernel modules' build ids, read on first use */
	bool demangle;
	bool lines;
	bool inlines;
	struct sp_elf *hit_elf;    /* where the last user frame resolved: file and address */
	uint64_t hit_vaddr;
	pid_t (*parent_of)(void *ctx, pid_t pid); /* a forked child's parent, or 0 */
	void *parent_ctx;
};

/* Every kept file is a descriptor: allow as many as the hard limit does. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct sp_symbolizer *sp_symbolizer__open_shared(struct sp_objcache *objs)
{
	struct sp_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->objs = objs;
	if (!s->objs) {
		s->objs = sp_objcache__new();
		s->own_objs = true;
		if (!s->objs) {
			free(s);
			return NULL;
		}
	}
	s->demangle = true;
	s->lines = true;
	s->inlines = true;
	raise_nofile();
	return s;
}

struct sp_symbolizer *sp_symbolizer__open(void)
{
	return sp_symbolizer__open_shared(NULL);
}

struct sp_objcache *sp_symbolizer__objcache(struct sp_symbolizer *s)
{
	return s->objs;
}

void sp_symbolizer__set_demangle(struct sp_symbolizer *s, bool on)
{
	s->demangle = on;
}

void sp_symbolizer__set_inline(struct sp_symbolizer *s, bool on)
{
	s->inlines = on;
}

void sp_symbolizer__set_parent_of(struct sp_symbolizer *s, pid_t (*parent_of)(void *ctx, pid_t pid),
				  void *ctx)
{
	s->parent_of = parent_of;
	s->parent_ctx = ctx;
}

/* --- files --------------------------------------------------------------------------- */

static struct sp_objfile *open_file(struct sp_symbolizer *s, pid_t pid, const struct sp_procmap *m)
{
	char root[64];
	int fd = sp_procmap__open(m, pid, true);

	if (fd < 0)
		return NULL;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return sp_objcache__get_fd(s->objs, fd, m->path, root);
}

/* sprof's own vDSO: the kernel maps one image into every (64-bit) process. */
static struct sp_objfile *vdso_file(struct sp_symbolizer *s)
{
	const void *image;
	size_t size;

	if (!sp_procmaps__self_vdso(&image, &size))
		return NULL;
	return sp_objcache__vdso(s->objs, image, size);
}

/* --- perf maps (JIT) ------------------------------------------------------------------- */

/* Open the perf map the first time (retried while the process lives: a JIT
 * may create it late; once after it died: the JVM's DumpPerfMapAtExit),
 * read what is new, and warn once per file about lines that do not parse. */
static void read_perfmap(struct sp_proc *p)
{
	int first, bad, err;

	if (!p->perf) {
		if (p->perf_tried_dead)
			return;
		p->perf_tried_dead = p->dead;
		if (!(p->perf = sp_perfmap__open(p->pid)))
			return;
	}
	err = sp_perfmap__refresh(p->perf);
	if (err == -EFBIG && !p->perf_big_warned) {
		p->perf_big_warned = true;
		sp_warn("%s (pid %d): larger than %d MiB, not read (further): "
			"frames in its JIT code print as addresses\n", sp_perfmap__path(p->perf), (int)p->pid,
			SP_PERFMAP_MAX_MIB);
	}
	if (err || p->perf_warned)
		return;
	bad = sp_perfmap__bad_lines(p->perf, &first);
	if (bad) {
		p->perf_warned = true;
		sp_warn("%s (pid %d): %d malformed line%s skipped, the first "
			"at line %d\n", sp_perfmap__path(p->perf), (int)p->pid, bad, bad == 1 ? "" : "s",
			first);
	}
}

/* --- processes ------------------------------------------------------------------------ */

static struct sp_proc **proc_bucket(struct sp_symbolizer *s, pid_t pid)
{
	return &s->procs[(uint32_t)pid % PROC_BUCKETS];
}

static struct sp_proc *find_proc(struct sp_symbolizer *s, pid_t pid)
{
	struct sp_proc *p;

	for (p = *proc_bucket(s, pid); p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct sp_proc *new_proc(struct sp_symbolizer *s, pid_t pid)
{
	struct sp_proc *p = calloc(1, sizeof(*p)), **b = proc_bucket(s, pid);

	if (!p)
		return NULL;
	p->pid = pid;
	p->next = *b;
	*b = p;
	return p;
}

static void gen_free(struct sp_symbolizer *s, struct sp_gen *g)
{
	for (int i = 0; i < g->n; i++) {
		free(g->maps[i].path);
		sp_objcache__put(s->objs, g->maps[i].file);
	}
	free(g->maps);
}

/* Mapping `m` of process `pid` as kept by the symbolizer (path moves over). */
static void take_map(struct sp_symbolizer *s, pid_t pid, const struct sp_procmap *m,
		     struct sp_map *out)
{
	*out = (struct sp_map){ m->start, m->end, m->pgoff, m->inode, m->kind, NULL, NULL };
	if (m->kind == SP_MAP_FILE)
		out->file = open_file(s, pid, m);
	else if (m->kind == SP_MAP_VDSO)
		out->file = vdso_file(s);
	out->path = m->path ? strdup(m->path) : NULL; /* the snapshot is shared: copy */
}

static bool same_gen(const struct sp_gen *a, const struct sp_gen *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		const struct sp_map *x = &a->maps[i], *y = &b->maps[i];

		if (x->start != y->start || x->end != y->end || x->pgoff != y->pgoff ||
		    x->file != y->file)
			return false;
	}
	return true;
}

static int push_gen(struct sp_symbolizer *s, struct sp_proc *p, struct sp_gen *g)
{
	struct sp_gen *n;

	if (p->ngens && same_gen(&p->gens[p->ngens - 1], g)) {
		gen_free(s, g);
		return 0;
	}
	n = realloc(p->gens, (p->ngens + 1) * sizeof(*n));
	if (!n) {
		gen_free(s, g);
		return -ENOMEM;
	}
	p->gens = n;
	p->gens[p->ngens++] = *g;
	return 0;
}

/* The maps just read are the newest generation's: nothing to open. */
static bool unchanged(const struct sp_proc *p, const struct sp_procmaps *pm)
{
	const struct sp_gen *g = p->ngens ? &p->gens[p->ngens - 1] : NULL;

	if (!g || g->n != pm->n)
		return false;
	for (int i = 0; i < pm->n; i++) {
		const struct sp_map *a = &g->maps[i];
		const struct sp_procmap *b = &pm->maps[i];

		if (a->start != b->start || a->end != b->end || a->pgoff != b->pgoff ||
		    a->inode != b->inode || a->kind != b->kind)
			return false;
	}
	return true;
}

/* Takes one snapshot of the mappings (err: why there is none). */
static int take_proc(struct sp_symbolizer *s, struct sp_proc *p, const struct sp_procmaps *pm,
		     int err)
{
	struct sp_gen g = { 0 };

	p->read_ns = sp_mono_ns();
	if (!err && pm->n == 0)
		err = -ESRCH; /* a zombie or a kernel thread: nothing to keep */
	if (err) {
		p->dead = err == -ESRCH;
		return err;
	}
	p->dead = false;
	if (unchanged(p, pm)) {
		read_perfmap(p);
		return 0;
	}
	g.maps = calloc(pm->n, sizeof(*g.maps));
	if (!g.maps)
		return -ENOMEM;
	for (g.n = 0; g.n < pm->n; g.n++)
		take_map(s, p->pid, &pm->maps[g.n], &g.maps[g.n]);
	read_perfmap(p);
	return push_gen(s, p, &g);
}

bool sp_symbolizer__has_pid(struct sp_symbolizer *s, pid_t pid)
{
	return find_proc(s, pid) != NULL;
}

int sp_symbolizer__add_maps(struct sp_symbolizer *s, pid_t pid, const struct sp_procmaps *pm,
			    int err)
{
	struct sp_proc *p = find_proc(s, pid);

	if (!p && !(p = new_proc(s, pid)))
		return -ENOMEM;
	return take_proc(s, p, pm, err);
}

int sp_symbolizer__add_pid(struct sp_symbolizer *s, pid_t pid, bool refresh)
{
	struct sp_proc *p = find_proc(s, pid);
	struct sp_procmaps pm;
	int err;

	if (p && !refresh)
		return p->ngens ? 0 : -ESRCH;
	err = sp_procmaps__read(&pm, pid, NULL);
	err = sp_symbolizer__add_maps(s, pid, &pm, err);
	sp_procmaps__free(&pm);
	return err;
}

static void proc_free(struct sp_symbolizer *s, struct sp_proc *p)
{
	for (int i = 0; i < p->ngens; i++)
		gen_free(s, &p->gens[i]);
	free(p->gens);
	sp_perfmap__destroy(p->perf);
	free(p);
}

static const struct sp_map *gen_find(const struct sp_gen *g, uint64_t addr)
{
	long i = SP_FLOOR(g->maps, g->n, start, addr);

	if (i < 0 || addr >= g->maps[i].end)
		return NULL;
	return &g->maps[i];
}

/* Newest generation first: the layout most stacks were taken under. */
static const struct sp_map *proc_find(const struct sp_proc *p, uint64_t addr)
{
	for (int i = p->ngens - 1; i >= 0; i--) {
		const struct sp_map *m = gen_find(&p->gens[i], addr);

		if (m)
			return m;
	}
	return NULL;
}

/* --- user frames ------------------------------------------------------------------------ */

static bool symbolize_file(struct sp_symbolizer *s, const struct sp_map *m, uint64_t addr,
			   bool leaf, struct sp_frame *out)
{
	struct sp_elf *e = m->file ? m->file->elf : NULL;
	uint64_t look = leaf ? addr : addr - 1, vaddr;
	struct sp_elf_sym *sym;

	if (!e)
		return false;
	out->build_id = sp_elf__build_id(e);
	if (look < m->start || !sp_elf__foff_to_vaddr(e, look - m->start + m->pgoff, &vaddr))
		return false;
	sym = sp_elf__find(e, vaddr);
	/* a signal restorer is "returned" to at its first byte (Go's has no
	 * padding symbol before it) */
	if (!sym && !leaf && sp_elf__foff_to_vaddr(e, addr - m->start + m->pgoff, &vaddr)) {
		sym = sp_elf__find(e, vaddr);
		look = addr;
	}
	if (!sym)
		return false;
	out->sym = s->demangle ? sp_elf_sym__name(sym) : sym->name;
	out->off = addr - look + (vaddr - sym->addr);
	out->kind = SP_FRAME_USER;
	if (s->lines)
		sp_elf__find_line(e, vaddr, &out->srcfile, &out->srcline);
	s->hit_elf = e;
	s->hit_vaddr = vaddr;
	return true;
}

static bool symbolize_perfmap(const struct sp_proc *p, uint64_t addr, bool leaf,
			      struct sp_frame *out)
{
	uint64_t look = leaf ? addr : addr - 1;
	const struct sp_perfsym *ps = sp_perfmap__find(p->perf, look);

	if (!ps)
		return false;
	out->sym = ps->name;
	out->off = addr - ps->start;
	out->module = sp_perfmap__path(p->perf);
	out->kind = SP_FRAME_USER;
	return true;
}

/* Kernel-made code pages: uretprobes replace return addresses with their
 * trampoline's; old static binaries call the legacy vsyscall page (entries
 * 1 KiB apart). */
static bool symbolize_special(const struct sp_map *m, uint64_t addr, struct sp_frame *out)
{
	static const char *const vsyscalls[] = { "gettimeofday", "time", "getcpu" };
	uint64_t slot = (addr - m->start) / 1024;

	if (m->kind == SP_MAP_VSYSCALL && slot < 3) {
		out->sym = vsyscalls[slot];
		out->off = addr - m->start - slot * 1024;
	} else if (m->path && strcmp(m->path, "[uprobes]") == 0) {
		out->sym = "uretprobe_trampoline";
		out->off = addr - m->start;
	} else {
		return false;
	}
	out->kind = SP_FRAME_USER;
	return true;
}

static void fill_map(const struct sp_map *m, uint64_t addr, struct sp_frame *out)
{
	out->module = m->path;
	out->map_start = m->start;
	out->map_end = m->end;
	out->map_pgoff = m->pgoff;
	out->file_off = addr - m->start + m->pgoff;
}

static bool symbolize_in(struct sp_symbolizer *s, const struct sp_proc *p, uint64_t addr,
			 bool leaf, struct sp_frame *out)
{
	const struct sp_map *m = proc_find(p, addr);

	if (!m)
		return symbolize_perfmap(p, addr, leaf, out);
	fill_map(m, addr, out);
	switch (m->kind) {
	case SP_MAP_FILE:
	case SP_MAP_VDSO:
		/* JIT code in a file mapping (memfd double-mapping) is in the perf map */
		return symbolize_file(s, m, addr, leaf, out) || symbolize_perfmap(p, addr, leaf, out);
	case SP_MAP_ANON:
		return symbolize_perfmap(p, addr, leaf, out) || symbolize_special(m, addr, out);
	case SP_MAP_VSYSCALL:
		return symbolize_special(m, addr, out);
	}
	return false;
}

static void frame_init(struct sp_frame *out, uint64_t addr)
{
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->kind = SP_FRAME_UNKNOWN;
}

/* In no mapping, or in JIT memory (anonymous, or a file that is not ELF)
 * whose perf map may have grown. An ELF file without a symbol there will
 * not gain one by re-reading. */
static bool may_be_new(const struct sp_proc *p, uint64_t addr)
{
	const struct sp_map *m = proc_find(p, addr);

	return !m || m->kind == SP_MAP_ANON || (m->kind == SP_MAP_FILE && !(m->file && m->file->elf));
}

void sp_symbolize_user(struct sp_symbolizer *s, pid_t pid, uint64_t addr, bool leaf,
		       struct sp_frame *out)
{
	struct sp_proc *p = find_proc(s, pid);

	frame_init(out, addr);
	s->hit_elf = NULL;
	if (!p) {
		sp_symbolizer__add_pid(s, pid, false);
		p = find_proc(s, pid);
		if (!p)
			return;
	}
	if (p->ngens == 0 && p->dead) { /* gone unread: a forked child has its parent's code */
		pid_t parent = s->parent_of ? s->parent_of(s->parent_ctx, pid) : 0;
		struct sp_proc *pp = parent > 0 && parent != pid ? find_proc(s, parent) : NULL;

		if (parent > 0 && parent != pid && !pp && sp_symbolizer__add_pid(s, parent, false) == 0)
			pp = find_proc(s, parent);
		if (pp && pp->ngens)
			symbolize_in(s, pp, addr, leaf, out);
		return;
	}
	if (symbolize_in(s, p, addr, leaf, out))
		return;
	/* JIT code newer than the perf map as read? fstat() tells, also after exit */
	if (p->perf || (p->dead && !p->perf_tried_dead)) {
		read_perfmap(p);
		frame_init(out, addr);
		if (symbolize_in(s, p, addr, leaf, out))
			return;
	}
	/* New mapping (dlopen, exec), or a perf map created late? */
	if (p->dead || sp_mono_ns() - p->read_ns < REFRESH_MIN_NS || !may_be_new(p, addr))
		return;
	if (sp_symbolizer__add_pid(s, pid, true) == 0) {
		frame_init(out, addr);
		symbolize_in(s, p, addr, leaf, out);
	}
}

/* An inlined function's name as the outer frames are named: the linkage
 * name demangled (C++, Rust: with its namespace), else the DWARF name. */
static const char *inline_name(const struct sp_symbolizer *s, const struct sp_inline *in)
{
	if (s->demangle && in->demangled)
		return in->demangled;
	if (!s->demangle && in->linkage)
		return in->linkage;
	return in->name ? in->name : in->linkage;
}

int sp_symbolize_user_inline(struct sp_symbolizer *s, pid_t pid, uint64_t addr, bool leaf,
			     struct sp_frame *out, int max)
{
	struct sp_inline in[SP_INLINE_MAX];
	struct sp_frame outer;
	int n = 0;

	sp_symbolize_user(s, pid, addr, leaf, &outer);
	if (s->inlines && s->hit_elf && max > 1)
		n = sp_elf__find_inlines(s->hit_elf, s->hit_vaddr, in,
					 max - 1 < SP_INLINE_MAX ? max - 1 : SP_INLINE_MAX);
	for (int i = 0; i < n; i++) {
		out[i] = outer;
		out[i].sym = inline_name(s, &in[i]);
		out[i].off = 0;
		out[i].inlined = true;
		if (i > 0 && s->lines) { /* i == 0 runs at the line table's position */
			out[i].srcfile = in[i - 1].call_file;
			out[i].srcline = in[i - 1].call_line;
		}
	}
	out[n] = outer;
	if (n > 0 && s->lines) {
		out[n].srcfile = in[n - 1].call_file;
		out[n].srcline = in[n - 1].call_line;
	}
	return n + 1;
}

/* --- kernel frames ---------------------------------------------------------------------- */

static void *load_kernel(void *arg)
{
	struct sp_symbolizer *s = arg;

	s->ksyms = sp_kallsyms__load(NULL);
	s->kernel_build_id = sp_kernel_build_id("/sys/kernel/notes");
	return NULL;
}

/* Reading /proc/kallsyms costs ~50 ms of kernel time (it formats ~5 MB of
 * text): start it while sampling runs, not when printing starts. */
int sp_symbolizer__preload_kernel(struct sp_symbolizer *s)
{
	int err;

	if (s->ksyms_tried || s->ksyms_loading)
		return 0;
	err = pthread_create(&s->ksyms_thread, NULL, load_kernel, s);
	if (err)
		return -err;
	s->ksyms_loading = true;
	return 0;
}

static void kernel_symbols(struct sp_symbolizer *s)
{
	if (s->ksyms_loading) {
		pthread_join(s->ksyms_thread, NULL);
		s->ksyms_loading = false;
		s->ksyms_tried = true;
	}
	if (!s->ksyms_tried) {
		s->ksyms_tried = true;
		load_kernel(s);
	}
}

/* Build id of vmlinux or of a module (pprof mappings want one per module). */
static const char *kernel_build_id(struct sp_symbolizer *s, const char *module)
{
	char path[256];
	struct sp_modid *m;

	if (module[0] == '[') /* [kernel.kallsyms]: read with the symbols */
		return s->kernel_build_id;
	for (m = s->modids; m; m = m->next)
		if (m->module == module || strcmp(m->module, module) == 0)
			return m->build_id;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", module);
	m->module = module;
	m->build_id = sp_kernel_build_id(path);
	m->next = s->modids;
	s->modids = m;
	return m->build_id;
}

void sp_symbolize_kernel(struct sp_symbolizer *s, uint64_t addr, bool leaf, struct sp_frame *out)
{
	const struct sp_ksym *k;

	frame_init(out, addr);
	out->module = "[kernel.kallsyms]";
	kernel_symbols(s);
	if (!s->ksyms)
		return;
	k = sp_kallsyms__find(s->ksyms, leaf ? addr : addr - 1);
	if (!k)
		return;
	out->sym = k->name;
	out->off = addr - k->addr;
	out->module = k->module;
	out->kind = SP_FRAME_KERNEL;
	out->build_id = kernel_build_id(s, k->module);
}

/* --- by name ---------------------------------------------------------------------------- */

uint64_t sp_symbolizer__lookup_name(struct sp_symbolizer *s, const char *path, const char *name)
{
	int fd = sp_file_open(path, SP_FILE_ELF_MAX);
	struct sp_objfile *f;
	uint64_t addr;

	if (fd < 0)
		return 0;
	f = sp_objcache__get_fd(s->objs, fd, path, NULL);
	addr = f && f->elf ? sp_elf__lookup_name(f->elf, name) : 0;
	sp_objcache__put(s->objs, f);
	return addr;
}

/* No process has the pid now. (A pid taken again by another process
 * counts as alive: that one's maps come as a new generation.) */
static bool proc_gone(const struct sp_proc *p)
{
	return kill(p->pid, 0) != 0 && errno == ESRCH;
}

int sp_symbolizer__evict(struct sp_symbolizer *s, uint64_t grace_ns, int keep_files,
			  size_t keep_bytes)
{
	uint64_t now = sp_mono_ns();
	int n = 0;

	for (int i = 0; i < PROC_BUCKETS; i++) {
		for (struct sp_proc **pp = &s->procs[i]; *pp;) {
			struct sp_proc *p = *pp;

			if (!proc_gone(p)) {
				p->gone_ns = 0;
				pp = &p->next;
				continue;
			}
			if (!p->gone_ns)
				p->gone_ns = now;
			if (now - p->gone_ns < grace_ns) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			proc_free(s, p);
			n++;
		}
	}
	sp_objcache__trim(s->objs, keep_files, keep_bytes);
	return n;
}

void sp_symbolizer__stats(const struct sp_symbolizer *s, struct sp_symbolizer_stats *st)
{
	struct sp_objcache_stats os;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < PROC_BUCKETS; i++)
		for (const struct sp_proc *p = s->procs[i]; p; p = p->next)
			st->procs++;
	sp_objcache__stats(s->objs, &os);
	st->files = os.files;
	st->elf_files = os.elf_files;
	st->held_files = os.held;
	st->evicted_files = os.evicted;
}

void sp_symbolizer__destroy(struct sp_symbolizer *s)
{
	if (!s)
		return;
	if (s->ksyms_loading)
		pthread_join(s->ksyms_thread, NULL);
	for (int i = 0; i < PROC_BUCKETS; i++) {
		while (s->procs[i]) {
			struct sp_proc *next = s->procs[i]->next;

			proc_free(s, s->procs[i]);
			s->procs[i] = next;
		}
	}
	if (s->own_objs)
		sp_objcache__destroy(s->objs);
	while (s->modids) {
		struct sp_modid *next = s->modids->next;

		free(s->modids->build_id);
		free(s->modids);
		s->modids = next;
	}
	free(s->kernel_build_id);
	sp_kallsyms__free(s->ksyms);
	free(s);
}
