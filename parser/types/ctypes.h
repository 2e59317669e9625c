/* parser/types/ctypes.h: the C types a script can name (struct, union, enum,
 * #define), from its own definitions or from the kernel's BTF.
 *
 * One registry per compile (struct sp_ctypes, hung off the PROGRAM node),
 * living in the compile arena. Records are looked up by tag; a record named
 * before it is defined (or only known to BTF) is created incomplete and
 * completed on first use: from a later script definition, or from
 * /sys/kernel/btf/vmlinux. Constants are #define values and enumerators;
 * the lexer turns a use of one into a literal.
 *
 * Layout is the x86-64 System V one (natural alignment, bitfields packed
 * into storage units of their declared type), or byte-packed with
 * __attribute__((packed)). Bitfields are stored normalized: `offset` is the
 * byte holding the first bit, `bit_off` (0..7) the bit in it, `bit_size`
 * the width; codegen reads the smallest 1/2/4/8-byte word covering them.
 */
#ifndef SPROF_PARSER_TYPES_CTYPES_H
#define SPROF_PARSER_TYPES_CTYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/base/source.h" /* struct sp_span */
#include "parser/types/types.h"

struct sp_arena;
struct sp_diag;
struct sp_cparam;
struct btf;

struct sp_cfield {
	const char *name;    /* NULL: an anonymous struct/union member */
	struct sp_type *type;
	uint32_t offset;     /* bytes from the start of the record */
	uint8_t bit_off;     /* bitfields: first bit in the byte at offset */
	uint8_t bit_size;    /* 0: not a bitfield */
};

struct sp_record {
	const char *name;    /* tag; "" when anonymous */
	bool is_union;
	bool complete;
	bool packed;
	uint32_t size, align;
	int nfields;
	struct sp_cfield *fields;
	int btf_id;          /* > 0: completed from BTF on demand */
	bool filling;        /* being converted from DWARF (a pointer back to it) */
	struct sp_span def;  /* where the script defined it (begin == end: not) */
	struct sp_record *next;
};

struct sp_cconst {
	const char *name;
	int64_t value;
	const char *str;     /* string #define: the text (value unused) */
	uint32_t len;
	const char *enum_fmt; /* an enumerator: its enum's type fmt (types.h sp_type_enum) */
	struct sp_cconst *next;
};

struct sp_ctypedef {
	const char *name;
	struct sp_type *type;
	struct sp_ctypedef *next;
};

struct sp_ctypes {
	struct sp_arena *a;
	struct sp_record *records;
	struct sp_cconst *consts;
	struct sp_ctypedef *typedefs;
	struct btf *btf;     /* vmlinux BTF, loaded on first need */
	bool btf_tried;
	bool no_btf;         /* tests: never load BTF */
	/* the last DWARF lookup (ctypes_dwarf.c), reused while sema asks again */
	const char *dw_binary, *dw_func;
	struct sp_cparam *dw_params;
	int dw_n, dw_err;
};

struct sp_ctypes *sp_ctypes_new(struct sp_arena *a);
/* The record with this tag (struct or union), created incomplete when new. */
struct sp_record *sp_ctypes_record(struct sp_ctypes *ct, const char *name, bool is_union);
/* Completes r from BTF when it is not defined yet; true when complete. */
bool sp_ctypes_complete(struct sp_ctypes *ct, struct sp_record *r);
/* Field `name` of r, looking into anonymous members; *off gets its offset
 * from the start of r. NULL when r has no such field. */
const struct sp_cfield *sp_record_field(struct sp_ctypes *ct, struct sp_record *r,
					const char *name, uint32_t *off);
/* Field names of r (anonymous members flattened) for "did you mean". */
int sp_record_field_names(struct sp_ctypes *ct, struct sp_record *r, const char **out, int max);
/* "struct foo" / "union bar". */
const char *sp_record_kind(const struct sp_record *r);

struct sp_cconst *sp_ctypes_const(struct sp_ctypes *ct, const char *name);
void sp_ctypes_define(struct sp_ctypes *ct, const char *name, int64_t v, const char *str,
		      uint32_t len);
void sp_ctypes_undef(struct sp_ctypes *ct, const char *name);
/* Enums a script defines: the enumerators are constants that carry the
 * enum's fmt; a named enum's fmt is also kept for `(enum NAME)x` (NULL:
 * no such enum in the script). */
void sp_ctypes_define_enum(struct sp_ctypes *ct, const char *name, const char *fmt);
const char *sp_ctypes_enum(struct sp_ctypes *ct, const char *name);

/* ctypes_btf.c: BTF is loaded on first need and freed by release (the
 * records converted so far stay valid; a later need loads it again). The
 * parser and sema each release it when they finish. */
bool sp_ctypes_have_btf(struct sp_ctypes *ct);
/* Whether the kernel's BTF has a struct (or union) of that name. */
bool sp_ctypes_btf_has_record(struct sp_ctypes *ct, const char *name, bool is_union);
bool sp_ctypes_btf_enum(struct sp_ctypes *ct, const char *name, int64_t *v);
void sp_ctypes_release(struct sp_ctypes *ct); /* accepts NULL */

/* ctypes_dwarf.c: the parameters of `func` in `binary`'s debug info, in
 * order. 0, -ENOENT (no such function in the debug info), -ENODATA (no
 * debug info), or -errno. */
struct sp_cparam {
	const char *name;
	struct sp_type *type;
	char ctype[96];      /* as C spells it: "struct foo*" */
	int reg;             /* its argument register (arg0..arg5), -1: not in one */
};
int sp_ctypes_dwarf_params(struct sp_ctypes *ct, const char *binary, const char *func,
			   struct sp_cparam **out, int *n);
/* ctypes_btf.c: a raw tracepoint's arguments (__bpf_trace_EVENT), reg = the
 * index in the raw context. 0, -ENOENT, -ENODATA (no BTF). */
int sp_ctypes_btf_rawtp_params(struct sp_ctypes *ct, const char *event, struct sp_cparam **out,
			       int *n);
/* A kernel function's parameters (fentry/fexit), out[n] = its return value. */
int sp_ctypes_btf_func_params(struct sp_ctypes *ct, const char *func, struct sp_cparam **out,
			      int *n);
/* The type of global variable `name` in binary's DWARF, or NULL. */
struct sp_type *sp_ctypes_dwarf_var(struct sp_ctypes *ct, const char *binary, const char *name);
/* Completes r from the struct/union of that name in binary's DWARF. */
bool sp_ctypes_dwarf_record(struct sp_ctypes *ct, const char *binary, struct sp_record *r);

/* Alignment of a record laid out elsewhere (BTF, DWARF). */
uint32_t sp_record_natural_align(const struct sp_record *r);
/* Layout of a record whose fields have types and names set. */
void sp_record_layout(struct sp_record *r);

/* Parses C definitions (struct/union/enum, ';'-separated) in text, which
 * sits at byte `base` of the script (for diagnostics). Returns errors. */
int sp_cdecl_parse(struct sp_ctypes *ct, struct sp_diag *d, const char *text, uint32_t len,
		   uint32_t base);

/* A C integer type by name ("int", "unsigned long", "uint8_t", "u32",
 * "__s64", "size_t", "bool" ...) or a typedef of the script; NULL when not
 * one. void gives VOID. */
struct sp_type *sp_ctypes_named(struct sp_ctypes *ct, const char *name);
/* A typedef of the script (typedef T NAME;), or NULL. */
struct sp_type *sp_ctypes_typedef(struct sp_ctypes *ct, const char *name);
void sp_ctypes_add_typedef(struct sp_ctypes *ct, const char *name, struct sp_type *t);

#endif
