/* parser/parser.y: the pure bison grammar of sprof programs.
 *
 *   program  := [config] (probe | cdef | macro)*
 *   macro    := 'macro' IDENT '(' [param (',' param)*] ')' block   param: IDENT | VAR | MAP
 *   config   := 'config' '=' '{' [setting (';' setting)* [';']] '}'
 *   setting  := IDENT '=' (INT | STRING | IDENT)
 *   cdef     := struct/union/enum definitions (one CDEF token, cdecl.c)
 *   probe    := attach (',' attach)* ['/' expr '/'] block
 *   block    := '{' stmts '}' | '<' stmts '>'      (see lexer.l for '>')
 *   stmts    := (simple ';' | compound | ';')* [simple]
 *   blockexpr := '{' stmts '}'   an expression (bpftrace 0.27): its value is
 *               the last statement's, when that is an expression without ';'.
 *               Where a statement starts, '{' opens a block statement (the
 *               lexer's SBLOCK_OPEN), as in C.
 *   simple   := expr | lvalue ('=' | '+=' ... '>>=') expr
 *             | 'let' VAR [':' type] ['=' expr]
 *             | 'break' | 'continue' | 'return'
 *   compound := 'if' '(' expr ')' body ['else' (body | if)] | '{' stmts '}'
 *             | 'while' '(' expr ')' body | 'unroll' '(' expr ')' body
 *             | 'for' '(' VAR ':' map ')' body | 'for' '(' VAR ':' expr '..' expr ')' body
 *   expr     := C expressions with C precedence, '?:', casts '(u32)x',
 *               '++'/'--' on maps and variables, calls f(a, b), maps
 *               @m[k1, k2], tuples (a, b), a.field, a->field, t.0,
 *               C casts '(struct foo *)x', '*p', '&p->f', 'p[i]', sizeof(type|expr),
 *               offsetof(type, field)
 *   type     := TYPE | ('struct' | 'union') IDENT | 'enum' IDENT | type '*' 
 *
 * Attach points arrive as whole ATTACH tokens; attach.c splits them during
 * sema. Every node carries its byte span. A syntax error is reported with
 * a caret and the parser resumes at the next probe (the lexer only emits
 * ATTACH tokens between probes), so several errors show in one run.
 */
%define api.pure full
%define api.prefix {spy}
%define api.location.type {struct sp_span}
%define parse.error custom
%locations
%param {struct sp_pstate *ps}
%expect 0

%code requires {
#include <stdbool.h>
#include <stdint.h>

#include "parser/ast.h"

struct sp_pstate;
struct sp_strval { const char *s; uint32_t len; };
struct sp_intval { int64_t v; bool big; bool is_bool; const char *enum_fmt; };

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                     \
	do {                                                            \
		if (N) {                                                \
			(Cur).begin = YYRHSLOC(Rhs, 1).begin;           \
			(Cur).end = YYRHSLOC(Rhs, N).end;               \
		} else {                                                \
			(Cur).begin = (Cur).end = YYRHSLOC(Rhs, 0).end; \
		}                                                       \
	} while (0)
}

%code provides {
int spylex(SPYSTYPE *lval, SPYLTYPE *lloc, struct sp_pstate *ps);
void spyerror(SPYLTYPE *lloc, struct sp_pstate *ps, const char *msg);
}

