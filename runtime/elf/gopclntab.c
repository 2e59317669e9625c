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

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GO116 0xfffffffau
#define GO118 0xfffffff0u
#define GO120 0xfffffff1u

#define FLAG_TOPFRAME 1 /* _func.flag: the outermost frame of a stack */
#define FLAG_SPWRITE 2  /* writes SP: the caller is not at SP + pcsp */
#define GO_PRIO 3        /* wins over .eh_frame rows at one pc */
#define GO_CLONE 0x100   /* func_kind(): runtime.clone, rows by clone_rows() */

static bool at(const struct sp_gopcln *p, uint64_t off, uint64_t n)
{
	return off <= p->size && n <= p->size - off;
}

static uint64_t rd(const struct sp_gopcln *p, uint64_t off, int n)
{
	struct sp_cursor c = { .p = p->data + off, .end = p->data + p->size };

	return at(p, off, (uint64_t)n) ? cur_uN(&c, n) : 0;
}

int sp_gopcln_open(struct sp_gopcln *p, const uint8_t *data, size_t size, uint64_t text_start)
{
	bool go116;

	*p = (struct sp_gopcln){ .data = data, .size = size };
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
	p->cutab = rd(p, go116 ? 32 : 40, 8);
	p->filetab = rd(p, go116 ? 40 : 48, 8);
	p->pctab = rd(p, go116 ? 48 : 56, 8);
	p->functab = rd(p, go116 ? 56 : 64, 8);
	if (p->nfunc == 0 || p->nfunc > (1u << 24) ||
	    !at(p, p->functab, (p->nfunc + 1) * (go116 ? 16 : 8)))
		return -EINVAL;
	return 0;
}

/* Entry pc and _func offset (from the func table) of function i. */
static bool func_entry(const struct sp_gopcln *p, uint64_t i, uint64_t *entry, uint64_t *func)
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

static const char *func_name(const struct sp_gopcln *p, uint64_t func)
{
	uint64_t off = p->funcname + (uint32_t)rd(p, func + (p->magic == GO116 ? 8 : 4), 4);

	if (!at(p, off, 1) || !memchr(p->data + off, '\0', p->size - off))
		return "";
	return (const char *)p->data + off;
}

static uint8_t func_flag(const struct sp_gopcln *p, uint64_t func)
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

/* Where the BPF unwinder finds a goroutine's saved registers from g0
 * (GO_SWITCH rows, abi/unwind_table.h): the offsets of m in runtime.g and
 * of curg in runtime.m; 0: not known, the stack switchers get CUT rows. */
struct go_offs {
	int g_m, m_curg;
	int m_vdso_sp; /* m.vdsoSP (vdsoPC follows it); 0: vdso callers get CUT rows */
	Elf *elf;      /* the binary's bytes: where runtime.clone moves rsp; NULL: not known */
};

/* Go's callers of the vDSO: they move rsp to g0's stack around the call,
 * and leave their caller's pc and sp in m.vdsoPC and m.vdsoSP meanwhile,
 * for Go's own SIGPROF traceback. */
static const char *const vdso_callers[] = { "runtime.nanotime1", "runtime.walltime",
					    "runtime.walltime1", "time.now" };

/* STOP (outermost), GO_SWITCH (a stack switcher, with offs), GO_VDSO (a
 * vDSO caller, with offs), CUT (writes rsp: the caller is not at rsp +
 * pcsp), SIGNAL, GO_CLONE (runtime.clone: see clone_rows()), or CFA_RSP
 * when the pcsp table is to be read. */
