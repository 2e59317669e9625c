/* runtime/elf/usdt_notes.c: read .note.stapsdt (see usdt_notes.h).
 *
 * Note layout (SystemTap SDT v3, note type 3, owner "stapsdt"):
 *     u64 pc, u64 base, u64 semaphore, "provider\0name\0args\0"
 * When the file was prelinked, .stapsdt.base moved and every pc and
 * semaphore moves by the same amount: pc += sh_addr(.stapsdt.base) - base.
 */
#include "runtime/elf/usdt_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/elf/file.h"
#include "runtime/elf/funcs.h"

#define STAPSDT_NOTE_TYPE 3

static void note_free(struct sp_usdt_note *n)
{
	free(n->provider);
	free(n->name);
	free(n->args);
}

static int count_args(const char *s)
{
	int n = 0;

	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n++;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

int sp_usdt_note_parse(const void *desc, uint32_t len, struct sp_usdt_note *out)
{
	const char *p = desc, *end = p + len, *prov, *name, *args;

	memset(out, 0, sizeof(*out));
	if (len < 24 + 3)
		return -EINVAL;
	memcpy(&out->pc, p, 8);
	memcpy(&out->semaphore, p + 16, 8);
	prov = p + 24;
	name = memchr(prov, 0, end - prov);
	if (!name || ++name >= end) /* no ++ on NULL: undefined */
		return -EINVAL;
	args = memchr(name, 0, end - name);
	if (!args)
		return -EINVAL;
	args++;
	if (args >= end || !memchr(args, 0, end - args))
		args = "";
	out->provider = strdup(prov);
	out->name = strdup(name);
	out->args = strdup(args);
	if (!out->provider || !out->name || !out->args) {
		note_free(out);
		return -ENOMEM;
	}
	out->nargs = count_args(out->args);
	return 0;
}

static int notes_push(struct sp_usdt_notes *u, const struct sp_usdt_note *n)
{
	struct sp_usdt_note *nv = realloc(u->v, (u->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	u->v = nv;
	nv[u->n++] = *n;
	return 0;
}

static int read_notes(struct sp_usdt_notes *u, Elf_Scn *scn, int64_t adjust)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		struct sp_usdt_note n;
		const char *owner = (const char *)d->d_buf + name_off;

		if (nh.n_type != STAPSDT_NOTE_TYPE || nh.n_namesz != 8 ||
		    memcmp(owner, "stapsdt", 8) != 0)
			continue;
		if (sp_usdt_note_parse((const char *)d->d_buf + desc_off, nh.n_descsz, &n))
			continue;
		n.pc += adjust;
		if (n.semaphore)
			n.semaphore += adjust;
		err = notes_push(u, &n);
		if (err)
			note_free(&n);
	}
	return err;
}

/* sh_addr(.stapsdt.base) - the base recorded in the notes (read from the first note). */
static int64_t base_adjust(Elf_Scn *notes, uint64_t base_addr)
{
	Elf_Data *d = elf_getdata(notes, NULL);
	size_t name_off, desc_off;
	GElf_Nhdr nh;
	uint64_t base;

	if (!d || !base_addr || gelf_getnote(d, 0, &nh, &name_off, &desc_off) == 0 ||
	    nh.n_descsz < 16)
		return 0;
	memcpy(&base, (const char *)d->d_buf + desc_off + 8, 8);
	return (int64_t)(base_addr - base);
}

static int load_from_elf(struct sp_usdt_notes *u, Elf *elf)
{
	Elf_Scn *scn = NULL, *notes = NULL;
	uint64_t base_addr = 0;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (sh.sh_type == SHT_NOTE && strcmp(name, ".note.stapsdt") == 0)
			notes = scn;
		else if (strcmp(name, ".stapsdt.base") == 0)
			base_addr = sh.sh_addr;
	}
	if (!notes)
		return 0;
	return read_notes(u, notes, base_adjust(notes, base_addr));
}

