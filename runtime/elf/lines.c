/* runtime/elf/lines.c: address -> file:line from DWARF .debug_line, versions 2 to 5.
 *
 * Each unit's line-number program is run once through the DWARF state
 * machine (DWARF 5, section 6.2) and every emitted row is kept: (address,
 * file, line), sorted by address. A row covers addresses up to the next row;
 * an end_sequence row (line 0) ends coverage. File names are joined with
 * their include directory once, per unit, into one table.
 *
 * Every read is bounds-checked through a cursor; a malformed unit stops the
 * reader at that unit and keeps what was read before. Compressed sections
 * (SHF_COMPRESSED) are inflated by libelf. Only what x86-64 needs: one
 * operation per instruction (no VLIW op_index), 8-byte addresses.
 */
#include "runtime/elf/lines.h"
#include "runtime/elf/file.h"
#include "base/search.h"
#include "base/vec.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	DW_LNS_copy = 1, DW_LNS_advance_pc, DW_LNS_advance_line, DW_LNS_set_file,
	DW_LNS_set_column, DW_LNS_negate_stmt, DW_LNS_set_basic_block, DW_LNS_const_add_pc,
	DW_LNS_fixed_advance_pc,
	DW_LNE_end_sequence = 1, DW_LNE_set_address,
	DW_LNCT_path = 1, DW_LNCT_directory_index,
	DW_FORM_block2 = 0x03, DW_FORM_block4, DW_FORM_data2, DW_FORM_data4, DW_FORM_data8,
	DW_FORM_string, DW_FORM_block, DW_FORM_block1, DW_FORM_data1, DW_FORM_sdata = 0x0d,
	DW_FORM_strp, DW_FORM_udata, DW_FORM_data16 = 0x1e, DW_FORM_line_strp,
	DW_FORM_strx = 0x1a, DW_FORM_strx1 = 0x25, DW_FORM_strx2, DW_FORM_strx3, DW_FORM_strx4,
};

struct row {
	uint64_t addr;
	uint32_t file;      /* index into files */
	uint32_t line;      /* 0: end of a sequence */
};

/* Rows of one sequence are in address order already (DWARF requires it):
 * sorting sequences, not rows, orders the table. */
struct seq {
	uint64_t addr;
	int first, n;
};

struct sp_lines {
	int nrows, caprows;
	struct row *rows;
	int nseqs, capseqs;
	struct seq *seqs;
	int seq_first;      /* first row of the sequence being read */
	int nfiles, capfiles;
	char **files;
};

/* Section bytes by name; NULL when absent. */
struct sect {
	const unsigned char *p;
	size_t size;
};

/* --- reading ------------------------------------------------------------------------- */

static const char *str_at(const struct sect *s, uint64_t off)
{
	if (!s->p || off >= s->size || !memchr(s->p + off, '\0', s->size - off))
		return NULL;
	return (const char *)s->p + off;
}

static bool get_section(Elf *elf, const char *name, struct sect *out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_section(elf, name, &sh);
	Elf_Data *d;

	out->p = NULL;
	out->size = 0;
	if (!scn)
		return false;
	if ((sh.sh_flags & SHF_COMPRESSED) && (!sp_elf_inflate_ok(elf) || elf_compress(scn, 0, 0) < 0))
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return false;
	out->p = d->d_buf;
	out->size = d->d_size;
	return true;
}

/* --- tables --------------------------------------------------------------------------- */

static bool add_row(struct sp_lines *l, uint64_t addr, uint32_t file, uint32_t line)
{
	if (SP_GROW(l->rows, l->caprows, l->nrows + 1, 4096))
		return false;
	l->rows[l->nrows++] = (struct row){ addr, file, line };
	return true;
}

static bool end_seq(struct sp_lines *l)
{
	int n = l->nrows - l->seq_first;

	if (n > 0 && SP_GROW(l->seqs, l->capseqs, l->nseqs + 1, 256))
		return false;
	if (n > 0)
		l->seqs[l->nseqs++] = (struct seq){ l->rows[l->seq_first].addr, l->seq_first, n };
	l->seq_first = l->nrows;
	return true;
}

