/* runtime/elf/bpf_disasm.c: a small BPF disassembler for `-d bpf` (disasm.h).
 *
 * The instruction set is small enough to print by hand: eight classes,
 * each with an operation and a source in the opcode byte. The notation is
 * the kernel verifier's (kernel/bpf/disasm.c), so `-d bpf` and
 * `-d verifier` read alike. Sections, symbols and map relocations come from
 * libelf; the source lines from the .BTF.ext line info records that LLVM
 * writes for every program section (the same records the kernel prints as
 * "; source @ file:line" in verifier logs).
 */
#define _GNU_SOURCE /* strchrnul */
#include "base/log.h"
#include "runtime/elf/bpf_disasm.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MODE_MEMSX 0x80 /* sign-extending load (cpu v4), not in older uapi headers */

#define HELPER_NAME(x) #x /* the mapper puts the commas */
static const char *const helper_names[] = { __BPF_FUNC_MAPPER(HELPER_NAME) };
#undef HELPER_NAME

/* One line info record, as in struct bpf_line_info. */
struct linfo {
	uint32_t insn_off; /* bytes from the section start */
	uint32_t file_off; /* .BTF strings */
	uint32_t line_off;
	uint32_t line_col; /* line << 10 | column */
};

struct dis {
	FILE *out;
	Elf *elf;
	size_t shstrndx;
	Elf_Scn *symtab;
	const char *btf_str;   /* .BTF string section */
	uint32_t btf_str_len;
	const uint8_t *ext;    /* .BTF.ext line info subsection */
	uint32_t ext_len;
	const char *src_name;  /* the script, for lines the object has no text for */
	const char *src_text;
};

static const char *size_name(int code)
{
	static const char *const names[] = { "u32", "u16", "u8", "u64" };

	return names[(code & 0x18) >> 3];
}

static const char *alu_op(int op)
{
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_MOD: return "%=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	case BPF_ARSH: return "s>>=";
	default: return "?=";
	}
}

static const char *jmp_op(int op)
{
	switch (op) {
	case BPF_JEQ: return "==";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JSET: return "&";
	case BPF_JNE: return "!=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	default: return "?";
	}
}

static void print_alu(struct dis *d, const struct bpf_insn *i)
{
	char r = BPF_CLASS(i->code) == BPF_ALU64 ? 'r' : 'w';
	int op = BPF_OP(i->code);

	if (op == BPF_NEG) {
		fprintf(d->out, "%c%d = -%c%d", r, i->dst_reg, r, i->dst_reg);
	} else if (op == BPF_END) {
		fprintf(d->out, "r%d = %s%d r%d", i->dst_reg,
			r == 'r' ? "bswap" : BPF_SRC(i->code) == BPF_TO_BE ? "be" : "le", i->imm,
			i->dst_reg);
	} else {
		const char *s = op == BPF_MOV && i->off ? "s" : ""; /* movsx, sdiv, smod */

		if (BPF_SRC(i->code) == BPF_X)
			fprintf(d->out, "%c%d %s%s %c%d", r, i->dst_reg, s, alu_op(op), r, i->src_reg);
		else
			fprintf(d->out, "%c%d %s%s %d", r, i->dst_reg, s, alu_op(op), i->imm);
	}
}

static void print_atomic(struct dis *d, const struct bpf_insn *i)
{
	const char *sz = size_name(i->code);

	if (i->imm == BPF_XCHG)
		fprintf(d->out, "r%d = atomic_xchg((%s *)(r%d %+d), r%d)", i->src_reg, sz,
			i->dst_reg, i->off, i->src_reg);
	else if (i->imm == BPF_CMPXCHG)
		fprintf(d->out, "r0 = atomic_cmpxchg((%s *)(r%d %+d), r0, r%d)", sz, i->dst_reg,
			i->off, i->src_reg);
	else if (i->imm & BPF_FETCH)
		fprintf(d->out, "r%d = atomic_fetch_%s((%s *)(r%d %+d), r%d)", i->src_reg,
			alu_op(i->imm & ~BPF_FETCH), sz, i->dst_reg, i->off, i->src_reg);
	else
		fprintf(d->out, "lock *(%s *)(r%d %+d) %s r%d", sz, i->dst_reg, i->off,
			alu_op(i->imm), i->src_reg);
}