static int func_kind(const struct sp_gopcln *p, uint64_t func, const struct go_offs *offs)
{
	/* _rt0_amd64*: the entry point, rsp at argc (it jumps on to rt0_go) */
	static const char *const stops[] = { "runtime.goexit", "runtime.mstart", "runtime.rt0_go",
					     "_rt0_amd64_linux", "_rt0_amd64" };
	static const char *const switches[] = { "runtime.systemstack", "runtime.mcall",
						"runtime.morestack" };
	static const char *const cuts[] = { "runtime.asmcgocall" };
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
	for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++)
		if (name_is(name, switches[i]))
			return offs->m_curg ? SP_UNW_GO_SWITCH : SP_UNW_CUT;
	for (size_t i = 0; i < sizeof(vdso_callers) / sizeof(vdso_callers[0]); i++)
		if (name_is(name, vdso_callers[i]))
			return offs->m_vdso_sp ? SP_UNW_GO_VDSO : SP_UNW_CUT;
	if (name_is(name, "runtime.clone"))
		return GO_CLONE;
	if (func_flag(p, func) & FLAG_SPWRITE)
		return SP_UNW_CUT;
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		if (name_is(name, cuts[i]))
			return SP_UNW_CUT;
	return SP_UNW_CFA_RSP;
}

/* --- pc-value tables ------------------------------------------------------------------ */

/* A walk of one pc-value table (pcsp, pcfile, pcln) of the function at
 * entry: each step holds value v over [pc, next). */
struct pcvalue {
	struct sp_cursor c;
	int64_t v;
	uint64_t pc, next;
	uint8_t quantum;
	bool first;
};

/* The table at pctab offset `field` of _func func: false when it is outside. */
static bool pcv_start(struct pcvalue *w, const struct sp_gopcln *p, uint64_t func, int field,
		      uint64_t entry)
{
	uint64_t off = p->pctab + (uint32_t)rd(p, func + (uint64_t)field, 4);

	*w = (struct pcvalue){ .c = { .end = p->data + p->size }, .v = -1, .next = entry,
			       .quantum = p->quantum, .first = true };
	if (!at(p, off, 1))
		return false;
	w->c.p = p->data + off;
	return true;
}

/* The next step; false at the table's end or on bad data. */
static bool pcv_next(struct pcvalue *w)
{
	uint64_t uv = cur_uleb(&w->c), dpc;

	if (w->c.bad || (uv == 0 && !w->first))
		return false;
	w->first = false;
	w->v += (int64_t)(-(uv & 1) ^ (uv >> 1));
	dpc = cur_uleb(&w->c) * w->quantum;
	if (w->c.bad || dpc == 0)
		return false;
	w->pc = w->next;
	w->next += dpc;
	return true;
}

/* The value at pc of a table (_func field offset), or -1. */
static int64_t pcv_at(const struct sp_gopcln *p, uint64_t func, int field, uint64_t entry,
		      uint64_t pc)
{
	struct pcvalue w;

	if (!pcv_start(&w, p, func, field, entry))
		return -1;
	while (pcv_next(&w))
		if (pc < w.next)
			return pc >= w.pc ? w.v : -1;
	return -1;
}

/* --- functions, names, lines ------------------------------------------------------------ */

bool sp_gopcln_func(const struct sp_gopcln *p, uint64_t i, struct sp_gofunc *f)
{
	uint64_t nf;

	if (i >= p->nfunc || !func_entry(p, i, &f->entry, &f->func))
		return false;
	func_entry(p, i + 1, &f->end, &nf);
	if (f->end <= f->entry)
		return false;
	f->name = func_name(p, f->func);
	return true;
}

