/* runtime/attach/verbose.c: sp_attach_report() (verbose.h).
 *
 * libbpf 1.1's headers predate the link info of perf event and
 * uprobe_multi links (kernel 6.6+), so their layouts are spelled out here
 * as offsets into struct bpf_link_info, as the kernel's uapi defines them.
 */
#include "runtime/attach/verbose.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_RAW_TP = 1, LINK_PERF_EVENT = 7, LINK_UPROBE_MULTI = 12 };
enum { PE_UPROBE = 1, PE_URETPROBE = 2, PE_TRACEPOINT = 5, PE_EVENT = 6 };
enum { MAX_OFFSETS = 8 };

/* struct bpf_link_info: type @0, id @4, prog_id @8, the union @16 */
struct link_info {
	unsigned char b[256];
};

static uint32_t u32_at(const struct link_info *i, size_t off)
{
	uint32_t v;

	memcpy(&v, i->b + off, sizeof(v));
	return v;
}

static uint64_t u64_at(const struct link_info *i, size_t off)
{
	uint64_t v;

	memcpy(&v, i->b + off, sizeof(v));
	return v;
}

static void put_u64(struct link_info *i, size_t off, uint64_t v)
{
	memcpy(i->b + off, &v, sizeof(v));
}

static void put_u32(struct link_info *i, size_t off, uint32_t v)
{
	memcpy(i->b + off, &v, sizeof(v));
}

static int get_info(int fd, struct link_info *i)
{
	uint32_t len = sizeof(i->b);

	return bpf_obj_get_info_by_fd(fd, i->b, &len);
}

static const char *sw_event(uint64_t config)
{
	static const char *const names[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
		"bpf-output",
	};

	return config < sizeof(names) / sizeof(names[0]) ? names[config] : "?";
}

/* The PMU registered with perf type `type` (cpu_clock, breakpoint, ...):
 * /sys/bus/event_source/devices/NAME/type; false (buf: "type N") if none. */
