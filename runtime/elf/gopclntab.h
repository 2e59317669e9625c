/* runtime/elf/gopclntab.h: Go's .gopclntab -> unwind rows, names and lines of Go binaries.
 *
 * One reader of the format (sp_gopcln) serves the unwinder and the
 * symbolizer. A stripped Go binary (-ldflags=-s -w: no .symtab, no DWARF)
 * still carries .gopclntab, which names every function and maps every pc
 * to file:line for Go's own tracebacks; runtime/elf/syms.c reads its
 * functions, lines and inlined functions from here when the file has no
 * .symtab.
 *
 * Go binaries carry no .eh_frame, and a frame-pointer walk loses the caller
 * of every frameless leaf (its rbp is still the caller's). The Go runtime
 * unwinds itself with the pcsp table of .gopclntab: for every pc of every
 * function, the SP offset v from the function's entry SP. On amd64 the
 * return address is at SP + v, so CFA = SP + v + 8, and a function with a
 * frame saved the caller's rbp just below the return address (CFA-16).
 * These become the same rows .eh_frame gives (runtime/elf/ehframe.h), so
 * the BPF unwinder needs nothing Go-specific but the switch from the
 * system stack (below). Outermost frames
 * (runtime.goexit, mstart, rt0_go) get STOP rows, the stack switchers
 * (systemstack, mcall, morestack) GO_SWITCH rows that carry the offsets
 * of g.m and m.curg (from DWARF, else by the Go version in .go.buildinfo)
 * so BPF goes on from g0 into the goroutine's stack, other functions that
 * write rsp (asmcgocall, nanotime1: Go's SPWRITE flag; the switchers too
 * when the offsets are not known) CUT rows (the stack ends there, marked
 * truncated), the signal restorer (runtime.sigreturn) a SIGNAL row.
 *
 * Formats: Go 1.16 (magic 0xfffffffa), 1.18 (0xfffffff0) and 1.20+
 * (0xfffffff1), amd64 (quantum 1, 8-byte pointers); older ones -ENOTSUP.
 */
#ifndef SPROF_RUNTIME_ELF_GOPCLNTAB_H
#define SPROF_RUNTIME_ELF_GOPCLNTAB_H

#include "runtime/elf/ehframe.h"

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A view of one pclntab (the bytes stay the caller's). Offsets are
 * relative to data. */
struct sp_gopcln {
	const uint8_t *data;
	size_t size;
	uint32_t magic;
	uint8_t quantum;
	uint64_t nfunc, text_start;
	uint64_t funcname, cutab, filetab, pctab, functab;
	/* go:func.* (moduledata.gofunc), where FUNCDATA_InlTree points: its
	 * bytes, when sp_gopcln__from_elf found the module data (Go 1.18+) */
	const uint8_t *gofunc;
	size_t gofunc_size;
};

/* One function inlined at a pc: its name, and where the next outer level
 * called it (call_line 0: unknown). Strings point into the pclntab. */
struct sp_goinline {
	const char *name;
	const char *call_file;
	int call_line;
};

/* One function: [entry, end) in ELF virtual addresses, its name (in the
 * pclntab's bytes; "" when unreadable), func the offset of its _func. */
struct sp_gofunc {
	uint64_t entry, end, func;
	const char *name;
};

/* Read the header of the pclntab at data[0, size); text_start as for
 * sp_gopclntab_parse. 0, -EINVAL (not a pclntab) or -ENOTSUP. */
int sp_gopcln_open(struct sp_gopcln *p, const uint8_t *data, size_t size, uint64_t text_start);
/* The same for elf's .gopclntab; -ENOENT when it has none. */
int sp_gopcln__from_elf(struct sp_gopcln *p, Elf *elf);
/* Function i of the func table (0 <= i < nfunc); false when out of range or
 * empty (a corrupted entry). */
bool sp_gopcln_func(const struct sp_gopcln *p, uint64_t i, struct sp_gofunc *f);
/* The function holding pc; false when none does. */
bool sp_gopcln_find(const struct sp_gopcln *p, uint64_t pc, struct sp_gofunc *f);
/* Source file and line of pc inside f (from its pcfile and pcln tables:
 * the innermost position, inside an inlined body when pc is in one);
 * false when the tables do not say. file points into the pclntab. */
bool sp_gopcln_line(const struct sp_gopcln *p, const struct sp_gofunc *f, uint64_t pc,
		    const char **file, int *line);

/* The functions inlined at pc inside f, innermost first, from the
 * function's inline tree (FUNCDATA_InlTree, PCDATA_InlTreeIndex), as Go's
 * tracebacks expand them; at most max, 0 when none or the tree is not
 * reachable (no module data found). */
int sp_gopcln_inlines(const struct sp_gopcln *p, const struct sp_gofunc *f, uint64_t pc,
		      struct sp_goinline *out, int max);

/* Append the rows of the pclntab at data[0, size) to t (unsorted: call
 * sp_eh_table__finish() after). text_start: the text address for Go 1.18+
 * headers that hold 0 there (Go 1.26+), else 0. Returns 0 or -errno
 * (-EINVAL: not a pclntab or corrupted; -ENOTSUP: an unknown version). */
int sp_gopclntab_parse(struct sp_eh_table *t, const uint8_t *data, size_t size,
		       uint64_t text_start);
/* The rows of elf's .gopclntab, appended to t; -ENOENT when it has none. */
int sp_gopclntab__from_elf(struct sp_eh_table *t, Elf *elf);

#endif
