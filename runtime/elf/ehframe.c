/* runtime/elf/ehframe.c: the DWARF CFA state machine over .eh_frame / .debug_frame.
 *
 * Layout (DWARF 4 §6.4, LSB "Exception Frame"): a section is a list of
 * length-prefixed records, CIEs (common defaults: alignment factors, the
 * return-address column, augmentation "zR", "zPLR", "zRS" saying how FDE
 * pointers are encoded and whether frames are signal frames, initial
 * instructions) and FDEs (one pc range, a CIE, instructions). Running the
 * instructions gives, for every address of the range, where the CFA is and
 * where the caller's registers were saved. Only rsp, rbp and the return
 * address matter to the BPF unwinder; each state becomes one row
 * (struct sp_eh_row, abi/unwind_table.h explains the rules).
 *
 * Recognised DWARF expressions: the .plt one toolchains emit,
 * CFA = rsp + 8 + ((rip & 15) >= 11) << 3 (or >= 10). Any other expression
 * (stack realignment, hand-written asm) gives an FP row: the unwinder takes
 * a frame-pointer step there, as bpf_get_stack would.
 */
#include "runtime/elf/ehframe.h"
#include "runtime/elf/file.h"
#include "runtime/elf/gopclntab.h"

#include "abi/unwind_table.h"
#include "base/search.h"
#include "base/vec.h"

#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16
#define MAX_REMEMBER 16

/* DW_EH_PE_* pointer encodings */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APP 0x70
#define PE_PCREL 0x10
#define PE_ALIGNED 0x50
#define PE_INDIRECT 0x80

enum rule { R_UNCHANGED, R_OFFSET, R_UNDEF, R_OTHER };
enum cfa_rule { C_REG, C_PLT, C_EXPR };

struct cfa_state {
	enum cfa_rule cfa;
	uint32_t cfa_reg;
	int64_t cfa_off;    /* C_PLT: the threshold */
	enum rule rbp, ra;
	int64_t rbp_off, ra_off;
};

/* The section being parsed, for pc-relative pointers and CIE offsets. */
struct eh_sec {
	const uint8_t *base, *end;
	uint64_t vaddr;       /* section address */
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint32_t ra_reg;
	uint8_t fde_enc;
	bool has_z, signal;
	const uint8_t *insns, *insns_end;
};

/* --- reading ------------------------------------------------------------------------- */

/* A pointer in encoding `enc`; pc-relative ones become section addresses. */
static uint64_t read_ptr(struct sp_cursor *c, const struct eh_sec *s, uint8_t enc)
{
	uint64_t here = s->vaddr + (uint64_t)(c->p - s->base), v;

	if (enc == PE_OMIT)
		return 0;
	if ((enc & PE_APP) == PE_ALIGNED) {
		size_t mis = (size_t)(c->p - s->base) & 7;

		if (mis && cur_need(c, 8 - mis))
			c->p += 8 - mis;
		here = s->vaddr + (uint64_t)(c->p - s->base);
	}
	switch (enc & PE_FORMAT) {
	case 0x00: v = cur_uN(c, 8); break;
	case 0x01: v = cur_uleb(c); break;
	case 0x02: v = cur_uN(c, 2); break;
	case 0x03: v = cur_uN(c, 4); break;
	case 0x04: v = cur_uN(c, 8); break;
	case 0x09: v = (uint64_t)cur_sleb(c); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)cur_uN(c, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)cur_uN(c, 4); break;
	case 0x0c: v = cur_uN(c, 8); break;
	default: c->bad = true; return 0;
	}
	if ((enc & PE_APP) == PE_PCREL)
		v += here;
	return v;
}

/* --- rows ---------------------------------------------------------------------------- */

/* An FDE's end is pushed as an FP row of prio 0; it loses to a real row
 * that starts at the same address (sp_eh_table__finish). */
static int push_row(struct sp_eh_table *t, int *cap, uint64_t pc, const struct sp_eh_row *r)
{
	if (SP_GROW(t->rows, *cap, t->n + 1, 1024))
		return -ENOMEM;
	t->rows[t->n] = *r;
	t->rows[t->n].pc = pc;
	t->n++;
	return 0;
}