static bool pmu_name(uint32_t type, char *buf, size_t len)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	bool found = false;

	snprintf(buf, len, "type %u", type);
	while (d && (e = readdir(d))) {
		char path[512];
		FILE *f;
		unsigned v;

		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", e->d_name);
		f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
		if (f && fscanf(f, "%u", &v) == 1 && v == type) {
			snprintf(buf, len, "%s", e->d_name);
			found = true;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* perf_event link: type @16; uprobe: file_name @24, name_len @32,
 * offset @36, cookie @40, ref_ctr_offset @48; tracepoint: tp_name @24,
 * name_len @32; event: config @24, type @32 */
static void describe_perf(int fd, struct link_info *i, bool clock, char *out, size_t len)
{
	char name[512] = "";
	uint32_t kind = u32_at(i, 16);

	if (kind == PE_UPROBE || kind == PE_URETPROBE || kind == PE_TRACEPOINT) {
		memset(i, 0, sizeof(*i));
		put_u64(i, 24, (uint64_t)(uintptr_t)name);
		put_u32(i, 32, sizeof(name));
		if (get_info(fd, i))
			name[0] = '\0';
	}
	if (kind == PE_TRACEPOINT) {
		snprintf(out, len, "tracepoint %s", name);
	} else if (kind == PE_UPROBE || kind == PE_URETPROBE) {
		int n = snprintf(out, len, "%s %s+0x%x", kind == PE_UPROBE ? "uprobe" : "uretprobe",
				 name, u32_at(i, 36));

		if (u64_at(i, 48) && n > 0 && (size_t)n < len)
			snprintf(out + n, len - (size_t)n, ", semaphore at file offset 0x%" PRIx64,
				 u64_at(i, 48));
	} else if (kind == PE_EVENT && u32_at(i, 32) == PERF_TYPE_SOFTWARE) {
		snprintf(out, len, "perf event software/%s", sw_event(u64_at(i, 24)));
	} else if (kind == PE_EVENT && !pmu_name(u32_at(i, 32), name, sizeof(name)) && clock) {
		/* cpu-clock events move to a PMU of their own that sysfs does not list */
		snprintf(out, len, "perf event software/cpu-clock (pmu type %u)", u32_at(i, 32));
	} else if (kind == PE_EVENT) {
		snprintf(out, len, "perf event %s config 0x%" PRIx64, name, u64_at(i, 24));
	} else {
		snprintf(out, len, "perf event link (kind %u)", kind);
	}
}

/* uprobe_multi link: path @16, offsets @24, ref_ctr_offsets @32,
 * cookies @40, path_size @48, count @52, flags @56, pid @60 */
static void describe_multi(int fd, struct link_info *i, char *out, size_t len)
{
	uint32_t cnt = u32_at(i, 52), flags = u32_at(i, 56), pid = u32_at(i, 60);
	uint64_t *offs = calloc(cnt ? cnt : 1, 2 * sizeof(*offs));
	char path[512] = "";
	size_t n;

	memset(i, 0, sizeof(*i));
	put_u64(i, 16, (uint64_t)(uintptr_t)path);
	put_u64(i, 24, (uint64_t)(uintptr_t)offs);
	put_u64(i, 32, (uint64_t)(uintptr_t)(offs ? offs + cnt : NULL));
	put_u32(i, 48, sizeof(path));
	put_u32(i, 52, offs ? cnt : 0);
	if (!offs || get_info(fd, i))
		cnt = 0;
	n = (size_t)snprintf(out, len, "uprobe_multi%s %s%s: %u offset%s",
			     flags & 1 ? " (return)" : "", path, pid ? " (one process)" : "", cnt,
			     cnt == 1 ? "" : "s");
	for (uint32_t k = 0; k < cnt && k < MAX_OFFSETS && n < len; k++)
		n += (size_t)snprintf(out + n, len - n, " 0x%" PRIx64 "%s", offs[k],
				      offs[cnt + k] ? " (semaphore)" : "");
	if (cnt > MAX_OFFSETS && n < len)
		snprintf(out + n, len - n, " ...");
	free(offs);
}

static void describe(int fd, bool clock, char *out, size_t len)
{
	struct link_info i;
	char name[256] = "";

	memset(&i, 0, sizeof(i));
	if (fd < 0 || get_info(fd, &i)) {
		snprintf(out, len, "attached (the kernel gives no link information)");
		return;
	}
	switch (u32_at(&i, 0)) {
	case LINK_PERF_EVENT:
		describe_perf(fd, &i, clock, out, len);
		break;
	case LINK_UPROBE_MULTI:
		describe_multi(fd, &i, out, len);
		break;
	case LINK_RAW_TP:
		memset(&i, 0, sizeof(i));
		put_u64(&i, 16, (uint64_t)(uintptr_t)name);
		put_u32(&i, 24, sizeof(name));
		get_info(fd, &i);
		snprintf(out, len, "raw tracepoint %s", name);
		break;
	default:
		snprintf(out, len, "link type %u", u32_at(&i, 0));
	}
}

/* Prints `line`, folding runs of identical lines into "N x line". */
static void emit(FILE *f, char *prev, int *run, const char *line)
{
	if (*run && line && !strcmp(prev, line)) {
		(*run)++;
		return;
	}
	if (*run > 1)
		fprintf(f, "    %d x %s\n", *run, prev);
	else if (*run == 1)
		fprintf(f, "    %s\n", prev);
	*run = line ? 1 : 0;
	if (line)
		snprintf(prev, 1024, "%s", line);
}

void sp_attach_report(FILE *f, const struct sp_plan_probe *p, const struct sp_links *l,
		      int nlinks_before, int nfds_before)
{
	char prev[1024] = "", line[1024];
	bool clock = p->type == SP_PROBE_PROFILE || p->type == SP_PROBE_INTERVAL;
	int run = 0;

	fprintf(f, "probe '%s' -> program %s\n", p->spec, p->prog);
	for (int k = nlinks_before; k < l->n; k++) {
		describe(bpf_link__fd(l->v[k]), clock, line, sizeof(line));
		emit(f, prev, &run, line);
	}
	for (int k = nfds_before; k < l->nfds; k++) {
		describe(l->fds[k], clock, line, sizeof(line));
		emit(f, prev, &run, line);
	}
	emit(f, prev, &run, NULL);
}