/* Lexical clean-up in place, as Go's path.Clean: "./csu/../sysdeps/x.h"
 * -> "sysdeps/x.h". ".." that cannot be resolved stays. */
void sp_lines__clean_path(char *p)
{
	bool abs = p[0] == '/';
	char *r = p, *w = p, *base;

	if (!*p)
		return; /* "" has no room for the "." written below */
	if (abs)
		*w++ = *r++;
	base = w; /* ".." never goes above this */
	while (*r) {
		size_t n = strcspn(r, "/");

		if (n == 0 || (n == 1 && r[0] == '.')) {
			/* empty or "." component: drop */
		} else if (n == 2 && r[0] == '.' && r[1] == '.' && w > base &&
			   !(w - base >= 2 && w[-1] == '.' && w[-2] == '.' &&
			     (w - base == 2 || w[-3] == '/'))) {
			while (w > base && w[-1] != '/')
				w--;
			if (w > base)
				w--; /* the '/' before the dropped component */
		} else if (!(n == 2 && r[0] == '.' && r[1] == '.' && abs && w == base)) {
			if (w > base)
				*w++ = '/';
			memmove(w, r, n);
			w += n;
		}
		r += n;
		if (*r == '/')
			r++;
	}
	if (w == p)
		*w++ = '.';
	*w = '\0';
}

/* dir + "/" + name unless name is absolute; NULL name -> "?" */
static bool add_file(struct sp_lines *l, const char *dir, const char *name)
{
	char *s;

	if (!name)
		name = "?";
	if (name[0] != '/' && dir && dir[0]) {
		size_t dl = strlen(dir), nl = strlen(name);

		s = malloc(dl + nl + 2);
		if (s) {
			memcpy(s, dir, dl);
			s[dl] = '/';
			memcpy(s + dl + 1, name, nl + 1);
		}
	} else {
		s = strdup(name);
	}
	if (!s)
		return false;
	sp_lines__clean_path(s);
	if (SP_GROW(l->files, l->capfiles, l->nfiles + 1, 64)) {
		free(s);
		return false;
	}
	l->files[l->nfiles++] = s;
	return true;
}

/* --- unit headers ---------------------------------------------------------------------- */

struct strsecs {
	struct sect str, line_str;
};

struct unit {
	int version, offsz;
	uint8_t min_inst, line_range, opcode_base;
	int8_t line_base;
	const unsigned char *std_lens;
	uint32_t file_base, nfiles;   /* this unit's files in sp_lines.files */
	struct sp_cursor prog;
};

/* One attribute value: a string (may be NULL) or a number. */
static void read_form(struct sp_cursor *c, uint64_t form, int offsz, const struct strsecs *ss,
		      const char **s, uint64_t *num)
{
	*s = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string: *s = cur_cstr(c); break;
	case DW_FORM_line_strp: *s = str_at(&ss->line_str, cur_uN(c, offsz)); break;
	case DW_FORM_strp: *s = str_at(&ss->str, cur_uN(c, offsz)); break;
	case DW_FORM_strx: case DW_FORM_udata: *num = cur_uleb(c); break;
	case DW_FORM_sdata: *num = (uint64_t)cur_sleb(c); break;
	case DW_FORM_data1: case DW_FORM_strx1: *num = cur_uN(c, 1); break;
	case DW_FORM_data2: case DW_FORM_strx2: *num = cur_uN(c, 2); break;
	case DW_FORM_strx3: *num = cur_uN(c, 3); break;
	case DW_FORM_data4: case DW_FORM_strx4: *num = cur_uN(c, 4); break;
	case DW_FORM_data8: *num = cur_uN(c, 8); break;
	case DW_FORM_data16: if (cur_need(c, 16)) c->p += 16; break;
	case DW_FORM_block: *num = cur_uleb(c); goto skip;
	case DW_FORM_block1: *num = cur_uN(c, 1); goto skip;
	case DW_FORM_block2: *num = cur_uN(c, 2); goto skip;
	case DW_FORM_block4: *num = cur_uN(c, 4); goto skip;
	default: c->bad = true; break;
	}
	return;