bool sp_gopcln_find(const struct sp_gopcln *p, uint64_t pc, struct sp_gofunc *f)
{
	uint64_t lo = 0, hi = p->nfunc, entry, func;

	/* the last function whose entry is <= pc */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		func_entry(p, mid, &entry, &func);
		if (entry <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && sp_gopcln_func(p, lo - 1, f) && pc < f->end;
}

bool sp_gopcln_line(const struct sp_gopcln *p, const struct sp_gofunc *f, uint64_t pc,
		    const char **file, int *line)
{
	bool go116 = p->magic == GO116;
	int64_t fileno = pcv_at(p, f->func, go116 ? 24 : 20, f->entry, pc);
	int64_t ln = pcv_at(p, f->func, go116 ? 28 : 24, f->entry, pc);
	uint64_t cu = (uint32_t)rd(p, f->func + (go116 ? 36 : 32), 4), slot, name;

	if (fileno < 0 || fileno > INT32_MAX || ln <= 0 || ln > INT32_MAX || p->cutab > p->size)
		return false;
	slot = p->cutab + (cu + (uint64_t)fileno) * 4; /* < 2^35 past cutab: no wrap */
	if (!at(p, slot, 4))
		return false;
	name = (uint32_t)rd(p, slot, 4);
	if (name == UINT32_MAX || p->filetab > p->size || !at(p, p->filetab + name, 1) ||
	    !memchr(p->data + p->filetab + name, '\0', p->size - p->filetab - name))
		return false;
	*file = (const char *)p->data + p->filetab + name;
	*line = (int)ln;
	return true;
}

/* --- inlined functions ----------------------------------------------------------------- */

#define PCDATA_INLTREE 2   /* _PCDATA_InlTreeIndex */
#define FUNCDATA_INLTREE 3 /* _FUNCDATA_InlTree */
#define INLINE_DEPTH 32

/* Entry t of f's pcdata (-1: none) or funcdata (UINT32_MAX: none) tables,
 * after the _func header (40 bytes in 1.18, 44 from 1.20 with startLine). */
static uint32_t func_table(const struct sp_gopcln *p, uint64_t func, bool funcdata, uint32_t t)
{
	uint64_t hdr = p->magic == GO120 ? 44 : 40;
	uint32_t npcdata = (uint32_t)rd(p, func + 28, 4);
	uint8_t nfuncdata = (uint8_t)rd(p, func + hdr - 1, 1);

	if (!funcdata)
		return t < npcdata ? (uint32_t)rd(p, func + hdr + 4ull * t, 4) : 0;
	if (t >= nfuncdata)
		return UINT32_MAX;
	return (uint32_t)rd(p, func + hdr + 4ull * npcdata + 4ull * t, 4);
}

/* The inline tree index at pc: pcdata table 2 walked like pcsp. */
static int64_t inl_index(const struct sp_gopcln *p, const struct sp_gofunc *f, uint64_t pc)
{
	uint32_t off = func_table(p, f->func, false, PCDATA_INLTREE);
	struct pcvalue w = { .c = { .end = p->data + p->size }, .v = -1, .next = f->entry,
			     .quantum = p->quantum, .first = true };

	if (off == 0 || !at(p, p->pctab + off, 1))
		return -1;
	w.c.p = p->data + p->pctab + off;
	while (pcv_next(&w))
		if (pc < w.next)
			return pc >= w.pc ? w.v : -1;
	return -1;
}

int sp_gopcln_inlines(const struct sp_gopcln *p, const struct sp_gofunc *f, uint64_t pc,
		      struct sp_goinline *out, int max)
{
	/* an inlinedCall: 1.18/1.19 {parent i16, funcID, pad, file, line,
	 * nameOff, parentPc} (20 bytes), 1.20+ {funcID, pad[3], nameOff,
	 * parentPc, startLine} (16) */
	bool go120 = p->magic == GO120;
	uint64_t size = go120 ? 16 : 20, name_at = go120 ? 4 : 12, ppc_at = go120 ? 8 : 16;
	uint32_t tree = func_table(p, f->func, true, FUNCDATA_INLTREE);
	int n = 0;
	int64_t ix;

	if (!p->gofunc || p->magic == GO116 || tree == UINT32_MAX || tree >= p->gofunc_size)
		return 0;
	for (ix = inl_index(p, f, pc); ix >= 0 && n < max && n < INLINE_DEPTH;
	     ix = inl_index(p, f, pc)) {
		uint64_t ent = tree + (uint64_t)ix * size, noff;
		struct sp_gofunc outer = *f;
		uint32_t name;
		int32_t ppc;

		if (ent + size > p->gofunc_size)
			break;
		memcpy(&ppc, p->gofunc + ent + ppc_at, 4); /* little-endian host and file */
		memcpy(&name, p->gofunc + ent + name_at, 4);
		noff = p->funcname + name;
		if (ppc < 0 || !at(p, noff, 1) || !memchr(p->data + noff, '\0', p->size - noff))
			break;
		out[n] = (struct sp_goinline){ .name = (const char *)p->data + noff };
		pc = f->entry + (uint64_t)ppc; /* the call site, in the next outer level */
		if (!sp_gopcln_line(p, &outer, pc, &out[n].call_file, &out[n].call_line))
			out[n].call_file = NULL, out[n].call_line = 0;
		n++;
	}
	return n;
}

/* --- unwind rows ------------------------------------------------------------------------ */

struct rows {
	struct sp_eh_table *t;
	int cap;
};

static int push_prio(struct rows *r, uint64_t pc, struct sp_eh_row row, uint8_t prio)
{
	struct sp_eh_table *t = r->t;

	if (SP_GROW(t->rows, r->cap, t->n + 1, 4096))
		return -ENOMEM;
	row.pc = pc;
	row.prio = prio;
	t->rows[t->n++] = row;
	return 0;
}

static int push(struct rows *r, uint64_t pc, struct sp_eh_row row)
{
	return push_prio(r, pc, row, GO_PRIO);
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

/* The rows of one function from its pcsp table. */
static int pcsp_rows(struct rows *r, const struct sp_gopcln *p, const struct sp_gofunc *f)
{
	struct pcvalue w;
	uint64_t pc = f->entry;
	int err;

	if (!pcv_start(&w, p, f->func, p->magic == GO116 ? 20 : 16, f->entry))
		return push(r, f->entry, sp_row(-1));
	while (pc < f->end && pcv_next(&w)) {
		err = push(r, w.pc, sp_row(w.v));
		if (err)
			return err;
		pc = w.next;
	}
	return pc < f->end ? push(r, pc, sp_row(-1)) : 0;
}

/* The section of elf holding vaddr, its bytes from there on. */
static const uint8_t *section_bytes(Elf *elf, uint64_t vaddr, size_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || vaddr < sh.sh_addr ||
		    vaddr - sh.sh_addr >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || vaddr - sh.sh_addr >= d->d_size)
			return NULL;
		*size = d->d_size - (vaddr - sh.sh_addr);
		return (const uint8_t *)d->d_buf + (vaddr - sh.sh_addr);
	}
	return NULL;
}