static void print_mem(struct dis *d, const struct bpf_insn *i)
{
	int mode = BPF_MODE(i->code);

	switch (BPF_CLASS(i->code)) {
	case BPF_LDX:
		fprintf(d->out, "r%d = *(%s%s *)(r%d %+d)", i->dst_reg,
			mode == MODE_MEMSX ? "s" : "", size_name(i->code) + (mode == MODE_MEMSX),
			i->src_reg, i->off);
		break;
	case BPF_ST:
		fprintf(d->out, "*(%s *)(r%d %+d) = %d", size_name(i->code), i->dst_reg, i->off,
			i->imm);
		break;
	case BPF_STX:
		if (mode == BPF_ATOMIC)
			print_atomic(d, i);
		else
			fprintf(d->out, "*(%s *)(r%d %+d) = r%d", size_name(i->code), i->dst_reg,
				i->off, i->src_reg);
		break;
	default: /* BPF_LD: legacy packet access */
		fprintf(d->out, "r0 = *(%s *)skb[%s%d]", size_name(i->code),
			mode == BPF_IND ? "r" : "", mode == BPF_IND ? i->src_reg : i->imm);
	}
}

static void print_call(struct dis *d, const struct bpf_insn *i, const char *reloc)
{
	if (i->src_reg == BPF_PSEUDO_CALL)
		fprintf(d->out, "call pc%+d%s%s", i->imm, reloc ? " ; " : "", reloc ? reloc : "");
	else if (i->src_reg == BPF_PSEUDO_KFUNC_CALL)
		fprintf(d->out, "call kernel-function %s", reloc ? reloc : "?");
	else if (i->imm >= 0 && (size_t)i->imm < sizeof(helper_names) / sizeof(helper_names[0]))
		fprintf(d->out, "call bpf_%s#%d", helper_names[i->imm], i->imm);
	else
		fprintf(d->out, "call #%d", i->imm);
}

static void print_jmp(struct dis *d, const struct bpf_insn *i, const char *reloc)
{
	char r = BPF_CLASS(i->code) == BPF_JMP32 ? 'w' : 'r';
	int op = BPF_OP(i->code);

	if (op == BPF_CALL)
		print_call(d, i, reloc);
	else if (op == BPF_EXIT)
		fprintf(d->out, "exit");
	else if (op == BPF_JA)
		fprintf(d->out, "goto pc%+d", r == 'w' ? i->imm : i->off);
	else if (BPF_SRC(i->code) == BPF_X)
		fprintf(d->out, "if %c%d %s %c%d goto pc%+d", r, i->dst_reg, jmp_op(op), r,
			i->src_reg, i->off);
	else
		fprintf(d->out, "if %c%d %s %d goto pc%+d", r, i->dst_reg, jmp_op(op), i->imm,
			i->off);
}

/* Prints instruction n (two slots for a 64-bit immediate); returns the
 * number of slots it took. */
