/* parser/params.c: a script's purpose and named parameters (params.h).
 *
 * The declarations live in comments so a script with parameters is still a
 * plain bpftrace-style program; the values are bound on the parsed tree
 * (before sema) so diagnostics keep pointing at the script as written.
 */
#include "parser/params.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/ast.h"
#include "parser/base/diag.h"

static const char *const type_names[] = {
	[SP_PARAM_INT] = "int",
	[SP_PARAM_STRING] = "string",
	[SP_PARAM_DURATION] = "duration",
	[SP_PARAM_FUNC] = "func",
	[SP_PARAM_USDT] = "usdt",
};

/* how --list-scripts and errors show a value of each type */
static const char *const type_metavars[] = {
	[SP_PARAM_INT] = "N",
	[SP_PARAM_STRING] = "TEXT",
	[SP_PARAM_DURATION] = "TIME",
	[SP_PARAM_FUNC] = "BIN:FUNC",
	[SP_PARAM_USDT] = "BIN:[PROVIDER:]NAME",
};

static const char *const type_forms[] = {
	[SP_PARAM_INT] = "an integer",
	[SP_PARAM_STRING] = "a string",
	[SP_PARAM_DURATION] = "a duration such as 500us, 10ms, 2s (units ns, us, ms, s, m, h)",
	[SP_PARAM_FUNC] = "BIN:FUNC, e.g. /bin/bash:readline or libc:malloc (FUNC may be a glob)",
	[SP_PARAM_USDT] = "BIN:[PROVIDER:]NAME, e.g. ./app:myprov:request",
};

const char *sp_param_type_name(enum sp_param_type t)
{
	return type_names[t];
}

static int find_type(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strlen(type_names[i]) == len && !strncmp(type_names[i], s, len))
			return (int)i;
	return -1;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *word_end(const char *s)
{
	while (*s && *s != ' ' && *s != '\t' && *s != ':' && *s != '\n')
		s++;
	return s;
}

/* "NAME TYPE DEFAULT: HELP" (the text after "param "), up to end of line */
static int parse_param(struct sp_arena *a, const char *s, const char *eol, struct sp_param *p,
		       char *err, size_t errlen)
{
	const char *name = skip_ws(s), *ne = word_end(name);
	const char *type = skip_ws(ne), *te = word_end(type);
	const char *def = skip_ws(te), *de = word_end(def);
	int t = find_type(type, (size_t)(te - type));

	if (ne == name || *de != ':' || de > eol) {
		snprintf(err, errlen, "malformed param line '%.*s': expected "
			 "'// param NAME TYPE DEFAULT: HELP'", (int)(eol - s), s);
		return -EINVAL;
	}
	if (t < 0) {
		snprintf(err, errlen, "param '%.*s': unknown type '%.*s' (int, string, duration, "
			 "func, usdt)", (int)(ne - name), name, (int)(te - type), type);
		return -EINVAL;
	}
	for (const char *c = name; c < ne; c++)
		if (!(isalpha((unsigned char)*c) || *c == '_' || (c > name && isdigit((unsigned char)*c)))) {
			snprintf(err, errlen, "param '%.*s': a name is letters, digits and '_', not "
				 "starting with a digit", (int)(ne - name), name);
			return -EINVAL;
		}
	p->name = sp_arena_strndup(a, name, (size_t)(ne - name));
	p->type = (enum sp_param_type)t;
	if (de - def == 1 && *def == '-')
		p->def = NULL;
	else if (de - def == 2 && !strncmp(def, "\"\"", 2))
		p->def = "";
	else
		p->def = sp_arena_strndup(a, def, (size_t)(de - def));
	p->help = sp_arena_strndup(a, skip_ws(de + 1), (size_t)(eol - skip_ws(de + 1)));
	return 0;
}

