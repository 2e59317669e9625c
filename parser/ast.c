/* parser/ast.c: node constructors and the S-expression dump.
 *
 * The dump is what `sprof -d ast` prints and what tests/parse and
 * tests/sema compare against. One node per line, children indented by two
 * spaces, closing parentheses at the end of the last child, Lisp style:
 *
 *   (program
 *     (probe
 *       (attach "profile:hz:99" profile unit=hz value=99)
 *       (block
 *         (assign =
 *           (map @ :count key=ustack
 *             (builtin ustack :ustack))
 *           (call count :count)))))
 *
 * With types, every typed expression shows " :TYPE" after its attributes.
 * A probe's predicate is shown as a (pred EXPR) pseudo-node.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/ast.h"
#include "parser/frontend.h"

static const char *const node_names[] = {
#define X(k, s) s,
	SP_NODE_KINDS(X)
#undef X
};

struct sp_node *sp_node_new(struct sp_arena *a, enum sp_node_kind kind, struct sp_span span)
{
	struct sp_node *n = sp_arena_alloc(a, sizeof(*n));

	n->kind = kind;
	n->span = span;
	n->scope_id = -1;
	return n;
}

int sp_list_push(struct sp_arena *a, struct sp_list *l, struct sp_node *n)
{
	if (l->len == l->cap) {
		int cap = l->cap ? l->cap * 2 : 4;
		struct sp_node **items = sp_arena_alloc(a, (size_t)cap * sizeof(*items));

		if (l->len)
			memcpy(items, l->items, (size_t)l->len * sizeof(*items));
		l->items = items;
		l->cap = cap;
	}
	l->items[l->len++] = n;
	return 0;
}

const char *sp_node_kind_name(enum sp_node_kind kind)
{
	return kind < SP_N__COUNT ? node_names[kind] : "?";
}

const char *sp_op_str(int op, char buf[4])
{
	static const char *const multi[] = { "==", "!=", "<=", ">=", "&&", "||", "<<", ">>" };

	if (op >= SP_OP_EQ && op <= SP_OP_SHR)
		return multi[op - SP_OP_EQ];
	buf[0] = (char)op;
	buf[1] = '\0';
	return buf;
}

static void dump_string(FILE *f, const char *s, uint32_t len)
{
	uint32_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void dump_attach(FILE *f, const struct sp_attach *at)
{
	fputc(' ', f);
	dump_string(f, at->raw, (uint32_t)strlen(at->raw));
	if (at->provider)
		fprintf(f, " %s", at->provider);
	if (at->target)
		fprintf(f, " target=%s", at->target);
	if (at->ns)
		fprintf(f, " ns=%s", at->ns);
	if (at->func)
		fprintf(f, " func=%s", at->func);
	if (at->unit)
		fprintf(f, " unit=%s", at->unit);
	if (at->has_value)
		fprintf(f, " value=%" PRIu64, at->value);
	if (at->is_addr)
		fprintf(f, " addr=0x%" PRIx64, at->offset);
	else if (at->has_offset)
		fprintf(f, " offset=%" PRIu64, at->offset);
}

static void dump_attrs(FILE *f, const struct sp_node *n)
{
	char op[4], buf[64];

	switch (n->kind) {
	case SP_N_ATTACH:
		dump_attach(f, n->attach);
		break;
	case SP_N_ASSIGN:
		fprintf(f, " %s=", n->op ? sp_op_str(n->op, op) : "");
		break;
	case SP_N_INCDEC:
		fprintf(f, " %s %s", n->prefix ? "prefix" : "postfix", n->op == '+' ? "++" : "--");
		break;
	case SP_N_INT:
		if (n->type && n->type->kind == SP_T_INT && !n->type->is_signed)
			fprintf(f, " %" PRIu64, (uint64_t)n->ival);
		else
			fprintf(f, " %" PRId64, n->ival);
		break;
	case SP_N_STR:
		fputc(' ', f);
		dump_string(f, n->str, n->len);
		break;
	case SP_N_BUILTIN:
		fprintf(f, " %s", n->name);
		if (!strcmp(n->name, "nsecs") && n->ival) /* nsecs(boot), nsecs(tai) */
			fprintf(f, " clock=%s", n->ival == 1 ? "boot" : "tai");
		break;
	case SP_N_SETTING:
	case SP_N_MACRO:
	case SP_N_CALL:
	case SP_N_MAP:
	case SP_N_VAR:
	case SP_N_POSITIONAL:
		fprintf(f, " %s", n->name);
		break;
	case SP_N_BINOP:
	case SP_N_UNOP:
		fprintf(f, " %s", sp_op_str(n->op, op));
		break;
	case SP_N_FIELD:
		fprintf(f, " %s%s", n->arrow ? "->" : ".", n->name);
		break;
	case SP_N_TUPLE_INDEX:
		fprintf(f, " %" PRId64, n->ival);
		break;
	case SP_N_CAST:
		fprintf(f, " %s", sp_type_str(n->cast_type, buf, sizeof(buf)));
		break;
	case SP_N_LET: /* the declared type; `string` is sized by sema */
		if (n->cast_type && n->cast_type->kind == SP_T_STRING && !n->cast_type->size)
			fputs(" string", f);
		else if (n->cast_type)
			fprintf(f, " %s", sp_type_str(n->cast_type, buf, sizeof(buf)));
		break;
	default:
		break;
	}
}

static void dump_type(FILE *f, const struct sp_node *n)
{
	char buf[256];

	if (!n->type)
		return;
	fprintf(f, " :%s", sp_type_str(n->type, buf, sizeof(buf)));
	if (n->kind == SP_N_MAP && n->key_type)
		fprintf(f, " key=%s", sp_type_str(n->key_type, buf, sizeof(buf)));
}

static void dump_node(FILE *f, const struct sp_node *n, int depth, bool types);

static void dump_child(FILE *f, const struct sp_node *n, int depth, bool types)
{
	fprintf(f, "\n%*s", depth * 2, "");
	dump_node(f, n, depth, types);
}

static void dump_children(FILE *f, const struct sp_node *n, int depth, bool types)
{
	int i;

	for (i = 0; i < n->list.len; i++)
		dump_child(f, n->list.items[i], depth, types);
	if (n->kind == SP_N_PROBE && n->a) {
		fprintf(f, "\n%*s(pred", depth * 2, "");
		dump_child(f, n->a, depth + 1, types);
		fputc(')', f);
	} else if (n->a) {
		dump_child(f, n->a, depth, types);
	}
	if (n->b)
		dump_child(f, n->b, depth, types);
	if (n->c)
		dump_child(f, n->c, depth, types);
}

static void dump_node(FILE *f, const struct sp_node *n, int depth, bool types)
{
	fprintf(f, "(%s", sp_node_kind_name(n->kind));
	dump_attrs(f, n);
	if (types)
		dump_type(f, n);
	dump_children(f, n, depth + 1, types);
	fputc(')', f);
}

void sp_ast_dump(FILE *f, const struct sp_node *n, bool with_types)
{
	if (!n) {
		fputs("(null)\n", f);
		return;
	}
	dump_node(f, n, 0, with_types);
	fputc('\n', f);
}
