/* runtime/info.c: `sprof --info`, what this kernel offers sprof.
 *
 * bpftrace 0.17's --info lists the system, the build, kernel helpers,
 * features, map and probe types. sprof prints the same sections, each line
 * detected on this machine when asked (nothing assumed from the kernel
 * version): helpers and map types through libbpf's probes (a tiny program
 * or map loaded and thrown away), probe types from what the kernel exposes
 * (the kprobe/uprobe PMUs, tracefs) or by trying: fentry loads a tracing
 * program against a kernel function's BTF id and attaches it, hardware
 * counters open a cycles event. Needs root for the BPF probes; without it
 * those lines say "no (need root)".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "runtime/info.h"
#include "runtime/attach/fentry.h"
#include "runtime/attach/kprobe.h"
#include "runtime/attach/tracefs.h"

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, id, NULL) == 1;
}

bool sp_info_has_attach_cookie(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_get_attach_cookie,
				       NULL) == 1 &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL) == 1;
}

bool sp_info_has_bpf_loop(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL) != 0;
}

static bool tracefs_has(const char *name)
{
	char root[256], path[320];

	if (sp_tracefs_root(root, sizeof(root)))
		return false;
	snprintf(path, sizeof(path), "%s/%s", root, name);
	return exists(path);
}

static bool kprobes(void)
{
	return exists("/sys/bus/event_source/devices/kprobe/type") || tracefs_has("kprobe_events");
}

static bool uprobes(void)
{
	return exists("/sys/bus/event_source/devices/uprobe/type") || tracefs_has("uprobe_events");
}

static bool perf_event(__u32 type, __u64 config)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = type, .config = config,
				     .disabled = 1, .exclude_kernel = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static bool map_type(enum bpf_map_type t)
{
	return libbpf_probe_bpf_map_type(t, NULL) == 1;
}

/* Batch lookups: an empty hash map answers ENOENT where the kernel has them. */
static bool map_batch(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 4, 1, NULL);
	__u32 keys[1], vals[1], count = 1, out;
	int err;

	if (fd < 0)
		return false;
	err = bpf_map_lookup_batch(fd, NULL, &out, keys, vals, &count, NULL);
	close(fd);
	return err == -ENOENT || (err < 0 && errno == ENOENT);
}

static void print_system(FILE *f)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	fprintf(f, "System\n  OS: %s %s %s\n  Arch: %s\n\n", u.sysname, u.release, u.version,
		u.machine);
}

static void print_helpers(FILE *f)
{
	static const struct { const char *name; enum bpf_func_id id; } h[] = {
		{ "probe_read_user", BPF_FUNC_probe_read_user },
		{ "probe_read_user_str", BPF_FUNC_probe_read_user_str },
		{ "probe_read_kernel", BPF_FUNC_probe_read_kernel },
		{ "probe_read_kernel_str", BPF_FUNC_probe_read_kernel_str },
		{ "get_current_cgroup_id", BPF_FUNC_get_current_cgroup_id },
		{ "send_signal", BPF_FUNC_send_signal },
		{ "override_return", BPF_FUNC_override_return },
		{ "get_boot_ns", BPF_FUNC_ktime_get_boot_ns },
		{ "get_stack", BPF_FUNC_get_stack },
		{ "ringbuf_output", BPF_FUNC_ringbuf_output },
		{ "loop (bpf_loop)", BPF_FUNC_loop },
		{ "copy_from_user", BPF_FUNC_copy_from_user },
		{ "map_lookup_percpu_elem", BPF_FUNC_map_lookup_percpu_elem },
	};

	fprintf(f, "Kernel helpers\n");
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		fprintf(f, "  %s: %s\n", h[i].name, yes(helper(h[i].id)));
	fprintf(f, "\n");
}

static void print_features(FILE *f)
{
	bool btf = exists("/sys/kernel/btf/vmlinux");

	fprintf(f, "Kernel features\n  Instruction limit: %s\n  Loop support: %s\n  btf: %s\n"
		"  map batch: %s\n\n",
		helper(BPF_FUNC_loop) ? "1000000" : "4096 (or 1000000 from 5.2)",
		yes(helper(BPF_FUNC_loop)), yes(btf), yes(map_batch()));
	fprintf(f, "User stacks\n  %s\n\n",
		helper(BPF_FUNC_loop) && helper(BPF_FUNC_find_vma)
			? "DWARF (.eh_frame, .gopclntab) unwinding in BPF, interpreter frames"
		: btf ? "DWARF (.eh_frame, .gopclntab) unwinding in BPF of the processes sprof has "
			"registered (frame pointers before that: bpf_find_vma needs 5.17), "
			"interpreter frames"
		      : "frame pointers (bpf_get_stack): DWARF unwinding without bpf_find_vma "
			"(Linux 5.17) needs BTF; interpreter frames");
}

static void print_maps(FILE *f)
{
	static const struct { const char *name; enum bpf_map_type t; } m[] = {
		{ "hash", BPF_MAP_TYPE_HASH }, { "percpu hash", BPF_MAP_TYPE_PERCPU_HASH },
		{ "array", BPF_MAP_TYPE_ARRAY }, { "percpu array", BPF_MAP_TYPE_PERCPU_ARRAY },
		{ "stack_trace", BPF_MAP_TYPE_STACK_TRACE },
		{ "perf_event_array", BPF_MAP_TYPE_PERF_EVENT_ARRAY },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF },
	};

	fprintf(f, "Map types\n");
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		fprintf(f, "  %s: %s\n", m[i].name, yes(map_type(m[i].t)));
	fprintf(f, "\n");
}

static void print_probes(FILE *f)
{
	fprintf(f, "Probe types\n");
	fprintf(f, "  kprobe: %s%s\n", yes(kprobes()), kprobes() ? "" : " (no CONFIG_KPROBES)");
	fprintf(f, "  kprobe_multi: %s\n", kprobes() && sp_kprobe_multi_available()
		? "yes (kprobe wildcards attach as one link)"
		: "no (kprobe wildcards attach one kprobe each; kprobe_multi needs Linux "
		  "5.18+ with CONFIG_FPROBE)");
	fprintf(f, "  uprobe: %s\n", yes(uprobes()));
	fprintf(f, "  tracepoint: %s\n", yes(tracefs_has("events")));
	fprintf(f, "  rawtracepoint: %s\n",
		yes(libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL) == 1));
	fprintf(f, "  perf_event (software): %s\n",
		yes(perf_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK)));
	fprintf(f, "  perf_event (hardware PMU): %s\n",
		yes(perf_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)));
	fprintf(f, "  hardware breakpoint: %s\n", yes(exists("/sys/bus/event_source/devices/breakpoint")));
	fprintf(f, "  kfunc (fentry): %s\n", yes(sp_fentry_available()));
}

int sp_info_print(FILE *f, const char *version)
{
	libbpf_set_print(NULL);
	print_system(f);
	fprintf(f, "Build\n  version: sprof %s\n  libbpf: %s\n\n", version, libbpf_version_string());
	print_helpers(f);
	print_features(f);
	print_maps(f);
	print_probes(f);
	return 0;
}