%code {
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/base/diag.h"
#include "parser/lexstate.h"
#include "parser/base/source.h"
#include "parser/types/types.h"
#include "parser/types/ctypes.h"

#define A (ps->arena)

static struct sp_node *mk(struct sp_pstate *ps, enum sp_node_kind k, struct sp_span sp,
			  struct sp_node *a, struct sp_node *b, struct sp_node *c)
{
	struct sp_node *n = sp_node_new(ps->arena, k, sp);
	uint32_t d = 0;

	n->a = a;
	n->b = b;
	n->c = c;
	for (int i = 0; i < 3; i++) {
		const struct sp_node *ch = i == 0 ? a : i == 1 ? b : c;

		if (ch && ch->depth > d)
			d = ch->depth;
	}
	n->depth = d + 1;
	if (n->depth > SP_MAX_DEPTH && !ps->too_deep) {
		ps->too_deep = true;
		sp_diag_at(ps->diag, SP_DIAG_ERROR, sp, "expression nested too deeply (more than %d "
			"levels): split it with variables", SP_MAX_DEPTH);
		ps->probe_errors++;
	}
	return n;
}

static struct sp_node *mk_op(struct sp_pstate *ps, enum sp_node_kind k, struct sp_span sp,
			     int op, struct sp_node *a, struct sp_node *b)
{
	struct sp_node *n = mk(ps, k, sp, a, b, NULL);

	n->op = op;
	return n;
}

static struct sp_node *record(struct sp_pstate *ps, struct sp_node *fields, struct sp_span sp);

static struct sp_node *mk_named(struct sp_pstate *ps, enum sp_node_kind k, struct sp_span sp,
				const char *name)
{
	struct sp_node *n = mk(ps, k, sp, NULL, NULL, NULL);

	n->name = name;
	return n;
}

/* (a=1, b=2): a TUPLE of the values, fnames their names */
static struct sp_node *record(struct sp_pstate *ps, struct sp_node *fields, struct sp_span sp)
{
	int n = fields->list.len;
	const char **names = sp_arena_alloc(ps->arena, (size_t)n * sizeof(*names));

	fields->span = sp;
	for (int i = 0; i < n; i++) {
		names[i] = fields->list.items[i]->name;
		fields->list.items[i] = fields->list.items[i]->a;
	}
	fields->fnames = names;
	return fields;
}

static struct sp_node *block_expr(struct sp_pstate *ps, struct sp_node *stmts, struct sp_span sp);

/* An if statement with else that ends a block expression is its value, as
 * every 'if' is an expression in bpftrace 0.27: c ? { a } : { b }. */
static bool if_all_else(const struct sp_node *n)
{
	while (n->kind == SP_N_IF && n->c)
		n = n->c;
	return n->kind != SP_N_IF;
}

static struct sp_node *if_value(struct sp_pstate *ps, struct sp_node *n)
{
	struct sp_node *no = n->c->kind == SP_N_IF ? if_value(ps, n->c)
			     : block_expr(ps, n->c, n->c->span);

	return mk(ps, SP_N_TERNARY, n->span, n->a, block_expr(ps, n->b, n->b->span), no);
}

/* _ = expr (bpftrace 0.27): expr evaluated, its value discarded */
static struct sp_node *discard(struct sp_pstate *ps, struct sp_span sp, const char *name,
			       struct sp_span at, struct sp_node *e)
{
	if (strcmp(name, "_")) {
		sp_diag_at(ps->diag, SP_DIAG_ERROR, at, "cannot assign to '%s': only variables "
			   "($x), maps (@m) and '_' (discard) take '='", name);
		ps->probe_errors++;
	}
	return mk(ps, SP_N_EXPR_STMT, sp, e, NULL, NULL);
}

/* { stmts; value }: the last statement, an expression without ';', is the
 * value (b); otherwise the block has none (void) */
static struct sp_node *block_expr(struct sp_pstate *ps, struct sp_node *stmts, struct sp_span sp)
{
	struct sp_node *n = mk(ps, SP_N_BLOCK_EXPR, sp, stmts, NULL, NULL);
	struct sp_node *last = stmts->list.len ? stmts->list.items[stmts->list.len - 1] : NULL;

	if (stmts->ival && last && last->kind == SP_N_EXPR_STMT) {
		n->b = last->a;
		stmts->list.len--;
	} else if (last && last->kind == SP_N_IF && if_all_else(last)) {
		n->b = if_value(ps, last); /* { ...; if c { a } else { b } } */
		stmts->list.len--;
	}
	stmts->ival = 0;
	stmts->span = sp;
	return n;
}

static struct sp_node *with_list(struct sp_node *n, struct sp_node *holder)
{
	if (holder)
		n->list = holder->list;
	return n;
}

static struct sp_node *mk_incdec(struct sp_pstate *ps, struct sp_span sp, int op, bool prefix,
				 struct sp_node *lv)
{
	struct sp_node *n = mk_op(ps, SP_N_INCDEC, sp, op, lv, NULL);

	n->prefix = prefix;
	return n;
}

static struct sp_node *mk_positional(struct sp_pstate *ps, struct sp_span sp, const char *text)
{
	struct sp_node *n = mk_named(ps, SP_N_POSITIONAL, sp, text);

	n->ival = text[1] == '#' ? 0 : strtoll(text + 1, NULL, 10);
	return n;
}

static struct sp_node *mk_int(struct sp_pstate *ps, struct sp_span sp, struct sp_intval v)
{
	struct sp_node *n = mk(ps, SP_N_INT, sp, NULL, NULL, NULL);

	n->ival = v.v;
	if (v.big) /* above INT64_MAX: an unsigned literal */
		n->type = sp_type_int(ps->arena, 8, false);
	if (v.is_bool) /* true, false */
		n->type = sp_type_bool(ps->arena);
	if (v.enum_fmt) /* an enumerator of the script's enum */
		n->type = sp_type_enum(ps->arena, 8, true, v.enum_fmt);
	return n;
}

static struct sp_node *mk_typed(struct sp_pstate *ps, enum sp_node_kind k, struct sp_span sp,
				struct sp_type *t, struct sp_node *a)
{
	struct sp_node *n = mk(ps, k, sp, a, NULL, NULL);

	n->cast_type = t;
	return n;
}

static struct sp_type *record_ref(struct sp_pstate *ps, const char *name, bool is_union)
{
	return sp_type_record(ps->arena, sp_ctypes_record(ps->ct, name, is_union));
}

static struct sp_type *array_cast_type(struct sp_pstate *ps, struct sp_span at,
				       struct sp_type *elem, struct sp_intval n)
{
	if (n.v < 1 || n.v > 4096) {
		sp_diag_at(ps->diag, SP_DIAG_ERROR, at, "an array cast needs 1 to 4096 elements, "
			   "not %lld", (long long)n.v);
		ps->probe_errors++;
	}
	return sp_type_array(ps->arena, elem, n.v < 1 || n.v > 4096 ? 1 : (uint32_t)n.v);
}

/* (enum NAME)x: the script's enum prints by name; another (a kernel's) is
 * an unsigned int, as before */
static struct sp_type *enum_ref(struct sp_pstate *ps, const char *name)
{
	const char *fmt = sp_ctypes_enum(ps->ct, name);

	return fmt ? sp_type_enum(ps->arena, 4, false, fmt) : sp_type_int(ps->arena, 4, false);
}

static void cdef(struct sp_pstate *ps, struct sp_span sp)
{
	ps->probe_errors += sp_cdecl_parse(ps->ct, ps->diag, ps->text + sp.begin,
					   sp.end - sp.begin, sp.begin);
}
}

