/* parser/pp.c: the preprocessor lines a script may contain.
 *
 * bpftrace runs clang's preprocessor over the script; sprof handles the
 * directives scripts use, in the lexer, so every token keeps its offset:
 *
 *   #define NAME VALUE     an integer constant expression or a string; a
 *                          later NAME in a probe becomes that literal
 *   #define NAME           defined (for #ifdef), value 1
 *   #undef NAME
 *   #ifdef / #ifndef / #if / #elif / #else / #endif
 *                          conditions over integers, defined(NAME) and
 *                          constants; BPFTRACE_HAVE_BTF is defined when the
 *                          kernel has BTF, as in bpftrace
 *   #include <file>        accepted when the file exists in an include
 *                          directory (-I, /usr/include ...): kernel types
 *                          come from BTF, not from the header's text; its
 *                          object-like #defines of upper-case names that
 *                          evaluate to integers are taken (AF_INET,
 *                          O_CREAT), also from the <files> it includes, up
 *                          to 8 levels (errno.h -> bits/errno.h -> linux/errno.h
 *                          -> asm/errno.h -> asm-generic/errno.h ->
 *                          errno-base.h), whatever #if they sit in
 *   #include "file"        relative to the script's directory or an -I
 *                          directory: its struct/union/enum definitions and
 *                          #define lines are read (macros that are no
 *                          constant are left out); found only among the
 *                          system headers ("errno.h", --include errno.h),
 *                          it is read as <file>; each file is read once,
 *                          and at most 64 files and 16 MiB in all
 *
 * Function-like macros and token pasting in the script itself are not
 * supported (an error).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parser/base/arena.h"
#include "parser/types/ctypes.h"
#include "parser/base/diag.h"
#include "parser/frontend.h"
#include "parser/lexstate.h"
#include "parser/base/source.h"

#define SP_MAX_INCLUDE_BYTES (16 << 20)

/* --- constant expressions ------------------------------------------------------- */

struct ev {
	struct sp_ctypes *ct;
	const char *p;
	bool ok;
	bool pp;   /* #if: defined(NAME) allowed, unknown names are 0 */
};

