/* runtime/listing.c: `sprof -l` and sp_expand_probe() (see listing.h, resolve.h).
 *
 * Both walk the same catalogues: tracefs for tracepoints, fixed tables for
 * software and hardware events, an ELF's symbols for uprobes, its
 * .note.stapsdt for USDT, and /proc/PID/maps for "this process and its
 * libraries". A pattern is split at ':' into a provider (alias or glob)
 * and the provider's fields; a pattern without ':' is a substring (or glob)
 * of the whole printed line.
 */
#define _GNU_SOURCE
#include "listing.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolve.h"
#include "tracefs.h"
#include "usdt_notes.h"

#define MAX_FIELDS 5

static const struct {
	const char *alias, *name;
} aliases[] = {
	{ "t", "tracepoint" }, { "rt", "rawtracepoint" }, { "s", "software" },
	{ "h", "hardware" },   { "u", "uprobe" },          { "ur", "uretprobe" },
	{ "U", "usdt" },       { "k", "kprobe" },          { "kr", "kretprobe" },
	{ "p", "profile" },    { "i", "interval" },
};

/* Listed providers, in output order. */
static const char *const providers[] = {
	"tracepoint", "rawtracepoint", "software", "hardware", "kprobe", "uprobe", "usdt",
};

static const char *const sw_events[] = {
	"alignment-faults", "bpf-output", "context-switches", "cpu-clock", "cpu-migrations",
	"dummy", "emulation-faults", "major-faults", "minor-faults", "page-faults", "task-clock",
};

static const char *const hw_events[] = {
	"backend-stalls", "branch-instructions", "branch-misses", "bus-cycles", "cache-misses",
	"cache-references", "cpu-cycles", "frontend-stalls", "instructions", "ref-cycles",
};

struct lister {
	FILE *out;
	pid_t pid;
	bool verbose;
	const char *line_glob; /* whole-line filter, or NULL */
	const char *what;      /* the pattern, for messages */
	sp_list_params_fn params; /* -v on uprobes: the driver's parameter lister */
	void *params_ctx;
};

const char *sp_probe_alias(const char *p)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(p, aliases[i].alias) == 0 || strcmp(p, aliases[i].name) == 0)
			return aliases[i].name;
	if (!strcmp(p, "BEGIN") || !strcmp(p, "END") || !strcmp(p, "profile") ||
	    !strcmp(p, "interval"))
		return p;
	return NULL;
}

/* Split at ':' outside double quotes, removing the quotes. */
static int split_fields(char *s, char **f)
{
	int n = 0;
	char *w = s;
	bool quoted = false;

	f[n++] = w;
	for (; *s; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (*s == ':' && !quoted && n < MAX_FIELDS) {
			*w++ = '\0';
			f[n++] = w;
			continue;
		}
		*w++ = *s;
	}
	*w = '\0';
	return n;
}

static bool emit(struct lister *l, const char *line)
{
	if (l->line_glob && !sp_glob_match(l->line_glob, line))
		return false;
	fprintf(l->out, "%s\n", line);
	return true;
}

/* --- tracepoints, raw tracepoints, perf events, kprobes ---------------------------- */

static void print_tp_fields(struct lister *l, const char *catname)
{
	char buf[512], *name;
	struct sp_tracefs_field *f;
	int i, n;

	snprintf(buf, sizeof(buf), "%s", catname);
	name = strchr(buf, ':');
	if (!name)
		return;
	*name++ = '\0';
	if (sp_tracepoint_fields(buf, name, &f, &n))
		return;
	for (i = 0; i < n; i++) {
		const char *br = strchr(f[i].type, '[');

		if (f[i].is_common)
			continue;
		if (br && !f[i].is_data_loc)
			fprintf(l->out, "    %.*s %s%s\n", (int)(br - f[i].type), f[i].type, f[i].name,
				br);
		else
			fprintf(l->out, "    %s %s\n", f[i].type, f[i].name);
	}
	sp_tracefs_fields_free(f, n);
}

static int list_tracepoints(struct lister *l, const char *cat, const char *name)
{
	char **v, line[600];
	int i, n, err;

	err = sp_tracepoints_list(cat, name, &v, &n);
	if (err)
		return err == -ENOENT ? 0 : err;
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "tracepoint:%s", v[i]);
		if (emit(l, line) && l->verbose)
			print_tp_fields(l, v[i]);
	}
	sp_strv_free(v, n);
	return 0;
}

static int cmp_after_colon(const void *a, const void *b)
{
	const char *x = strchr(*(char *const *)a, ':'), *y = strchr(*(char *const *)b, ':');

	return strcmp(x, y);
}

