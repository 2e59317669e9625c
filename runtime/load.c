/* runtime/load.c: open the generated BPF object, size its maps, load it.
 *
 * The object is opened from memory (libbpf copies it during open). Before
 * load, script maps and the shared stack map take the run's key limit.
 * libbpf's messages go through a callback: quiet unless -v, but the last
 * few warnings are kept so a failure can say why. Every program shares one
 * large verifier log buffer: libbpf loads with log level 0 (fast) and only
 * on failure retries into our buffer, so a successful load pays nothing.
 * On a verifier failure the log's last lines are shown (all of it with -v)
 * and the last `; ... @ file:LINE` comment, which the kernel prints from
 * the BTF line info codegen wrote, points the user at the script line.
 *
 * The kernel's comment carries the line only; the column comes from the
 * object's own BTF line info (.BTF.ext), looked up at the instruction the
 * verifier stopped at.
 *
 * libbpf's print callback takes no context argument, so the loader being
 * loaded is reached through one thread-local pointer (cur_loader).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>

#include "base/log.h"
#include "runtime/load.h"
#include "base/clock.h"
#include "runtime/attach/tracefs.h"
#include "runtime/timings.h"

#define VLOG_SIZE (16u << 20)   /* lazily touched: costs nothing unless used */
#define VLOG_TAIL 12            /* verifier lines shown without -v */
#define STATLOG_SIZE 16384      /* log level 4: global functions, time, stack depth, insns */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static __thread struct sp_loader *cur_loader;

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

/* The two ways to get the privileges, naming this binary for setcap. */
static void privileges_hint(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	sp_log(SP_LOG_ERROR,
	       "sprof: loading BPF needs root or CAP_BPF and CAP_PERFMON, "
	       "which this process lacks\n"
	       "  run it as root: sudo %s ...\n"
	       "  or give the binary both capabilities once: sudo setcap cap_bpf,cap_perfmon+ep %s\n",
	       n > 0 ? exe : "sprof", n > 0 ? exe : "$(command -v sprof)");
}

int sp_check_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (geteuid() == 0)
		return 0;
	if (syscall(SYS_capget, &h, d) == 0 &&
	    ((has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON)) || has_cap(d, CAP_SYS_ADMIN)))
		return 0;
	privileges_hint();
	return -EPERM;
}

int sp_check_unsafe(bool unsafe)
{
	if (!unsafe || geteuid() == 0)
		return 0;
	sp_log(SP_LOG_ERROR,
	       "sprof: --unsafe is for root only: as uid %d with this binary's capabilities, "
	       "signal() could kill any process, root's included\n"
	       "  run it as root to use signal() or system(): sudo sprof --unsafe ...\n",
	       (int)geteuid());
	return -EPERM;
}

static void keep_line(struct sp_loader *l, const char *s)
{
	const char *p;

	if (l->nlines == SP_LIBBPF_LINES) {
		free(l->lines[0]);
		memmove(l->lines, l->lines + 1, sizeof(l->lines[0]) * (SP_LIBBPF_LINES - 1));
		l->nlines--;
	}
	l->lines[l->nlines++] = strdup(s);
	p = strstr(s, "prog '");
	if (p && strstr(s, "load failed")) {
		p += 6;
		snprintf(l->failed_prog, sizeof(l->failed_prog), "%.*s",
			 (int)strcspn(p, "'"), p);
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	struct sp_loader *l = cur_loader;
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (l && l->verbose >= (level == LIBBPF_DEBUG ? 2 : 1))
		sp_log(SP_LOG_INFO, "%s", buf);
	if (l && level == LIBBPF_WARN) {
		buf[strcspn(buf, "\n")] = '\0';
		keep_line(l, buf);
	}
	return 0;
}

const struct sp_plan_probe *sp_plan_probe_by_prog(const struct sp_plan *plan, const char *prog)
{
	for (int i = 0; i < plan->nprobes; i++)
		if (plan->probes[i].prog && strcmp(plan->probes[i].prog, prog) == 0)
			return &plan->probes[i];
	return NULL;
}

#define SP_STACKS_PREALLOC 16384

/* Script maps and the stack map get the run's BPF map size. A key may hold
 * a user and a kernel stack, so stacks get room for two per key. The fill
 * counters get a slot per map and one for the stacks. */
/* Whether perf_event programs (profile, interval, software) may use hash
 * maps that allocate as they go: since 6.1 (bpf_mem_alloc); before, the
 * verifier refuses them ("perf_event programs can only use preallocated
 * hash map"). Preallocating always works, so an unknown kernel is old. */
static bool kernel_allocs_in_nmi(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 1);
}