static bool fits(int64_t v, int64_t lo, int64_t hi)
{
	return v >= lo && v <= hi;
}

/* A frame past 32 KiB (rustc's run_compiler closure: 540,080 bytes, after
 * stack probes) that abi/unwind_table.h's CFA_RSP_BIG holds: CFA = rsp + a
 * multiple of 8 below 8 MiB, rbp saved within 64 bytes below it. */
static bool big_frame(const struct cfa_state *s)
{
	return s->cfa_reg == REG_RSP && s->cfa_off > INT16_MAX && s->cfa_off % 8 == 0 &&
	       s->cfa_off / 8 < SP_UNW_BIG_MAX8 &&
	       (s->rbp != R_OFFSET || fits(s->rbp_off / 8, -8, 7));
}

static struct sp_eh_row to_row(const struct cfa_state *s, bool signal, struct sp_eh_stats *st)
{
	struct sp_eh_row r = { .kind = SP_UNW_FP };

	if (signal) {
		r.kind = SP_UNW_SIGNAL;
		return r;
	}
	if (s->ra == R_UNDEF) {
		r.kind = SP_UNW_STOP;
		return r;
	}
	if (s->cfa == C_PLT) {
		r.kind = SP_UNW_PLT;
		r.cfa_off = (int32_t)s->cfa_off;
		return r;
	}
	if (s->cfa == C_EXPR) {
		st->expr_rows++;
		return r;
	}
	if ((s->cfa_reg != REG_RSP && s->cfa_reg != REG_RBP) || s->ra != R_OFFSET ||
	    s->ra_off != -8 || (!fits(s->cfa_off, INT16_MIN, INT16_MAX) && !big_frame(s)) ||
	    (s->rbp == R_OFFSET && (s->rbp_off % 8 || !fits(s->rbp_off / 8, -127, 127)))) {
		st->other_rows++;
		return r;
	}
	r.kind = s->cfa_reg == REG_RSP ? SP_UNW_CFA_RSP : SP_UNW_CFA_RBP;
	r.cfa_off = (int32_t)s->cfa_off;
	r.rbp_off = s->rbp == R_OFFSET ? (int32_t)s->rbp_off : 0;
	return r;
}

/* --- the state machine --------------------------------------------------------------- */

/* The .plt expression: breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl; plus. */
static enum cfa_rule classify_expr(const uint8_t *e, uint64_t len, int64_t *thr)
{
	static const uint8_t head[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a };
	static const uint8_t tail[] = { 0x2a, 0x33, 0x24, 0x22 };

	if (len == 11 && memcmp(e, head, 6) == 0 && memcmp(e + 7, tail, 4) == 0 &&
	    e[6] >= 0x30 && e[6] <= 0x4f) {
		*thr = e[6] - 0x30;
		return C_PLT;
	}
	return C_EXPR;
}

static void set_reg(struct cfa_state *s, uint64_t reg, enum rule r, int64_t off)
{
	if (reg == REG_RBP) {
		s->rbp = r;
		s->rbp_off = off;
	} else if (reg == REG_RA) {
		s->ra = r;
		s->ra_off = off;
	}
}

static void restore_reg(struct cfa_state *s, const struct cfa_state *init, uint64_t reg)
{
	if (reg == REG_RBP) {
		s->rbp = init->rbp;
		s->rbp_off = init->rbp_off;
	} else if (reg == REG_RA) {
		s->ra = init->ra;
		s->ra_off = init->ra_off;
	}
}

struct machine {
	struct sp_eh_table *t;
	int *cap;
	const struct cie *cie;
	const struct eh_sec *sec;
	struct cfa_state s, init;
	struct cfa_state stack[MAX_REMEMBER];
	int depth;
	uint64_t loc, row_loc;  /* current address; start of the pending row */
	bool emit;              /* false while running the CIE's initial instructions */
	uint8_t prio;           /* of the rows: 1 .debug_frame, 2 .eh_frame */
	int err;
};