int sp_usdt_notes__load(struct sp_usdt_notes *u, const char *path)
{
	Elf *elf;
	int fd, err;

	memset(u, 0, sizeof(*u));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = sp_file_open(path, SP_FILE_ELF_MAX);
	if (fd < 0)
		return fd == -EINVAL ? -ENOEXEC : fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	else
		err = load_from_elf(u, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	if (err)
		sp_usdt_notes__free(u);
	return err;
}

void sp_usdt_notes__free(struct sp_usdt_notes *u)
{
	int i;

	for (i = 0; i < u->n; i++)
		note_free(&u->v[i]);
	free(u->v);
	memset(u, 0, sizeof(*u));
}

/* --- argument specs -> struct sp_usdt_spec ----------------------------------- */

static const struct {
	const char *names[4]; /* 64, 32, 16, 8-bit names */
	int16_t off;          /* in struct pt_regs */
} regs[] = {
	{ { "rax", "eax", "ax", "al" }, 80 },    { { "rbx", "ebx", "bx", "bl" }, 40 },
	{ { "rcx", "ecx", "cx", "cl" }, 88 },    { { "rdx", "edx", "dx", "dl" }, 96 },
	{ { "rsi", "esi", "si", "sil" }, 104 },  { { "rdi", "edi", "di", "dil" }, 112 },
	{ { "rbp", "ebp", "bp", "bpl" }, 32 },   { { "rsp", "esp", "sp", "spl" }, 152 },
	{ { "r8", "r8d", "r8w", "r8b" }, 72 },   { { "r9", "r9d", "r9w", "r9b" }, 64 },
	{ { "r10", "r10d", "r10w", "r10b" }, 56 }, { { "r11", "r11d", "r11w", "r11b" }, 48 },
	{ { "r12", "r12d", "r12w", "r12b" }, 24 }, { { "r13", "r13d", "r13w", "r13b" }, 16 },
	{ { "r14", "r14d", "r14w", "r14b" }, 8 },  { { "r15", "r15d", "r15w", "r15b" }, 0 },
	{ { "rip", "eip", "ip", NULL }, SP_PT_REGS_IP },
};

/* "%eax" -> offsetof(struct pt_regs, rax); -1 when unknown. */
static int reg_offset(const char *s, size_t len)
{
	size_t i, j;

	if (len < 2 || s[0] != '%')
		return -1;
	s++;
	len--;
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (j = 0; j < 4; j++)
			if (regs[i].names[j] && strlen(regs[i].names[j]) == len &&
			    !strncmp(regs[i].names[j], s, len))
				return regs[i].off;
	return -1;
}

static bool is_sym_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
	       (!first && ((c >= '0' && c <= '9') || c == '$' || c == '@'));
}

/* "4+arr", "arr-8", "-20", "" -> number sum and at most one symbol. */
static int parse_disp(const char *s, const char *end, int64_t *num, char *sym, size_t symlen)
{
	int sign = 1;

	*num = 0;
	sym[0] = '\0';
	while (s < end) {
		if (*s == '+' || *s == '-') {
			sign = *s++ == '-' ? -1 : 1;
			continue;
		}
		if (is_sym_char(*s, true)) {
			const char *b = s;

			while (s < end && is_sym_char(*s, false))
				s++;
			if (sym[0] || sign < 0 || (size_t)(s - b) >= symlen)
				return -EINVAL;
			memcpy(sym, b, s - b);
			sym[s - b] = '\0';
			continue;
		}
		{
			char *e;
			long long v = strtoll(s, &e, 0);

			if (e == s || e > end)
				return -EINVAL;
			*num += sign * v;
			s = e;
			sign = 1;
		}
	}
	return 0;
}