/* Before 6.1 every hash map is preallocated, and the stack map held to
 * SP_STACKS_PREALLOC entries (stacks past it are counted as dropped). */
static int prealloc_hash_maps(struct sp_loader *l)
{
	struct bpf_map *m;
	int err;

	if (kernel_allocs_in_nmi())
		return 0;
	bpf_object__for_each_map(m, l->obj) {
		enum bpf_map_type t = bpf_map__type(m);

		if (t != BPF_MAP_TYPE_HASH && t != BPF_MAP_TYPE_PERCPU_HASH &&
		    t != BPF_MAP_TYPE_LRU_HASH && t != BPF_MAP_TYPE_LRU_PERCPU_HASH)
			continue;
		if (!(bpf_map__map_flags(m) & BPF_F_NO_PREALLOC))
			continue;
		if (!strcmp(bpf_map__name(m), SP_MAP_STACKS) &&
		    bpf_map__max_entries(m) > SP_STACKS_PREALLOC &&
		    (err = bpf_map__set_max_entries(m, SP_STACKS_PREALLOC)))
			return err;
		err = bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
		if (err)
			return err;
	}
	return 0;
}

/* A drained map's other half (abi/plan.h SP_FILL_GEN): as big as the map
 * when it is drained, else one slot (BPF never writes it then). */
static int size_alt_maps(struct sp_loader *l, const struct sp_plan *plan, bool drains)
{
	for (int i = 0; i < plan->nmaps; i++) {
		struct bpf_map *a = bpf_object__find_map_by_name(l->obj, plan->maps[i].bpf_name), *m;
		char name[256];
		int err;

		m = sp_map_alt_name(name, sizeof(name), plan->maps[i].bpf_name) ?
			    bpf_object__find_map_by_name(l->obj, name) : NULL;
		if (!m || !a)
			continue;
		err = bpf_map__set_max_entries(m, drains && plan->maps[i].drain ?
						  bpf_map__max_entries(a) : 1);
		if (err)
			return err;
	}
	return 0;
}

static int size_maps(struct sp_loader *l, const struct sp_plan *plan, uint32_t max_keys,
		     bool drains)
{
	struct bpf_map *m;
	int err;

	m = bpf_object__find_map_by_name(l->obj, SP_MAP_FILL);
	if (m && (err = bpf_map__set_max_entries(m, (uint32_t)plan->nmaps + 1)))
		return err;
	if (max_keys == 0)
		return size_alt_maps(l, plan, drains);
	for (int i = 0; i < plan->nmaps; i++) {
		m = bpf_object__find_map_by_name(l->obj, plan->maps[i].bpf_name);
		if (!m) {
			sp_err("map '%s' (%s) missing from the BPF object\n",
			       plan->maps[i].name, plan->maps[i].bpf_name);
			return -ENOENT;
		}
		if (bpf_map__type(m) == BPF_MAP_TYPE_ARRAY ||
		    bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY)
			continue; /* scalar maps: one slot */
		if (plan->maps[i].declared_max)
			continue; /* let @m = hash(N): N it is */
		err = bpf_map__set_max_entries(m, max_keys);
		if (err)
			return err;
	}
	m = bpf_object__find_map_by_name(l->obj, SP_MAP_STACKS);
	if (m && (plan->uses_ustack || plan->uses_kstack)) {
		uint64_t n = (uint64_t)max_keys * (plan->uses_ustack && plan->uses_kstack ? 2 : 1);

		/* 1 KiB a stack: at most 1 GiB, allocated only as stacks come.
		 * Up to SP_STACKS_PREALLOC entries (~17 MiB) the map is
		 * preallocated instead: perf_event programs run in NMI context,
		 * where allocating an element fails whenever the allocator's
		 * per-CPU cache is empty, and every such failure is a lost stack. */
		n = n < 1024 ? 1024 : n > (1u << 20) ? (1u << 20) : n;
		err = bpf_map__set_max_entries(m, (uint32_t)n);
		if (!err && n <= SP_STACKS_PREALLOC)
			err = bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
		if (err)
			return err;
	}
	return size_alt_maps(l, plan, drains);
}