static void advance(struct machine *m, uint64_t to)
{
	struct sp_eh_row r;

	if (!m->emit || to <= m->row_loc) {
		m->loc = to;
		return;
	}
	r = to_row(&m->s, m->cie->signal, &m->t->st);
	r.prio = m->prio;
	if (!m->err)
		m->err = push_row(m->t, m->cap, m->row_loc, &r);
	m->row_loc = m->loc = to;
}

/* Extended opcodes (high two bits zero). Returns false on an unknown one. */
static bool run_ext(struct machine *m, struct sp_cursor *c, uint8_t op, uint8_t fde_enc)
{
	int64_t da = m->cie->data_align;
	uint64_t reg, len;

	switch (op) {
	case 0x00: break;                                                 /* nop */
	case 0x01: advance(m, read_ptr(c, m->sec, fde_enc)); break;       /* set_loc */
	case 0x02: advance(m, m->loc + cur_uN(c, 1) * m->cie->code_align); break;
	case 0x03: advance(m, m->loc + cur_uN(c, 2) * m->cie->code_align); break;
	case 0x04: advance(m, m->loc + cur_uN(c, 4) * m->cie->code_align); break;
	case 0x05: reg = cur_uleb(c); set_reg(&m->s, reg, R_OFFSET, (int64_t)cur_uleb(c) * da); break;
	case 0x06: restore_reg(&m->s, &m->init, cur_uleb(c)); break;      /* restore_extended */
	case 0x07: set_reg(&m->s, cur_uleb(c), R_UNDEF, 0); break;        /* undefined */
	case 0x08: set_reg(&m->s, cur_uleb(c), R_UNCHANGED, 0); break;    /* same_value */
	case 0x09: reg = cur_uleb(c); cur_uleb(c); set_reg(&m->s, reg, R_OTHER, 0); break;
	case 0x0a:                                                        /* remember_state */
		if (m->depth < MAX_REMEMBER)
			m->stack[m->depth] = m->s;
		m->depth++;
		break;
	case 0x0b:                                                        /* restore_state */
		/* the whole row, CFA included, as libgcc does */
		if (m->depth > 0 && --m->depth < MAX_REMEMBER)
			m->s = m->stack[m->depth];
		break;
	case 0x0c: m->s.cfa = C_REG; m->s.cfa_reg = (uint32_t)cur_uleb(c);
		   m->s.cfa_off = (int64_t)cur_uleb(c); break;            /* def_cfa */
	case 0x0d: m->s.cfa = C_REG; m->s.cfa_reg = (uint32_t)cur_uleb(c); break;
	case 0x0e: m->s.cfa_off = (int64_t)cur_uleb(c); break;            /* def_cfa_offset */
	case 0x0f:                                                        /* def_cfa_expression */
		len = cur_uleb(c);
		if (!cur_need(c, len))
			return false;
		m->s.cfa = classify_expr(c->p, len, &m->s.cfa_off);
		c->p += len;
		break;
	case 0x10: case 0x16:                                             /* (val_)expression */
		reg = cur_uleb(c);
		len = cur_uleb(c);
		if (!cur_need(c, len))
			return false;
		c->p += len;
		set_reg(&m->s, reg, R_OTHER, 0);
		break;
	case 0x11: reg = cur_uleb(c); set_reg(&m->s, reg, R_OFFSET, cur_sleb(c) * da); break;
	case 0x12: m->s.cfa = C_REG; m->s.cfa_reg = (uint32_t)cur_uleb(c);
		   m->s.cfa_off = cur_sleb(c) * da; break;                /* def_cfa_sf */
	case 0x13: m->s.cfa_off = cur_sleb(c) * da; break;                /* def_cfa_offset_sf */
	case 0x14: reg = cur_uleb(c); cur_uleb(c); set_reg(&m->s, reg, R_OTHER, 0); break;
	case 0x15: reg = cur_uleb(c); cur_sleb(c); set_reg(&m->s, reg, R_OTHER, 0); break;
	case 0x2e: cur_uleb(c); break;                                    /* GNU_args_size */
	case 0x2f: reg = cur_uleb(c); set_reg(&m->s, reg, R_OFFSET, -(int64_t)cur_uleb(c) * da); break;
	default: return false;
	}
	return !c->bad;
}

