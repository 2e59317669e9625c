/* parser/ast.h: the syntax tree of a sprof program.
 *
 * Every node lives in the compile arena and carries the byte span of the
 * source text it came from (offsets into struct sp_source), so diagnostics and
 * debug locations can point at the script. The semantic pass (sema.c) fills
 * in `type` on every expression; codegen reads only typed trees.
 *
 * Node kinds are an X-macro so the dumper, the golden tests and the docs
 * can enumerate them from one table.
 */
#ifndef SPROF_PARSER_AST_H
#define SPROF_PARSER_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/base/source.h" /* struct sp_span */
#include "parser/types/types.h"

struct sp_arena;
struct sp_tp_field;
struct sp_ctypes;

/* X(kind, dump-name) */
#define SP_NODE_KINDS(X)                                              \
	X(PROGRAM, "program")     /* list: probes; a: CONFIG; b: BLOCK of MACROs (until sema); c: BLOCK of map declarations (LET: a MAP, name the kind, ival the size) */                   \
	X(PROBE, "probe")         /* list: attach points; a: pred; b: block */ \
	X(ATTACH, "attach")       /* attach: parsed attach point; ival: probe kind (sema) */ \
	X(BLOCK, "block")         /* list: statements; ival: 1 when the last one has no ';' (parser) */ \
	X(BLOCK_EXPR, "blockexpr") /* { stmts; value }: a: BLOCK of statements; b: the value or NULL (void) */ \
	X(EXPR_STMT, "expr")      /* a: expression */                  \
	X(ASSIGN, "assign")       /* a: lvalue (MAP/VAR); b: value; op: 0 or compound binop */ \
	X(INCDEC, "incdec")       /* a: lvalue; op: '+' or '-'; prefix */ \
	X(IF, "if")               /* a: cond; b: then block; c: else (BLOCK or IF) */ \
	X(WHILE, "while")         /* a: cond; b: block */              \
	X(UNROLL, "unroll")       /* a: count (INT); b: block */       \
	X(FOR, "for")             /* a: VAR; b: MAP or RANGE; c: block; ival: loop var id */ \
	X(RANGE, "range")         /* a..b: start (inclusive), end (exclusive) */ \
	X(CONFIG, "config")       /* list: SETTINGs (the PROGRAM's a) */ \
	X(SETTING, "setting")     /* name; a: value (INT or STR) */ \
	X(MACRO, "macro")         /* name; list: params (VAR, MAP or BUILTIN); b: body */ \
	X(LET, "let")             /* a: VAR; b: value or NULL; cast_type: declared type or NULL */ \
	X(BREAK, "break")                                              \
	X(CONTINUE, "continue")                                        \
	X(RETURN, "return")                                            \
	X(INT, "int")             /* ival */                           \
	X(STR, "str")             /* str: unescaped text, len */       \
	X(BUILTIN, "builtin")     /* name: pid, comm, ustack, arg0 ... */ \
	X(CALL, "call")           /* name; list: arguments */          \
	X(MAP, "map")             /* name ("@" or "@x"); list: keys (may be empty) */ \
	X(VAR, "var")             /* name ("$x") */                    \
	X(POSITIONAL, "positional") /* ival: N of $N; 0 for $# (name "$#") */ \
	X(BINOP, "binop")         /* op; a, b */                       \
	X(UNOP, "unop")           /* op: '!', '~', '-'; a */           \
	X(TERNARY, "ternary")     /* a ? b : c */                      \
	X(CAST, "cast")           /* cast_type; a */                   \
	X(TUPLE, "tuple")         /* list: elements */                 \
	X(FIELD, "field")         /* a.name or a->name (arrow) */      \
	X(TUPLE_INDEX, "tindex")  /* a.N: ival */                        \
	X(INDEX, "index")         /* a[b]: a pointer or array */          \
	X(DEREF, "deref")         /* *a */                               \
	X(ADDROF, "addrof")       /* &a: a is an object in probed memory */ \
	X(SIZEOF, "sizeof")       /* sizeof(cast_type) or sizeof(a) */     \
	X(OFFSETOF, "offsetof")   /* offsetof(cast_type, name) */

enum sp_node_kind {
#define X(k, s) SP_N_##k,
	SP_NODE_KINDS(X)
#undef X
	SP_N__COUNT
};

/* Binary operator codes beyond single characters ('+', '<', '&' ...). */
enum sp_op {
	SP_OP_EQ = 256, /* == */
	SP_OP_NE,       /* != */
	SP_OP_LE,       /* <= */
	SP_OP_GE,       /* >= */
	SP_OP_LAND,     /* && */
	SP_OP_LOR,      /* || */
	SP_OP_SHL,      /* << */
	SP_OP_SHR,      /* >> */
};