static void setup_logs(struct sp_loader *l)
{
	struct bpf_program *p;

	/* Log level stays 0: libbpf retries a failed load with level 1 into
	 * this buffer. A level set up front could fail a good load whose log
	 * outgrows the buffer (ENOSPC). */
	bpf_object__for_each_program(p, l->obj)
		bpf_program__set_log_buf(p, l->vlog, l->vlogsz);
}

/* SPROF_TIMINGS: each program logs the verifier's statistics alone (level
 * 4, a few lines) into a buffer of its own, read after the load. */
static void setup_stat_logs(struct sp_loader *l)
{
	struct bpf_program *p;
	size_t n = 0, i = 0;

	if (!sp_timings_on())
		return;
	bpf_object__for_each_program(p, l->obj)
		n++;
	l->statlog = calloc(n ? n : 1, STATLOG_SIZE);
	if (!l->statlog)
		return;
	bpf_object__for_each_program(p, l->obj) {
		bpf_program__set_log_buf(p, l->statlog + i++ * STATLOG_SIZE, STATLOG_SIZE);
		bpf_program__set_log_level(p, 4);
	}
}

static void note_stat_logs(struct sp_loader *l)
{
	struct bpf_program *p;
	size_t i = 0;

	if (!l->statlog)
		return;
	bpf_object__for_each_program(p, l->obj) {
		const char *log = l->statlog + i++ * STATLOG_SIZE;
		const char *t = strstr(log, "verification time "), *n = strstr(log, "processed ");

		if (!bpf_program__autoload(p))
			continue;
		sp_timing_note("verifier %-20s %8.2f ms %7ld insns processed", bpf_program__name(p),
			       t ? atol(t + 18) / 1e3 : -1.0, n ? atol(n + 10) : -1L);
	}
}

struct sp_loader *sp_loader__open(const struct sp_plan *plan, const void *obj, size_t len,
				  const struct sp_run_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "sprof");
	struct sp_loader *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	l->verbose = o->verbose;
	l->obj_bytes = obj;
	l->obj_len = len;
	l->vlogsz = o->log_size >= 1024 ? o->log_size : VLOG_SIZE; /* BPFTRACE_LOG_SIZE */
	l->vlog = malloc(l->vlogsz);
	if (!l->vlog) {
		err = -ENOMEM;
		goto out_free;
	}
	l->vlog[0] = '\0';
	cur_loader = l;
	libbpf_set_print(libbpf_print);
	l->obj = bpf_object__open_mem(obj, len, &oo);
	if (!l->obj) {
		err = -errno;
		sp_err("cannot open the BPF object: %s\n", strerror(-err));
		for (int i = 0; i < l->nlines && !l->verbose; i++)
			sp_log(SP_LOG_ERROR, "  %s\n", l->lines[i]);
		goto out_free;
	}
	err = size_maps(l, plan, o->map_size && o->map_size < o->max_keys ? o->map_size : o->max_keys,
			!o->no_drain && o->max_keys);
	if (!err)
		err = prealloc_hash_maps(l);
	if (err)
		goto out_free;
	setup_logs(l);
	setup_stat_logs(l);
	return l;

out_free:
	sp_loader__destroy(l);
	errno = -err;
	return NULL;
}

