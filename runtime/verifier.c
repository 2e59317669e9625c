/* runtime/verifier.c: sp_verifier_dump() (verifier_dump.h). */
#define _GNU_SOURCE /* strchrnul, memrchr */
#include "runtime/verifier.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/elf/bpf_disasm.h"
#include "runtime/load.h"
#include "runtime/attach/probe.h"
#include "runtime/stacks/unwind.h"

#define VLOG_BYTES (64u << 20) /* per program; pages are only touched as the log grows */

struct vlogs {
	char **bufs;
	int n;
};

static int add_logs(struct sp_loader *l, struct vlogs *v, int level)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, l->obj)
		n++;
	v->bufs = calloc((size_t)(n ? n : 1), sizeof(*v->bufs));
	if (!v->bufs)
		return -ENOMEM;
	bpf_object__for_each_program(p, l->obj) {
		char *b = malloc(VLOG_BYTES);

		if (!b)
			return -ENOMEM;
		b[0] = '\0';
		v->bufs[v->n++] = b;
		bpf_program__set_log_buf(p, b, VLOG_BYTES);
		bpf_program__set_log_level(p, (uint32_t)level);
	}
	return 0;
}

/* The log, with the script's text put into the kernel's line info lines
 * ";  @ trace.sp:3" (the object carries no text for a script compiled from
 * memory). */
static void print_log(const char *log, const char *src, FILE *out)
{
	while (*log) {
		const char *nl = strchrnul(log, '\n'), *colon;
		int len;

		if (src && !strncmp(log, ";  @ ", 5) && (colon = memrchr(log, ':', (size_t)(nl - log)))) {
			const char *t = sp_text_line(src, (uint32_t)strtoul(colon + 1, NULL, 10), &len);

			fprintf(out, "; %.*s%.*s\n", len, t, (int)(nl - log - 2), log + 2);
		} else {
			fprintf(out, "%.*s\n", (int)(nl - log), log);
		}
		log = *nl ? nl + 1 : nl;
	}
}

static void print_logs(struct sp_loader *l, const struct sp_plan *plan, struct vlogs *v,
		       const char *src, FILE *out)
{
	struct bpf_program *p;
	int i = 0;

	bpf_object__for_each_program(p, l->obj) {
		const char *name = bpf_program__name(p);
		const struct sp_plan_probe *pp = sp_plan_probe_by_prog(plan, name);
		const char *log = i < v->n ? v->bufs[i] : "";

		i++;
		if (!bpf_program__autoload(p))
			continue;
		fprintf(out, "program %s (%s):\n", name, pp ? pp->spec : "helper");
		print_log(log, src, out);
		fputc('\n', out);
	}
}

int sp_verifier_dump(const struct sp_plan *plan, const void *obj, size_t len, const char *src,
		     const struct sp_run_opts *o, FILE *out)
{
	struct vlogs v = { 0 };
	struct sp_unwind *unw = NULL;
	struct sp_resolved *resolved = NULL;
	char msg[512] = "";
	struct sp_attach_ctx actx = { .pid = o->pid, .err = msg, .errlen = sizeof(msg),
				      .resolved = &resolved };
	struct sp_loader *l;
	int err;

	if (sp_check_privileges())
		return -EPERM;
	l = sp_loader__open(plan, obj, len, o);
	if (!l)
		return -errno;
	err = sp_probes_prepare(l->obj, plan, &actx);
	if (!err) {
		errno = ENOENT;
		unw = o->no_dwarf ? NULL : sp_unwind__open(l->obj, o->unwind_rows);
		if (!unw && errno != ENOENT)
			err = -errno;
	}
	if (!err)
		err = add_logs(l, &v, 2); /* level 1 keeps only a failing path */
	if (!err) {
		err = sp_loader__load(l, plan, o);
		print_logs(l, plan, &v, src, out);
	}
	sp_unwind__destroy(unw);
	sp_resolved_free(&resolved);
	sp_loader__destroy(l);
	for (int i = 0; i < v.n; i++)
		free(v.bufs[i]);
	free(v.bufs);
	return err;
}
