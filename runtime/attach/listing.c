/* runtime/attach/listing.c: `sprof -l` (see listing.h).
 *
 * A pattern is split at ':' into a provider (alias or glob) and the
 * provider's fields; a pattern without ':' is a substring (or glob) of the
 * whole printed line. Each probe type lists itself through the list op of
 * its row in runtime/attach/probe.c's table, from the catalogue it attaches
 * from (tracefs, abi/perf_events.h, an ELF's symbols or USDT notes); this
 * file dispatches, filters lines and finds the files a user pattern names
 * (a binary, or with -p the process and its libraries).
 */
#define _GNU_SOURCE
#include "base/log.h"
#include "runtime/attach/listing.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/plan.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/resolve.h"

#define MAX_FIELDS 5

/* Listed providers, in output order. */
static const char *const providers[] = {
	"tracepoint", "rawtracepoint", "software", "hardware", "kprobe", "fentry", "fexit", "iter",
	"uprobe", "usdt", "profile", "interval",
};


const char *sp_probe_alias(const char *p)
{
	/* bpftrace 0.17's names for fentry and fexit */
	int t = sp_probe_type_of(p && !strcmp(p, "kfunc") ? "fentry" :
				 p && !strcmp(p, "kretfunc") ? "fexit" : p);

	return t < 0 ? NULL : sp_probe_type_name(t);
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

bool sp_lister_emit(struct sp_lister *l, const char *line)
{
	if (l->line_glob && !sp_glob_match(l->line_glob, line))
		return false;
	fprintf(l->out, "%s\n", line);
	return true;
}

/* --- uprobes and USDT ---------------------------------------------------------- */

static bool target_is_any(const char *t)
{
	return !t || !*t || strcmp(t, "*") == 0;
}

/* A process in another mount namespace (a container) maps files this one
 * cannot see under their names: those are listed as /proc/PID/root/PATH,
 * as they attach. */
static int through_pid_root(pid_t pid, char **paths, int n)
{
	char path[PATH_MAX];

	for (int i = 0; i < n; i++) {
		char *p;

		if (sp_resolve_binary(paths[i], pid, path, sizeof(path)) || !strcmp(path, paths[i]))
			continue;
		if (!(p = strdup(path)))
			return -ENOMEM;
		free(paths[i]);
		paths[i] = p;
	}
	return 0;
}

/* The files a uprobe/usdt pattern's target names. */
static int list_targets(struct sp_lister *l, const char *target, char ***paths, int *n)
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
			sp_err("cannot list '%s': cannot read the mappings of "
			       "process %d: %s\n", l->what, (int)l->pid, strerror(-err));
		return err ? err : through_pid_root(l->pid, *paths, *n);
	}
	if (sp_is_path_glob(target)) {
		err = sp_resolve_glob(target, paths, n);
		if (!err && *n == 0) {
			sp_err("cannot list '%s': no file matches '%s'\n", l->what,
			       target);
			return -ENOENT;
		}
		return err;
	}
	if (sp_resolve_binary(target, l->pid, path, sizeof(path))) {
		sp_err("cannot list '%s': binary '%s' not found (no such file, no "
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

/* --- dispatch -------------------------------------------------------------- */

int sp_lister_user_targets(struct sp_lister *l, const char *prov, char **f, int nf, bool wild,
			   char ***paths, int *n)
{
	const char *a = nf > 1 && *f[1] ? f[1] : NULL;

	*paths = NULL;
	*n = 0;
	/* "*:./app:*" lists the app's probes; "*" alone does not scan ELF files. */
	if (wild && target_is_any(a) && l->pid <= 0)
		return 0;
	if (!a && l->pid <= 0) {
		sp_err("cannot list '%s': name a binary (%s:BINARY:*) or a "
		       "process (-p PID)\n", l->what, prov);
		return -EINVAL;
	}
	return list_targets(l, a, paths, n);
}

/* --- dispatch: each probe type lists itself (runtime/attach/probe.h) ------------- */

static int list_provider(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	const struct sp_probe_ops *ops = sp_probe_ops_for(sp_probe_type_of(prov));

	return ops && ops->list ? ops->list(l, prov, f, nf, wild) : 0;
}

/* No provider: the kernel's probes (rawtracepoints too, as bpftrace 0.27;
 * not the timers' units), or with -p the process's own. */
static int list_all(struct sp_lister *l)
{
	char *f[] = { "*", "*", "*" };
	size_t i;
	int err = 0;

	if (l->pid > 0) {
		err = list_provider(l, "uprobe", f, 3, true);
		return err ? err : list_provider(l, "usdt", f, 3, true);
	}
	for (i = 0; i < sizeof(providers) / sizeof(*providers) && !err; i++) {
		if (!strcmp(providers[i], "uprobe") || !strcmp(providers[i], "usdt") ||
		    !strcmp(providers[i], "profile") || !strcmp(providers[i], "interval"))
			continue;
		err = list_provider(l, providers[i], f, 1, true);
	}
	return err;
}

int sp_list_probes(const char *pattern, pid_t pid, bool verbose, FILE *out)
{
	return sp_list_probes_ex(pattern, pid, verbose, NULL, NULL, out);
}

/* A search expression is an attach point with wildcards: control
 * characters, backslashes, quotes and the program's punctuation cannot be
 * part of one (bpftrace's lexer refuses them too). */
static int check_pattern(const char *pattern)
{
	for (const unsigned char *p = (const unsigned char *)pattern; p && *p; p++) {
		if (*p >= 0x20 && *p != 0x7f && !strchr("\\'\"`;{}$|&", *p))
			continue;
		if (*p < 0x20 || *p == 0x7f)
			sp_err("invalid character '\\x%02x' in search expression "
			       "'%s'\n", *p, pattern);
		else
			sp_err("invalid character '%c' in search expression '%s'\n",
			       *p, pattern);
		return -EINVAL;
	}
	return 0;
}

int sp_list_probes_ex(const char *pattern, pid_t pid, bool verbose, sp_list_params_fn params,
		      void *params_ctx, FILE *out)
{
	struct sp_lister l = { .out = out, .pid = pid, .verbose = verbose, .what = pattern,
			       .params = params, .params_ctx = params_ctx };
	char *copy, *f[MAX_FIELDS], *glob = NULL;
	const char *prov;
	size_t i;
	int nf, err = check_pattern(pattern);

	if (err)
		return err;
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
		sp_err("cannot list '%s': unknown probe type '%s'\n", pattern, f[0]);
		err = -EINVAL;
	}
	free(copy);
	return err;
}