static const char *skip_line_prefix(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A line that is verifier noise rather than its complaint. */
static bool is_noise(const char *s, size_t n)
{
	static const char *const pfx[] = { "processed ", "verification time", "stack depth",
					   "from ", "mark_precise", "last_idx", "regs=", "parent " };

	if (n == 0 || s[0] == ';')
		return true;
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (strncmp(s, pfx[i], strlen(pfx[i])) == 0)
			return true;
	/* instruction lines "12: (79) r0 = ..." and state lines "12: R0=..." */
	size_t d = strspn(s, "0123456789");
	return d > 0 && d < n && s[d] == ':';
}

/* "; <source> @ <file>:<line>" (the source may contain '@'): the line if
 * <file> is the script (the kernel keeps the path's last component only);
 * helpers inlined from bpf/NAME.bpf.c carry their own file and are skipped. */
static uint32_t linfo_line(const char *t, const char *nl, const char *file)
{
	const char *at = NULL, *colon, *name;

	for (const char *q = t; q + 3 <= nl; q++)
		if (q[0] == ' ' && q[1] == '@' && q[2] == ' ')
			at = q;
	if (!at)
		return 0;
	name = at + 3;
	colon = memrchr(name, ':', (size_t)(nl - name));
	if (!colon)
		return 0;
	if (file && ((size_t)(colon - name) != strlen(file) ||
		     strncmp(name, file, (size_t)(colon - name)) != 0))
		return 0;
	return (uint32_t)strtoul(colon + 1, NULL, 10);
}

uint32_t sp_vlog_script_line(const char *log, const char *script, char *msg, size_t msglen)
{
	const char *file = script ? strrchr(script, '/') : NULL;
	uint32_t line = 0;
	const char *s = log, *nl;

	file = file ? file + 1 : script;
	if (msglen)
		msg[0] = '\0';
	for (; *s; s = nl + 1) {
		const char *t = skip_line_prefix(s);
		size_t n;

		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		n = (size_t)(nl - t);
		if (*t == ';') {
			uint32_t l = linfo_line(t, nl, file);

			if (l)
				line = l;
		} else if (!is_noise(t, n) && msglen) {
			snprintf(msg, msglen, "%.*s", (int)n, t);
		}
		if (!*nl)
			break;
	}
	return line;
}

/* Index of the last instruction the verifier printed ("123: (85) call"), -1. */
static long vlog_last_insn(const char *log)
{
	long insn = -1;

	for (const char *s = log; *s;) {
		const char *t = skip_line_prefix(s), *nl = strchr(s, '\n');
		size_t d = strspn(t, "0123456789");

		if (d > 0 && t[d] == ':' && t[d + 1] == ' ' && t[d + 2] == '(')
			insn = strtol(t, NULL, 10);
		if (!nl)
			break;
		s = nl + 1;
	}
	return insn;
}

struct elf_prog {
	const char *sec;           /* section holding the program */
	uint64_t off, size;        /* its bytes in that section */
	Elf_Data *btf, *ext;
};

static bool find_symbol(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, const char *prog,
			size_t shstrndx, struct elf_prog *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Sym sym;

	for (size_t i = 0; d && sh->sh_entsize && i < sh->sh_size / sh->sh_entsize; i++) {
		const char *name;
		GElf_Shdr psh;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || strcmp(name, prog) || !gelf_getshdr(elf_getscn(e, sym.st_shndx), &psh))
			continue;
		out->sec = elf_strptr(e, shstrndx, psh.sh_name);
		out->off = sym.st_value;
		out->size = sym.st_size;
		return out->sec != NULL;
	}
	return false;
}

static bool find_prog(Elf *e, const char *prog, struct elf_prog *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			found = find_symbol(e, scn, &sh, prog, shstrndx, out) || found;
		else if (name && strcmp(name, ".BTF") == 0)
			out->btf = elf_getdata(scn, NULL);
		else if (name && strcmp(name, ".BTF.ext") == 0)
			out->ext = elf_getdata(scn, NULL);
	}
	return found && out->btf && out->ext;
}

struct btf_ext_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, func_info_off, func_info_len, line_info_off, line_info_len;
};

static bool same_file(const char *path, const char *file)
{
	const char *b = strrchr(path, '/');

	return !file || strcmp(b ? b + 1 : path, file) == 0;
}

/* The script line info at or before byte `at` of the program: line, col. */
static bool ext_lookup(const struct elf_prog *ep, struct btf *btf, uint64_t at,
		       const char *file, uint32_t *line, uint32_t *col)
{
	const struct btf_ext_hdr *h = ep->ext->d_buf;
	const uint8_t *p, *end;
	uint32_t rec, best = 0;
	bool found = false;

	if (ep->ext->d_size < sizeof(*h) || h->magic != 0xeB9F ||
	    (uint64_t)h->hdr_len + h->line_info_off + h->line_info_len > ep->ext->d_size ||
	    h->line_info_len < 4)
		return false;
	p = (const uint8_t *)ep->ext->d_buf + h->hdr_len + h->line_info_off;
	end = p + h->line_info_len;
	memcpy(&rec, p, 4);
	if (rec < sizeof(struct bpf_line_info))
		return false;
	for (p += 4; p + 8 <= end;) {
		uint32_t sec_off, n;
		const char *sec;

		memcpy(&sec_off, p, 4);
		memcpy(&n, p + 4, 4);
		p += 8;
		sec = btf__name_by_offset(btf, sec_off);
		for (uint32_t i = 0; i < n && p + rec <= end; i++, p += rec) {
			struct bpf_line_info li;

			memcpy(&li, p, sizeof(li));
			if (!sec || strcmp(sec, ep->sec) || li.insn_off < ep->off ||
			    li.insn_off > at || li.insn_off < best ||
			    !same_file(btf__name_by_offset(btf, li.file_name_off), file))
				continue;
			best = li.insn_off;
			*line = li.line_col >> 10;
			*col = li.line_col & 0x3ff;
			found = true;
		}
	}
	return found;
}