/* runtime.clone: the parent runs it as a frameless function (its caller
 * at rsp); the child comes back from the system call on its new, empty
 * stack and moves rsp there (MOVQ SI, SP: 48 89 f4, right after the
 * syscall's parent branch) before it calls mstart: from that instruction
 * on it is the outermost frame, as glibc's clone3 is. Without the bytes,
 * or where the instruction is not found, CUT as any function writing rsp. */
static int clone_rows(struct rows *r, const struct go_offs *offs, const struct sp_gofunc *f)
{
	static const uint8_t movsp[] = { 0x48, 0x89, 0xf4 };
	size_t n = 0, i = 0;
	const uint8_t *b = offs->elf ? section_bytes(offs->elf, f->entry, &n) : NULL;
	int err;

	if (n > f->end - f->entry)
		n = f->end - f->entry;
	while (b && i + 2 <= n && !(b[i] == 0x0f && b[i + 1] == 0x05)) /* syscall */
		i++;
	for (size_t j = i + 2; b && j < i + 24 && j + sizeof(movsp) <= n; j++) {
		if (memcmp(b + j, movsp, sizeof(movsp)) != 0)
			continue;
		err = push(r, f->entry, sp_row(0));
		return err ? err : push(r, f->entry + j, (struct sp_eh_row){ .kind = SP_UNW_STOP });
	}
	return push(r, f->entry, (struct sp_eh_row){ .kind = SP_UNW_CUT });
}

