/* parser/frontend.h: the front end's entry points.
 *
 * sp_parse() turns source text into an untyped tree, recovering from syntax
 * errors at the next probe; sp_sema() types the tree and checks it. Both
 * report through `diag` and return the number of errors they found.
 */
#ifndef SPROF_PARSER_FRONTEND_H
#define SPROF_PARSER_FRONTEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "parser/ast.h"
#include "parser/base/diag.h"
/* The front end's face: the driver (main.c) includes this header alone. */
#include "parser/base/arena.h"
#include "parser/params.h"
#include "parser/base/source.h"
#include "parser/tokens.h"
#include "parser/typedump.h"
#include "parser/types/listargs.h"

struct sp_arena;
struct sp_source;

/* One field of a tracepoint's format (tracefs events/CAT/NAME/format);
 * codegen reads sema's through the AST. sema types a field as: char[N] or __data_loc char[] ->
 * string; `struct S *` -> a pointer to S when BTF knows S (user memory for
 * syscall tracepoints), a pointer to a pointer (`const char *const * argv`) ->
 * a pointer to u64 (args.argv[i]), any other pointer (even char *) -> u64, read
 * it with str(); 1/2/4/8-byte
 * integers -> that size and sign; anything else is an error. */
struct sp_tp_field {
	const char *name;   /* "filename" */
	const char *type;   /* C type as declared; may be NULL */
	uint32_t offset;    /* in the tracepoint record (the program's ctx) */
	uint32_t size;      /* bytes; 4 for a __data_loc locator */
	bool is_signed;
	bool is_pointer;    /* "T *": the value is an address */
	bool is_string;     /* char array, char pointer or __data_loc char[] */
	bool is_data_loc;   /* u32 (length << 16 | offset from ctx) at `offset` */
	bool is_common;     /* common_pid ...: not an args field */
	uint32_t array_len; /* "char comm[16]" -> 16; 0 when not an array */
};

/* Looks up a tracepoint's fields for `args.NAME`. category is NULL for
 * rawtracepoint:NAME. category/event are as written and may contain '*'
 * (the driver decides which match to use). Returns 0 and sets *out (which
 * must stay valid until codegen is done) and *n, or -errno (-ENOENT: no
 * such tracepoint, reported by sema with a caret on the attach point). */
typedef int (*sp_tp_fields_fn)(void *ctx, const char *category, const char *event,
			       const struct sp_tp_field **out, int *n);

/* The tracepoints a wildcard matches, as arena strings "CAT:NAME", sorted;
 * 0 or -errno. */
typedef int (*sp_tp_list_fn)(void *ctx, const char *category, const char *event,
			     const char ***out, int *n);

struct sp_sema_opts {
	int strlen;        /* string buffer size; SP_DEFAULT_STRLEN */
	int nparams;       /* positional parameters $1..$N */
	char **params;
	/* named parameters, "--name" or "--name=value" (getopt.c); sema sets
	 * named_used[i] (nnamed entries, may be NULL) when a getopt() reads one */
	const char *const *named;
	int nnamed;
	bool *named_used;
	bool unsafe;       /* system() allowed */
	/* Tracepoint formats. When NULL, `args.NAME` is typed u64 without a
	 * diagnostic and node->tp_field stays NULL, which codegen must refuse
	 * (this is what `-d ast` without a kernel needs). */
	sp_tp_fields_fn tp_fields;
	void *tp_ctx;
	/* A tracepoint wildcard whose probe reads `args` becomes one attach
	 * point per match (each its own program, with its own field offsets,
	 * as bpftrace does) when this is set. */
	sp_tp_list_fn tp_list;
	/* uaddr("VAR") of a binary without DWARF: VAR's symbol size types it
	 * (a pointer to an int of that size, as bpftrace does). May be NULL. */
	int (*sym_size)(const char *binary, const char *name, uint64_t *size);
};

/* Parse: sets *out to the PROGRAM node (possibly partial on error). */
int sp_parse(struct sp_arena *a, const struct sp_source *src, struct sp_diag *d,
	     struct sp_node **out);

/* Where #include finds files, and headers included before the script
 * (--include). no_btf: never read the kernel's BTF (tests). */
struct sp_parse_opts {
	const char *script_dir;   /* #include "x": NULL for -e */
	const char *const *incdirs; /* -I DIR */
	int nincdirs;
	const char *const *includes; /* --include FILE */
	int nincludes;
	bool no_btf;
};

int sp_parse_ex(struct sp_arena *a, const struct sp_source *src, struct sp_diag *d,
		const struct sp_parse_opts *o, struct sp_node **out);
/* Type check in place. Besides typing, sema rewrites positional
 * parameters into literals: `$N` becomes INT (0 when not given; an error
 * when not a number), `$#` INT, and `str($N)` STR. ATTACH nodes get their
 * sp_attach fields filled (attach.c). */
int sp_sema(struct sp_arena *a, struct sp_node *prog, const struct sp_sema_opts *o,
	    struct sp_diag *d);

/* The settings of the script's `config = { ... }` block (config.c); 0:
 * not set. Errors and warnings are reported with carets; -1 after an error. */
struct sp_script_config {
	uint32_t max_map_keys, max_strlen, max_cat_bytes, log_size;
	uint32_t max_probes; /* max_probes or max_bpf_progs, the larger */
	bool no_exit_maps;   /* print_maps_on_exit = 0: the maps are not printed at the end */
};
int sp_config_read(const struct sp_node *prog, struct sp_diag *d, struct sp_script_config *c);

/* S-expression dump used by the golden tests (--dump ast). */
void sp_ast_dump(FILE *f, const struct sp_node *n, bool with_types);

#endif