skip:
	if (cur_need(c, *num))
		c->p += *num;
}

#define MAX_FORMATS 16

struct entry_format {
	int n;
	uint64_t type[MAX_FORMATS], form[MAX_FORMATS];
};

static void read_formats(struct sp_cursor *c, struct entry_format *f)
{
	f->n = (int)cur_uN(c, 1);
	if (f->n > MAX_FORMATS) {
		c->bad = true;
		return;
	}
	for (int i = 0; i < f->n; i++) {
		f->type[i] = cur_uleb(c);
		f->form[i] = cur_uleb(c);
	}
}

/* One DWARF 5 directory or file entry: its path and directory index. */
static void read_entry(struct sp_cursor *c, const struct entry_format *f, int offsz,
		       const struct strsecs *ss, const char **path, uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (int i = 0; i < f->n && !c->bad; i++) {
		const char *s;
		uint64_t num;

		read_form(c, f->form[i], offsz, ss, &s, &num);
		if (f->type[i] == DW_LNCT_path)
			*path = s;
		else if (f->type[i] == DW_LNCT_directory_index)
			*dir = num;
	}
}

/* dirs[0] is the compilation directory: relative directories hang off it. */
static bool add_file_v5(struct sp_lines *l, const char **dirs, uint64_t ndirs, const char *name,
			uint64_t dir)
{
	const char *d = dir < ndirs ? dirs[dir] : NULL;
	char buf[4096];

	if (d && d[0] != '/' && dir != 0 && ndirs && dirs[0]) {
		int n = snprintf(buf, sizeof(buf), "%s/%s", dirs[0], d);

		if (n > 0 && (size_t)n < sizeof(buf))
			d = buf;
	}
	return add_file(l, d, name);
}