/* The rows of every function of p, appended to t. */
static int rows_from(struct sp_eh_table *t, const struct sp_gopcln *p, const struct go_offs *offs)
{
	struct rows r = { .t = t, .cap = t->n };
	struct sp_gofunc f;
	uint64_t end, func;
	int err = 0;

	if (!func_entry(p, 0, &end, &func))
		return -EINVAL;
	for (uint64_t i = 0; i < p->nfunc; i++) {
		int kind;

		if (!sp_gopcln_func(p, i, &f) || !at(p, f.func, 48))
			continue;
		kind = func_kind(p, f.func, offs);
		/* the restorer is "returned" to at its first byte: the unwinder
		 * looks up return address - 1 (glibc's __restore_rt FDE starts a
		 * byte early for the same reason) */
		if (kind == SP_UNW_SIGNAL)
			err = push(&r, f.entry - 1, (struct sp_eh_row){ .kind = SP_UNW_SIGNAL });
		else if (kind == SP_UNW_GO_SWITCH)
			err = push(&r, f.entry, (struct sp_eh_row){
				.kind = SP_UNW_GO_SWITCH,
				.cfa_off = name_is(f.name, "runtime.systemstack") ? -offs->m_curg
										 : offs->m_curg,
				.rbp_off = name_is(f.name, "runtime.mcall") ? -offs->g_m : offs->g_m });
		else if (kind == SP_UNW_GO_VDSO)
			err = push(&r, f.entry, (struct sp_eh_row){ .kind = SP_UNW_GO_VDSO,
				.cfa_off = offs->m_vdso_sp, .rbp_off = offs->g_m });
		else if (kind == GO_CLONE)
			err = clone_rows(&r, offs, &f);
		else if (kind != SP_UNW_CFA_RSP)
			err = push(&r, f.entry, (struct sp_eh_row){ .kind = (uint8_t)kind });
		else
			err = pcsp_rows(&r, p, &f);
		if (err)
			return err;
	}
	/* the text's end: outside Go code, no rule (as an FDE's end) */
	func_entry(p, p->nfunc, &end, &func);
	return push_prio(&r, end, (struct sp_eh_row){ .kind = SP_UNW_FP }, 0);
}

int sp_gopclntab_parse(struct sp_eh_table *t, const uint8_t *data, size_t size,
		       uint64_t text_start)
{
	struct sp_gopcln p;
	struct go_offs none = { 0 };
	int err = sp_gopcln_open(&p, data, size, text_start);

	return err ? err : rows_from(t, &p, &none);
}

/* runtime.firstmoduledata, found (stripped binaries have no symbol for it)
 * as the word in .noptrdata that points at the pclntab, checked by its
 * ftab and text fields; its gofunc field (Go 1.18, 1.19: byte 304; 1.20+,
 * after covctrs and ecovctrs: 320) locates go:func.*. */
static void find_gofunc(struct sp_gopcln *p, Elf *elf, uint64_t pcln_addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_section(elf, ".noptrdata", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	uint64_t gofunc_at = p->magic == GO120 ? 320 : 304;

	if (!d || !d->d_buf || p->magic == GO116)
		return;
	for (size_t off = 0; off + gofunc_at + 8 <= d->d_size; off += 8) {
		const uint8_t *md = (const uint8_t *)d->d_buf + off;
		uint64_t w[3];

		memcpy(&w[0], md, 8);
		memcpy(&w[1], md + 128, 8); /* ftab's pointer */
		memcpy(&w[2], md + 176, 8); /* text */
		if (w[0] != pcln_addr || w[1] != pcln_addr + p->functab ||
		    (p->text_start && w[2] != p->text_start))
			continue;
		memcpy(&w[0], md + gofunc_at, 8);
		p->gofunc = section_bytes(elf, w[0], &p->gofunc_size);
		return;
	}
}

int sp_gopcln__from_elf(struct sp_gopcln *p, Elf *elf)
{
	GElf_Shdr sh, text;
	Elf_Scn *scn = sp_elf_section(elf, ".gopclntab", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	uint64_t text_start = sp_elf_section(elf, ".text", &text) ? text.sh_addr : 0;
	int err;

	if (!d || !d->d_buf || d->d_size == 0)
		return -ENOENT;
	err = sp_gopcln_open(p, d->d_buf, d->d_size, text_start);
	if (!err)
		find_gofunc(p, elf, sh.sh_addr);
	return err;
}

/* --- runtime.g and runtime.m: where g0 finds the goroutine ------------------------------- */

/* Offset of member `name` of the structure type `die`, or -1. */
static int dw_member(Dwarf_Die *die, const char *name)
{
	Dwarf_Die c;
	Dwarf_Attribute a;
	Dwarf_Word off;

	if (dwarf_child(die, &c) != 0)
		return -1;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_member && n && strcmp(n, name) == 0 &&
		    dwarf_formudata(dwarf_attr(&c, DW_AT_data_member_location, &a), &off) == 0 &&
		    off < 4096)
			return (int)off;
	} while (dwarf_siblingof(&c, &c) == 0);
	return -1;
}

