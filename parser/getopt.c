/* parser/getopt.c: getopt("name"[, default[, "description"]]), bpftrace 0.27's
 * named parameters.
 *
 *   sprof -e 'BEGIN { print((getopt("aa", 1), getopt("bb"))); }' -- --aa=20 --bb
 *
 * The command line's "--name[=value]" words after the program reach sema
 * as sp_sema_opts.named. A getopt() call becomes the literal it reads, as
 * $1 does: an integer when its default is one, a string when the default is
 * a string, and a bool without a default or with a bool one ("--bb" alone
 * is true; "--bb=false" or "=0" false). The default is a literal. sema marks
 * each name a getopt() reads, so the driver can refuse a named parameter
 * that nothing reads, as bpftrace does. The description (0.27's text for
 * `-- --help`) is checked and not shown yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parser/base/arena.h"
#include "parser/sema.h"

/* The value of "--name[=value]" on the command line: true if given, with
 * *val the text after '=' (NULL without one). */
static bool named_value(struct sema *s, const char *name, const char **val)
{
	size_t len = strlen(name);
	bool found = false;

	for (int i = 0; i < s->o->nnamed; i++) {
		const char *w = s->o->named[i] + 2; /* past "--" */

		if (strncmp(w, name, len) || (w[len] && w[len] != '='))
			continue;
		if (s->o->named_used)
			s->o->named_used[i] = true;
		found = true; /* the last one counts */
		*val = w[len] == '=' ? w + len + 1 : NULL;
	}
	return found;
}

/* true/false in any case (bpftrace 0.27 takes "--cc=False"), 1/0 */
static bool parse_bool(const char *v, int64_t *out)
{
	if (!strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = 1;
	else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = 0;
	else
		return false;
	return true;
}

/* An integer; above 2^63 - 1 (up to 0xffffffffffffffff) *is_u64 is set */
static bool parse_int(const char *v, int64_t *out, bool *is_u64)
{
	char *end;

	errno = 0;
	*is_u64 = false;
	*out = strtoll(v, &end, 0);
	if (*v && !*end && errno == ERANGE && *v != '-') {
		errno = 0;
		*out = (int64_t)strtoull(v, &end, 0);
		*is_u64 = true;
	}
	return *v && !*end && !errno;
}

/* The default's kind: 'b' (none, or true/false), 'i', 's'; 0 after an error. */
static int default_kind(struct sema *s, struct sp_node *n, struct sp_node *d, int64_t *iv)
{
	struct sp_type *t;

	*iv = 0;
	if (!d)
		return 'b';
	t = sema_expr(s, d);
	if (d->kind == SP_N_STR)
		return 's';
	if (sema_const_int(d, iv))
		return sp_type_is_bool(t) ? 'b' : 'i';
	sema_err(s, d->span, "getopt()'s default must be a literal integer, string or bool");
	(void)n;
	return 0;
}

static void to_int(struct sema *s, struct sp_node *n, int64_t v, bool is_bool)
{
	n->kind = SP_N_INT;
	n->ival = v;
	n->list.len = 0;
	n->type = is_bool ? sp_type_bool(s->a) : s->s64;
}

static void to_str(struct sema *s, struct sp_node *n, const char *v)
{
	n->kind = SP_N_STR;
	n->str = sp_arena_strdup(s->a, v);
	n->len = (uint32_t)strlen(v);
	n->list.len = 0;
	n->type = NULL;
}

struct sp_type *sema_getopt(struct sema *s, struct sp_node *n)
{
	struct sp_node *name = n->list.len > 0 ? n->list.items[0] : NULL;
	struct sp_node *d = n->list.len > 1 ? n->list.items[1] : NULL;
	const char *val = NULL;
	int64_t iv;
	int kind;
	bool given, is_u64 = false;

	if (n->list.len < 1 || n->list.len > 3) {
		sema_err(s, n->span, "getopt() takes 1 to 3 arguments: getopt(\"name\"[, default"
			 "[, \"description\"]]), not %d", n->list.len);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	if (n->list.len == 3 && n->list.items[2]->kind != SP_N_STR) {
		sema_err(s, n->list.items[2]->span, "getopt()'s description must be a string literal");
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	if (name->kind != SP_N_STR || !name->len) {
		sema_err(s, name->span, "getopt()'s first argument must be a string literal: the "
			 "parameter's name");
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	kind = default_kind(s, n, d, &iv);
	if (!kind)
		return n->type = sp_type_new(s->a, SP_T_NONE);
	given = named_value(s, name->str, &val);
	if (kind == 's') {
		to_str(s, n, given ? (val ? val : "") : d->str);
		return sema_expr(s, n);
	}
	if (given && !val && kind == 'b')
		iv = 1;
	else if (given && !(kind == 'b' ? parse_bool(val ? val : "", &iv)
				       : parse_int(val ? val : "", &iv, &is_u64))) {
		sema_err(s, n->span, "program command line option --%s invalid %s (value: %s)",
			 name->str, kind == 'b' ? "boolean" : "integer", val ? val : "");
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	to_int(s, n, iv, kind == 'b');
	if (is_u64)
		n->type = s->u64;
	return n->type;
}