static int list_rawtps(struct lister *l, const char *name)
{
	char **v, line[600];
	int i, n, err = sp_tracepoints_list(NULL, name, &v, &n);

	if (err)
		return err == -ENOENT ? 0 : err;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_after_colon);
	for (i = 0; i < n; i++) {
		const char *colon = strchr(v[i], ':');

		if (i > 0 && !strcmp(strchr(v[i - 1], ':'), colon))
			continue;
		snprintf(line, sizeof(line), "rawtracepoint:%s", colon + 1);
		if (emit(l, line) && l->verbose && l->params)
			l->params(l->params_ctx, NULL, colon + 1, l->out);
	}
	sp_strv_free(v, n);
	return 0;
}

static void list_table(struct lister *l, const char *prov, const char *const *names, size_t n,
		       const char *glob)
{
	char line[128];
	size_t i;

	for (i = 0; i < n; i++) {
		if (glob && !sp_glob_match(glob, names[i]))
			continue;
		snprintf(line, sizeof(line), "%s:%s:", prov, names[i]);
		emit(l, line);
	}
}

/* Only where the kernel has kprobes: available_filter_functions names them. */
static int list_kprobes(struct lister *l, const char *glob)
{
	char root[256], path[320], buf[512], line[600];
	FILE *f;

	if (sp_tracefs_root(root, sizeof(root)))
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	if (access(path, F_OK) && access("/sys/bus/event_source/devices/kprobe", F_OK))
		return 0;
	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, " \t\n")] = '\0';
		if (!*buf || (glob && !sp_glob_match(glob, buf)))
			continue;
		snprintf(line, sizeof(line), "kprobe:%s", buf);
		emit(l, line);
	}
	fclose(f);
	return 0;
}

/* --- uprobes and USDT ---------------------------------------------------------- */

static bool target_is_any(const char *t)
{
	return !t || !*t || strcmp(t, "*") == 0;
}

/* The files a uprobe/usdt pattern's target names. */
static int list_targets(struct lister *l, const char *target, char ***paths, int *n)
{
	char path[PATH_MAX];
	int err;

	*paths = NULL;
	*n = 0;
	if (target_is_any(target)) {
		if (l->pid <= 0)
			return 0;
		err = sp_pid_objects(l->pid, paths, n);
		if (err)
			fprintf(stderr, "error: cannot list '%s': cannot read the mappings of "
				"process %d: %s\n", l->what, (int)l->pid, strerror(-err));
		return err;
	}
	if (sp_resolve_binary(target, l->pid, path, sizeof(path))) {
		fprintf(stderr, "error: cannot list '%s': binary '%s' not found (no such file, no "
			"program of that name in $PATH, no library in /etc/ld.so.cache)\n",
			l->what, target);
		return -ENOENT;
	}
	*paths = malloc(sizeof(**paths));
	if (!*paths || !((*paths)[0] = strdup(path)))
		return -ENOMEM;
	*n = 1;
	return 0;
}

static void list_file_funcs(struct lister *l, const char *prov, const char *path,
			    const char *glob)
{
	struct sp_funcs f;
	int i;

	if (sp_funcs__load(&f, path))
		return;
	for (i = 0; i < f.n; i++) {
		char line[PATH_MAX + 600];

		if (glob && !sp_func_matches(&f.v[i], glob))
			continue;
		if (i > 0 && !strcmp(f.v[i].name, f.v[i - 1].name))
			continue;
		snprintf(line, sizeof(line), "%s:%s:%s", prov, path, f.v[i].name);
		if (!emit(l, line) || !l->verbose)
			continue;
		if (sp_func_demangled(&f.v[i]))
			fprintf(l->out, "    %s\n", f.v[i].demangled);
		else if (l->params)
			l->params(l->params_ctx, path, f.v[i].name, l->out);
	}
	sp_funcs__free(&f);
}

static void print_usdt_args(struct lister *l, const char *args)
{
	char *copy = strdup(args), *tok, *save = NULL;
	int i = 0;

	if (!copy)
		return;
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		fprintf(l->out, "    arg%d: %s\n", i++, tok);
	free(copy);
}

static void list_file_usdt(struct lister *l, const char *path, const char *prov,
			   const char *name)
{
	struct sp_usdt_notes u;
	int i, j;

	if (sp_usdt_notes__load(&u, path))
		return;
	for (i = 0; i < u.n; i++) {
		const struct sp_usdt_note *n = &u.v[i];
		char line[PATH_MAX + 600];

		if ((prov && !sp_glob_match(prov, n->provider)) || (name && !sp_glob_match(name, n->name)))
			continue;
		/* One line per probe, not per site. */
		for (j = 0; j < i; j++)
			if (!strcmp(u.v[j].provider, n->provider) && !strcmp(u.v[j].name, n->name))
				break;
		if (j < i)
			continue;
		snprintf(line, sizeof(line), "usdt:%s:%s:%s", path, n->provider, n->name);
		if (emit(l, line) && l->verbose)
			print_usdt_args(l, n->args);
	}
	sp_usdt_notes__free(&u);
}

