/* runtime/info.h: `sprof --info`, the kernel's BPF support as detected here
 * (runtime/info.c says how each line is found). */
#ifndef SPROF_RUNTIME_INFO_H
#define SPROF_RUNTIME_INFO_H

#include <stdbool.h>
#include <stdio.h>

/* Prints the sections bpftrace --info prints that apply to sprof; 0. */
int sp_info_print(FILE *f, const char *version);

/* Whether the kernel has bpf_loop (Linux 5.17), which the DWARF unwinder,
 * the interpreter walkers and the default build of the BPF helpers need;
 * true when it cannot tell (no privileges to ask: nothing will load). */
bool sp_info_has_bpf_loop(void);
/* bpf_get_attach_cookie() in tracepoint and kprobe/uprobe programs (5.15) */
bool sp_info_has_attach_cookie(void);

#endif
