/* runtime/elf/ehframe.h: an ELF file's .eh_frame and .debug_frame -> sorted unwind rows.
 *
 * The DWARF call frame information of x86-64 code is run through the CFA
 * state machine once, in user space, and reduced to the few rules the BPF
 * unwinder knows (abi/unwind_table.h): CFA = rsp|rbp + offset, RA at CFA-8, rbp
 * unchanged or saved at CFA + offset, plus commands for .plt stubs, signal
 * trampolines, outermost frames and "no rule here: use the frame pointer".
 * Rows are sorted by address, gaps between FDEs get an FP row, and
 * consecutive rows with one rule are merged.
 */
#ifndef SPROF_RUNTIME_ELF_EHFRAME_H
#define SPROF_RUNTIME_ELF_EHFRAME_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_eh_row {
	uint64_t pc;      /* ELF virtual address where the rule starts */
	int32_t cfa_off;  /* CFA_RSP/CFA_RBP: offset; PLT: the (rip & 15) threshold */
	int32_t rbp_off;  /* saved rbp at CFA + rbp_off; 0: unchanged */
	uint8_t kind;     /* enum sp_unw_kind */
	uint8_t prio;     /* internal, while unsorted: for one pc the highest wins
	                   * (FDE end marker 0 < .debug_frame 1 < .eh_frame 2) */
};

struct sp_eh_stats {
	int cies, fdes;
	int bad_fdes;      /* skipped: truncated, unknown CIE, bad encoding */
	int expr_rows;     /* rows whose CFA is a DWARF expression other than the PLT one */
	int other_rows;    /* other CFA register, RA not at CFA-8, offsets too big */
};

struct sp_eh_table {
	int n;
	struct sp_eh_row *rows; /* sorted by pc, merged */
	struct sp_eh_stats st;
	int go_err;             /* a .gopclntab refused: -EINVAL (corrupt), -ENOTSUP (unknown
				 * version); set even when the table is not made */
};

/* Parse one CFI section. `data`/`size` is the section, `vaddr` its address
 * (sh_addr, for pc-relative pointers); debug_frame selects .debug_frame's
 * CIE ids and absolute addresses. Appends unsorted rows to t; call
 * sp_eh_table__finish() after the last section. Returns 0 or -errno. */
int sp_eh_parse(struct sp_eh_table *t, const uint8_t *data, size_t size, uint64_t vaddr,
		bool debug_frame);
/* Sort, fill gaps, merge. Returns 0 or -errno. */
int sp_eh_table__finish(struct sp_eh_table *t);
/* .eh_frame and .debug_frame of `elf` (code built with
 * -fno-asynchronous-unwind-tables has only the latter; .eh_frame wins where
 * both describe an address), and a Go binary's .gopclntab
 * (runtime/elf/gopclntab.h); -ENOENT when it has none of them. */
int sp_eh_table__from_elf(struct sp_eh_table *t, Elf *elf);
/* The row that covers pc (the last row with row.pc <= pc), or NULL. */
const struct sp_eh_row *sp_eh_table__find(const struct sp_eh_table *t, uint64_t pc);
void sp_eh_table__free(struct sp_eh_table *t);

/* The address ranges of .eh_frame's FDEs, sorted by start: which code is
 * one function, or one part of a function the compiler split (GCC's hot
 * and cold partitions have no symbols of their own in a stripped file). */
struct sp_eh_fde {
	uint64_t start, end;
};

struct sp_eh_fdes {
	struct sp_eh_fde *v;
	int n;
	size_t cap;
};

/* 0, -ENOENT (no .eh_frame) or -ENOMEM. */
int sp_eh_fdes__from_elf(struct sp_eh_fdes *f, Elf *elf);
/* The FDE whose range holds pc, or NULL. */
const struct sp_eh_fde *sp_eh_fdes__find(const struct sp_eh_fdes *f, uint64_t pc);
void sp_eh_fdes__free(struct sp_eh_fdes *f);

#endif