static bool run_insns(struct machine *m, const uint8_t *p, const uint8_t *end, uint8_t fde_enc)
{
	struct sp_cursor c = { .p = p, .end = end };

	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		uint64_t arg = op & 0x3f;

		switch (op >> 6) {
		case 1: advance(m, m->loc + arg * m->cie->code_align); break;
		case 2: set_reg(&m->s, arg, R_OFFSET, (int64_t)cur_uleb(&c) * m->cie->data_align); break;
		case 3: restore_reg(&m->s, &m->init, arg); break;
		default:
			if (!run_ext(m, &c, op, fde_enc))
				return false;
		}
	}
	return !c.bad;
}

/* --- records ------------------------------------------------------------------------- */

static bool parse_augmentation(struct cie *cie, struct sp_cursor *c, const struct eh_sec *s,
			       const char *aug)
{
	const uint8_t *data_end = NULL;

	if (aug[0] == 'z') {
		uint64_t len = cur_uleb(c);

		if (!cur_need(c, len))
			return false;
		data_end = c->p + len;
		cie->has_z = true;
	} else if (aug[0]) {
		return false; /* "eh" and other pre-z forms: not used by current toolchains */
	}
	for (const char *a = aug + (aug[0] == 'z'); *a && !c->bad; a++) {
		switch (*a) {
		case 'R': cie->fde_enc = (uint8_t)cur_uN(c, 1); break;
		case 'L': cur_uN(c, 1); break;
		case 'P': {
			uint8_t enc = (uint8_t)cur_uN(c, 1);

			read_ptr(c, s, enc & 0x7f);
			break;
		}
		case 'S': cie->signal = true; break;
		default:
			if (!data_end)
				return false;
			c->p = data_end; /* unknown letter: skip the rest, as libgcc does */
			return true;
		}
	}
	if (data_end && !c->bad)
		c->p = data_end;
	return !c->bad;
}

/* Parses the CIE at section offset `off`. */
static bool parse_cie(const struct eh_sec *s, uint64_t off, bool debug_frame, struct cie *cie)
{
	struct sp_cursor c = { .end = s->end };
	uint64_t len, id;
	const char *aug;
	int version, idsize = 4;

	memset(cie, 0, sizeof(*cie));
	if (off >= (uint64_t)(s->end - s->base))
		return false;
	c.p = s->base + off;
	len = cur_uN(&c, 4);
	if (len == 0xffffffff) {
		len = cur_uN(&c, 8);
		idsize = 8;
	}
	if (!cur_need(&c, len))
		return false;
	c.end = c.p + len;
	id = cur_uN(&c, idsize);
	if (debug_frame ? id != (idsize == 8 ? ~0ull : 0xffffffffull) : id != 0)
		return false;
	version = (int)cur_uN(&c, 1);
	aug = cur_cstr(&c);
	if (c.bad || (version != 1 && version != 3 && version != 4))
		return false;
	if (version == 4)
		cur_uN(&c, 2); /* address_size, segment_selector_size */
	cie->code_align = cur_uleb(&c);
	cie->data_align = cur_sleb(&c);
	cie->ra_reg = version == 1 ? (uint32_t)cur_uN(&c, 1) : (uint32_t)cur_uleb(&c);
	if (!parse_augmentation(cie, &c, s, aug))
		return false;
	cie->insns = c.p;
	cie->insns_end = c.end;
	return cie->ra_reg == REG_RA;
}