static int add_param(struct sp_arena *a, struct sp_script_info *si, const char *s,
		     const char *eol, char *err, size_t errlen)
{
	struct sp_param *grown = sp_arena_alloc(a, sizeof(*grown) * (size_t)(si->nparams + 1));

	if (si->nparams)
		memcpy(grown, si->params, sizeof(*grown) * (size_t)si->nparams);
	si->params = grown;
	if (parse_param(a, s, eol, &si->params[si->nparams], err, errlen))
		return -EINVAL;
	for (int i = 0; i < si->nparams; i++)
		if (!strcmp(si->params[i].name, si->params[si->nparams].name)) {
			snprintf(err, errlen, "param '%s' is declared twice", si->params[i].name);
			return -EINVAL;
		}
	si->nparams++;
	return 0;
}

int sp_script_info_parse(struct sp_arena *a, const char *text, struct sp_script_info *out,
			 char *err, size_t errlen)
{
	const char *line = text;

	memset(out, 0, sizeof(*out));
	while (*line) {
		const char *eol = strchr(line, '\n'), *s = skip_ws(line);

		if (!eol)
			eol = line + strlen(line);
		if (!strncmp(s, "//", 2)) {
			s = skip_ws(s + 2);
			if (!strncmp(s, "purpose:", 8))
				out->purpose = sp_arena_strndup(a, skip_ws(s + 8),
								(size_t)(eol - skip_ws(s + 8)));
			else if (!strncmp(s, "param ", 6) &&
				 add_param(a, out, s + 6, eol, err, errlen))
				return -EINVAL;
		} else if (s != eol && !(line == text && !strncmp(s, "#!", 2))) {
			break; /* the header ends at the first line of code */
		}
		line = *eol ? eol + 1 : eol;
	}
	return 0;
}

static struct sp_param *find_param(const struct sp_script_info *si, const char *name, size_t len)
{
	for (int i = 0; i < si->nparams; i++)
		if (strlen(si->params[i].name) == len && !strncmp(si->params[i].name, name, len))
			return &si->params[i];
	return NULL;
}

static void list_names(const struct sp_script_info *si, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < si->nparams && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", si->params[i].name);
}

int sp_script_param_set(struct sp_script_info *si, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	struct sp_param *p;
	char names[256];

	if (!eq || eq == kv) {
		snprintf(err, errlen, "invalid --param '%s': expected NAME=VALUE", kv);
		return -EINVAL;
	}
	p = find_param(si, kv, (size_t)(eq - kv));
	if (!p) {
		list_names(si, names, sizeof(names));
		snprintf(err, errlen, "unknown parameter '%.*s' (%s%s)", (int)(eq - kv), kv,
			 si->nparams ? "valid: " : "the script takes no parameters",
			 names);
		return -EINVAL;
	}
	p->value = eq + 1;
	return 0;
}

static int parse_duration_ns(const char *s, int64_t *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*ns = (int64_t)(v * units[i].mult);
			return 0;
		}
	if (v == 0 && !*end) {
		*ns = 0;
		return 0;
	}
	return -EINVAL;
}

/* BIN:REST with both parts present; usdt also allows BIN:PROVIDER:NAME */
static bool spec_ok(const char *v)
{
	const char *colon = strchr(v, ':');

	return colon && colon != v && colon[1] && colon[1] != ':';
}

static int check_value(struct sp_param *p)
{
	char *end;

	switch (p->type) {
	case SP_PARAM_INT:
		errno = 0;
		p->ival = strtoll(p->value, &end, 0);
		return errno || end == p->value || *end ? -EINVAL : 0;
	case SP_PARAM_DURATION:
		return parse_duration_ns(p->value, &p->ival);
	case SP_PARAM_FUNC:
	case SP_PARAM_USDT:
		return spec_ok(p->value) ? 0 : -EINVAL;
	default:
		return 0;
	}
}

int sp_script_params_check(struct sp_script_info *si, char *err, size_t errlen)
{
	for (int i = 0; i < si->nparams; i++) {
		struct sp_param *p = &si->params[i];

		if (!p->value)
			p->value = p->def;
		if (!p->value) {
			snprintf(err, errlen, "missing parameter '%s' (--param %s=%s: %s)", p->name,
				 p->name, type_metavars[p->type], p->help);
			return -EINVAL;
		}
		if (check_value(p)) {
			snprintf(err, errlen, "invalid value '%s' for parameter '%s': expected %s",
				 p->value, p->name, type_forms[p->type]);
			return -EINVAL;
		}
	}
	return 0;
}

