/* runtime/info.h: `sprof --info`, the kernel's BPF support as detected here
 * (runtime/info.c says how each line is found). */
#ifndef SPROF_RUNTIME_INFO_H
#define SPROF_RUNTIME_INFO_H

#include <stdio.h>

/* Prints the sections bpftrace --info prints that apply to sprof; 0. */
int sp_info_print(FILE *f, const char *version);

#endif