%union {
	const char *str;
	struct sp_strval sval;
	struct sp_intval num;
	int64_t ival;
	int op;
	struct sp_node *node;
	struct sp_type *type;
}

%token YYEOF 0 "end of input"
%token <str> ATTACH "attach point"
%token <str> IDENT "identifier"
%token <str> MAP "map"
%token <str> VAR "variable"
%token <str> POSITIONAL "positional parameter"
%token <num> INT "integer"
%token <sval> STRING "string"
%token <type> TYPE "type name"
%token CDEF "C definition"
%token STRUCT "'struct'" UNION "'union'" ENUM "'enum'" SIZEOF "'sizeof'" OFFSETOF "'offsetof'"
%token PRED_OPEN "'/' (predicate)"
%token PRED_CLOSE "'/' (end of predicate)"
%token ABLOCK_OPEN "'<' (block)"
%token ABLOCK_CLOSE "'>' (end of block)"
%token SBLOCK_OPEN "'{' (block)"
%token IF "'if'" IFX "'if' (expression)" ELSE "'else'" WHILE "'while'" UNROLL "'unroll'" FOR "'for'" LET "'let'" MACRO "'macro'"
%token BREAK "'break'" CONTINUE "'continue'" RETURN "'return'"
%token EQ "'=='" NE "'!='" LE "'<='" GE "'>='" LAND "'&&'" LOR "'||'" SHL "'<<'" SHR "'>>'"
%token INC "'++'" DEC "'--'" ARROW "'->'" DOTDOT "'..'"
%token ADD_ASSIGN "'+='" SUB_ASSIGN "'-='" MUL_ASSIGN "'*='" DIV_ASSIGN "'/='" MOD_ASSIGN "'%='"
%token AND_ASSIGN "'&='" OR_ASSIGN "'|='" XOR_ASSIGN "'^='" SHL_ASSIGN "'<<='" SHR_ASSIGN "'>>='"
%token SP_TOK_JUNK "invalid character"
%token SP_TOK_UNTERMINATED_COMMENT "unterminated comment"
%token SP_TOK_UNTERMINATED_STRING "unterminated string"
%token SP_TOK_UNTERMINATED_ATTACH "unterminated quote in attach point"

%type <node> mapdecl record_fields config settings setting macro mparams mparam probes probe attach_list pred block stmts items simple compound if_stmt body
%type <node> lvalue map expr postfix primary args cond else_if if_expr
%type <op> compound_op
%type <type> type_name var_type cast_type

%right '?' ':'
%left LOR
%left LAND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' '>' LE GE
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence '!' '~' UMINUS CAST
%precedence MAPNAME
%precedence '[' 

%%

program:
	probes { ps->prog = $1; ps->prog->span = (struct sp_span){ 0, ps->len }; }
	;

