/* runtime/attach/kprobe.h: whether this kernel has kprobe_multi links
 * (runtime/attach/kprobe.c; --info asks too). */
#ifndef SPROF_RUNTIME_ATTACH_KPROBE_H
#define SPROF_RUNTIME_ATTACH_KPROBE_H

#include <stdbool.h>

/* A kprobe_multi link made on vfs_read and closed (Linux 5.18 with
 * CONFIG_FPROBE): kprobe wildcards then attach as one link. Asked once a
 * process; the answer is kept. */
bool sp_kprobe_multi_available(void);

/* Kernel functions ftrace can hook, sorted, each once. */
struct sp_kfuncs {
	char **v;
	int n, cap;
};

/* The functions matching glob, from available_filter_functions (kallsyms'
 * text symbols where tracefs is not readable); with ret, bpftrace's banned
 * kretprobe functions are left out. 0 or -errno. */
int sp_kfuncs_read(const char *glob, bool ret, struct sp_kfuncs *k);
void sp_kfuncs_clear(struct sp_kfuncs *k); /* k stays usable (empty) */

#endif