static int run_fde(struct sp_eh_table *t, int *cap, const struct eh_sec *sec, const struct cie *cie,
		   bool debug_frame, uint64_t start, uint64_t range, const uint8_t *insns,
		   const uint8_t *end)
{
	struct machine m = { .t = t, .cap = cap, .cie = cie, .sec = sec,
			     .prio = debug_frame ? 1 : 2 };
	struct sp_eh_row marker = { .kind = SP_UNW_FP, .prio = 0 };

	m.s.cfa = C_REG;
	m.s.ra = R_UNCHANGED;
	if (!run_insns(&m, cie->insns, cie->insns_end, cie->fde_enc))
		return -EINVAL;
	m.init = m.s;
	m.emit = true;
	m.loc = m.row_loc = start;
	if (!run_insns(&m, insns, end, cie->fde_enc))
		return -EINVAL;
	advance(&m, start + range);
	if (m.err)
		return m.err;
	return push_row(t, cap, start + range, &marker);
}

/* One FDE of a section: its CIE, address range and instructions. */
typedef int (*fde_fn)(void *arg, const struct eh_sec *s, const struct cie *cie, uint64_t start,
		      uint64_t range, const uint8_t *insns, const uint8_t *end);

/* Calls fn on every well-formed FDE of a CFI section (bad ones counted in
 * st); stops at fn's first -ENOMEM. 0 or -ENOMEM. */
static int each_fde(const uint8_t *data, size_t size, uint64_t vaddr, bool debug_frame,
		    struct sp_eh_stats *st, fde_fn fn, void *arg)
{
	struct eh_sec s = { .base = data, .end = data + size, .vaddr = vaddr };
	struct sp_cursor sec = { .p = data, .end = data + size };
	int err;
	struct cie cie;
	uint64_t cie_off = ~0ull;
	bool cie_ok = false;

	while (sec.p < sec.end && !sec.bad) {
		const uint8_t *body, *rend;
		uint64_t len = cur_uN(&sec, 4), id, start, range;
		int idsize = 4;

		if (len == 0 && !debug_frame)
			break; /* terminator */
		if (len == 0xffffffff) {
			len = cur_uN(&sec, 8);
			idsize = 8;
		}
		if (!cur_need(&sec, len))
			break;
		body = sec.p;
		rend = body + len;
		id = cur_uN(&sec, idsize);
		if (debug_frame ? id == (idsize == 8 ? ~0ull : 0xffffffffull) : id == 0) {
			st->cies++;
			sec.p = rend;
			continue;
		}
		st->fdes++;
		id = debug_frame ? id : (uint64_t)(body - data) - id;
		if (id != cie_off) {
			cie_off = id;
			cie_ok = parse_cie(&s, id, debug_frame, &cie);
		}
		start = read_ptr(&sec, &s, cie.fde_enc);
		range = read_ptr(&sec, &s, cie.fde_enc & PE_FORMAT);
		if (cie_ok && cie.has_z) {
			uint64_t alen = cur_uleb(&sec);

			if (cur_need(&sec, alen))
				sec.p += alen;
		}
		if (!cie_ok || sec.bad || sec.p > rend || range == 0 || start == 0) {
			st->bad_fdes += cie_ok && range == 0 ? 0 : 1;
			sec.bad = false;
			sec.p = rend;
			continue;
		}
		err = fn(arg, &s, &cie, start, range, sec.p, rend);
		if (err == -ENOMEM)
			return err;
		if (err)
			st->bad_fdes++;
		sec.p = rend;
	}
	return 0;
}

struct parse_arg {
	struct sp_eh_table *t;
	int cap;
	bool debug_frame;
};

static int parse_one(void *arg, const struct eh_sec *s, const struct cie *cie, uint64_t start,
		     uint64_t range, const uint8_t *insns, const uint8_t *end)
{
	struct parse_arg *a = arg;

	return run_fde(a->t, &a->cap, s, cie, a->debug_frame, start, range, insns, end);
}

int sp_eh_parse(struct sp_eh_table *t, const uint8_t *data, size_t size, uint64_t vaddr,
		bool debug_frame)
{
	struct parse_arg a = { .t = t, .cap = t->n, .debug_frame = debug_frame };

	return each_fde(data, size, vaddr, debug_frame, &t->st, parse_one, &a);
}

/* --- FDE ranges ----------------------------------------------------------------------- */