probes:
	%empty { $$ = mk(ps, SP_N_PROGRAM, @$, NULL, NULL, NULL); }
	| probes probe { $$ = $1; $2->probe_index = $1->list.len; sp_list_push(A, &$1->list, $2); }
	| probes error { $$ = $1; }
	| probes CDEF { $$ = $1; cdef(ps, @2); }
	| probes macro {
		$$ = $1;
		if (!$1->b)
			$1->b = mk(ps, SP_N_BLOCK, $2->span, NULL, NULL, NULL);
		sp_list_push(A, &$1->b->list, $2);
	}
	| probes mapdecl {
		$$ = $1;
		if (!$1->c)
			$1->c = mk(ps, SP_N_BLOCK, $2->span, NULL, NULL, NULL);
		sp_list_push(A, &$1->c->list, $2);
	}
	| probes config {
		$$ = $1;
		if ($1->list.len || $1->a) {
			sp_diag_at(ps->diag, SP_DIAG_ERROR, $2->span, "config must appear before "
				   "probes");
			ps->probe_errors++;
		} else {
			$1->a = $2;
		}
	}
	;

/* macro add(x, $v, @m) { ... } (macro.c expands the calls) */
macro:
	MACRO ATTACH '(' ')' block { $$ = mk_named(ps, SP_N_MACRO, @$, $2); $$->b = $5; }
	| MACRO ATTACH '(' mparams ')' block {
		$$ = with_list(mk_named(ps, SP_N_MACRO, @$, $2), $4);
		$$->b = $6;
	}
	;

mparams:
	mparam { $$ = mk(ps, SP_N_TUPLE, @$, NULL, NULL, NULL); sp_list_push(A, &$$->list, $1); }
	| mparams ',' mparam { $$ = $1; sp_list_push(A, &$$->list, $3); }
	;

mparam:
	VAR { $$ = mk_named(ps, SP_N_VAR, @$, $1); }
	| MAP { $$ = mk_named(ps, SP_N_MAP, @$, $1); }
	| ATTACH { $$ = mk_named(ps, SP_N_BUILTIN, @$, $1); }
	;

/* let @m = hash(100); (bpftrace 0.27's map declarations; sema checks the kind):
 * a LET whose a is the MAP, name the kind, ival the size */
mapdecl:
	ATTACH MAP '=' ATTACH '(' INT ')' ';' {
		$$ = mk_named(ps, SP_N_LET, @$, $4);
		$$->a = mk_named(ps, SP_N_MAP, @2, $2);
		$$->ival = $6.v;
		if (strcmp($1, "let")) {
			sp_diag_at(ps->diag, SP_DIAG_ERROR, @2, "unexpected map '%s' after '%s': only "
				   "'let %s = hash(N);' declares a map outside a probe", $2, $1, $2);
			ps->probe_errors++;
		}
	}
	;

/* config = { max_map_keys = 100; max_strlen = 128 } (config.c reads it) */
config:
	ATTACH '=' '{' settings '}' {
		$$ = $4;
		$$->span = @$;
		if (strcmp($1, "config")) {
			sp_diag_at(ps->diag, SP_DIAG_ERROR, @1, "unexpected '=' after '%s': only "
				   "'config = { ... }' is assigned outside a probe", $1);
			ps->probe_errors++;
		}
	}
	;

settings:
	%empty { $$ = mk(ps, SP_N_CONFIG, @$, NULL, NULL, NULL); }
	| setting { $$ = mk(ps, SP_N_CONFIG, @$, NULL, NULL, NULL); sp_list_push(A, &$$->list, $1); }
	| settings ';' setting { $$ = $1; sp_list_push(A, &$$->list, $3); }
	| settings ';' { $$ = $1; }
	;

setting:
	IDENT '=' INT { $$ = mk_named(ps, SP_N_SETTING, @$, $1); $$->a = mk_int(ps, @3, $3); }
	| IDENT '=' STRING {
		$$ = mk_named(ps, SP_N_SETTING, @$, $1);
		$$->a = mk(ps, SP_N_STR, @3, NULL, NULL, NULL);
		$$->a->str = $3.s;
		$$->a->len = $3.len;
	}
	| IDENT '=' IDENT {
		$$ = mk_named(ps, SP_N_SETTING, @$, $1);
		$$->a = mk(ps, SP_N_STR, @3, NULL, NULL, NULL);
		$$->a->str = $3;
		$$->a->len = (uint32_t)strlen($3);
	}
	;

probe:
	attach_list pred block { $$ = $1; $$->a = $2; $$->b = $3; $$->span = @$; }
	;

attach_list:
	ATTACH {
		struct sp_node *at = mk(ps, SP_N_ATTACH, @1, NULL, NULL, NULL);

		yyerrok; /* a new probe starts: report its errors too */
		at->attach = sp_arena_alloc(A, sizeof(*at->attach));
		at->attach->raw = $1;
		$$ = mk(ps, SP_N_PROBE, @$, NULL, NULL, NULL);
		sp_list_push(A, &$$->list, at);
	}
	| attach_list ',' ATTACH {
		struct sp_node *at = mk(ps, SP_N_ATTACH, @3, NULL, NULL, NULL);

		at->attach = sp_arena_alloc(A, sizeof(*at->attach));
		at->attach->raw = $3;
		$$ = $1;
		sp_list_push(A, &$$->list, at);
	}
	;