static int list_user(struct lister *l, const char *prov, char **f, int nf)
{
	char **paths;
	int i, n, err = list_targets(l, nf > 1 ? f[1] : NULL, &paths, &n);

	for (i = 0; i < n && !err; i++) {
		if (strcmp(prov, "usdt") == 0)
			list_file_usdt(l, paths[i], nf > 3 ? f[2] : NULL,
				       nf > 3 ? f[3] : nf > 2 ? f[2] : NULL);
		else
			list_file_funcs(l, prov, paths[i], nf > 2 ? f[2] : NULL);
	}
	sp_strv_free(paths, n);
	return err;
}

/* --- dispatch -------------------------------------------------------------- */

static int list_provider(struct lister *l, const char *prov, char **f, int nf, bool wild)
{
	const char *a = nf > 1 && *f[1] ? f[1] : NULL, *b = nf > 2 && *f[2] ? f[2] : NULL;

	if (!strcmp(prov, "tracepoint"))
		return list_tracepoints(l, a, b);
	if (!strcmp(prov, "rawtracepoint"))
		return list_rawtps(l, b ? b : a);
	if (!strcmp(prov, "software"))
		return list_table(l, prov, sw_events, sizeof(sw_events) / sizeof(*sw_events), a), 0;
	if (!strcmp(prov, "hardware"))
		return list_table(l, prov, hw_events, sizeof(hw_events) / sizeof(*hw_events), a), 0;
	if (!strcmp(prov, "kprobe") || !strcmp(prov, "kretprobe"))
		return list_kprobes(l, b ? b : a);
	if (!strcmp(prov, "uprobe") || !strcmp(prov, "uretprobe") || !strcmp(prov, "usdt")) {
		/* "*:./app:*" lists the app's probes; "*" alone does not scan ELF files. */
		if (wild && target_is_any(a) && l->pid <= 0)
			return 0;
		if (!a && l->pid <= 0) {
			fprintf(stderr, "error: cannot list '%s': name a binary (%s:BINARY:*) or a "
				"process (-p PID)\n", l->what, prov);
			return -EINVAL;
		}
		return list_user(l, prov, f, nf);
	}
	return 0;
}

/* No provider: the kernel's probes, or with -p the process's own. */
static int list_all(struct lister *l)
{
	char *f[] = { "*", "*", "*" };
	size_t i;
	int err = 0;

	if (l->pid > 0) {
		err = list_provider(l, "uprobe", f, 3, true);
		return err ? err : list_provider(l, "usdt", f, 3, true);
	}
	for (i = 0; i < sizeof(providers) / sizeof(*providers) && !err; i++) {
		if (!strcmp(providers[i], "rawtracepoint") || !strcmp(providers[i], "uprobe") ||
		    !strcmp(providers[i], "usdt"))
			continue;
		err = list_provider(l, providers[i], f, 1, true);
	}
	return err;
}

int sp_list_probes(const char *pattern, pid_t pid, bool verbose, FILE *out)
{
	return sp_list_probes_ex(pattern, pid, verbose, NULL, NULL, out);
}

int sp_list_probes_ex(const char *pattern, pid_t pid, bool verbose, sp_list_params_fn params,
		      void *params_ctx, FILE *out)
{
	struct lister l = { .out = out, .pid = pid, .verbose = verbose, .what = pattern,
			    .params = params, .params_ctx = params_ctx };
	char *copy, *f[MAX_FIELDS], *glob = NULL;
	const char *prov;
	size_t i;
	int nf, err = 0;

	if (!pattern || !*pattern || !strchr(pattern, ':')) {
		if (pattern && *pattern && asprintf(&glob, "*%s*", pattern) < 0)
			return -ENOMEM;
		l.line_glob = glob;
		err = list_all(&l);
		free(glob);
		return err;
	}
	copy = strdup(pattern);
	if (!copy)
		return -ENOMEM;
	nf = split_fields(copy, f);
	prov = sp_probe_alias(f[0]);
	if (prov) {
		err = list_provider(&l, prov, f, nf, false);
	} else if (sp_has_wildcard(f[0])) {
		for (i = 0; i < sizeof(providers) / sizeof(*providers) && !err; i++)
			if (sp_glob_match(f[0], providers[i]))
				err = list_provider(&l, providers[i], f, nf, true);
	} else {
		fprintf(stderr, "error: cannot list '%s': unknown probe type '%s'\n", pattern, f[0]);
		err = -EINVAL;
	}
	free(copy);
	return err;
}

/* --- sp_expand_probe ----------------------------------------------------------- */

