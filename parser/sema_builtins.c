/* parser/sema_builtins.c: result types and checks of the smaller builtins.
 *
 * bswap, pton, strerror, cgroup_path, macaddr, username, join and debugf
 * (bpftrace 0.17's meanings). stdlib/builtins.def gives their arity and
 * argument kinds, parser/sema_call.c checks those; this file holds their
 * rows' check hooks (sema_check_NAME), for what the columns cannot say: the result type that depends on the argument (bswap
 * keeps its argument's size, pton's literal decides 4 or 16 bytes), how a
 * text value is printed (the type's fmt), and the per-name limits, each a
 * caret error naming the function.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/builtins.h"
#include "parser/types/ctypes.h"
#include "parser/sema.h"

/* bswap(x): the bytes of x reversed, at x's size, unsigned; a variable
 * has the size of the value first assigned to it, as in bpftrace 0.17
 * ($dport = $sk->__sk_common.skc_dport; bswap($dport) swaps 2 bytes). */
static void bswap_type(struct sema *s, struct sp_node *n)
{
	const struct sp_type *t = n->list.items[0]->type;
	uint32_t size = t && t->kind == SP_T_INT && t->size ? t->size : 8;

	if (t && t->kind == SP_T_INT && n->list.items[0]->kind == SP_N_VAR && t->src_size)
		size = t->src_size;

	n->type = sp_type_int(s->a, size, false);
}

/* pton("addr"): uint8[4] for an IPv4 literal, uint8[16] for IPv6. */
static void pton_type(struct sema *s, struct sp_node *n)
{
	const struct sp_node *arg = n->list.items[0];
	unsigned char bytes[16];
	uint32_t count;

	if (arg->kind != SP_N_STR)
		return; /* already reported */
	count = strchr(arg->str, ':') ? 16 : 4;
	if (inet_pton(count == 16 ? AF_INET6 : AF_INET, arg->str, bytes) != 1) {
		sema_err(s, arg->span, "pton(): '%s' is not an IPv%d address", arg->str,
			 count == 16 ? 6 : 4);
		return;
	}
	n->type = sp_type_array(s->a, sp_type_int(s->a, 1, false), count);
}

/* A text value (username, strerror, cgroup_path, macaddr): an 8-byte slot
 * user space prints as the type's fmt says. */
static void text_type(struct sema *s, struct sp_node *n)
{
	const char *how = n->name;

	if (n->bi == SP_BF_cgroup_path && n->list.len == 2 &&
	    n->list.items[1]->kind == SP_N_STR) {
		how = sp_arena_printf(s->a, "cgroup_path:%s", n->list.items[1]->str);
	}
	n->type = sp_type_new(s->a, SP_T_TEXT);
	n->type->size = 8;
	n->type->fmt = how;
}

/* macaddr(p): 6 bytes at an address, or a 6-byte array (a char[6]
 * member types as string[6]); a string literal is refused, as bpftrace does. */
static void macaddr_check(struct sema *s, struct sp_node *n)
{
	const struct sp_node *arg = n->list.items[0];
	const struct sp_type *t = arg->type;

	if (!t || sp_type_is_none(t))
		return;
	if (arg->kind == SP_N_STR)
		sema_err(s, arg->span, "macaddr() does not take a string literal: give an address or a 6-byte array");
	else if (t->kind == SP_T_STRING && t->size != 6) /* a char[6] member is a string[6] */
		sema_err(s, arg->span, "macaddr() argument must be 6 bytes in size, not %u", t->size);
	else if ((t->kind == SP_T_ARRAY || t->kind == SP_T_RECORD) && sp_type_csize(t) != 6)
		sema_err(s, arg->span, "macaddr() argument must be 6 bytes in size, not %u",
			 sp_type_csize(t));
	else if (t->kind != SP_T_INT && t->kind != SP_T_PTR && t->kind != SP_T_ARRAY &&
		 t->kind != SP_T_RECORD && t->kind != SP_T_STRING)
		sema_err(s, arg->span, "macaddr() argument must be an address or a 6-byte array, not '%s'",
			 sema_tstr(s, t));
}

/* debugf(fmt, ...): bpf_trace_printk takes at most 3 arguments, integers
 * or strings; the line goes to the kernel's trace buffer. */
static void debugf_check(struct sema *s, struct sp_node *n)
{
	int i;

	if (n->list.len > 4) {
		sema_err(s, n->list.items[4]->span,
			 "debugf() takes at most 3 arguments after the format (bpf_trace_printk), not %d",
			 n->list.len - 1);
		return;
	}
	for (i = 1; i < n->list.len; i++) {
		const struct sp_type *t = n->list.items[i]->type;

		if (t && !sp_type_is_none(t) && t->kind != SP_T_INT && t->kind != SP_T_PTR &&
		    t->kind != SP_T_STRING)
			sema_err(s, n->list.items[i]->span,
				 "debugf() prints integers and strings only, not '%s'", sema_tstr(s, t));
	}
	if (!s->quiet)
		sema_warn(s, n->span,
			  "debugf() writes to the kernel's trace buffer (/sys/kernel/tracing/trace_pipe), not to sprof's output");
}