pred:
	%empty { $$ = NULL; }
	| PRED_OPEN expr PRED_CLOSE { $$ = $2; }
	;

block:
	'{' stmts '}' { $$ = $2; $$->span = @$; }
	| ABLOCK_OPEN stmts ABLOCK_CLOSE { $$ = $2; $$->span = @$; }
	;

body:
	'{' stmts '}' { $$ = $2; $$->span = @$; }
	;

stmts:
	items
	| items simple { $$ = $1; sp_list_push(A, &$$->list, $2); $$->ival = 1; }
	;

items:
	%empty { $$ = mk(ps, SP_N_BLOCK, @$, NULL, NULL, NULL); }
	| items simple ';' { $$ = $1; sp_list_push(A, &$$->list, $2); }
	| items compound { $$ = $1; sp_list_push(A, &$$->list, $2); }
	| items ';' { $$ = $1; }
	;

simple:
	expr { $$ = mk(ps, SP_N_EXPR_STMT, @$, $1, NULL, NULL); }
	| lvalue '=' expr { $$ = mk_op(ps, SP_N_ASSIGN, @$, 0, $1, $3); }
	| lvalue compound_op expr { $$ = mk_op(ps, SP_N_ASSIGN, @$, $2, $1, $3); }
	| LET VAR { $$ = mk(ps, SP_N_LET, @$, mk_named(ps, SP_N_VAR, @2, $2), NULL, NULL); }
	| LET VAR '=' expr {
		$$ = mk(ps, SP_N_LET, @$, mk_named(ps, SP_N_VAR, @2, $2), $4, NULL);
	}
	| LET VAR ':' var_type {
		$$ = mk_typed(ps, SP_N_LET, @$, $4, mk_named(ps, SP_N_VAR, @2, $2));
	}
	| LET VAR ':' var_type '=' expr {
		$$ = mk_typed(ps, SP_N_LET, @$, $4, mk_named(ps, SP_N_VAR, @2, $2));
		$$->b = $6;
	}
	| BREAK { $$ = mk(ps, SP_N_BREAK, @$, NULL, NULL, NULL); }
	| CONTINUE { $$ = mk(ps, SP_N_CONTINUE, @$, NULL, NULL, NULL); }
	| RETURN { $$ = mk(ps, SP_N_RETURN, @$, NULL, NULL, NULL); }
	| RETURN expr { $$ = mk(ps, SP_N_RETURN, @$, $2, NULL, NULL); }
	| IDENT '=' expr { $$ = discard(ps, @$, $1, @1, $3); }
	;

compound_op:
	ADD_ASSIGN { $$ = '+'; } | SUB_ASSIGN { $$ = '-'; } | MUL_ASSIGN { $$ = '*'; }
	| DIV_ASSIGN { $$ = '/'; } | MOD_ASSIGN { $$ = '%'; } | AND_ASSIGN { $$ = '&'; }
	| OR_ASSIGN { $$ = '|'; } | XOR_ASSIGN { $$ = '^'; } | SHL_ASSIGN { $$ = SP_OP_SHL; }
	| SHR_ASSIGN { $$ = SP_OP_SHR; }
	;

compound:
	if_stmt
	| SBLOCK_OPEN stmts '}' { $$ = $2; $$->span = @$; $$->ival = 0; }
	| WHILE cond body { $$ = mk(ps, SP_N_WHILE, @$, $2, $3, NULL); }
	| UNROLL cond body { $$ = mk(ps, SP_N_UNROLL, @$, $2, $3, NULL); }
	| FOR '(' VAR ':' map ')' body {
		$$ = mk(ps, SP_N_FOR, @$, mk_named(ps, SP_N_VAR, @3, $3), $5, $7);
	}
	| FOR '(' VAR ':' expr DOTDOT expr ')' body {
		struct sp_span rs = { @5.begin, @7.end };

		$$ = mk(ps, SP_N_FOR, @$, mk_named(ps, SP_N_VAR, @3, $3),
			mk(ps, SP_N_RANGE, rs, $5, $7, NULL), $9);
	}
	| FOR VAR ':' map body {
		$$ = mk(ps, SP_N_FOR, @$, mk_named(ps, SP_N_VAR, @2, $2), $4, $5);
	}
	| FOR VAR ':' expr DOTDOT expr body {
		struct sp_span rs = { @4.begin, @6.end };

		$$ = mk(ps, SP_N_FOR, @$, mk_named(ps, SP_N_VAR, @2, $2),
			mk(ps, SP_N_RANGE, rs, $4, $6, NULL), $7);
	}
	;

