/* parser/types/cdecl.c: C struct, union and enum definitions written in a script.
 *
 * bpftrace hands the text before the first probe to clang; sprof parses
 * the part scripts use itself, by recursive descent:
 *
 *   defs       := (def [';'])*
 *   def        := ('struct' | 'union') [NAME] '{' member* '}' [attrs]
 *               | 'typedef' spec declarator ';' 
 *               | 'enum' [NAME] '{' NAME ['=' const] (',' NAME ['=' const])* [','] '}'
 *   member     := spec [declarator (',' declarator)*] (';' | before '}')
 *   spec       := qualifier* (int-words | typename | record-ref-or-def | 'enum' NAME)
 *   declarator := '*'* NAME ('[' const ']')* [':' const]
 *               | '*'* '(' '*' NAME ')' '(' ... ')'       (function pointer)
 *   attrs      := '__attribute__' '((' 'packed' ... '))'
 *
 * A spec without declarator declares an anonymous member (a nested
 * struct/union). `const` (an integer, a #define or an enumerator) may be
 * negative. Errors name what was expected and point into the script.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/types/ctypes.h"
#include "parser/base/diag.h"

#define MAX_FIELDS 1024

struct cp {
	struct sp_ctypes *ct;
	struct sp_diag *d;
	const char *text;
	uint32_t len, pos, base;
	uint32_t tok_begin, tok_end;
	char tok[128];    /* current token text ("" at end) */
	int errors;
	int redefining;   /* inside a script definition of a BTF struct/union */
};

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void skip_blank(struct cp *p)
{
	while (p->pos < p->len) {
		const char *t = p->text + p->pos;

		if (isspace((unsigned char)*t)) {
			p->pos++;
		} else if (t[0] == '/' && p->pos + 1 < p->len && t[1] == '/') {
			while (p->pos < p->len && p->text[p->pos] != '\n')
				p->pos++;
		} else if (t[0] == '/' && p->pos + 1 < p->len && t[1] == '*') {
			const char *e = strstr(t + 2, "*/");

			p->pos = e ? (uint32_t)(e - p->text) + 2 : p->len;
		} else {
			break;
		}
	}
}

/* Reads the next token into p->tok: an identifier, a number, or one char. */
static void next(struct cp *p)
{
	uint32_t n = 1;

	skip_blank(p);
	p->tok_begin = p->pos;
	if (p->pos >= p->len) {
		p->tok[0] = '\0';
		p->tok_end = p->pos;
		return;
	}
	if (is_ident_char(p->text[p->pos]))
		while (p->pos + n < p->len && is_ident_char(p->text[p->pos + n]))
			n++;
	if (n >= sizeof(p->tok))
		n = sizeof(p->tok) - 1;
	memcpy(p->tok, p->text + p->pos, n);
	p->tok[n] = '\0';
	p->pos += n;
	p->tok_end = p->pos;
}

static struct sp_span here(struct cp *p)
{
	uint32_t e = p->tok_end > p->tok_begin ? p->tok_end : p->tok_begin + 1;

	return (struct sp_span){ p->base + p->tok_begin, p->base + e };
}

static bool fail(struct cp *p, const char *what)
{
	if (p->tok[0])
		sp_diag_at(p->d, SP_DIAG_ERROR, here(p), "expected %s, found '%s'", what, p->tok);
	else
		sp_diag_at(p->d, SP_DIAG_ERROR, here(p), "expected %s, found the end of the "
			   "definitions", what);
	p->errors++;
	return false;
}

static bool oom(struct cp *p)
{
	sp_diag_at(p->d, SP_DIAG_ERROR, here(p), "out of memory reading the definitions");
	p->errors++;
	return false;
}

static bool is(struct cp *p, const char *s)
{
	return !strcmp(p->tok, s);
}

static bool accept(struct cp *p, const char *s)
{
	if (!is(p, s))
		return false;
	next(p);
	return true;
}

static bool expect(struct cp *p, const char *s)
{
	char what[16];

	if (accept(p, s))
		return true;
	snprintf(what, sizeof(what), "'%s'", s);
	return fail(p, what);
}

