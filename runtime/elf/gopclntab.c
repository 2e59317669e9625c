/* runtime/elf/gopclntab.c: Go's pcsp tables -> unwind rows (see gopclntab.h).
 *
 * Layout (GO runtime/symtab.go, runtime/runtime2.go): a header (magic, two
 * zero bytes, pc quantum, pointer size, nfunc, nfiles, [textStart,] then
 * offsets of funcnametab, cutab, filetab, pctab and the func table, all
 * relative to the header); the func table is nfunc+1 entries {entry,
 * offset of the function's _func}, sorted, the last one the end of the
 * text; a _func holds the offsets of its name (in funcnametab) and of its
 * pcsp table (in pctab). A pcsp table is pairs (zig-zag value delta,
 * uvarint pc delta * quantum) starting at value -1 and pc = entry; each
 * pair's value holds up to its new pc; a zero value delta after the first
 * pair ends it.
 */
#include "runtime/elf/gopclntab.h"
#include "runtime/elf/file.h"

#include "abi/unwind_table.h"
#include "base/vec.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define GO116 0xfffffffau
#define GO118 0xfffffff0u
#define GO120 0xfffffff1u

#define FLAG_TOPFRAME 1 /* _func.flag: the outermost frame of a stack */
#define FLAG_SPWRITE 2  /* writes SP: the caller is not at SP + pcsp */
#define GO_PRIO 3        /* wins over .eh_frame rows at one pc */

struct pcln {
	const uint8_t *data;
	size_t size;
	uint32_t magic;
	uint8_t quantum;
	uint64_t nfunc, text_start;
	uint64_t funcname, pctab, functab;
	int cap;                 /* of the table's rows */
};

static bool at(const struct pcln *p, uint64_t off, uint64_t n)
{
	return off <= p->size && n <= p->size - off;
}

static uint64_t rd(const struct pcln *p, uint64_t off, int n)
{
	struct sp_cursor c = { .p = p->data + off, .end = p->data + p->size };

	return at(p, off, (uint64_t)n) ? cur_uN(&c, n) : 0;
}

static int read_header(struct pcln *p, uint64_t text_start)
{
	bool go116;

	if (p->size < 72)
		return -EINVAL;
	p->magic = (uint32_t)rd(p, 0, 4);
	if (p->magic != GO116 && p->magic != GO118 && p->magic != GO120)
		return (p->magic & 0xfffffff0u) == 0xfffffff0u || p->magic == 0xfffffffbu ? -ENOTSUP
											 : -EINVAL;
	p->quantum = p->data[6];
	if (p->data[4] || p->data[5] || p->data[7] != 8 || (p->quantum != 1 && p->quantum != 4))
		return -ENOTSUP;
	go116 = p->magic == GO116;
	p->nfunc = rd(p, 8, 8);
	p->text_start = go116 ? 0 : rd(p, 24, 8);
	if (!go116 && p->text_start == 0)
		p->text_start = text_start;
	p->funcname = rd(p, go116 ? 24 : 32, 8);
	p->pctab = rd(p, go116 ? 48 : 56, 8);
	p->functab = rd(p, go116 ? 56 : 64, 8);
	if (p->nfunc == 0 || p->nfunc > (1u << 24) ||
	    !at(p, p->functab, (p->nfunc + 1) * (go116 ? 16 : 8)))
		return -EINVAL;
	return 0;
}

/* Entry pc and _func offset (from the func table) of function i. */
static bool func_entry(const struct pcln *p, uint64_t i, uint64_t *entry, uint64_t *func)
{
	if (p->magic == GO116) {
		*entry = rd(p, p->functab + i * 16, 8);
		*func = p->functab + rd(p, p->functab + i * 16 + 8, 8);
	} else {
		*entry = p->text_start + rd(p, p->functab + i * 8, 4);
		*func = p->functab + rd(p, p->functab + i * 8 + 4, 4);
	}
	return at(p, *func, 48);
}

static const char *func_name(const struct pcln *p, uint64_t func)
{
	uint64_t off = p->funcname + (uint32_t)rd(p, func + (p->magic == GO116 ? 8 : 4), 4);

	if (!at(p, off, 1) || !memchr(p->data + off, '\0', p->size - off))
		return "";
	return (const char *)p->data + off;
}

static uint8_t func_flag(const struct pcln *p, uint64_t func)
{
	if (p->magic == GO116)
		return 0;
	return (uint8_t)rd(p, func + (p->magic == GO120 ? 41 : 37), 1);
}

static bool name_is(const char *name, const char *want)
{
	size_t n = strlen(want);

	return strncmp(name, want, n) == 0 && (name[n] == '\0' || strcmp(name + n, ".abi0") == 0);
}

/* STOP (outermost), CUT (switches stacks or writes rsp: the caller is
 * not at rsp + pcsp), SIGNAL, or CFA_RSP when the pcsp table is to be read. */