/* if (c) { } and, as bpftrace 0.27, if c { } (cond) */
if_stmt:
	IF cond body { $$ = mk(ps, SP_N_IF, @$, $2, $3, NULL); }
	| IF cond body ELSE body { $$ = mk(ps, SP_N_IF, @$, $2, $3, $5); }
	| IF cond body ELSE else_if { $$ = mk(ps, SP_N_IF, @$, $2, $3, $5); }
	;

/* after 'else' the lexer says IFX: 'if' is not where a statement starts */
else_if:
	IFX cond body { $$ = mk(ps, SP_N_IF, @$, $2, $3, NULL); }
	| IFX cond body ELSE body { $$ = mk(ps, SP_N_IF, @$, $2, $3, $5); }
	| IFX cond body ELSE else_if { $$ = mk(ps, SP_N_IF, @$, $2, $3, $5); }
	;

/* the condition of if, while and unroll: '(' expr ')' or, without
 * parentheses (bpftrace 0.27), a unary expression, so that '{' ends it */
cond:
	postfix
	| '!' cond { $$ = mk_op(ps, SP_N_UNOP, @$, '!', $2, NULL); }
	| '-' cond { $$ = mk_op(ps, SP_N_UNOP, @$, '-', $2, NULL); }
	| '~' cond { $$ = mk_op(ps, SP_N_UNOP, @$, '~', $2, NULL); }
	| '*' cond { $$ = mk(ps, SP_N_DEREF, @$, $2, NULL, NULL); }
	;

/* if c { a } else { b } as an expression (bpftrace 0.27): c ? {a} : {b} */
if_expr:
	IFX cond body ELSE body {
		$$ = mk(ps, SP_N_TERNARY, @$, $2, block_expr(ps, $3, @3), block_expr(ps, $5, @5));
	}
	| IFX cond body ELSE if_expr {
		$$ = mk(ps, SP_N_TERNARY, @$, $2, block_expr(ps, $3, @3), $5);
	}
	;

lvalue:
	map
	| VAR { $$ = mk_named(ps, SP_N_VAR, @$, $1); }
	;

map:
	MAP %prec MAPNAME { $$ = mk_named(ps, SP_N_MAP, @$, $1); }
	| MAP '[' args ']' { $$ = with_list(mk_named(ps, SP_N_MAP, @$, $1), $3); }
	;

expr:
	expr '?' expr ':' expr { $$ = mk(ps, SP_N_TERNARY, @$, $1, $3, $5); }
	| expr '?' ':' expr { $$ = mk(ps, SP_N_TERNARY, @$, $1, $1, $4); }
	| expr LOR expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_LOR, $1, $3); }
	| expr LAND expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_LAND, $1, $3); }
	| expr '|' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '|', $1, $3); }
	| expr '^' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '^', $1, $3); }
	| expr '&' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '&', $1, $3); }
	| expr EQ expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_EQ, $1, $3); }
	| expr NE expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_NE, $1, $3); }
	| expr '<' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '<', $1, $3); }
	| expr '>' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '>', $1, $3); }
	| expr LE expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_LE, $1, $3); }
	| expr GE expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_GE, $1, $3); }
	| expr SHL expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_SHL, $1, $3); }
	| expr SHR expr { $$ = mk_op(ps, SP_N_BINOP, @$, SP_OP_SHR, $1, $3); }
	| expr '+' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '+', $1, $3); }
	| expr '-' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '-', $1, $3); }
	| expr '*' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '*', $1, $3); }
	| expr '/' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '/', $1, $3); }
	| expr '%' expr { $$ = mk_op(ps, SP_N_BINOP, @$, '%', $1, $3); }
	| '!' expr { $$ = mk_op(ps, SP_N_UNOP, @$, '!', $2, NULL); }
	| '~' expr { $$ = mk_op(ps, SP_N_UNOP, @$, '~', $2, NULL); }
	| '-' expr %prec UMINUS { $$ = mk_op(ps, SP_N_UNOP, @$, '-', $2, NULL); }
	| '(' cast_type ')' expr %prec CAST { $$ = mk_typed(ps, SP_N_CAST, @$, $2, $4); }
	| '*' expr %prec UMINUS { $$ = mk(ps, SP_N_DEREF, @$, $2, NULL, NULL); }
	| '&' expr %prec UMINUS { $$ = mk(ps, SP_N_ADDROF, @$, $2, NULL, NULL); }
	| INC lvalue { $$ = mk_incdec(ps, @$, '+', true, $2); }
	| DEC lvalue { $$ = mk_incdec(ps, @$, '-', true, $2); }
	| lvalue INC { $$ = mk_incdec(ps, @$, '+', false, $1); }
	| lvalue DEC { $$ = mk_incdec(ps, @$, '-', false, $1); }
	| postfix
	;