/* The offsets from the binary's DWARF (Go writes runtime.g, runtime.m and
 * runtime.gobuf as top-level types of the runtime's unit); the layout the
 * BPF side assumes (g.stack first, g.sched right after g.m; gobuf sp 0, pc
 * 8, bp 48; m.vdsoPC right after m.vdsoSP) is checked too. false without DWARF or without those types. */
static bool offs_from_dwarf(Elf *elf, struct go_offs *o)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;
	int g_m = -1, g_sched = -1, m_curg = -1, m_g0 = -1, sp = -1, pc = -1, bp = -1;
	int g_stack = -1, vdso_sp = -1, vdso_pc = -1;

	if (!dw)
		return false;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *n = dwarf_diename(&c);

				if (dwarf_tag(&c) != DW_TAG_structure_type || !n)
					continue;
				if (strcmp(n, "runtime.g") == 0) {
					g_m = dw_member(&c, "m");
					g_sched = dw_member(&c, "sched");
					g_stack = dw_member(&c, "stack");
				} else if (strcmp(n, "runtime.m") == 0) {
					m_g0 = dw_member(&c, "g0");
					m_curg = dw_member(&c, "curg");
					vdso_sp = dw_member(&c, "vdsoSP");
					vdso_pc = dw_member(&c, "vdsoPC");
				} else if (strcmp(n, "runtime.gobuf") == 0) {
					sp = dw_member(&c, "sp");
					pc = dw_member(&c, "pc");
					bp = dw_member(&c, "bp");
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	dwarf_end(dw);
	if (g_m <= 0 || g_m % 8 || g_m > 127 * 8 || g_sched != g_m + 8 || m_g0 != 0 ||
	    m_curg <= 0 || m_curg > INT16_MAX || sp != 0 || pc != 8 || bp != 48 || g_stack != 0)
		return false;
	o->g_m = g_m;
	o->m_curg = m_curg;
	if (vdso_sp > 0 && vdso_sp <= INT16_MAX && vdso_pc == vdso_sp + 8)
		o->m_vdso_sp = vdso_sp;
	return true;
}

/* The Go version of the binary ("go1.19.8" -> 19), from .go.buildinfo
 * (Go 1.18+: the version string inline after the 32-byte header, flag
 * bit 2); 0 when not found. */
static int go_minor(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_section(elf, ".go.buildinfo", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const uint8_t *b = d ? d->d_buf : NULL;
	char v[32];
	int minor = 0;

	if (!b || d->d_size < 34 || memcmp(b, "\xff Go buildinf:", 14) != 0 || !(b[15] & 2) ||
	    b[32] >= sizeof(v) || 33u + b[32] > d->d_size)
		return 0;
	memcpy(v, b + 33, b[32]);
	v[b[32]] = '\0';
	return sscanf(v, "go1.%d", &minor) == 1 ? minor : 0;
}

/* The offsets: from DWARF when the binary has it, else by the Go version.
 * Checked: Go 1.19 (its DWARF, Debian 12's golang-go); 1.13 to 1.18 have
 * the same fields before m.curg (runtime/runtime2.go), 1.18 the first
 * with .go.buildinfo's inline version. Later versions are taken from
 * DWARF only. */
static struct go_offs go_offsets(Elf *elf)
{
	struct go_offs o = { .elf = elf };
	int minor;

	if (offs_from_dwarf(elf, &o))
		return o;
	minor = go_minor(elf);
	if (minor >= 18 && minor <= 19)
		o = (struct go_offs){ .g_m = 48, .m_curg = 192, .elf = elf };
	if (minor == 19) /* from its DWARF; 1.18's not checked: CUT rows there */
		o.m_vdso_sp = 800;
	return o;
}

int sp_gopclntab__from_elf(struct sp_eh_table *t, Elf *elf)
{
	struct sp_gopcln p;
	struct go_offs offs;
	int err = sp_gopcln__from_elf(&p, elf);

	if (err)
		return err;
	offs = go_offsets(elf);
	return rows_from(t, &p, &offs);
}
