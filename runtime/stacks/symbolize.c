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
 * kernel, one image); anonymous executable memory (JIT) from the process's
 * perf map, /tmp/perf-NSPID.map in its mount namespace, read at add time
 * too. Kernel addresses come from /proc/kallsyms, read on first use.
 */
#include "runtime/stacks/symbolize.h"

#include "runtime/elf/syms.h"
#include "runtime/stacks/kallsyms.h"
#include "runtime/stacks/procmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROC_BUCKETS 1024
#define FILE_BUCKETS 256
/* A miss (address in no mapping) re-reads a live process's maps at most this often. */
#define REFRESH_MIN_NS 100000000ull

/* One opened file, shared by every mapping of it. */
struct sp_file {
	struct sp_file_id id;
	struct sp_elf *elf;     /* NULL when not a usable ELF file */
	struct sp_file *next;
};

struct sp_map {
	uint64_t start, end, pgoff, inode;
	enum sp_map_kind kind;
	char *path;             /* owned; "[vdso]", or NULL for anonymous memory */
	struct sp_file *file;
};

/* The mappings as read at one time, sorted by start. */
struct sp_gen {
	int n;
	struct sp_map *maps;
};

struct sp_perfsym {
	uint64_t start, size;
	const char *name;
};

/* A perf map as read at one time; old ones stay alive for returned names. */
struct sp_perfmap {
	char *path, *text;
	uint64_t hash;          /* of the text as read, to skip unchanged re-reads */
	int n;
	struct sp_perfsym *syms;
	struct sp_perfmap *older;
};

struct sp_proc {
	pid_t pid;
	bool dead;              /* gone when we first or last looked */
	uint64_t read_ns;       /* when the maps were last read */
	int ngens;
	struct sp_gen *gens;    /* oldest first */
	struct sp_perfmap *perf;
	struct sp_proc *next;
};

struct sp_modid {
	const char *module;     /* points into the kallsyms table */
	char *build_id;
	struct sp_modid *next;
};