postfix:
	primary
	| postfix '.' IDENT { $$ = mk(ps, SP_N_FIELD, @$, $1, NULL, NULL); $$->name = $3; }
	| postfix ARROW IDENT { $$ = mk(ps, SP_N_FIELD, @$, $1, NULL, NULL); $$->name = $3; $$->arrow = true; }
	| postfix '.' INT { $$ = mk(ps, SP_N_TUPLE_INDEX, @$, $1, NULL, NULL); $$->ival = $3.v; }
	| postfix '[' expr ']' { $$ = mk(ps, SP_N_INDEX, @$, $1, $3, NULL); }
	;

/* let $x: uint8, let $s: string (bpftrace's name; sema checks the rest) */
var_type:
	type_name
	| type_name '[' INT ']' { $$ = sp_type_array(A, $1, (uint32_t)$3.v); }
	| IDENT {
		if (strcmp($1, "string")) {
			sp_diag_at(ps->diag, SP_DIAG_ERROR, @1, "unknown type '%s'", $1);
			ps->probe_errors++;
		}
		$$ = sp_type_string(A, 0); /* size 0: sema gives it the string size */
	}
	;

/* (int8[8])x, (uint8[])x: an integer array of x's bytes (count 0: sema
 * takes it from x's size) */
cast_type:
	type_name
	| type_name '[' INT ']' { $$ = array_cast_type(ps, @3, $1, $3); }
	| type_name '[' ']' { $$ = sp_type_array(A, $1, 0); }
	;

type_name:
	TYPE
	| STRUCT IDENT { $$ = record_ref(ps, $2, false); }
	| UNION IDENT { $$ = record_ref(ps, $2, true); }
	| ENUM IDENT { $$ = enum_ref(ps, $2); }
	| type_name '*' { $$ = sp_type_ptr(A, $1, false); }
	;

primary:
	INT { $$ = mk_int(ps, @$, $1); }
	| STRING { $$ = mk(ps, SP_N_STR, @$, NULL, NULL, NULL); $$->str = $1.s; $$->len = $1.len; }
	| IDENT { $$ = mk_named(ps, SP_N_BUILTIN, @$, $1); }
	| IDENT '(' ')' { $$ = mk_named(ps, SP_N_CALL, @$, $1); }
	| IDENT '(' args ')' { $$ = with_list(mk_named(ps, SP_N_CALL, @$, $1), $3); }
	| map
	| VAR { $$ = mk_named(ps, SP_N_VAR, @$, $1); }
	| POSITIONAL { $$ = mk_positional(ps, @$, $1); }
	| SIZEOF '(' type_name ')' { $$ = mk_typed(ps, SP_N_SIZEOF, @$, $3, NULL); }
	| SIZEOF '(' expr ')' { $$ = mk_typed(ps, SP_N_SIZEOF, @$, NULL, $3); }
	| OFFSETOF '(' type_name ',' IDENT ')' {
		$$ = mk_typed(ps, SP_N_OFFSETOF, @$, $3, NULL);
		$$->name = $5;
	}
	| '(' expr ')' { $$ = $2; }
	| '{' stmts '}' { $$ = block_expr(ps, $2, @$); }
	| if_expr
	| '(' record_fields ')' { $$ = record(ps, $2, @$); }
	| '(' expr ',' args ')' {
		$$ = mk(ps, SP_N_TUPLE, @$, NULL, NULL, NULL);
		sp_list_push(A, &$$->list, $2);
		for (int i = 0; i < $4->list.len; i++)
			sp_list_push(A, &$$->list, $4->list.items[i]);
	}
	;

/* a=1, b="x" of a record (bpftrace 0.27): SETTINGs, made a TUPLE by record() */
record_fields:
	IDENT '=' expr {
		$$ = mk(ps, SP_N_TUPLE, @$, NULL, NULL, NULL);
		sp_list_push(A, &$$->list, mk_named(ps, SP_N_SETTING, @$, $1));
		$$->list.items[0]->a = $3;
	}
	| record_fields ',' IDENT '=' expr {
		$$ = $1;
		sp_list_push(A, &$$->list, mk_named(ps, SP_N_SETTING, @$, $3));
		$$->list.items[$$->list.len - 1]->a = $5;
	}
	;

args:
	expr { $$ = mk(ps, SP_N_TUPLE, @$, NULL, NULL, NULL); sp_list_push(A, &$$->list, $1); }
	| args ',' expr { $$ = $1; sp_list_push(A, &$$->list, $3); }
	;

%%