static int add_range(void *arg, const struct eh_sec *s, const struct cie *cie, uint64_t start,
		     uint64_t range, const uint8_t *insns, const uint8_t *end)
{
	struct sp_eh_fdes *f = arg;

	(void)s, (void)cie, (void)insns, (void)end;
	if (SP_GROW(f->v, f->cap, f->n + 1, 1024))
		return -ENOMEM;
	f->v[f->n].start = start;
	f->v[f->n++].end = start + range;
	return 0;
}

static int fde_cmp(const void *pa, const void *pb)
{
	const struct sp_eh_fde *a = pa, *b = pb;

	return (a->start > b->start) - (a->start < b->start);
}

int sp_eh_fdes__from_elf(struct sp_eh_fdes *f, Elf *elf)
{
	struct sp_eh_stats st = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_section(elf, ".eh_frame", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	int err;

	memset(f, 0, sizeof(*f));
	if (!d || !d->d_buf || d->d_size == 0)
		return -ENOENT;
	err = each_fde(d->d_buf, d->d_size, sh.sh_addr, false, &st, add_range, f);
	if (err) {
		sp_eh_fdes__free(f);
		return err;
	}
	qsort(f->v, (size_t)f->n, sizeof(*f->v), fde_cmp);
	return 0;
}

const struct sp_eh_fde *sp_eh_fdes__find(const struct sp_eh_fdes *f, uint64_t pc)
{
	long i = SP_FLOOR(f->v, f->n, start, pc);

	return i >= 0 && pc < f->v[i].end ? &f->v[i] : NULL;
}

void sp_eh_fdes__free(struct sp_eh_fdes *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* --- sorting and merging ------------------------------------------------------------- */

static int row_cmp(const void *pa, const void *pb)
{
	const struct sp_eh_row *a = pa, *b = pb;
	if (a->pc != b->pc)
		return (a->pc > b->pc) - (a->pc < b->pc);
	return (int)a->prio - (int)b->prio;
}

static bool same_rule(const struct sp_eh_row *a, const struct sp_eh_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off;
}

int sp_eh_table__finish(struct sp_eh_table *t)
{
	int k = 0;

	if (t->n == 0)
		return 0;
	if (t->n > 1)
		qsort(t->rows, t->n, sizeof(*t->rows), row_cmp);
	for (int i = 0; i < t->n; i++) {
		struct sp_eh_row r = t->rows[i];

		/* for one pc the last row wins: the highest prio */
		r.prio = 0;
		if (k > 0 && t->rows[k - 1].pc == r.pc)
			k--;
		if (k > 0 && same_rule(&t->rows[k - 1], &r))
			continue;
		t->rows[k++] = r;
	}
	t->n = k;
	return 0;
}

/* --- sections ------------------------------------------------------------------------ */

int sp_eh_table__from_elf(struct sp_eh_table *t, Elf *elf)
{
	static const char *const names[] = { ".eh_frame", ".debug_frame" };
	int err = 0, go_err = 0;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 2 && !err; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = sp_elf_section(elf, names[i], &sh);
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

		if (!d || !d->d_buf || d->d_size == 0)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			continue; /* compressed .debug_frame: not handled */
		err = sp_eh_parse(t, d->d_buf, d->d_size, sh.sh_addr, i == 1);
	}
	if (!err) {
		/* Go binaries: no .eh_frame (cgo ones have it for the C code) */
		err = sp_gopclntab__from_elf(t, elf);
		if (err == -ENOTSUP || err == -EINVAL)
			go_err = err; /* there, but refused: said with -v */
		if (err == -ENOENT || err == -ENOTSUP || err == -EINVAL)
			err = 0;
	}
	if (!err && t->n == 0)
		err = -ENOENT;
	if (!err)
		err = sp_eh_table__finish(t);
	if (err)
		sp_eh_table__free(t);
	t->go_err = go_err;
	return err;
}

const struct sp_eh_row *sp_eh_table__find(const struct sp_eh_table *t, uint64_t pc)
{
	long i = SP_FLOOR(t->rows, t->n, pc, pc);

	return i >= 0 ? &t->rows[i] : NULL;
}

void sp_eh_table__free(struct sp_eh_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}