static int func_kind(const struct pcln *p, uint64_t func)
{
	static const char *const stops[] = { "runtime.goexit", "runtime.mstart", "runtime.rt0_go" };
	static const char *const cuts[] = { "runtime.systemstack", "runtime.mcall",
					    "runtime.morestack", "runtime.asmcgocall" };
	const char *name = func_name(p, func);

	if (name_is(name, "runtime.sigreturn") || name_is(name, "runtime.sigreturn__sigaction"))
		return SP_UNW_SIGNAL;
	/* signal handlers are TOPFRAME for Go's traceback; here the walk goes
	 * on through the restorer into the interrupted code */
	if (name_is(name, "runtime.sigtramp") || name_is(name, "runtime.cgoSigtramp"))
		return SP_UNW_CFA_RSP;
	if (func_flag(p, func) & FLAG_TOPFRAME)
		return SP_UNW_STOP;
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (name_is(name, stops[i]))
			return SP_UNW_STOP;
	if (func_flag(p, func) & FLAG_SPWRITE)
		return SP_UNW_CUT;
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		if (name_is(name, cuts[i]))
			return SP_UNW_CUT;
	return SP_UNW_CFA_RSP;
}

static int push_prio(struct sp_eh_table *t, struct pcln *p, uint64_t pc, struct sp_eh_row r,
		     uint8_t prio)
{
	if (SP_GROW(t->rows, p->cap, t->n + 1, 4096))
		return -ENOMEM;
	r.pc = pc;
	r.prio = prio;
	t->rows[t->n++] = r;
	return 0;
}

static int push(struct sp_eh_table *t, struct pcln *p, uint64_t pc, struct sp_eh_row r)
{
	return push_prio(t, p, pc, r, GO_PRIO);
}

/* The row for SP offset v: CFA = rsp + v + 8; with a frame, the caller's
 * rbp is saved right below the return address. */
static struct sp_eh_row sp_row(int64_t v)
{
	struct sp_eh_row r = { .kind = SP_UNW_FP };

	if (v < 0 || v + 8 > INT16_MAX)
		return r;
	r.kind = SP_UNW_CFA_RSP;
	r.cfa_off = (int32_t)(v + 8);
	r.rbp_off = v >= 8 ? -16 : 0;
	return r;
}

/* The rows of one function [entry, end) from its pcsp table. */
static int pcsp_rows(struct sp_eh_table *t, struct pcln *p, uint64_t func, uint64_t entry,
		     uint64_t end)
{
	uint64_t off = p->pctab + (uint32_t)rd(p, func + (p->magic == GO116 ? 20 : 16), 4);
	struct sp_cursor c = { .end = p->data + p->size };
	int64_t v = -1;
	uint64_t pc = entry;
	int err;

	if (!at(p, off, 1))
		return push(t, p, entry, sp_row(-1));
	c.p = p->data + off;
	for (bool first = true; pc < end; first = false) {
		uint64_t uv = cur_uleb(&c), dpc;

		if (c.bad || (uv == 0 && !first))
			break;
		v += (int64_t)(-(uv & 1) ^ (uv >> 1));
		dpc = cur_uleb(&c) * p->quantum;
		if (c.bad || dpc == 0)
			break;
		err = push(t, p, pc, sp_row(v));
		if (err)
			return err;
		pc += dpc;
	}
	return pc < end ? push(t, p, pc, sp_row(-1)) : 0;
}

int sp_gopclntab_parse(struct sp_eh_table *t, const uint8_t *data, size_t size,
		       uint64_t text_start)
{
	struct pcln p = { .data = data, .size = size, .cap = t->n };
	uint64_t entry, func, next;
	int err = read_header(&p, text_start);

	if (err)
		return err;
	if (!func_entry(&p, 0, &entry, &func))
		return -EINVAL;
	for (uint64_t i = 0; i < p.nfunc; i++, entry = next) {
		uint64_t f = func, nf;
		int kind;

		func_entry(&p, i + 1, &next, &nf);
		func = nf;
		if (next <= entry || !at(&p, f, 48))
			continue;
		kind = func_kind(&p, f);
		/* the restorer is "returned" to at its first byte: the unwinder
		 * looks up return address - 1 (glibc's __restore_rt FDE starts a
		 * byte early for the same reason) */
		if (kind == SP_UNW_SIGNAL)
			err = push(t, &p, entry - 1, (struct sp_eh_row){ .kind = SP_UNW_SIGNAL });
		else if (kind != SP_UNW_CFA_RSP)
			err = push(t, &p, entry, (struct sp_eh_row){ .kind = (uint8_t)kind });
		else
			err = pcsp_rows(t, &p, f, entry, next);
		if (err)
			return err;
	}
	/* the text's end: outside Go code, no rule (as an FDE's end) */
	return push_prio(t, &p, entry, (struct sp_eh_row){ .kind = SP_UNW_FP }, 0);
}

int sp_gopclntab__from_elf(struct sp_eh_table *t, Elf *elf)
{
	GElf_Shdr sh, text;
	Elf_Scn *scn = sp_elf_section(elf, ".gopclntab", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	uint64_t text_start = sp_elf_section(elf, ".text", &text) ? text.sh_addr : 0;

	if (!d || !d->d_buf || d->d_size == 0)
		return -ENOENT;
	return sp_gopclntab_parse(t, d->d_buf, d->d_size, text_start);
}