static void ev_blank(struct ev *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static bool ev_is(struct ev *e, const char *op)
{
	size_t n = strlen(op);

	ev_blank(e);
	if (strncmp(e->p, op, n))
		return false;
	/* "<" is not "<<", "&" not "&&", "|" not "||" */
	if (n == 1 && strchr("<>&|", op[0]) && e->p[1] == op[0])
		return false;
	e->p += n;
	return true;
}

static int64_t ev_expr(struct ev *e, int prec);

static int64_t ev_name(struct ev *e)
{
	char name[128];
	size_t n = 0;
	struct sp_cconst *c;
	bool paren;

	while ((isalnum((unsigned char)*e->p) || *e->p == '_') && n + 1 < sizeof(name))
		name[n++] = *e->p++;
	name[n] = '\0';
	if (e->pp && !strcmp(name, "defined")) {
		paren = ev_is(e, "(");
		ev_blank(e);
		n = 0;
		while ((isalnum((unsigned char)*e->p) || *e->p == '_') && n + 1 < sizeof(name))
			name[n++] = *e->p++;
		name[n] = '\0';
		if (paren && !ev_is(e, ")"))
			e->ok = false;
		return sp_ctypes_const(e->ct, name) != NULL ||
		       (!strcmp(name, "BPFTRACE_HAVE_BTF") && sp_ctypes_have_btf(e->ct));
	}
	c = sp_ctypes_const(e->ct, name);
	if (c && !c->str)
		return c->value;
	if (!e->pp)
		e->ok = false;
	return 0;
}

static int64_t ev_unary(struct ev *e)
{
	char *end;
	int64_t v;

	ev_blank(e);
	if (ev_is(e, "-"))
		return -ev_unary(e);
	if (ev_is(e, "~"))
		return ~ev_unary(e);
	if (ev_is(e, "!"))
		return !ev_unary(e);
	if (ev_is(e, "(")) {
		v = ev_expr(e, 0);
		if (!ev_is(e, ")"))
			e->ok = false;
		return v;
	}
	if (isdigit((unsigned char)*e->p)) {
		v = (int64_t)strtoull(e->p, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		e->p = end;
		return v;
	}
	if (isalpha((unsigned char)*e->p) || *e->p == '_')
		return ev_name(e);
	e->ok = false;
	return 0;
}

static const struct { const char *op; int prec; } ev_ops[] = {
	{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
	{ "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "<", 7 }, { ">", 7 },
	{ "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static int64_t ev_apply(const char *op, int64_t a, int64_t b, bool *ok)
{
	switch (op[0]) {
	case '|': return op[1] ? a || b : a | b;
	case '&': return op[1] ? a && b : a & b;
	case '^': return a ^ b;
	case '=': return a == b;
	case '!': return a != b;
	case '<': return op[1] == '<' ? (int64_t)((uint64_t)a << (b & 63)) : op[1] ? a <= b : a < b;
	case '>': return op[1] == '>' ? a >> (b & 63) : op[1] ? a >= b : a > b;
	case '+': return a + b;
	case '-': return a - b;
	case '*': return a * b;
	default:
		if (b == 0) {
			*ok = false;
			return 0;
		}
		return op[0] == '/' ? a / b : a % b;
	}
}

/* Precedence climbing over ev_ops. */
static int64_t ev_expr(struct ev *e, int prec)
{
	int64_t v = ev_unary(e);

	for (;;) {
		size_t i;

		ev_blank(e);
		for (i = 0; i < sizeof(ev_ops) / sizeof(ev_ops[0]); i++) {
			size_t n = strlen(ev_ops[i].op);

			if (ev_ops[i].prec > prec && !strncmp(e->p, ev_ops[i].op, n) &&
			    !(n == 1 && strchr("<>&|", e->p[0]) && e->p[1] == e->p[0]) &&
			    !(n == 1 && strchr("<>=!", e->p[0]) && e->p[1] == '='))
				break;
		}
		if (i == sizeof(ev_ops) / sizeof(ev_ops[0]))
			return v;
		e->p += strlen(ev_ops[i].op);
		v = ev_apply(ev_ops[i].op, v, ev_expr(e, ev_ops[i].prec), &e->ok);
	}
}

static bool eval(struct sp_ctypes *ct, const char *text, bool pp, int64_t *v)
{
	struct ev e = { .ct = ct, .p = text, .ok = true, .pp = pp };

	*v = ev_expr(&e, 0);
	ev_blank(&e);
	return e.ok && *e.p == '\0';
}

/* --- directives ------------------------------------------------------------------ */

static bool skipping(const struct sp_pstate *ps)
{
	uint32_t mask = ps->pp_depth >= 32 ? UINT32_MAX : (1u << ps->pp_depth) - 1;

	return (ps->pp_active & mask) != mask;
}

static void pp_err(struct sp_pstate *ps, struct sp_span sp, const char *fmt, const char *arg)
{
	sp_diag_at(ps->diag, SP_DIAG_ERROR, sp, fmt, arg);
	ps->probe_errors++;
}

/* One word at *p ("define", a macro name); advances past it. */
static const char *word(struct sp_pstate *ps, const char **p)
{
	const char *b;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	b = *p;
	while (isalnum((unsigned char)**p) || **p == '_')
		(*p)++;
	return sp_arena_strndup(ps->arena, b, (size_t)(*p - b));
}

/* A #define of the script, or of an included header (`header`): a header's
 * macros that are no constant (function-like, an expression of calls) are
 * left out silently, as the C preprocessor would keep them unused. */
static void define(struct sp_pstate *ps, const char *rest, struct sp_span sp, bool header)
{
	const char *name = word(ps, &rest), *v;
	int64_t val;

	if (!*name)
		return pp_err(ps, sp, "'#define' needs a name%s", "");
	if (*rest == '(' && header)
		return;
	if (*rest == '(')
		return pp_err(ps, sp, "function-like macro '%s' is not supported", name);
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (rest[0] != '"' && (strstr(rest, "/*") || strstr(rest, "//"))) { /* trailing comment */
		char *v2 = sp_arena_strdup(ps->arena, rest), *c = strstr(v2, "/*");

		if (!c || (strstr(v2, "//") && strstr(v2, "//") < c))
			c = strstr(v2, "//");
		*c = '\0';
		while (c > v2 && (c[-1] == ' ' || c[-1] == '\t'))
			*--c = '\0';
		rest = v2;
	}
	if (!*rest) {
		sp_ctypes_define(ps->ct, name, 1, NULL, 0);
		return;
	}
	if (rest[0] == '"') {
		const char *end = strrchr(rest + 1, '"');

		if ((!end || end == rest) && header)
			return;
		if (!end || end == rest)
			return pp_err(ps, sp, "unterminated string in macro '%s'", name);
		v = sp_arena_strndup(ps->arena, rest + 1, (size_t)(end - rest - 1));
		sp_ctypes_define(ps->ct, name, 0, v, (uint32_t)(end - rest - 1));
		return;
	}
	if (!eval(ps->ct, rest, false, &val)) {
		if (header)
			return;
		sp_diag_at(ps->diag, SP_DIAG_ERROR, sp, "macro '%s': cannot evaluate '%s'", name,
			   rest);
		sp_diag_note(ps->diag, sp, "a macro's value must be an integer constant "
			     "expression or a string");
		ps->probe_errors++;
		return;
	}
	sp_ctypes_define(ps->ct, name, val, NULL, 0);
}

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads struct/union/enum definitions and #define lines of a local header. */
static void include_local(struct sp_pstate *ps, const char *path)
{
	struct sp_source *src = sp_source_from_file(path);
	struct sp_diag d;
	char *defs;
	uint32_t i = 0;

	if (!src)
		return;
	sp_diag_init(&d, src, ps->diag->out);
	defs = sp_arena_strndup(ps->arena, src->text, src->len);
	while (i < src->len) { /* blank out directive lines, handling #define */
		uint32_t e = i;

		while (e < src->len && src->text[e] != '\n')
			e++;
		if (src->text[i + strspn(src->text + i, " \t")] == '#') {
			const char *l = sp_arena_strndup(ps->arena, src->text + i, e - i);
			const char *p = strchr(l, '#') + 1, *kw = word(ps, &p);

			if (!strcmp(kw, "define"))
				define(ps, p, (struct sp_span){ ps->pos, ps->pos }, true);
			memset(defs + i, ' ', e - i);
		}
		i = e + 1;
	}
	ps->probe_errors += sp_cdecl_parse(ps->ct, &d, defs, src->len, 0);
	/* the header's errors are the script's: it must not run (they were
	 * counted in the header's own diagnostics only) */
	ps->diag->errors += d.errors;
	ps->diag->warnings += d.warnings;
	sp_source_free(src);
}

static const char *const sys_dirs[] = {
	"/usr/local/include", "/usr/include/x86_64-linux-gnu", "/usr/include",
};

static char *find_header(struct sp_pstate *ps, const char *name, bool local)
{
	const struct sp_parse_opts *o = ps->popts;
	char path[4096];
	size_t i;

	if (local && o && o->script_dir) {
		snprintf(path, sizeof(path), "%s/%s", o->script_dir, name);
		if (file_exists(path))
			return sp_arena_strdup(ps->arena, path);
	}
	if (local && file_exists(name)) /* absolute, or from the working directory */
		return sp_arena_strdup(ps->arena, name);
	for (i = 0; o && i < (size_t)o->nincdirs; i++) {
		snprintf(path, sizeof(path), "%s/%s", o->incdirs[i], name);
		if (file_exists(path))
			return sp_arena_strdup(ps->arena, path);
	}
	for (i = 0; i < sizeof(sys_dirs) / sizeof(sys_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sys_dirs[i], name);
		if (file_exists(path))
			return sp_arena_strdup(ps->arena, path);
	}
	return NULL;
}

static bool system_path(const char *path)
{
	for (size_t i = 0; i < sizeof(sys_dirs) / sizeof(sys_dirs[0]); i++) {
		size_t n = strlen(sys_dirs[i]);

		if (!strncmp(path, sys_dirs[i], n) && path[n] == '/')
			return true;
	}
	return false;
}

static bool upper_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* One "#define NAME VALUE" line of a system header: kept when NAME is
 * upper case, not defined yet, and VALUE an integer constant expression. */
static void header_define(struct sp_pstate *ps, const char *rest)
{
	const char *name = word(ps, &rest);
	char *val, *c;
	int64_t v;

	if (*rest == '(' || !upper_name(name) || sp_ctypes_const(ps->ct, name))
		return;
	val = sp_arena_strdup(ps->arena, rest);
	if ((c = strstr(val, "/*")) || (c = strstr(val, "//"))) /* a trailing comment */
		*c = '\0';
	if (eval(ps->ct, val, false, &v))
		sp_ctypes_define(ps->ct, name, v, NULL, 0);
}

static void header_defines(struct sp_pstate *ps, const char *path, int depth);

static void header_line(struct sp_pstate *ps, const char *l, int depth)
{
	const char *p = strchr(l, '#') + 1, *kw = word(ps, &p), *end;
	char *name, *path;

	if (!strcmp(kw, "define")) {
		header_define(ps, p);
		return;
	}
	if (strcmp(kw, "include") || depth >= 8)
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '<' || !(end = strchr(p + 1, '>')))
		return;
	name = sp_arena_strndup(ps->arena, p + 1, (size_t)(end - p - 1));
	path = find_header(ps, name, false);
	if (path)
		header_defines(ps, path, depth + 1);
}

static void header_defines(struct sp_pstate *ps, const char *path, int depth)
{
	struct sp_source *src;
	uint32_t i = 0;

	for (int k = 0; k < ps->pp_nseen; k++)
		if (!strcmp(ps->pp_seen[k], path))
			return;
	if (ps->pp_nseen < (int)(sizeof(ps->pp_seen) / sizeof(ps->pp_seen[0])))
		ps->pp_seen[ps->pp_nseen++] = path;
	src = sp_source_from_file(path);
	if (!src)
		return;
	while (i < src->len) {
		uint32_t e = i;

		while (e < src->len && src->text[e] != '\n')
			e++;
		while (e > i && e < src->len && src->text[e - 1] == '\\') /* continued line: skip it */
			for (e++; e < src->len && src->text[e] != '\n'; e++)
				;
		if (src->text[i + strspn(src->text + i, " \t")] == '#' && e - i < 4096)
			header_line(ps, sp_arena_strndup(ps->arena, src->text + i, e - i), depth);
		i = e + 1;
	}
	sp_source_free(src);
}

/* Whether a "file" include is to be read: each file once (a second copy
 * could only redefine its types), at most 64 files and SP_MAX_INCLUDE_BYTES
 * in all, so include lines cannot multiply a script's size without end. */
static bool local_once(struct sp_pstate *ps, const char *path, struct sp_span sp)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	for (int i = 0; i < ps->pp_nlocal; i++)
		if (ps->pp_local[i][0] == (uint64_t)st.st_dev && ps->pp_local[i][1] == (uint64_t)st.st_ino)
			return false;
	if (ps->pp_nlocal == (int)(sizeof(ps->pp_local) / sizeof(ps->pp_local[0])) ||
	    ps->pp_local_bytes + (uint64_t)st.st_size > SP_MAX_INCLUDE_BYTES) {
		sp_diag_at(ps->diag, SP_DIAG_ERROR, sp, "'%s': too much included (at most %d files and %d MiB "
			   "in all)", path, (int)(sizeof(ps->pp_local) / sizeof(ps->pp_local[0])),
			   SP_MAX_INCLUDE_BYTES >> 20);
		ps->probe_errors++;
		return false;
	}
	ps->pp_local[ps->pp_nlocal][0] = (uint64_t)st.st_dev;
	ps->pp_local[ps->pp_nlocal++][1] = (uint64_t)st.st_ino;
	ps->pp_local_bytes += (uint64_t)st.st_size;
	return true;
}

void sp_pp_include(struct sp_pstate *ps, const char *name, bool local, struct sp_span sp)
{
	char *path = find_header(ps, name, local);

	if (!path) {
		sp_diag_at(ps->diag, SP_DIAG_ERROR, sp, "%s'%s' file not found",
			   sp.end == 0 ? "--include: " : "", name);
		ps->probe_errors++;
		return;
	}
	if (local && !system_path(path)) {
		if (local_once(ps, path, sp))
			include_local(ps, path);
	}
	else /* "errno.h" found only among the system headers: read as <errno.h> */
		header_defines(ps, path, 0);
}

static void include(struct sp_pstate *ps, const char *rest, struct sp_span sp)
{
	char close;
	const char *end;

	while (*rest == ' ' || *rest == '\t')
		rest++;
	close = rest[0] == '<' ? '>' : rest[0] == '"' ? '"' : 0;
	end = close ? strchr(rest + 1, close) : NULL;
	if (!end)
		return pp_err(ps, sp, "'#include' expects <FILE> or \"FILE\"%s", "");
	sp_pp_include(ps, sp_arena_strndup(ps->arena, rest + 1, (size_t)(end - rest - 1)),
		      close == '"', sp);
}

/* #if/#ifdef/#ifndef: push a level, kept when cond (and the outer levels) hold. */
static void push_cond(struct sp_pstate *ps, bool cond, struct sp_span sp)
{
	if (ps->pp_depth >= 31)
		return pp_err(ps, sp, "conditionals nested too deeply%s", "");
	ps->pp_open[ps->pp_depth] = sp;
	if (cond) {
		ps->pp_active |= 1u << ps->pp_depth;
		ps->pp_taken |= 1u << ps->pp_depth;
	} else {
		ps->pp_active &= ~(1u << ps->pp_depth);
		ps->pp_taken &= ~(1u << ps->pp_depth);
	}
	ps->pp_depth++;
}

static bool cond_of(struct sp_pstate *ps, const char *kw, const char *rest, struct sp_span sp)
{
	const char *name;
	int64_t v;

	if (!strcmp(kw, "if") || !strcmp(kw, "elif")) {
		if (eval(ps->ct, rest, true, &v))
			return v != 0;
		pp_err(ps, sp, "cannot evaluate '#%s' condition", kw);
		return false;
	}
	name = word(ps, &rest);
	v = sp_ctypes_const(ps->ct, name) != NULL ||
	    (!strcmp(name, "BPFTRACE_HAVE_BTF") && sp_ctypes_have_btf(ps->ct));
	return !strcmp(kw, "ifdef") ? v : !v;
}

static void else_branch(struct sp_pstate *ps, const char *kw, const char *rest, struct sp_span sp)
{
	uint32_t bit;

	if (ps->pp_depth == 0)
		return pp_err(ps, sp, "'#%s' without '#if'", kw);
	bit = 1u << (ps->pp_depth - 1);
	ps->pp_active &= ~bit;
	if ((ps->pp_active & (bit - 1)) != bit - 1) /* an outer level is skipped */
		return;
	if (ps->pp_taken & bit)
		return;
	if (!strcmp(kw, "else") || cond_of(ps, kw, rest, sp)) {
		ps->pp_active |= bit;
		ps->pp_taken |= bit;
	}
}

/* Handles one directive line (text starts at '#'); returns true when the
 * lines that follow are to be skipped. */
bool sp_pp_directive(struct sp_pstate *ps, const char *text, struct sp_span sp)
{
	const char *p = text + 1, *kw = word(ps, &p);
	bool skip = skipping(ps);

	if (!strcmp(kw, "if") || !strcmp(kw, "ifdef") || !strcmp(kw, "ifndef"))
		push_cond(ps, !skip && cond_of(ps, kw, p, sp), sp);
	else if (!strcmp(kw, "elif") || !strcmp(kw, "else"))
		else_branch(ps, kw, p, sp);
	else if (!strcmp(kw, "endif") && ps->pp_depth > 0)
		ps->pp_depth--;
	else if (!strcmp(kw, "endif"))
		pp_err(ps, sp, "'#endif' without '#if'%s", "");
	else if (skip)
		return true;
	else if (!strcmp(kw, "define"))
		define(ps, p, sp, false);
	else if (!strcmp(kw, "undef"))
		sp_ctypes_undef(ps->ct, word(ps, &p));
	else if (!strcmp(kw, "include"))
		include(ps, p, sp);
	else if (!strcmp(kw, "error"))
		pp_err(ps, sp, "#error%s", p);
	else
		pp_err(ps, sp, "unsupported preprocessor directive '#%s'", kw);
	return skipping(ps);
}