/* "(%rbp)", "(%rdx,%rax,4)", "(,%rax,8)": base, index, scale. */
static int parse_regs(const char *s, const char *end, struct sp_usdt_arg *a)
{
	const char *c1 = memchr(s, ',', end - s), *c2;

	a->reg_off = -1;
	a->idx_off = -1;
	a->scale = 1;
	if (!c1) {
		a->reg_off = (int16_t)reg_offset(s, end - s);
		return a->reg_off < 0 ? -EINVAL : 0;
	}
	if (c1 > s && (a->reg_off = (int16_t)reg_offset(s, c1 - s)) < 0)
		return -EINVAL;
	c2 = memchr(c1 + 1, ',', end - c1 - 1);
	a->idx_off = (int16_t)reg_offset(c1 + 1, (c2 ? c2 : end) - c1 - 1);
	if (a->idx_off < 0)
		return -EINVAL;
	if (c2)
		a->scale = (uint8_t)strtoul(c2 + 1, NULL, 10);
	return a->scale == 1 || a->scale == 2 || a->scale == 4 || a->scale == 8 ? 0 : -EINVAL;
}

static int parse_mem(const char *op, const char *path, uint64_t pc, struct sp_usdt_arg *a)
{
	const char *open = strchr(op, '('), *close = open ? strchr(open, ')') : NULL;
	const char *end = op + strlen(op);
	char sym[256];
	uint64_t addr;
	int64_t num;
	int err;

	if (open && (!close || close[1]))
		return -EINVAL;
	err = parse_disp(op, open ? open : end, &num, sym, sizeof(sym));
	if (!err && open)
		err = parse_regs(open + 1, close, a);
	else if (!err)
		a->reg_off = a->idx_off = -1;
	if (err)
		return err;
	a->kind = SP_USDT_MEM;
	a->val_off = num;
	if (!sym[0])
		return 0;
	if (sp_elf_symbol_vaddr(path, sym, &addr))
		return -ENOENT;
	if (a->reg_off == SP_PT_REGS_IP && a->idx_off < 0) {
		a->kind = SP_USDT_IPREL; /* position independent: relative to the site */
		a->val_off = (int64_t)(addr - pc) + num;
		a->reg_off = -1;
	} else {
		a->val_off = (int64_t)addr + num; /* absolute: non-PIE executables */
	}
	return 0;
}

/* One "SIZE@OPERAND" token. */
static int parse_arg(const char *tok, const char *path, uint64_t pc, struct sp_usdt_arg *a)
{
	const char *at = strchr(tok, '@'), *op = at ? at + 1 : tok;
	long size = at ? strtol(tok, NULL, 10) : 8;

	memset(a, 0, sizeof(*a));
	a->is_signed = size < 0;
	size = size < 0 ? -size : size;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -EINVAL;
	a->size = (uint8_t)size;
	a->reg_off = a->idx_off = -1;
	if (!*op)
		return -EINVAL;
	if (*op == '$') {
		char *e;

		a->kind = SP_USDT_CONST;
		a->val_off = strtoll(op + 1, &e, 0);
		return *e || e == op + 1 ? -EINVAL : 0;
	}
	if (*op == '%') {
		a->kind = SP_USDT_REG;
		a->reg_off = (int16_t)reg_offset(op, strlen(op));
		return a->reg_off < 0 ? -EINVAL : 0;
	}
	return parse_mem(op, path, pc, a);
}

int sp_usdt_spec_parse(const char *args, const char *path, uint64_t pc,
		       struct sp_usdt_spec *out, char *bad, size_t badlen)
{
	char *copy = strdup(args), *tok, *save = NULL;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " ", &save); tok && !err; tok = strtok_r(NULL, " ", &save)) {
		if (out->nargs == SP_USDT_MAX_ARGS)
			err = -E2BIG;
		else
			err = parse_arg(tok, path, pc, &out->args[out->nargs++]);
		if (err && bad)
			snprintf(bad, badlen, "%s", tok);
	}
	free(copy);
	return err;
}