/* --- the check hooks of stdlib/builtins.def's rows ------------------------------ */

struct sp_type *sema_check_bswap(struct sema *s, struct sp_node *n)
{
	bswap_type(s, n);
	return NULL;
}

struct sp_type *sema_check_pton(struct sema *s, struct sp_node *n)
{
	pton_type(s, n);
	return NULL;
}

/* strerror(), cgroup_path(): text user space prints */
struct sp_type *sema_check_text(struct sema *s, struct sp_node *n)
{
	text_type(s, n);
	return NULL;
}

struct sp_type *sema_check_macaddr(struct sema *s, struct sp_node *n)
{
	macaddr_check(s, n);
	text_type(s, n);
	return NULL;
}

/* path(p[, n]): a struct path (args.file->f_path) or a pointer to one;
 * the name is bpf_d_path's, n bytes (the string length by default). The
 * kernel allows the helper in fentry/fexit of a list of functions only: the
 * loader names it when the verifier refuses (runtime/load.c). */
struct sp_type *sema_check_path(struct sema *s, struct sp_node *n)
{
	const struct sp_node *arg = n->list.items[0];
	const struct sp_type *t = arg->type;
	int64_t len;

	if (t && t->kind == SP_T_PTR && t->pointee)
		t = t->pointee;
	if (t && !sp_type_is_none(t) &&
	    (t->kind != SP_T_RECORD || !t->rec || strcmp(t->rec->name, "path") != 0))
		sema_err(s, arg->span, "path() takes a struct path or a pointer to one "
			 "(args.file->f_path), not '%s'", sema_tstr(s, arg->type));
	if (n->list.len == 2 && sema_const_int(n->list.items[1], &len)) {
		if (len < 1 || len > SP_MAX_STRING)
			sema_err(s, n->list.items[1]->span, "path() length must be from 1 to %d",
				 SP_MAX_STRING);
		else
			n->type = sp_type_string(s->a, (uint32_t)len);
	}
	return n->type;
}

/* strftime("fmt", t): the format, kept by variables and tuples */
struct sp_type *sema_check_strftime(struct sema *s, struct sp_node *n)
{
	(void)s;
	if (n->list.len == 2 && n->list.items[0]->kind == SP_N_STR)
		n->type->fmt = n->list.items[0]->str;
	return NULL;
}

struct sp_type *sema_check_debugf(struct sema *s, struct sp_node *n)
{
	sema_check_format(s, n);
	debugf_check(s, n);
	return NULL;
}

/* The builtin variable `username`: the uid, printed as its user name. */
void sema_username(struct sema *s, struct sp_node *n)
{
	n->type = sp_type_new(s->a, SP_T_TEXT);
	n->type->size = 8;
	n->type->fmt = "username";
}

bool sema_param_is_int(struct sema *s, const struct sp_node *n)
{
	const char *text;
	char *end;

	if (n->kind != SP_N_POSITIONAL || !strcmp(n->name, "$#"))
		return n->kind == SP_N_POSITIONAL;
	if (n->ival > s->o->nparams || n->ival < 1)
		return true;
	text = s->o->params[n->ival - 1];
	errno = 0;
	(void)strtoll(text, &end, 0);
	return *text && !*end && errno != ERANGE;
}

uint32_t sema_str_param_offset(struct sema *s, struct sp_node *n)
{
	struct sp_node *arg = n->list.items[0];
	const char *text;
	size_t len;

	if (n->list.len != 1 || arg->kind != SP_N_BINOP || arg->op != '+' ||
	    arg->a->kind != SP_N_POSITIONAL || arg->b->kind != SP_N_INT || arg->b->ival < 0 ||
	    sema_param_is_int(s, arg->a))
		return 0;
	text = s->o->params[arg->a->ival - 1];
	len = strlen(text);
	if ((size_t)arg->b->ival > len && !s->quiet)
		sema_err(s, arg->b->span,
			 "str(): %s + %lld is past the end of the parameter's text ('%s', %zu bytes)",
			 arg->a->name, (long long)arg->b->ival, text, len);
	text += (size_t)arg->b->ival < len ? (size_t)arg->b->ival : len;
	if (!s->quiet) { /* rewritten once, in the reporting pass */
		n->kind = SP_N_STR;
		n->str = sp_arena_strdup(s->a, text);
		n->len = (uint32_t)strlen(text);
		n->list.len = 0;
	}
	return (uint32_t)strlen(text) + 1;
}
