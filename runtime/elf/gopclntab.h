/* runtime/elf/gopclntab.h: Go's .gopclntab -> unwind rows, for Go binaries (no .eh_frame).
 *
 * Go binaries carry no .eh_frame, and a frame-pointer walk loses the caller
 * of every frameless leaf (its rbp is still the caller's). The Go runtime
 * unwinds itself with the pcsp table of .gopclntab: for every pc of every
 * function, the SP offset v from the function's entry SP. On amd64 the
 * return address is at SP + v, so CFA = SP + v + 8, and a function with a
 * frame saved the caller's rbp just below the return address (CFA-16).
 * These become the same rows .eh_frame gives (runtime/elf/ehframe.h), so
 * the BPF unwinder needs nothing Go-specific. Outermost frames
 * (runtime.goexit, mstart, rt0_go) get STOP rows, stack switchers and
 * other functions that write rsp (systemstack, mcall, morestack,
 * asmcgocall, nanotime1: Go's SPWRITE flag) CUT rows (the stack ends
 * there, marked truncated), the signal restorer (runtime.sigreturn) a
 * SIGNAL row.
 *
 * Formats: Go 1.16 (magic 0xfffffffa), 1.18 (0xfffffff0) and 1.20+
 * (0xfffffff1), amd64 (quantum 1, 8-byte pointers); older ones -ENOTSUP.
 */
#ifndef SPROF_RUNTIME_ELF_GOPCLNTAB_H
#define SPROF_RUNTIME_ELF_GOPCLNTAB_H

#include "runtime/elf/ehframe.h"

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* Append the rows of the pclntab at data[0, size) to t (unsorted: call
 * sp_eh_table__finish() after). text_start: the text address for Go 1.18+
 * headers that hold 0 there (Go 1.26+), else 0. Returns 0 or -errno
 * (-EINVAL: not a pclntab or corrupted; -ENOTSUP: an unknown version). */
int sp_gopclntab_parse(struct sp_eh_table *t, const uint8_t *data, size_t size,
		       uint64_t text_start);
/* The rows of elf's .gopclntab, appended to t; -ENOENT when it has none. */
int sp_gopclntab__from_elf(struct sp_eh_table *t, Elf *elf);

#endif