static bool is_name(struct cp *p)
{
	return (isalpha((unsigned char)p->tok[0]) || p->tok[0] == '_');
}

/* const := ['-'] (INT | NAME of a constant) */
static bool constant(struct cp *p, int64_t *v)
{
	bool neg = accept(p, "-");
	struct sp_cconst *c;
	char *end;

	if (isdigit((unsigned char)p->tok[0])) {
		*v = (int64_t)strtoull(p->tok, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		if (*end)
			return fail(p, "an integer");
	} else if (is_name(p) && (c = sp_ctypes_const(p->ct, p->tok)) && !c->str) {
		*v = c->value;
	} else {
		return fail(p, "an integer constant");
	}
	if (neg)
		*v = -*v;
	next(p);
	return true;
}

static struct sp_type *record_def(struct cp *p, bool is_union, const char *name,
				  struct sp_span at);
static bool enum_def(struct cp *p, const char *tag);

static const char *const int_words[] = { "unsigned", "signed", "char", "short", "int", "long" };

static bool is_int_word(const char *s)
{
	for (size_t i = 0; i < sizeof(int_words) / sizeof(int_words[0]); i++)
		if (!strcmp(s, int_words[i]))
			return true;
	return false;
}

/* "unsigned long long int" etc. as one name. */
static struct sp_type *int_spec(struct cp *p)
{
	char words[96] = "";
	struct sp_span at = here(p);
	struct sp_type *t;

	while (is_int_word(p->tok) && strlen(words) + strlen(p->tok) + 2 < sizeof(words)) {
		if (words[0])
			strcat(words, " ");
		strcat(words, p->tok);
		next(p);
	}
	t = sp_ctypes_named(p->ct, words);
	if (!t) {
		sp_diag_at(p->d, SP_DIAG_ERROR, at, "unknown type '%s'", words);
		p->errors++;
	}
	return t;
}

static struct sp_type *tagged_spec(struct cp *p)
{
	bool is_union = is(p, "union"), is_enum = is(p, "enum");
	struct sp_span at = here(p);
	char name[128] = "";

	next(p);
	if (is_name(p)) {
		snprintf(name, sizeof(name), "%s", p->tok);
		next(p);
	}
	if (is_enum) {
		if (is(p, "{") && !enum_def(p, name))
			return NULL;
		return sp_type_int(p->ct->a, 4, false);
	}
	if (is(p, "{"))
		return record_def(p, is_union, name, at);
	if (!name[0])
		return fail(p, "a struct name or '{'"), NULL;
	return sp_type_record(p->ct->a, sp_ctypes_record(p->ct, name, is_union));
}

static bool is_qualifier(struct cp *p)
{
	return is(p, "const") || is(p, "volatile") || is(p, "static") || is(p, "__restrict") ||
	       is(p, "restrict");
}

static struct sp_type *spec(struct cp *p)
{
	struct sp_type *t;

	while (is_qualifier(p))
		next(p);
	if (is(p, "struct") || is(p, "union") || is(p, "enum"))
		t = tagged_spec(p);
	else if (is_int_word(p->tok))
		t = int_spec(p);
	else if (is_name(p) && (t = sp_ctypes_named(p->ct, p->tok)))
		next(p);
	else
		return fail(p, "a type"), NULL;
	while (is_qualifier(p))
		next(p);
	return t;
}

/* '(' '*' NAME ')' '(' params ')': the parameters are skipped. */
static bool fnptr(struct cp *p, struct sp_cfield *f)
{
	int depth = 1;

	if (!expect(p, "*") || !is_name(p))
		return fail(p, "a member name");
	f->name = sp_arena_strdup(p->ct->a, p->tok);
	next(p);
	if (!expect(p, ")") || !expect(p, "("))
		return false;
	while (p->tok[0] && depth > 0) {
		depth += is(p, "(") - is(p, ")");
		next(p);
	}
	f->type = sp_type_ptr(p->ct->a, NULL, false);
	return true;
}

static bool declarator(struct cp *p, struct sp_type *base, struct sp_cfield *f)
{
	uint32_t dims[8];
	int ndims = 0, i;
	int64_t v;

	f->type = base;
	while (accept(p, "*"))
		f->type = sp_type_ptr(p->ct->a, f->type, false);
	if (accept(p, "("))
		return fnptr(p, f);
	if (!is_name(p))
		return fail(p, "a member name");
	f->name = sp_arena_strdup(p->ct->a, p->tok);
	next(p);
	while (accept(p, "[")) {
		if (!constant(p, &v) || !expect(p, "]"))
			return false;
		if (ndims < 8)
			dims[ndims++] = (uint32_t)v;
	}
	for (i = ndims - 1; i >= 0; i--) {
		struct sp_type *e = f->type;

		if (i == ndims - 1 && e->kind == SP_T_INT && e->size == 1 && e->is_signed &&
		    dims[i] > 0)
			f->type = sp_type_string(p->ct->a, dims[i]); /* char[N]: a string */
		else
			f->type = sp_type_array(p->ct->a, e, dims[i]);
	}
	if (accept(p, ":")) {
		if (!constant(p, &v))
			return false;
		if (f->type->kind != SP_T_INT || v < 0 || v > (int64_t)f->type->size * 8) {
			sp_diag_at(p->d, SP_DIAG_ERROR, here(p), "invalid bitfield width %lld for "
				   "member '%s'", (long long)v, f->name);
			p->errors++;
			return false;
		}
		f->bit_size = (uint8_t)v;
	}
	return true;
}

/* A member held by value needs a complete type (from BTF when the script
 * did not define it). */
static bool complete_member(struct cp *p, const struct sp_cfield *f, struct sp_span at)
{
	const struct sp_type *t = f->type;

	while (t->kind == SP_T_ARRAY)
		t = t->pointee;
	if (t->kind != SP_T_RECORD)
		return true;
	/* as bpftrace: redefining a kernel type takes no other types from BTF */
	if (p->redefining && t->rec->name[0] && t->rec->def.end <= t->rec->def.begin)
		goto incomplete;
	if (sp_ctypes_complete(p->ct, t->rec))
		return true;
incomplete:
	sp_diag_at(p->d, SP_DIAG_ERROR, at, "member '%s' has incomplete type '%s %s'",
		   f->name ? f->name : "(anonymous)", sp_record_kind(t->rec), t->rec->name);
	p->errors++;
	return false;
}

/* member := spec [declarator (',' declarator)*] ';'; as in bpftrace (clang
 * accepts it with a warning) the last member may end at '}' without ';'. */
static bool member(struct cp *p, struct sp_cfield *fields, int *n)
{
	struct sp_type *base = spec(p);

	if (!base)
		return false;
	if ((is(p, ";") || is(p, "}")) && base->kind == SP_T_RECORD) { /* anonymous member */
		accept(p, ";");
		if (*n < MAX_FIELDS)
			fields[(*n)++] = (struct sp_cfield){ .type = base };
		return true;
	}
	do {
		if (*n >= MAX_FIELDS)
			return fail(p, "fewer members");
		struct sp_span at = here(p);

		if (!declarator(p, base, &fields[*n]) || !complete_member(p, &fields[*n], at))
			return false;
		(*n)++;
	} while (accept(p, ","));
	return is(p, "}") || expect(p, ";");
}

/* __attribute__((packed)) and friends; true when packed was among them. */
static bool attributes(struct cp *p)
{
	bool packed = false;
	int depth = 0;

	while (is(p, "__attribute__") || is(p, "__attribute")) {
		next(p);
		do {
			depth += is(p, "(") - is(p, ")");
			packed |= is(p, "packed") || is(p, "__packed__");
			next(p);
		} while (p->tok[0] && depth > 0);
	}
	return packed;
}

static struct sp_type *record_def(struct cp *p, bool is_union, const char *name,
				  struct sp_span at)
{
	struct sp_cfield *fields = calloc(MAX_FIELDS, sizeof(*fields));
	struct sp_record *r;
	int n = 0, redefining;

	if (!fields)
		return NULL;
	r = name[0] ? sp_ctypes_record(p->ct, name, is_union)
		    : sp_arena_alloc(p->ct->a, sizeof(struct sp_record));
	if (!name[0])
		r->name = "";
	r->is_union = is_union;
	if (r->complete && r->def.end > r->def.begin) {
		sp_diag_at(p->d, SP_DIAG_ERROR, at, "redefinition of '%s %s'", sp_record_kind(r),
			   name);
		sp_diag_note(p->d, r->def, "'%s %s' was first defined here", sp_record_kind(r), name);
		p->errors++;
	}
	next(p); /* '{' */
	redefining = name[0] && !r->complete && sp_ctypes_btf_has_record(p->ct, name, is_union);
	p->redefining += redefining;
	while (p->tok[0] && !is(p, "}"))
		if (!member(p, fields, &n)) {
			p->redefining -= redefining;
			goto out_free;
		}
	p->redefining -= redefining;
	if (!expect(p, "}"))
		goto out_free;
	r->packed = attributes(p);
	r->fields = sp_arena_alloc(p->ct->a, (size_t)(n ? n : 1) * sizeof(*fields));
	memcpy(r->fields, fields, (size_t)n * sizeof(*fields));
	r->nfields = n;
	r->btf_id = 0;
	r->def = at;
	sp_record_layout(r);
	free(fields);
	return sp_type_record(p->ct->a, r);
out_free:
	free(fields);
	return NULL;
}

/* The enumerators become constants carrying the enum's type fmt,
 * "enum NAME:ONE=1,TWO=2" (types.h), which prints their values by name. */
static bool enum_def(struct cp *p, const char *tag)
{
	int64_t v = 0;
	char *fmt = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&fmt, &len);
	struct sp_cconst **made = NULL;
	int n = 0;
	bool ok = false;

	if (!m)
		return oom(p);
	fprintf(m, "enum %s:", tag);
	next(p); /* '{' */
	while (!is(p, "}")) {
		char name[128];
		struct sp_cconst **grown;

		if (!is_name(p)) {
			fail(p, "an enumerator name");
			goto out_free;
		}
		snprintf(name, sizeof(name), "%s", p->tok);
		next(p);
		if (accept(p, "=") && !constant(p, &v))
			goto out_free;
		sp_ctypes_define(p->ct, name, v, NULL, 0);
		grown = realloc(made, (size_t)(n + 1) * sizeof(*made));
		if (!grown) {
			oom(p);
			goto out_free;
		}
		made = grown;
		made[n++] = sp_ctypes_const(p->ct, name);
		fprintf(m, "%s%s=%lld", n > 1 ? "," : "", name, (long long)v);
		v++;
		if (!accept(p, ","))
			break;
	}
	ok = expect(p, "}");
out_free:
	fclose(m);
	if (ok) {
		const char *kept = sp_arena_strdup(p->ct->a, fmt);

		for (int i = 0; i < n; i++)
			made[i]->enum_fmt = kept;
		if (tag[0])
			sp_ctypes_define_enum(p->ct, tag, kept);
	}
	free(made);
	free(fmt);
	return ok;
}

/* typedef spec declarator ';' */
static bool typedef_def(struct cp *p)
{
	struct sp_cfield f = { 0 };
	struct sp_type *base;

	next(p); /* 'typedef' */
	base = spec(p);
	if (!base || !declarator(p, base, &f))
		return false;
	if (f.bit_size)
		return fail(p, "a typedef without a bitfield width");
	sp_ctypes_add_typedef(p->ct, f.name, f.type);
	return expect(p, ";");
}

int sp_cdecl_parse(struct sp_ctypes *ct, struct sp_diag *d, const char *text, uint32_t len,
		   uint32_t base)
{
	struct cp p = { .ct = ct, .d = d, .text = text, .len = len, .base = base };

	next(&p);
	while (p.tok[0]) {
		if (accept(&p, ";"))
			continue;
		if (is(&p, "typedef")) {
			if (!typedef_def(&p))
				break;
			continue;
		}
		if (!is(&p, "struct") && !is(&p, "union") && !is(&p, "enum")) {
			fail(&p, "'struct', 'union', 'enum' or 'typedef'");
			break;
		}
		if (!tagged_spec(&p))
			break;
	}
	return p.errors;
}