static int print_insn(struct dis *d, const struct bpf_insn *i, size_t n, size_t left,
		      const char *reloc)
{
	fprintf(d->out, "%5zu: (%02x) ", n, i->code);
	if (i->code == (BPF_LD | BPF_DW | BPF_IMM) && left >= 2) {
		uint64_t v = (uint32_t)i[0].imm | (uint64_t)(uint32_t)i[1].imm << 32;

		if (reloc)
			fprintf(d->out, "r%d = %s%s%s ll\n", i->dst_reg,
				i->src_reg == BPF_PSEUDO_MAP_VALUE ? "&" : "map[", reloc,
				i->src_reg == BPF_PSEUDO_MAP_VALUE ? "" : "]");
		else
			fprintf(d->out, "r%d = 0x%llx ll\n", i->dst_reg, (unsigned long long)v);
		return 2;
	}
	switch (BPF_CLASS(i->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		print_alu(d, i);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		print_jmp(d, i, reloc);
		break;
	default:
		print_mem(d, i);
	}
	fputc('\n', d->out);
	return 1;
}

static const char *btf_str(const struct dis *d, uint32_t off)
{
	return d->btf_str && off < d->btf_str_len ? d->btf_str + off : "";
}

/* The line info records of section `name`, or NULL. */
static const struct linfo *section_linfo(const struct dis *d, const char *name, uint32_t *n,
					 uint32_t *rec)
{
	uint32_t off = 4;

	if (!d->ext || d->ext_len < 4)
		return NULL;
	memcpy(rec, d->ext, 4);
	if (*rec < sizeof(struct linfo))
		return NULL;
	while (off + 8 <= d->ext_len) {
		uint32_t sec, cnt;

		memcpy(&sec, d->ext + off, 4);
		memcpy(&cnt, d->ext + off + 4, 4);
		off += 8;
		if ((uint64_t)cnt * *rec > d->ext_len - off)
			return NULL;
		if (!strcmp(btf_str(d, sec), name)) {
			*n = cnt;
			return (const struct linfo *)(d->ext + off);
		}
		off += cnt * *rec;
	}
	return NULL;
}

static Elf_Data *section_data(Elf_Scn *s)
{
	return s ? elf_getdata(s, NULL) : NULL;
}

/* Finds .BTF's strings and .BTF.ext's line info. */
static void load_btf(struct dis *d)
{
	Elf_Scn *s = NULL;

	while ((s = elf_nextscn(d->elf, s))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;
		uint32_t w[8];

		if (!gelf_getshdr(s, &sh) || !(name = elf_strptr(d->elf, d->shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			d->symtab = s;
		data = section_data(s);
		if (!data || !data->d_buf || data->d_size < sizeof(w))
			continue;
		memcpy(w, data->d_buf, sizeof(w));
		/* .BTF: magic/version/flags, hdr_len, type_off, type_len, str_off, str_len */
		if (!strcmp(name, ".BTF") && (uint64_t)w[1] + w[4] + w[5] <= data->d_size) {
			d->btf_str = (const char *)data->d_buf + w[1] + w[4];
			d->btf_str_len = w[5];
		}
		/* .BTF.ext: ..., hdr_len, func_info off/len, line_info off/len */
		if (!strcmp(name, ".BTF.ext") && (uint64_t)w[1] + w[4] + w[5] <= data->d_size) {
			d->ext = (const uint8_t *)data->d_buf + w[1] + w[4];
			d->ext_len = w[5];
		}
	}
}

static const char *sym_name(const struct dis *d, size_t idx, GElf_Sym *sym)
{
	GElf_Shdr sh;
	Elf_Data *data = section_data(d->symtab);

	if (!data || !gelf_getsym(data, (int)idx, sym) || !gelf_getshdr(d->symtab, &sh))
		return NULL;
	return elf_strptr(d->elf, sh.sh_link, sym->st_name);
}

/* The symbol a relocation at byte `off` of section index `shndx` names. */
static const char *reloc_at(const struct dis *d, size_t shndx, uint64_t off)
{
	Elf_Scn *s = NULL;

	while ((s = elf_nextscn(d->elf, s))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_REL || sh.sh_info != shndx ||
		    !(data = section_data(s)))
			continue;
		for (size_t k = 0; k < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 16); k++) {
			GElf_Rel r;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrel(data, (int)k, &r) || r.r_offset != off)
				continue;
			name = sym_name(d, GELF_R_SYM(r.r_info), &sym);
			if (name && !*name && GELF_ST_TYPE(sym.st_info) == STT_SECTION)
				name = elf_strptr(d->elf, d->shstrndx,
						  (elf_getscn(d->elf, sym.st_shndx) &&
						   gelf_getshdr(elf_getscn(d->elf, sym.st_shndx), &sh)) ?
							  sh.sh_name : 0);
			return name;
		}
	}
	return NULL;
}

/* A function symbol starting at instruction n of section shndx: its name. */
static const char *func_at(const struct dis *d, size_t shndx, size_t n)
{
	Elf_Data *data = section_data(d->symtab);
	GElf_Shdr sh;

	if (!data || !gelf_getshdr(d->symtab, &sh))
		return NULL;
	for (size_t k = 0; k < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 24); k++) {
		GElf_Sym sym;
		const char *name = sym_name(d, k, &sym);

		if (name && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx == shndx &&
		    sym.st_value == n * sizeof(struct bpf_insn))
			return name;
	}
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Line `line` of the script when `file` names it (the object keeps no text
 * for programs compiled from memory), else "". */
static const char *script_line(const struct dis *d, const char *file, uint32_t line, int *len)
{
	*len = 0;
	if (!d->src_text || !d->src_name || strcmp(base_name(file), base_name(d->src_name)))
		return "";
	return sp_text_line(d->src_text, line, len);
}

const char *sp_text_line(const char *text, uint32_t line, int *len)
{
	const char *p = text;

	*len = 0;
	for (uint32_t l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return "";
	while (*p == ' ' || *p == '\t')
		p++;
	*len = (int)(strchrnul(p, '\n') - p);
	return p;
}

static void print_line(struct dis *d, const struct linfo *li, uint32_t *last_line,
		       uint32_t *last_file)
{
	const char *file = btf_str(d, li->file_off), *text = btf_str(d, li->line_off);
	uint32_t line = li->line_col >> 10;
	int len = (int)strlen(text);

	if (line == *last_line && li->file_off == *last_file)
		return;
	*last_line = line;
	*last_file = li->file_off;
	while (*text == ' ' || *text == '\t')
		text++, len--;
	if (!*text)
		text = script_line(d, file, line, &len);
	fprintf(d->out, "; %.*s @ %s:%u:%u\n", len, text, base_name(file), line,
		li->line_col & 0x3ff);
}

static void disasm_section(struct dis *d, Elf_Scn *s, const char *name)
{
	Elf_Data *data = section_data(s);
	size_t shndx = elf_ndxscn(s), n = 0, count;
	const struct bpf_insn *insn;
	const struct linfo *li;
	uint32_t nli = 0, rec = 0, k = 0, last_line = 0, last_file = 0;

	if (!data || !data->d_buf || data->d_size < sizeof(*insn))
		return;
	insn = data->d_buf;
	count = data->d_size / sizeof(*insn);
	li = section_linfo(d, name, &nli, &rec);
	fprintf(d->out, "section %s: %zu instructions\n", name, count);
	while (n < count) {
		const char *fn = func_at(d, shndx, n);

		if (fn)
			fprintf(d->out, "%s:\n", fn);
		while (li && k < nli) {
			const struct linfo *l = (const void *)((const uint8_t *)li + (size_t)k * rec);

			if (l->insn_off > n * sizeof(*insn))
				break;
			print_line(d, l, &last_line, &last_file);
			k++;
		}
		n += (size_t)print_insn(d, insn + n, n, count - n,
					reloc_at(d, shndx, n * sizeof(*insn)));
	}
	fputc('\n', d->out);
}

int sp_bpf_disasm(FILE *out, const void *obj, size_t len, const char *src_name,
		  const char *src_text)
{
	struct dis d = { .out = out, .src_name = src_name, .src_text = src_text };
	Elf_Scn *s = NULL;
	GElf_Ehdr eh;

	elf_version(EV_CURRENT);
	d.elf = elf_memory((char *)obj, len);
	if (!d.elf || !gelf_getehdr(d.elf, &eh) || eh.e_machine != EM_BPF ||
	    elf_getshdrstrndx(d.elf, &d.shstrndx)) {
		sp_err("-d bpf: not a BPF object\n");
		if (d.elf)
			elf_end(d.elf);
		return -EINVAL;
	}
	load_btf(&d);
	while ((s = elf_nextscn(d.elf, s))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size &&
		    (name = elf_strptr(d.elf, d.shstrndx, sh.sh_name)))
			disasm_section(&d, s, name);
	}
	elf_end(d.elf);
	return 0;
}