/* Script line and column of instruction `insn` of `prog`, from the object's
 * BTF line info; false when the object does not say. */
static bool script_linecol(const void *obj, size_t len, const char *prog, long insn,
			   const char *script, uint32_t *line, uint32_t *col)
{
	const char *file = script ? strrchr(script, '/') : NULL;
	struct elf_prog ep = { 0 };
	struct btf *btf = NULL;
	bool ok = false;
	Elf *e;

	if (!obj || insn < 0 || !prog[0] || elf_version(EV_CURRENT) == EV_NONE)
		return false;
	file = file ? file + 1 : script;
	e = elf_memory((char *)obj, len);
	if (e && find_prog(e, prog, &ep))
		btf = btf__new(ep.btf->d_buf, (uint32_t)ep.btf->d_size);
	if (btf && !libbpf_get_error(btf))
		ok = ext_lookup(&ep, btf, ep.off + (uint64_t)insn * 8, file, line, col);
	if (btf && !libbpf_get_error(btf))
		btf__free(btf);
	if (e)
		elf_end(e);
	return ok;
}

/* Prints the last `tail` lines of the log (all with tail <= 0). */
static void print_vlog(const char *log, int tail)
{
	const char *start = log + strlen(log);
	int n = 0;

	while (start > log && (tail <= 0 || n <= tail)) {
		start--;
		if (*start == '\n' && start[1])
			n++;
	}
	if (start != log)
		start = strchr(start, '\n') + 1;
	sp_log(SP_LOG_ERROR, "%s%s", start, *start && log[strlen(log) - 1] != '\n' ? "\n" : "");
}

/* The script's name for a BPF map ("@x" for AT_x), else the BPF name. */
static const char *map_display_name(const struct sp_plan *plan, const char *bpf_name)
{
	for (int i = 0; i < plan->nmaps; i++)
		if (plan->maps[i].bpf_name && strcmp(plan->maps[i].bpf_name, bpf_name) == 0)
			return plan->maps[i].name;
	return bpf_name;
}

/* Not the verifier: a map that could not be created, BTF, ELF... The
 * failing map is named, libbpf's last lines follow (all of them with -v). */
static void report_object_failure(struct sp_loader *l, const struct sp_plan *plan, int err)
{
	char name[128] = "";

	for (int i = l->nlines - 1; i >= 0 && !name[0]; i--) {
		const char *m = strstr(l->lines[i], "map '");

		if (m && strstr(m, "failed to create"))
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(m + 5, "'"), m + 5);
	}
	if (name[0])
		sp_err("cannot create map '%s': %s%s\n",
		       map_display_name(plan, name), strerror(-err),
		       err == -E2BIG || err == -ENOMEM ? " (try a smaller --max-keys)" : "");
	else
		sp_err("cannot load the BPF programs: %s\n", strerror(-err));
	for (int i = 0; i < l->nlines && !l->verbose; i++) {
		const char *t = l->lines[i];

		sp_log(SP_LOG_ERROR, "  %s\n", strncmp(t, "libbpf: ", 8) ? t : t + 8);
	}
}

/* Helpers an older kernel lacks, said as what the user asked for and the
 * kernel version that has them, in place of the verifier's "invalid func
 * unknown#174". */