static int push_fmt(char ***v, int *n, const char *fmt, const char *a, const char *b,
		    const char *c)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (asprintf(&nv[*n], fmt, a, b, c) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int cmp_foff(const void *a, const void *b)
{
	const struct sp_func *x = *(const struct sp_func *const *)a;
	const struct sp_func *y = *(const struct sp_func *const *)b;

	if (x->foff != y->foff)
		return (x->foff > y->foff) - (x->foff < y->foff);
	/* Among aliases, prefer the public name: malloc over __libc_malloc. */
	if ((x->name[0] == '_') != (y->name[0] == '_'))
		return x->name[0] == '_' ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* One entry per matching address (aliases of a function expand once, as
 * attach does), in address order. */
static int expand_uprobe(const char *prov, char **f, int nf, pid_t pid, char ***v, int *n)
{
	char path[PATH_MAX];
	const struct sp_func **m;
	struct sp_funcs fs;
	int i, nm = 0, err;

	if (nf < 3 || sp_resolve_binary(f[1], pid, path, sizeof(path)))
		return -ENOENT;
	err = sp_funcs__load(&fs, path);
	if (err)
		return err;
	m = malloc((fs.n + 1) * sizeof(*m));
	if (!m) {
		sp_funcs__free(&fs);
		return -ENOMEM;
	}
	for (i = 0; i < fs.n; i++)
		if (sp_func_matches(&fs.v[i], f[2]))
			m[nm++] = &fs.v[i];
	if (nm > 1)
		qsort(m, nm, sizeof(*m), cmp_foff);
	for (i = 0; i < nm && !err; i++)
		if (i == 0 || m[i]->foff != m[i - 1]->foff)
			err = push_fmt(v, n, "%s:%s:%s", prov, path, m[i]->name);
	free(m);
	sp_funcs__free(&fs);
	return err;
}

static int expand_usdt_file(const char *path, const char *prov, const char *name, char ***v,
			    int *n)
{
	struct sp_usdt_notes u;
	int i, j, err = sp_usdt_notes__load(&u, path);

	for (i = 0; i < u.n && !err; i++) {
		const struct sp_usdt_note *nt = &u.v[i];

		if ((prov && !sp_glob_match(prov, nt->provider)) || !sp_glob_match(name, nt->name))
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(u.v[j].provider, nt->provider) && !strcmp(u.v[j].name, nt->name))
				break;
		if (j == i)
			err = push_fmt(v, n, "usdt:%s:%s:%s", path, nt->provider, nt->name);
	}
	sp_usdt_notes__free(&u);
	return err;
}

static int expand_usdt(char **f, int nf, pid_t pid, char ***v, int *n)
{
	const char *prov = nf > 3 ? f[2] : NULL, *name = nf > 3 ? f[3] : f[2];
	char path[PATH_MAX], **objs;
	int i, nobj, err = 0;

	if (nf < 3)
		return -ENOENT;
	if (!target_is_any(f[1])) {
		if (sp_resolve_binary(f[1], pid, path, sizeof(path)))
			return -ENOENT;
		return expand_usdt_file(path, prov, name, v, n);
	}
	if (pid <= 0 || sp_pid_objects(pid, &objs, &nobj))
		return -ENOENT;
	for (i = 0; i < nobj && !err; i++)
		err = expand_usdt_file(objs[i], prov, name, v, n);
	sp_strv_free(objs, nobj);
	return err;
}

static int expand_tracepoint(char **f, int nf, char ***v, int *n)
{
	char **tps;
	int i, ntp, err;

	if (nf < 3)
		return -ENOENT;
	err = sp_tracepoints_list(f[1], f[2], &tps, &ntp);
	for (i = 0; i < ntp && !err; i++)
		err = push_fmt(v, n, "tracepoint:%s%s%s", tps[i], "", "");
	sp_strv_free(tps, ntp);
	return err;
}

int sp_expand_probe(const char *spec, pid_t pid, char ***out, int *n)
{
	char *copy, *f[MAX_FIELDS];
	const char *prov;
	int nf, err;

	*out = NULL;
	*n = 0;
	if (!sp_has_wildcard(spec))
		return push_fmt(out, n, "%s%s%s", spec, "", "");
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	nf = split_fields(copy, f);
	prov = sp_probe_alias(f[0]);
	if (prov && (!strcmp(prov, "uprobe") || !strcmp(prov, "uretprobe")))
		err = expand_uprobe(prov, f, nf, pid, out, n);
	else if (prov && !strcmp(prov, "usdt"))
		err = expand_usdt(f, nf, pid, out, n);
	else if (prov && !strcmp(prov, "tracepoint"))
		err = expand_tracepoint(f, nf, out, n);
	else
		err = push_fmt(out, n, "%s%s%s", spec, "", "");
	free(copy);
	if (!err && *n == 0)
		err = -ENOENT;
	if (err) {
		sp_strv_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return err;
}