static void read_tables_v5(struct sp_lines *l, struct unit *u, struct sp_cursor *c,
			   const struct strsecs *ss)
{
	struct entry_format df, ff;
	uint64_t ndirs, nfiles, dir;
	const char **dirs, *path;

	read_formats(c, &df);
	ndirs = cur_uleb(c);
	if (c->bad || ndirs > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	dirs = calloc(ndirs ? ndirs : 1, sizeof(*dirs));
	if (!dirs) {
		c->bad = true;
		return;
	}
	for (uint64_t i = 0; i < ndirs && !c->bad; i++)
		read_entry(c, &df, u->offsz, ss, &dirs[i], &dir);
	read_formats(c, &ff);
	nfiles = cur_uleb(c);
	if (nfiles > (uint64_t)(c->end - c->p))
		c->bad = true;
	for (uint64_t i = 0; i < nfiles && !c->bad; i++) {
		read_entry(c, &ff, u->offsz, ss, &path, &dir);
		if (!c->bad && add_file_v5(l, dirs, ndirs, path, dir))
			u->nfiles++;
	}
	free(dirs);
}

/* DWARF 2-4: include_directories then file_names, each list ended by "". */
static void read_tables_v4(struct sp_lines *l, struct unit *u, struct sp_cursor *c)
{
	const char *dirs[256], *s;
	int ndirs = 0;

	while ((s = cur_cstr(c)) && *s)
		if (ndirs < 256)
			dirs[ndirs++] = s;
	while ((s = cur_cstr(c)) && *s) {
		uint64_t dir = cur_uleb(c);

		cur_uleb(c); /* mtime */
		cur_uleb(c); /* length */
		if (!c->bad && add_file(l, dir >= 1 && dir <= (uint64_t)ndirs ? dirs[dir - 1] : NULL, s))
			u->nfiles++;
	}
}

/* Parse the unit header at *c; on return u->prog holds its program and *c
 * points at the next unit. */
static bool read_unit(struct sp_lines *l, struct sp_cursor *c, struct unit *u,
		      const struct strsecs *ss)
{
	uint64_t len = cur_uN(c, 4), hlen;
	struct sp_cursor h;

	memset(u, 0, sizeof(*u));
	u->offsz = 4;
	if (len == 0xffffffffu) {
		len = cur_uN(c, 8);
		u->offsz = 8;
	}
	if (!cur_need(c, len) || len < 2)
		return false;
	u->prog = (struct sp_cursor){ c->p, c->p + len, false };
	c->p += len;
	u->version = (int)cur_uN(&u->prog, 2);
	if (u->version < 2 || u->version > 5)
		return false;
	if (u->version >= 5 && cur_uN(&u->prog, 1) != 8) /* address_size */
		return false;
	if (u->version >= 5)
		cur_uN(&u->prog, 1); /* segment_selector_size */
	hlen = cur_uN(&u->prog, u->offsz);
	if (!cur_need(&u->prog, hlen))
		return false;
	h = (struct sp_cursor){ u->prog.p, u->prog.p + hlen, false };
	u->prog.p += hlen;
	u->min_inst = (uint8_t)cur_uN(&h, 1);
	if (u->version >= 4)
		cur_uN(&h, 1); /* maximum_operations_per_instruction */
	cur_uN(&h, 1);         /* default_is_stmt */
	u->line_base = (int8_t)cur_uN(&h, 1);
	u->line_range = (uint8_t)cur_uN(&h, 1);
	u->opcode_base = (uint8_t)cur_uN(&h, 1);
	if (h.bad || u->line_range == 0 || u->opcode_base == 0 ||
	    !cur_need(&h, u->opcode_base - 1))
		return false;
	u->std_lens = h.p;
	h.p += u->opcode_base - 1;
	u->file_base = l->nfiles;
	if (u->version >= 5)
		read_tables_v5(l, u, &h, ss);
	else
		read_tables_v4(l, u, &h);
	return !h.bad || u->nfiles > 0;
}

/* --- the line-number program --------------------------------------------------------------- */

struct regs {
	uint64_t addr, file, line;
	bool skip;          /* sequence placed at address 0: code discarded by the linker */
};

static void regs_reset(struct regs *r)
{
	*r = (struct regs){ 0, 1, 1, false };
}

static bool emit(struct sp_lines *l, const struct unit *u, const struct regs *r, bool end)
{
	uint64_t idx = u->version >= 5 ? r->file : r->file - 1;
	uint32_t file = idx < u->nfiles ? u->file_base + (uint32_t)idx : UINT32_MAX;

	uint32_t line = end ? 0 : (uint32_t)(r->line ? r->line : 1);
	const struct row *prev = l->nrows > l->seq_first ? &l->rows[l->nrows - 1] : NULL;

	if (r->skip)
		return true;
	if (prev && !end && prev->file == file && prev->line == line)
		return true; /* same position: the previous row already covers it */
	if (!add_row(l, r->addr, file, line))
		return false;
	return !end || end_seq(l);
}

static bool extended_op(struct sp_lines *l, const struct unit *u, struct sp_cursor *c,
			struct regs *r)
{
	uint64_t len = cur_uleb(c);
	const unsigned char *next;
	int sub;

	if (!cur_need(c, len) || len == 0)
		return false;
	next = c->p + len;
	sub = (int)cur_uN(c, 1);
	if (sub == DW_LNE_end_sequence) {
		if (!emit(l, u, r, true))
			return false;
		regs_reset(r);
	} else if (sub == DW_LNE_set_address && len - 1 <= 8) {
		r->addr = cur_uN(c, (int)(len - 1));
		r->skip = r->addr == 0;
	}
	c->p = next;
	return true;
}

static bool standard_op(const struct unit *u, struct sp_cursor *c, struct regs *r, int op)
{
	switch (op) {
	case DW_LNS_advance_pc: r->addr += cur_uleb(c) * u->min_inst; break;
	case DW_LNS_advance_line: r->line += (uint64_t)cur_sleb(c); break;
	case DW_LNS_set_file: r->file = cur_uleb(c); break;
	case DW_LNS_const_add_pc:
		r->addr += (uint64_t)((255 - u->opcode_base) / u->line_range) * u->min_inst;
		break;
	case DW_LNS_fixed_advance_pc: r->addr += cur_uN(c, 2); break;
	case DW_LNS_negate_stmt: case DW_LNS_set_basic_block: break;
	default: /* set_column and anything newer: skip its operands */
		for (int i = 0; i < u->std_lens[op - 1]; i++)
			cur_uleb(c);
		break;
	}
	return !c->bad;
}

static bool run_program(struct sp_lines *l, const struct unit *u)
{
	struct sp_cursor c = u->prog;
	struct regs r;

	regs_reset(&r);
	l->seq_first = l->nrows;
	while (c.p < c.end && !c.bad) {
		int op = (int)cur_uN(&c, 1);

		if (op >= u->opcode_base) {
			int adj = op - u->opcode_base;

			r.addr += (uint64_t)(adj / u->line_range) * u->min_inst;
			r.line += (int64_t)u->line_base + adj % u->line_range;
			if (!emit(l, u, &r, false))
				return false;
		} else if (op == 0) {
			if (!extended_op(l, u, &c, &r))
				return false;
		} else if (op == DW_LNS_copy) {
			if (!emit(l, u, &r, false))
				return false;
		} else if (!standard_op(u, &c, &r, op)) {
			return false;
		}
	}
	l->nrows = l->seq_first; /* drop an unterminated sequence */
	return !c.bad;
}

/* --- table --------------------------------------------------------------------------------- */

static int seq_cmp(const void *pa, const void *pb)
{
	const struct seq *a = pa, *b = pb;

	if (a->addr != b->addr)
		return (a->addr > b->addr) - (a->addr < b->addr);
	return (a->first > b->first) - (a->first < b->first);
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* Rows in address order: sequences sorted and laid end to end; a full sort
 * only when sequences overlap (then ties are in no particular order). */
static bool order_rows(struct sp_lines *l)
{
	struct row *sorted = malloc((l->nrows ? l->nrows : 1) * sizeof(*sorted));
	int n = 0;
	bool ordered = true;

	if (!sorted)
		return false;
	if (l->nseqs)
		qsort(l->seqs, l->nseqs, sizeof(*l->seqs), seq_cmp);
	for (int i = 0; i < l->nseqs; i++) {
		const struct seq *q = &l->seqs[i];

		if (n > 0 && sorted[n - 1].addr > q->addr)
			ordered = false;
		memcpy(&sorted[n], &l->rows[q->first], q->n * sizeof(*sorted));
		n += q->n;
	}
	free(l->rows);
	l->rows = sorted;
	l->nrows = n;
	if (!ordered)
		qsort(l->rows, l->nrows, sizeof(*l->rows), row_cmp);
	free(l->seqs);
	l->seqs = NULL;
	l->nseqs = l->capseqs = 0;
	return true;
}

struct sp_lines *sp_lines__load(Elf *elf)
{
	struct sp_lines *l;
	struct sect dl;
	struct strsecs ss;
	struct sp_cursor c;
	struct unit u;

	if (!elf || !get_section(elf, ".debug_line", &dl))
		return NULL;
	get_section(elf, ".debug_str", &ss.str);
	get_section(elf, ".debug_line_str", &ss.line_str);
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	c = (struct sp_cursor){ dl.p, dl.p + dl.size, false };
	while (c.p < c.end && read_unit(l, &c, &u, &ss))
		if (!run_program(l, &u) && u.prog.bad)
			break;
	if (l->nrows == 0 || !order_rows(l)) {
		sp_lines__free(l);
		return NULL;
	}
	return l;
}

bool sp_lines__find(const struct sp_lines *l, uint64_t vaddr, const char **file, int *line)
{
	long i = SP_FLOOR(l->rows, l->nrows, addr, vaddr);
	const struct row *r;

	if (i < 0)
		return false;
	r = &l->rows[i];
	if (r->line == 0 || r->file >= (uint32_t)l->nfiles)
		return false;
	*file = l->files[r->file];
	*line = (int)r->line;
	return true;
}

void sp_lines__free(struct sp_lines *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nfiles; i++)
		free(l->files[i]);
	free(l->files);
	free(l->rows);
	free(l->seqs);
	free(l);
}