struct sp_symbolizer {
	struct sp_proc *procs[PROC_BUCKETS];
	struct sp_file *files[FILE_BUCKETS];
	struct sp_kallsyms *ksyms;
	bool ksyms_tried;
	pthread_t ksyms_thread;     /* sp_symbolizer__preload_kernel() */
	bool ksyms_loading;
	char *kernel_build_id;
	struct sp_modid *modids;   /* kernel modules' build ids, read on first use */
	struct sp_file *vdso;
	bool vdso_tried;
	bool demangle;
	bool lines;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Every kept file is a descriptor: allow as many as the hard limit does. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct sp_symbolizer *sp_symbolizer__open(void)
{
	struct sp_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->demangle = true;
	s->lines = true;
	raise_nofile();
	return s;
}

void sp_symbolizer__set_demangle(struct sp_symbolizer *s, bool on)
{
	s->demangle = on;
}

/* --- files --------------------------------------------------------------------------- */

static struct sp_file **file_bucket(struct sp_symbolizer *s, dev_t dev, ino_t ino)
{
	return &s->files[(dev * 31 + ino) % FILE_BUCKETS];
}

/* The cached file for open descriptor `fd`, or a new entry; consumes fd. */
static struct sp_file *file_for_fd(struct sp_symbolizer *s, int fd, const char *path,
				   const char *root)
{
	struct sp_file *f, **b;
	struct sp_file_id id;

	if (!sp_file_id__of_fd(fd, &id)) {
		close(fd);
		return NULL;
	}
	b = file_bucket(s, id.dev, id.ino);
	for (f = *b; f; f = f->next) {
		if (sp_file_id__eq(&f->id, &id)) {
			close(fd);
			return f;
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return NULL;
	}
	f->id = id;
	f->elf = sp_elf__open_fd(fd, path, root); /* NULL for non-ELF: cached as such */
	f->next = *b;
	*b = f;
	return f;
}

static struct sp_file *open_file(struct sp_symbolizer *s, pid_t pid, const struct sp_procmap *m)
{
	char root[64];
	int fd = sp_procmap__open(m, pid, true);

	if (fd < 0)
		return NULL;
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return file_for_fd(s, fd, m->path, root);
}

/* sprof's own vDSO: the kernel maps one image into every (64-bit) process. */
static struct sp_file *vdso_file(struct sp_symbolizer *s)
{
	const void *image;
	size_t size;

	if (s->vdso_tried)
		return s->vdso;
	s->vdso_tried = true;
	if (!sp_procmaps__self_vdso(&image, &size))
		return NULL;
	s->vdso = calloc(1, sizeof(*s->vdso));
	if (s->vdso)
		s->vdso->elf = sp_elf__open_mem(image, size, "[vdso]");
	return s->vdso;
}

static void file_free(struct sp_file *f)
{
	if (!f)
		return;
	sp_elf__destroy(f->elf);
	free(f);
}

/* --- perf maps (JIT) ------------------------------------------------------------------- */

/* The pid as the process itself sees it (last NSpid field), for its perf map name. */
static pid_t ns_pid(pid_t pid)
{
	char buf[64], *line = NULL;
	size_t cap = 0;
	pid_t nspid = pid;
	FILE *f;

	snprintf(buf, sizeof(buf), "/proc/%d/status", (int)pid);
	f = fopen(buf, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) > 0) {
		char *last;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		last = strrchr(line, '\t');
		if (last)
			nspid = atoi(last + 1);
		break;
	}
	free(line);
	fclose(f);
	return nspid;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (m) {
		char chunk[65536];
		size_t r;

		while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, r, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

static int perfsym_cmp(const void *pa, const void *pb)
{
	const struct sp_perfsym *a = pa, *b = pb;

	return (a->start > b->start) - (a->start < b->start);
}

/* Lines `START SIZE name`, hex, parsed in place. */
static int parse_perfmap(struct sp_perfmap *pm)
{
	int cap = 0;
	char *p = pm->text;

	while (*p) {
		char *nl = strchr(p, '\n'), *end, *end2;
		struct sp_perfsym ps;

		if (nl)
			*nl = '\0';
		ps.start = strtoull(p, &end, 16);
		ps.size = strtoull(end, &end2, 16);
		ps.name = end2 + (*end2 == ' ');
		if (end != p && end2 != end && *ps.name) {
			if (pm->n == cap) {
				struct sp_perfsym *n;

				cap = cap ? cap * 2 : 256;
				n = realloc(pm->syms, cap * sizeof(*n));
				if (!n)
					return -ENOMEM;
				pm->syms = n;
			}
			pm->syms[pm->n++] = ps;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (pm->n)
		qsort(pm->syms, pm->n, sizeof(*pm->syms), perfsym_cmp);
	return 0;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static void read_perfmap(struct sp_proc *p)
{
	uint64_t hash;
	char path[128], shown[64];
	struct sp_perfmap *pm;
	pid_t nspid = ns_pid(p->pid);
	char *text;

	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)p->pid, (int)nspid);
	snprintf(shown, sizeof(shown), "/tmp/perf-%d.map", (int)nspid);
	text = slurp(path);
	if (!text && nspid == p->pid) /* same pid namespace: the host's /tmp may do */
		text = slurp(shown);
	if (!text)
		return;
	hash = fnv1a(text);
	if (p->perf && p->perf->hash == hash) {
		free(text);
		return;
	}
	pm = calloc(1, sizeof(*pm));
	if (!pm || !(pm->path = strdup(shown)) || (pm->text = text, parse_perfmap(pm) != 0)) {
		if (pm) {
			free(pm->syms);
			free(pm->path);
		}
		free(pm);
		free(text);
		return;
	}
	pm->hash = hash;
	pm->older = p->perf;
	p->perf = pm;
}

static const struct sp_perfsym *perfmap_find(const struct sp_perfmap *pm, uint64_t addr)
{
	int lo = 0, hi = pm ? pm->n : 0;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (pm->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr - pm->syms[lo - 1].start >= pm->syms[lo - 1].size)
		return NULL;
	return &pm->syms[lo - 1];
}

static void perfmaps_free(struct sp_perfmap *pm)
{
	while (pm) {
		struct sp_perfmap *older = pm->older;

		free(pm->syms);
		free(pm->text);
		free(pm->path);
		free(pm);
		pm = older;
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

static void gen_free(struct sp_gen *g)
{
	for (int i = 0; i < g->n; i++)
		free(g->maps[i].path);
	free(g->maps);
}

/* Mapping `m` of process `pid` as kept by the symbolizer (path moves over). */
static void take_map(struct sp_symbolizer *s, pid_t pid, struct sp_procmap *m, struct sp_map *out)
{
	*out = (struct sp_map){ m->start, m->end, m->pgoff, m->inode, m->kind, NULL, NULL };
	if (m->kind == SP_MAP_FILE)
		out->file = open_file(s, pid, m);
	else if (m->kind == SP_MAP_VDSO)
		out->file = vdso_file(s);
	out->path = m->path;
	m->path = NULL;
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

static int push_gen(struct sp_proc *p, struct sp_gen *g)
{
	struct sp_gen *n;

	if (p->ngens && same_gen(&p->gens[p->ngens - 1], g)) {
		gen_free(g);
		return 0;
	}
	n = realloc(p->gens, (p->ngens + 1) * sizeof(*n));
	if (!n) {
		gen_free(g);
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

static int read_proc(struct sp_symbolizer *s, struct sp_proc *p)
{
	struct sp_procmaps pm;
	struct sp_gen g = { 0 };
	int err = sp_procmaps__read(&pm, p->pid, NULL);

	p->read_ns = now_ns();
	if (!err && pm.n == 0)
		err = -ESRCH; /* a zombie or a kernel thread: nothing to keep */
	if (err) {
		p->dead = err == -ESRCH;
		sp_procmaps__free(&pm);
		return err;
	}
	p->dead = false;
	if (unchanged(p, &pm)) {
		sp_procmaps__free(&pm);
		read_perfmap(p);
		return 0;
	}
	g.maps = calloc(pm.n, sizeof(*g.maps));
	if (!g.maps) {
		sp_procmaps__free(&pm);
		return -ENOMEM;
	}
	for (g.n = 0; g.n < pm.n; g.n++)
		take_map(s, p->pid, &pm.maps[g.n], &g.maps[g.n]);
	sp_procmaps__free(&pm);
	read_perfmap(p);
	return push_gen(p, &g);
}

int sp_symbolizer__add_pid(struct sp_symbolizer *s, pid_t pid, bool refresh)
{
	struct sp_proc *p = find_proc(s, pid);

	if (p && !refresh)
		return p->ngens ? 0 : -ESRCH;
	if (!p && !(p = new_proc(s, pid)))
		return -ENOMEM;
	return read_proc(s, p);
}

static void proc_free(struct sp_proc *p)
{
	for (int i = 0; i < p->ngens; i++)
		gen_free(&p->gens[i]);
	free(p->gens);
	perfmaps_free(p->perf);
	free(p);
}

static const struct sp_map *gen_find(const struct sp_gen *g, uint64_t addr)
{
	int lo = 0, hi = g->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (g->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= g->maps[lo - 1].end)
		return NULL;
	return &g->maps[lo - 1];
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
	return true;
}

static bool symbolize_perfmap(const struct sp_proc *p, uint64_t addr, bool leaf,
			      struct sp_frame *out)
{
	uint64_t look = leaf ? addr : addr - 1;
	const struct sp_perfsym *ps = perfmap_find(p->perf, look);

	if (!ps)
		return false;
	out->sym = ps->name;
	out->off = addr - ps->start;
	out->module = p->perf->path;
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
	if (!p) {
		sp_symbolizer__add_pid(s, pid, false);
		p = find_proc(s, pid);
		if (!p)
			return;
	}
	if (symbolize_in(s, p, addr, leaf, out))
		return;
	/* New mapping (dlopen, exec) or new JIT code since the last read? */
	if (p->dead || now_ns() - p->read_ns < REFRESH_MIN_NS || !may_be_new(p, addr))
		return;
	if (read_proc(s, p) == 0) {
		frame_init(out, addr);
		symbolize_in(s, p, addr, leaf, out);
	}
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
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct sp_file *f;

	if (fd < 0)
		return 0;
	f = file_for_fd(s, fd, path, NULL);
	if (!f || !f->elf)
		return 0;
	return sp_elf__lookup_name(f->elf, name);
}

void sp_symbolizer__stats(const struct sp_symbolizer *s, struct sp_symbolizer_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (int i = 0; i < PROC_BUCKETS; i++)
		for (const struct sp_proc *p = s->procs[i]; p; p = p->next)
			st->procs++;
	for (int i = 0; i < FILE_BUCKETS; i++) {
		for (const struct sp_file *f = s->files[i]; f; f = f->next) {
			st->files++;
			st->elf_files += f->elf != NULL;
		}
	}
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

			proc_free(s->procs[i]);
			s->procs[i] = next;
		}
	}
	for (int i = 0; i < FILE_BUCKETS; i++) {
		while (s->files[i]) {
			struct sp_file *next = s->files[i]->next;

			file_free(s->files[i]);
			s->files[i] = next;
		}
	}
	file_free(s->vdso);
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
