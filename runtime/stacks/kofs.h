/* runtime/stacks/kofs.h: offsets of the kernel fields the BPF unwinder reads from a vma.
 *
 * A process the unwinder has no entry for yet (a new exec, sprof's
 * tables a millisecond late), or a pc in a mapping it has not been told
 * about, is looked up in the kernel: bpf_find_vma gives the vma holding
 * the pc, and its start, end, file offset, flags and file (device,
 * inode) name the file whose tables are in the files map (abi/unwind_table.h).
 * The fields are read with bpf_probe_read_kernel at offsets taken from the
 * running kernel's BTF (/sys/kernel/btf/vmlinux), so no kernel headers or
 * CO-RE are needed at build time.
 */
#ifndef SPROF_RUNTIME_STACKS_KOFS_H
#define SPROF_RUNTIME_STACKS_KOFS_H

#include <stdint.h>

#include "abi/unwind_table.h"

/* Fills k from vmlinux BTF (k->ok = 1). 0 or -errno (-ENOENT: no BTF or a
 * field is missing: the BPF side then skips vma lookups, k->ok is 0);
 * k->regs_ok says apart whether the task's registers can be found. */
int sp_kofs__read(struct sp_unw_kofs *k);

/* Offset of task_struct's thread.fsbase (the x86-64 FS base, which glibc
 * makes the thread's pthread_t; bpf/ruby.bpf.c tells threads apart by it).
 * 0 or -errno (-ENOENT: no BTF or no such field). */
int sp_kofs__task_fsbase(uint32_t *off);

/* Starts reading vmlinux BTF (~11 ms of CPU) in a thread of its own, so
 * that it overlaps the BPF load (the verifier runs in the loading thread's
 * bpf(2) call); the two calls above then wait for it if it is not done.
 * Nothing happens when the thread cannot be made (they read it then). */
void sp_kofs__prefetch(void);

#endif