static const struct {
	int id;
	const char *name, *what, *since;
} newer_helpers[] = {
	{ BPF_FUNC_get_attach_cookie, "bpf_get_attach_cookie",
	  "USDT arguments, and probe or func in a probe with several attach points", "5.15" },
	{ BPF_FUNC_get_func_ip, "bpf_get_func_ip", "func in a kprobe or uprobe", "5.15" },
	{ BPF_FUNC_task_pt_regs, "bpf_task_pt_regs", "DWARF user stacks", "5.15" },
	{ BPF_FUNC_find_vma, "bpf_find_vma", "DWARF user stacks", "5.17" },
	{ BPF_FUNC_loop, "bpf_loop", "loops over stacks, strings and CPUs", "5.17" },
	{ BPF_FUNC_map_lookup_percpu_elem, "bpf_map_lookup_percpu_elem",
	  "reading a count(), sum(), min(), max(), avg() or stats() value in a probe", "5.19" },
	{ BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf", "curtask's BTF type", "5.11" },
	{ BPF_FUNC_ktime_get_tai_ns, "bpf_ktime_get_tai_ns", "nsecs(tai)", "6.1" },
	{ BPF_FUNC_get_func_arg, "bpf_get_func_arg", "arguments of a function probe", "5.17" },
	{ BPF_FUNC_snprintf, "bpf_snprintf", "formatting in a probe", "5.13" },
	{ BPF_FUNC_copy_from_user_task, "bpf_copy_from_user_task", "reading another task's memory",
	  "5.18" },
};

/* "invalid func unknown#174" (before 5.17's wording) or "unknown func
 * bpf_loop#181": the helper's line, or false when msg is no such line or
 * names a helper not in the table. */
static bool newer_helper_line(const char *msg, char *out, size_t outlen)
{
	const char *hash = strrchr(msg, '#');
	struct utsname u;
	int id;

	if (!hash || !strstr(msg, "func") || (!strstr(msg, "unknown") && !strstr(msg, "cannot use")))
		return false;
	id = atoi(hash + 1);
	if (uname(&u))
		strcpy(u.release, "?");
	for (size_t i = 0; i < sizeof(newer_helpers) / sizeof(newer_helpers[0]); i++)
		if (newer_helpers[i].id == id) {
			snprintf(out, outlen, "this kernel (%s) has no %s, which %s needs (Linux %s "
				 "or later)", u.release, newer_helpers[i].name, newer_helpers[i].what,
				 newer_helpers[i].since);
			return true;
		}
	return false;
}

/* "helper call is not allowed in probe": the helper of the last call the
 * log shows ("89: (85) call bpf_d_path#147"), said as bpftrace says it
 * ("helper bpf_d_path not supported in probe") with what the user wrote
 * that needs it, or false when the log ends otherwise. */
static bool helper_not_allowed(const char *log, const char *msg, char *out, size_t outlen)
{
	const char *c, *last = NULL;
	int n;

	if (!strstr(msg, "helper call is not allowed in probe"))
		return false;
	for (c = strstr(log, ") call "); c; c = strstr(c + 1, ") call "))
		last = c + 7;
	if (!last)
		return false;
	n = (int)strcspn(last, "#\n");
	if (n > 64)
		return false;
	snprintf(out, outlen, "helper %.*s not supported in probe%s", n, last,
		 !strncmp(last, "bpf_d_path#", 11) ?
			 ": path() works in fentry/fexit of the functions the kernel allows "
			 "bpf_d_path in (its d_path list: security_file_open, filp_close, dentry_open, vfs_truncate...)" :
			 "");
	return true;
}

static void report_load_failure(struct sp_loader *l, const struct sp_plan *plan,
				const struct sp_run_opts *o, int err)
{
	const struct sp_plan_probe *p = l->failed_prog[0] ?
		sp_plan_probe_by_prog(plan, l->failed_prog) : NULL;
	char msg[512], diag[768];
	uint32_t line, lline = 0, col = 0;

	if (!l->vlog[0]) {
		report_object_failure(l, plan, err);
		return;
	}
	line = sp_vlog_script_line(l->vlog, plan->source_name, msg, sizeof(msg));
	if (!script_linecol(l->obj_bytes, l->obj_len, l->failed_prog, vlog_last_insn(l->vlog),
			    plan->source_name, &lline, &col) || lline != line)
		col = 0; /* trust the kernel's line; the column only when both agree */
	if (newer_helper_line(msg, diag, sizeof(diag))) {
		sp_err("probe '%s': %s\n", p ? p->spec : l->failed_prog, diag);
		if (l->verbose)
			print_vlog(l->vlog, 0);
		return;
	}
	if (helper_not_allowed(l->vlog, msg, diag, sizeof(diag))) {
		if (l->verbose)
			print_vlog(l->vlog, 0);
		snprintf(msg, sizeof(msg), "probe '%s': ", p ? p->spec : l->failed_prog);
		if (o->diag && (line || p))
			o->diag(o->diag_ctx, line ? line : p->line, line ? col : p->col,
				strncat(msg, diag, sizeof(msg) - strlen(msg) - 1));
		else
			sp_err("%s%s\n", msg, diag);
		return;
	}
	sp_err("probe '%s': the BPF verifier rejected the program%s\n",
	       p ? p->spec : l->failed_prog, l->verbose ? "" : " (last lines of its log; -v shows all)");
	print_vlog(l->vlog, l->verbose ? 0 : VLOG_TAIL);
	snprintf(diag, sizeof(diag), "BPF verifier: %s", msg[0] ? msg : strerror(-err));
	if (o->diag && (line || p))
		o->diag(o->diag_ctx, line ? line : p->line, line ? col : p->col, diag);
}

int sp_loader__load(struct sp_loader *l, const struct sp_plan *plan, const struct sp_run_opts *o)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };
	struct rlimit cur;
	int err;

	/* Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK. */
	if (getrlimit(RLIMIT_MEMLOCK, &cur) == 0 && cur.rlim_cur != RLIM_INFINITY)
		setrlimit(RLIMIT_MEMLOCK, &r);
	cur_loader = l;
	err = bpf_object__load(l->obj);
	note_stat_logs(l);
	if (err) {
		report_load_failure(l, plan, o, err);
		return err;
	}
	if (bpf_object__btf_fd(l->obj) < 0) {
		sp_err("the kernel did not accept the program's BTF "
		       "(maps and line info need it)\n");
		return -EINVAL;
	}
	return 0;
}

