/* runtime/attach/interp_usdt.c: attach --interp usdt's hidden programs (see interp_usdt.h).
 *
 * Each probe goes through the usdt probe type's own attach (argument
 * specs, semaphores, one uprobe per site) with a plan probe made here
 * naming the file, the provider and the probe, and with the process as
 * the uprobes' filter: other interpreters on the machine do not pay.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "base/log.h"
#include "abi/interp_usdt.h"
#include "runtime/attach/interp_usdt.h"
#include "runtime/attach/resolve.h"
#include "runtime/elf/usdt_notes.h"

/* The probes a language's interpreter has, and the programs they get. */
struct iu_probe {
	const char *name, *prog;
};

/* The return probes come first: attached before the entries, no call seen
 * entering can return unseen (a frame pushed, never popped). */
struct iu_lang {
	const char *file_part, *provider, *label, *entry;
	struct iu_probe probes[4];
};

static const struct iu_lang langs[] = {
	{ "python", "python", "python", "function__entry",
	  { { "function__return", SP_IU_PROG_PY_RETURN }, { "function__entry", SP_IU_PROG_PY_ENTRY } } },
	{ "ruby", "ruby", "ruby", "method__entry",
	  { { "method__return", SP_IU_PROG_RB_RETURN }, { "cmethod__return", SP_IU_PROG_RB_CRETURN },
	    { "method__entry", SP_IU_PROG_RB_ENTRY },
	    { "cmethod__entry", SP_IU_PROG_RB_CENTRY } } },
};
#define NLANGS (sizeof(langs) / sizeof(langs[0]))

/* Does the file define the language's first (entry) probe? */
static bool has_probes(const char *path, const struct iu_lang *l)
{
	struct sp_usdt_notes notes;
	bool found = false;

	if (sp_usdt_notes__load(&notes, path))
		return false;
	for (int i = 0; i < notes.n && !found; i++)
		found = !strcmp(notes.v[i].provider, l->provider) &&
			!strcmp(notes.v[i].name, l->entry);
	sp_usdt_notes__free(&notes);
	return found;
}

static int attach_probe(const struct sp_attach_ctx *ctx, pid_t pid, const char *path,
			const struct iu_lang *l, const struct iu_probe *pr, struct sp_links *links)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(ctx->obj, pr->prog);
	struct sp_attach_ctx c = *ctx;
	char spec[4200];
	struct sp_plan_probe p = { .type = SP_PROBE_USDT, .spec = spec, .prog = (char *)pr->prog,
				   .target = (char *)path, .ns = (char *)l->provider,
				   .func = (char *)pr->name };
	int err;

	if (!prog) {
		sp_err("--interp usdt: program '%s' missing from the BPF object\n",
		       pr->prog);
		return -ENOENT;
	}
	snprintf(spec, sizeof(spec), "usdt:%s:%s:%s", path, l->provider, pr->name);
	c.pid = pid;
	c.resolved = NULL; /* p lives on this stack: nothing to keep for the run */
	err = sp_probe_ops_for(SP_PROBE_USDT)->attach(&p, prog, &c, links);
	if (err)
		sp_err("--interp usdt: %s\n", c.err && *c.err ? c.err : strerror(-err));
	return err;
}

static int attach_file(const struct sp_attach_ctx *ctx, pid_t pid, const char *path,
		       const struct iu_lang *l, struct sp_links *links)
{
	int err = 0;

	for (int i = 0; i < 4 && l->probes[i].name && !err; i++)
		err = attach_probe(ctx, pid, path, l, &l->probes[i], links);
	if (!err && ctx->verbose)
		sp_err("--interp usdt: %s probes of %s attached for pid %d\n",
		       l->label, path, (int)pid);
	return err;
}

static int attach_exit(const struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(ctx->obj, SP_IU_PROG_EXIT);
	struct bpf_link *link = prog ? bpf_program__attach_tracepoint(prog, "sched",
								       "sched_process_exit")
				     : NULL;

	if (!link) {
		sp_err("--interp usdt: cannot attach to "
		       "tracepoint:sched:sched_process_exit: %s\n", strerror(prog ? errno : ENOENT));
		return prog ? -errno : -ENOENT;
	}
	return sp_links_push(links, link);
}

/* The language whose interpreter a file name suggests, or NULL. */
static const struct iu_lang *lang_of(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	for (size_t i = 0; i < NLANGS; i++)
		if (strstr(b, langs[i].file_part))
			return &langs[i];
	return NULL;
}

int sp_iusdt_attach(const struct sp_attach_ctx *ctx, pid_t pid, struct sp_links *links)
{
	const char *without[NLANGS] = { 0 };
	bool with[NLANGS] = { 0 };
	char **objs;
	int n, err, nattached = 0;

	err = sp_pid_objects(pid, &objs, &n);
	if (err) {
		sp_err("--interp usdt: cannot read the mappings of process %d: %s\n",
		       (int)pid, strerror(-err));
		return err;
	}
	for (int i = 0; i < n && !err; i++) {
		const struct iu_lang *l = lang_of(objs[i]);
		size_t li = l ? (size_t)(l - langs) : 0;

		if (!l)
			continue;
		if (!has_probes(objs[i], l)) {
			without[li] = without[li] ? without[li] : objs[i];
			continue;
		}
		err = attach_file(ctx, pid, objs[i], l, links);
		with[li] = !err;
		nattached += !err;
	}
	for (size_t li = 0; li < NLANGS && !err; li++)
		if (without[li] && !with[li])
			sp_err("--interp usdt: '%s' (pid %d) has no USDT probes "
			       "(%s:%s): no %s frames in this mode; use --interp memory\n",
			       without[li], (int)pid, langs[li].provider, langs[li].entry,
			       langs[li].label);
	sp_strv_free(objs, n);
	if (!err && nattached)
		err = attach_exit(ctx, links);
	return err ? err : nattached;
}