static bool is_text(const struct sp_param *p)
{
	return p->type != SP_PARAM_INT && p->type != SP_PARAM_DURATION;
}

static const char *value_text(struct sp_arena *a, const struct sp_param *p)
{
	return is_text(p) ? p->value : sp_arena_printf(a, "%lld", (long long)p->ival);
}

/* "uprobe:$func" -> "uprobe:/bin/bash:readline"; a `$word` that is not a
 * parameter is an error, `$N` is left to the positional expansion */
static void bind_attach(struct sp_arena *a, struct sp_node *n, const struct sp_script_info *si,
			struct sp_diag *d)
{
	const char *raw = n->attach->raw, *p = raw;
	char *out = sp_arena_strdup(a, "");

	if (!strchr(raw, '$'))
		return;
	while (*p) {
		const char *s = p + 1, *e = s;
		struct sp_param *par;

		while (*p == '$' && (isalnum((unsigned char)*e) || *e == '_'))
			e++;
		if (*p != '$' || e == s || isdigit((unsigned char)*s)) {
			out = sp_arena_printf(a, "%s%c", out, *p++);
			continue;
		}
		par = find_param(si, s, (size_t)(e - s));
		if (!par)
			sp_diag_at(d, SP_DIAG_ERROR, n->span, "'%.*s' in attach point '%s' is not a "
				   "parameter of this script", (int)(e - p), p, raw);
		else
			out = sp_arena_printf(a, "%s%s", out, value_text(a, par));
		p = e;
	}
	n->attach->raw = out;
	n->attach->expanded = true;
}

static void bind_var(struct sp_arena *a, struct sp_node *n, const struct sp_param *p)
{
	if (is_text(p)) {
		n->kind = SP_N_STR;
		n->str = sp_arena_strdup(a, p->value);
		n->len = (uint32_t)strlen(p->value);
	} else {
		n->kind = SP_N_INT;
		n->ival = p->ival;
	}
}

static const struct sp_param *var_param(const struct sp_node *n, const struct sp_script_info *si)
{
	if (!n || n->kind != SP_N_VAR || !n->name || n->name[0] != '$')
		return NULL;
	return find_param(si, n->name + 1, strlen(n->name + 1));
}

static void bind(struct sp_arena *a, struct sp_node *n, const struct sp_script_info *si,
		 struct sp_diag *d)
{
	const struct sp_param *p;

	if (!n)
		return;
	if (n->kind == SP_N_ATTACH && n->attach)
		bind_attach(a, n, si, d);
	if ((n->kind == SP_N_ASSIGN || n->kind == SP_N_INCDEC) && var_param(n->a, si))
		sp_diag_at(d, SP_DIAG_ERROR, n->a->span, "cannot assign to script parameter '%s'",
			   n->a->name);
	p = var_param(n, si);
	if (p) {
		bind_var(a, n, p);
		return;
	}
	bind(a, n->a, si, d);
	bind(a, n->b, si, d);
	bind(a, n->c, si, d);
	for (int i = 0; i < n->list.len; i++)
		bind(a, n->list.items[i], si, d);
}

int sp_script_params_bind(struct sp_arena *a, struct sp_node *prog,
			  const struct sp_script_info *si, struct sp_diag *d)
{
	int before = sp_diag_errors(d);

	bind(a, prog, si, d);
	return sp_diag_errors(d) - before;
}

void sp_script_params_print(FILE *f, const struct sp_script_info *si, const char *indent)
{
	for (int i = 0; i < si->nparams; i++) {
		const struct sp_param *p = &si->params[i];

		fprintf(f, "%s%s=%s", indent, p->name, type_metavars[p->type]);
		if (p->def)
			fprintf(f, " (default %s)", *p->def ? p->def : "\"\"");
		else
			fprintf(f, " (required)");
		fprintf(f, ": %s\n", p->help);
	}
}
