/* parser/sema_expand.c: tracepoint wildcards that read `args`, one attach
 * point per match.
 *
 * `tracepoint:syscalls:sys_enter_exec* { join(args->argv); }` (bpftrace's
 * execsnoop.bt) matches execve and execveat, which keep argv at different
 * offsets. One program cannot serve both, so, as bpftrace does, the
 * wildcard becomes the list of its matches before the probe is typed; each
 * attach point then gets its own program and its own field offsets
 * (tp_field_at). Wildcards whose probes never read `args` stay one program
 * attached to every match.
 */
#include <string.h>

#include "parser/base/arena.h"
#include "parser/probes.h"
#include "parser/sema.h"

#define MAX_EXPAND 256 /* more matches than this stay one program */

static bool uses_args(const struct sp_node *n)
{
	if (!n)
		return false;
	if (n->kind == SP_N_BUILTIN && n->name && !strcmp(n->name, "args"))
		return true;
	if (uses_args(n->a) || uses_args(n->b) || uses_args(n->c))
		return true;
	for (int i = 0; i < n->list.len; i++)
		if (uses_args(n->list.items[i]))
			return true;
	return false;
}

static bool is_wild_tp(const struct sp_node *at)
{
	const struct sp_attach *a = at->attach;

	return at->ival == SP_PK_TRACEPOINT && a && a->target && a->func &&
	       (strpbrk(a->target, "*?[") || strpbrk(a->func, "*?["));
}

/* The match "CAT:NAME" as a copy of the wildcard's attach point. */
static struct sp_node *match_node(struct sema *s, const struct sp_node *at, const char *match)
{
	struct sp_node *n = sp_node_new(s->a, SP_N_ATTACH, at->span);
	struct sp_attach *a = sp_arena_alloc(s->a, sizeof(*a));
	const char *colon = strchr(match, ':');
	size_t len = strlen("tracepoint:") + strlen(match) + 1;
	char *raw = sp_arena_alloc(s->a, len);

	*a = *at->attach;
	a->target = sp_arena_strndup(s->a, match, (size_t)(colon - match));
	a->func = sp_arena_strdup(s->a, colon + 1);
	memcpy(raw, "tracepoint:", strlen("tracepoint:"));
	memcpy(raw + strlen("tracepoint:"), match, strlen(match) + 1);
	a->raw = raw;
	n->attach = a;
	n->ival = at->ival;
	return n;
}

void sema_expand_tp_wildcards(struct sema *s, struct sp_node *p)
{
	struct sp_list out = { 0 };
	bool changed = false;

	if (!s->o->tp_list || !(uses_args(p->a) || uses_args(p->b)))
		return;
	for (int i = 0; i < p->list.len; i++) {
		struct sp_node *at = p->list.items[i];
		const char **names = NULL;
		int n = 0;

		if (is_wild_tp(at) && s->o->tp_list(s->o->tp_ctx, at->attach->target, at->attach->func,
						     &names, &n) == 0 && n > 1 && n <= MAX_EXPAND) {
			for (int k = 0; k < n; k++)
				sp_list_push(s->a, &out, match_node(s, at, names[k]));
			changed = true;
		} else {
			sp_list_push(s->a, &out, at);
		}
	}
	if (changed)
		p->list = out;
}