static const char *token_text(struct sp_pstate *ps, SPYLTYPE loc, char *buf, size_t len)
{
	uint32_t n = loc.end > loc.begin ? loc.end - loc.begin : 0;

	if (n > 40)
		n = 40;
	snprintf(buf, len, "'%.*s'", (int)n, ps->text + loc.begin);
	return buf;
}

/* "unexpected identifier 'foo', expecting ';' or '}'" */
static int yyreport_syntax_error(const yypcontext_t *ctx, struct sp_pstate *ps)
{
	yysymbol_kind_t exp[YYNTOKENS], tok = yypcontext_token(ctx);
	SPYLTYPE loc = *yypcontext_location(ctx);
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS), i;
	yysymbol_kind_t close = YYSYMBOL_YYEMPTY;
	bool want_expr = false;
	char msg[512], text[64];
	size_t len;

	if (tok == YYSYMBOL_SP_TOK_JUNK) {
		sp_diag_at(ps->diag, SP_DIAG_ERROR, loc, "%s %s", yysymbol_name(tok),
			   token_text(ps, loc, text, sizeof(text)));
		return 0;
	}
	if (tok == YYSYMBOL_SP_TOK_UNTERMINATED_ATTACH) {
		const char *t = ps->text + loc.begin; /* up to the block's '{' */
		int tl = (int)strcspn(t, "{\n");

		if ((uint32_t)tl > loc.end - loc.begin)
			tl = (int)(loc.end - loc.begin);
		while (tl > 0 && (t[tl - 1] == ' ' || t[tl - 1] == '\t'))
			tl--;

		sp_diag_at(ps->diag, SP_DIAG_ERROR, loc, "%s '%.*s': no closing '\"'",
			   yysymbol_name(tok), tl < 200 ? tl : 200, t);
		return 0;
	}
	if (tok == YYSYMBOL_SP_TOK_UNTERMINATED_STRING ||
	    tok == YYSYMBOL_SP_TOK_UNTERMINATED_COMMENT) {
		sp_diag_at(ps->diag, SP_DIAG_ERROR, loc, "%s", yysymbol_name(tok));
		return 0;
	}
	if (tok == YYSYMBOL_YYEOF)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected end of input");
	else if (tok == YYSYMBOL_IDENT || tok == YYSYMBOL_MAP || tok == YYSYMBOL_VAR ||
		 tok == YYSYMBOL_INT || tok == YYSYMBOL_ATTACH || tok == YYSYMBOL_TYPE ||
		 tok == YYSYMBOL_POSITIONAL || tok == YYSYMBOL_STRING)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected %s %s", yysymbol_name(tok),
				       token_text(ps, loc, text, sizeof(text)));
	else
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected %s", yysymbol_name(tok));
	for (i = 0; i < n; i++) {
		want_expr |= exp[i] == YYSYMBOL_INT;
		if (exp[i] == YYSYMBOL_PRED_CLOSE || exp[i] == YYSYMBOL_ABLOCK_CLOSE ||
		    !strcmp(yysymbol_name(exp[i]), "'}'") || !strcmp(yysymbol_name(exp[i]), "')'") ||
		    !strcmp(yysymbol_name(exp[i]), "']'"))
			close = exp[i];
	}
	if (n > 4 && want_expr)
		snprintf(msg + len, sizeof(msg) - len, ", expecting an expression");
	else if (n > 4 && close != YYSYMBOL_YYEMPTY)
		snprintf(msg + len, sizeof(msg) - len, ", expecting an operator or %s",
			 yysymbol_name(close));
	for (i = 0; n > 0 && n <= 4 && i < n && len < sizeof(msg); i++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
					i == 0 ? ", expecting " : " or ",
					yysymbol_name(exp[i] == YYSYMBOL_IFX ? YYSYMBOL_IF : exp[i]));
	sp_diag_at(ps->diag, SP_DIAG_ERROR, loc, "%s", msg);
	if (ps->prev_tok == PRED_CLOSE && tok != YYSYMBOL_YYEOF)
		sp_diag_note(ps->diag, loc, "a '/' inside a predicate ends it: write division "
			     "in parentheses, e.g. /(a / b) > 1/");
	ps->probe_errors++;
	return 0;
}

void spyerror(SPYLTYPE *lloc, struct sp_pstate *ps, const char *msg)
{
	if (!strcmp(msg, "memory exhausted")) /* bison's stack is YYMAXDEPTH deep */
		msg = "program nested too deeply (blocks, parentheses or operators)";
	sp_diag_at(ps->diag, SP_DIAG_ERROR, *lloc, "%s", msg);
	ps->probe_errors++;
}

/* The grammar's name of token `tok` as the lexer returns it ("attach
 * point", "'{'", "identifier"), for -d tokens (tokens.c). */
const char *sp_token_name(int tok)
{
	return yysymbol_name(YYTRANSLATE(tok));
}
