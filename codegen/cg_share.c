/* codegen/cg_share.c: one BPF program for the attach points of a block
 * whose code does not depend on the point.
 *
 * `tracepoint:syscalls:sys_enter_read, tracepoint:syscalls:sys_enter_write
 * { ... }` used to be one program per point: LLVM, the verifier and the
 * load paid per point, minutes for thousands of points. Each point's
 * function is still built (IR is cheap), then compared with the functions
 * already kept for its block: when the IR is the same, apart from the
 * function's name and debug metadata numbers, the new function is deleted
 * and its attach point is served by the kept one. Comparing the IR is exact
 * where rules about probe types would not be: tracepoints with different
 * `args` layouts, uprobes whose DWARF types differ, fentry sections naming
 * their function all give different IR and stay separate.
 *
 * What differs per point without changing the code is `probe` and `func`:
 * in a block of several points they are read through the BPF cookie from
 * the names map (as for wildcards; runtime/attach/names.c), for the probe
 * types whose attach ops set cookies. bpf_get_attach_cookie() came with
 * Linux 5.15 for kprobe, uprobe and tracepoint programs; without it (the
 * driver says so in sp_codegen_opts.no_cookies) the names stay constants,
 * so such blocks get a program per point as before, counted in
 * sp_plan.cookie_fallbacks for -v. printf formats a candidate adds are
 * matched with the block's earlier ones (cg_share_printf), so the ids in
 * its IR are the kept function's.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

/* Types whose attach ops attach each expanded point with a names cookie. */
static bool names_type(enum sp_probe_type t)
{
	return t == SP_PROBE_TRACEPOINT || t == SP_PROBE_KPROBE || t == SP_PROBE_KRETPROBE ||
	       t == SP_PROBE_UPROBE || t == SP_PROBE_URETPROBE || t == SP_PROBE_USDT;
}

/* Types a program may serve several attach points of (the runtime attaches
 * one program as often as asked): not BEGIN/END (run by hand), watchpoints
 * (a hidden program named after each) or iterators. */
static bool shareable_type(enum sp_probe_type t)
{
	return t != SP_PROBE_BEGIN && t != SP_PROBE_END && t != SP_PROBE_WATCHPOINT &&
	       t != SP_PROBE_ASYNCWATCHPOINT && t != SP_PROBE_ITER;
}

static void drop_kept(struct cg *g)
{
	for (int i = 0; i < g->nkept; i++)
		free(g->kept[i].ir);
	g->nkept = 0;
}

/* Called before a block's first attach point. */
void cg_share_block(struct cg *g, const struct sp_node *probe)
{
	drop_kept(g);
	g->share_multi = probe->list.len > 1;
	g->share_printf_base = g->plan->nprintfs;
	g->share_fallback = false;
}

/* Called after a block's last attach point (and on the way out). */
void cg_share_block_end(struct cg *g)
{
	if (g->share_fallback)
		g->plan->cookie_fallbacks++;
	g->share_fallback = g->share_multi = g->share_try = g->share_names = false;
	drop_kept(g);
	free(g->kept);
	g->kept = NULL;
	g->capkept = 0;
}

/* Called before the point's function is built. */
void cg_share_point(struct cg *g, enum sp_probe_type t, const struct sp_attach *a)
{
	g->share_try = g->share_multi && shareable_type(t);
	g->share_names = g->share_try && names_type(t) && !(a && a->has_offset);
	g->share_printf_end = g->plan->nprintfs;
}

/* probe_name() of cg_expr.c: whether `probe`/`func` come from the cookie. */
bool cg_share_names(struct cg *g)
{
	if (g->share_names && g->opts->no_cookies) {
		g->share_fallback = true;
		return false;
	}
	return g->share_names;
}

static bool field_equal(const struct sp_plan_field *a, const struct sp_plan_field *b)
{
	if (a->kind != b->kind || a->offset != b->offset || a->size != b->size ||
	    a->is_signed != b->is_signed || a->stack_limit != b->stack_limit ||
	    a->stack_mode != b->stack_mode || a->nelems != b->nelems ||
	    a->bit_off != b->bit_off || a->bit_size != b->bit_size)
		return false;
	if ((a->fmt || b->fmt) && (!a->fmt || !b->fmt || strcmp(a->fmt, b->fmt)))
		return false;
	if ((a->name || b->name) && (!a->name || !b->name || strcmp(a->name, b->name)))
		return false;
	if ((a->member || b->member) && (!a->member || !b->member || strcmp(a->member, b->member)))
		return false;
	for (int i = 0; i < a->nelems; i++)
		if (!field_equal(&a->elems[i], &b->elems[i]))
			return false;
	return true;
}