/* Where a sched tracepoint's record keeps a field of `size` bytes (0 when
 * tracefs cannot say). */
static uint32_t sched_field_offset(const char *event, const char *field, uint32_t size)
{
	struct sp_tracefs_field *f = NULL;
	uint32_t off = 0;
	int n = 0;

	if (sp_tracepoint_fields("sched", event, &f, &n))
		return 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].name, field) && f[i].size == size)
			off = f[i].offset;
	sp_tracefs_fields_free(f, n);
	return off;
}

/* Where a sched tracepoint's record keeps a thread id (sched_switch:
 * next_pid, sched_wakeup: pid), for the -p filter of off-CPU and run-queue
 * scripts (bpf/common.bpf.c sp_filter_switch, sp_filter_wakeup), and the
 * child of a fork for following the target's children. */
static uint32_t sched_tid_offset(const char *event, const char *field)
{
	return sched_field_offset(event, field, 4);
}

int sp_loader__set_config(struct sp_loader *l, pid_t target, pid_t cpid, uint32_t test_hash_bits)
{
	struct timespec ts;
	struct sp_config c = { .target_pid = (uint32_t)target, .cpid = (uint32_t)cpid,
			       .test_hash_bits = test_hash_bits };
	struct bpf_map *m = bpf_object__find_map_by_name(l->obj, SP_MAP_CONFIG);
	uint32_t zero = 0;
	int err;

	if (!m) {
		if (!target)
			return 0;
		sp_err("cannot follow pid %d: the BPF object has no %s map\n",
		       (int)target, SP_MAP_CONFIG);
		return -ENOENT;
	}
	c.self_pid = (uint32_t)getpid();
	if (target && bpf_object__find_map_by_name(l->obj, "swf_target_tids")) {
		c.switch_next_pid_off = sched_tid_offset("sched_switch", "next_pid");
		c.wakeup_pid_off = sched_tid_offset("sched_wakeup", "pid");
	}
	/* the hidden programs are there: -c or -p without --no-follow */
	if (target && bpf_object__find_program_by_name(l->obj, SP_FOLLOW_PROG_FORK)) {
		c.follow = 1;
		c.fork_child_off = sched_tid_offset("sched_process_fork", "child_pid");
		c.exit_group_dead_off = sched_field_offset("sched_process_exit", "group_dead", 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s clock: `elapsed` */
	c.start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	c.wall_delta_ns = sp_clock_ns(CLOCK_REALTIME) - sp_clock_ns(CLOCK_BOOTTIME);
	err = bpf_map__update_elem(m, &zero, sizeof(zero), &c, sizeof(c), 0);
	if (err)
		sp_err("cannot write %s: %s\n", SP_MAP_CONFIG, strerror(-err));
	return err;
}

void sp_loader__destroy(struct sp_loader *l)
{
	if (!l)
		return;
	bpf_object__close(l->obj);
	if (cur_loader == l)
		cur_loader = NULL;
	for (int i = 0; i < l->nlines; i++)
		free(l->lines[i]);
	free(l->vlog);
	free(l->statlog);
	free(l);
}