/* A parsed attach point, e.g. "profile:hz:99" or "uprobe:/bin/bash:readline+4".
 * `provider` is the canonical probe type name after alias resolution
 * ("profile", "interval", "BEGIN", "END", "uprobe", ...). Fields not used by
 * a probe type stay NULL/0. The whole raw text is kept for `probe` and for
 * messages. */
struct sp_attach {
	const char *raw;      /* as written */
	const char *provider; /* canonical type name */
	const char *target;   /* binary path, tracepoint category, event name ... */
	const char *func;     /* function, tracepoint name, usdt name */
	const char *ns;       /* usdt provider, when given */
	const char *unit;     /* profile/interval: "hz", "s", "ms", "us" */
	uint64_t value;       /* profile/interval/software/hardware count */
	uint64_t offset;      /* uprobe SYMBOL+OFFSET, or address */
	bool has_value;
	bool has_offset;
	bool is_addr;         /* uprobe:PATH:0xADDR */
	bool expanded;        /* script parameters substituted into raw (params.c) */
};

struct sp_node;

struct sp_list {
	struct sp_node **items;
	int len;
	int cap;
};

struct sp_node {
	enum sp_node_kind kind;
	struct sp_span span;
	struct sp_type *type;   /* set by sema on expressions; NULL before */
	int op;                 /* operator: a char or enum sp_op */
	bool prefix;            /* INCDEC: ++x vs x++ */
	bool arrow;             /* FIELD: a->b vs a.b */
	const char *name;       /* BUILTIN, CALL, MAP, VAR, FIELD */
	const char *str;        /* STR: unescaped bytes (NUL terminated too) */
	const char **fnames;    /* TUPLE of a record (a=1, b=2): its field names, else NULL */
	const int *order;       /* a record TUPLE put in its target's field order
				 * (sema_record_order): the items in source order */
	uint32_t len;           /* STR: byte length without the NUL */
	int64_t ival;           /* INT, POSITIONAL, TUPLE_INDEX; CALL: 1 once sema moved
				 * the key of delete(@m, k) or has_key(@m, k) into @m[k];
				 * BUILTIN nsecs: its clock, 0 monotonic, 1 boot, 2 tai */
	struct sp_node *a, *b, *c;
	struct sp_list list;
	struct sp_attach *attach;      /* ATTACH */
	struct sp_type *cast_type;     /* CAST */
	int scope_id;                  /* VAR: resolved scratch variable (sema) */
	int probe_index;               /* PROBE: index in the program */
	/* Set by sema (additions after the first interface): */
	struct sp_type *key_type;      /* MAP: the map's key type for every use
					* (TUPLE for several keys); NULL: no keys */
	const struct sp_tp_field *tp_field; /* FIELD on `args`: the tracepoint
					     * field (NULL when sema had no format) */
	const struct sp_tp_field **tp_field_at; /* FIELD on `args`: the field in each
					     * attach point of the probe, by index in
					     * its list (layouts differ: sys_enter_open
					     * and sys_enter_openat); may be NULL */
	struct sp_ctypes *ctypes;      /* PROGRAM: the script's C types (ctypes.h) */
	uint32_t field_off;            /* FIELD on a record: byte offset (sema) */
	uint8_t bit_off, bit_size;     /* FIELD: a bitfield's bits (bit_size 0: none) */
	uint32_t depth;                /* 1 + the deepest of a, b, c (set by the parser) */
	int bi;                        /* BUILTIN, CALL: the builtin's id, enum sp_builtin of
					* parser/builtins.h (sema; 0 for none) */
};

/* Deepest expression tree the parser accepts: sema and codegen recurse on
 * a, b and c, so `1 + 1 + ... + 1` with 100,000 terms would overflow the C
 * stack. Nesting through blocks and parentheses is bounded by the parser's
 * own stack (YYMAXDEPTH); both end in a located error. */
#define SP_MAX_DEPTH 2000

struct sp_node *sp_node_new(struct sp_arena *a, enum sp_node_kind kind, struct sp_span span);
int sp_list_push(struct sp_arena *a, struct sp_list *l, struct sp_node *n);
const char *sp_node_kind_name(enum sp_node_kind kind);
/* Operator spelling: "+", "==", "<<", "!" ... */
const char *sp_op_str(int op, char buf[4]);

#endif