static void field_free(struct sp_plan_field *f)
{
	for (int i = 0; i < f->nelems; i++)
		field_free(&f->elems[i]);
	free(f->elems);
	free(f->fmt);
	free(f->name);
	free(f->member);
}

/* The id of an earlier printf of this block equal to the last one added
 * (which is then dropped), or -1. Only while building a candidate. */
int cg_share_printf(struct cg *g)
{
	struct sp_plan *p = g->plan;
	struct sp_plan_printf *n = &p->printfs[p->nprintfs - 1];

	if (!g->share_try)
		return -1;
	for (int i = g->share_printf_base; i < g->share_printf_end; i++) {
		struct sp_plan_printf *o = &p->printfs[i];

		if ((o->fmt || n->fmt) && (!o->fmt || !n->fmt || strcmp(o->fmt, n->fmt)))
			continue;
		if (!field_equal(&o->args, &n->args))
			continue;
		free(n->fmt);
		field_free(&n->args);
		p->nprintfs--;
		return i;
	}
	return -1;
}

/* The function's IR without its name and metadata numbers (debug
 * locations and scopes are per function). */
static char *normalized_ir(LLVMValueRef fn)
{
	size_t nlen;
	const char *name = LLVMGetValueName2(fn, &nlen);
	char *s = LLVMPrintValueToString(fn), *out = malloc(strlen(s) + 1), *w = out;
	const char *r = s, *at = strstr(s, "@");

	if (!out) {
		LLVMDisposeMessage(s);
		return NULL;
	}
	while (*r) {
		if (r == at && !strncmp(r + 1, name, nlen) && r[1 + nlen] == '(') {
			*w++ = '@';
			r += 1 + nlen;
			continue;
		}
		*w++ = *r;
		if (*r++ == '!')
			while (*r >= '0' && *r <= '9')
				r++;
	}
	*w = '\0';
	LLVMDisposeMessage(s);
	return out;
}

/* After the point's function is built: an identical kept function serves
 * the point instead (its plan probe takes that name), else this one is
 * kept. */
void cg_share_done(struct cg *g, struct sp_plan_probe *pp)
{
	char *ir;

	if (!g->share_try || g->errors)
		return;
	ir = normalized_ir(g->fn);
	if (!ir)
		return;
	for (int i = 0; i < g->nkept; i++) {
		if (strcmp(g->kept[i].ir, ir))
			continue;
		free(ir);
		LLVMClearInsertionPosition(g->B);
		LLVMClearInsertionPosition(g->AB);
		LLVMClearInsertionPosition(g->IB);
		LLVMDeleteFunction(g->fn);
		g->fn = NULL;
		free(pp->prog);
		pp->prog = strdup(g->kept[i].prog);
		return;
	}
	if (g->nkept == g->capkept) {
		int cap = g->capkept ? 2 * g->capkept : 8;
		struct cg_kept *v = realloc(g->kept, (size_t)cap * sizeof(*v));

		if (!v) {
			free(ir);
			return;
		}
		g->kept = v;
		g->capkept = cap;
	}
	g->kept[g->nkept].ir = ir;
	g->kept[g->nkept++].prog = pp->prog;
}

/* -d ir / --emit-llvm: which programs serve several attach points. */
void cg_share_dump(const struct sp_plan *p, FILE *f)
{
	for (int i = 0; i < p->nprobes; i++) {
		int n = 0, shown = 0;

		for (int j = 0; j < p->nprobes; j++)
			if (!strcmp(p->probes[j].prog, p->probes[i].prog)) {
				if (j < i)
					break;
				n++;
			}
		if (n < 2)
			continue;
		fprintf(f, "; program %s serves %d attach points:", p->probes[i].prog, n);
		for (int j = i; j < p->nprobes && shown < 8; j++)
			if (!strcmp(p->probes[j].prog, p->probes[i].prog))
				fprintf(f, "%s %s", shown++ ? "," : "", p->probes[j].spec);
		fprintf(f, "%s\n", n > shown ? ", ..." : "");
	}
}
