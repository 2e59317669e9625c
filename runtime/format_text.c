/* runtime/format_text.c: values BPF keeps as a number and users read as text.
 *
 * username (a uid: its name from the password database), signal_name (a
 * signal number: its description, Interrupt), strerror (an errno value: its message), macaddr (6 bytes: AA:BB:CC:DD:EE:FF) and
 * cgroup_path (a cgroup id: "hierarchy:path" for every mounted cgroup
 * hierarchy that has it, cgroup2 as "unified" first, then the v1 ones by
 * name, joined by ",", only the hierarchies matching the filter when one is
 * given; bpftrace 0.17 also matches files whose inode number happens to be
 * the id, sprof only cgroup directories), each
 * printed as bpftrace 0.17 prints it. Resolved when printed, in user space,
 * because BPF cannot read the password database or walk cgroupfs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fnmatch.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/format_text.h"

#define PATH_MAX_LEN 4096

static char *username(uint64_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[1024], *out = NULL;

	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		return strdup(res->pw_name);
	if (asprintf(&out, "%llu", (unsigned long long)uid) < 0)
		return NULL;
	return out;
}

static char *macaddr(uint64_t v)
{
	unsigned char b[8];
	char *out = NULL;

	memcpy(b, &v, sizeof(b)); /* the bytes as BPF stored them */
	if (asprintf(&out, "%02X:%02X:%02X:%02X:%02X:%02X", b[0], b[1], b[2], b[3], b[4], b[5]) < 0)
		return NULL;
	return out;
}

/* Depth-first search below dir (relative name rel) for a directory whose
 * inode is id; writes its path relative to the root into out. */
static bool find_ino(const char *dir, const char *rel, uint64_t id, char *out, size_t len,
		     int depth)
{
	DIR *d = depth < 64 ? opendir(dir) : NULL;
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char path[PATH_MAX_LEN], sub[PATH_MAX_LEN];
		struct stat st;

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name);
		if (stat(path, &st) == 0 && st.st_ino == id) {
			snprintf(out, len, "%s", sub);
			found = true;
		} else {
			found = find_ino(path, sub, id, out, len, depth + 1);
		}
	}
	closedir(d);
	return found;
}

struct root {
	bool v2;
	char name[256], dir[PATH_MAX_LEN];
};

/* cgroup2 first, then v1 hierarchies by name */
static int root_cmp(const void *a, const void *b)
{
	const struct root *x = a, *y = b;

	if (x->v2 != y->v2)
		return x->v2 ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Mounted cgroup hierarchies: cgroup2 ones (named "unified"), then v1 by
 * the name of their mount directory. */
static int cgroup_roots(struct root *roots, int max)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], dir[PATH_MAX_LEN], type[64];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		const char *base = strrchr(dir, '/');

		roots[n].v2 = !strcmp(type, "cgroup2");
		if (!roots[n].v2 && strcmp(type, "cgroup"))
			continue;
		snprintf(roots[n].name, sizeof(roots[n].name), "%.255s",
			 roots[n].v2 ? "unified" : base ? base + 1 : dir);
		snprintf(roots[n].dir, sizeof(roots[n].dir), "%s", dir);
		n++;
	}
	fclose(f);
	qsort(roots, (size_t)n, sizeof(*roots), root_cmp);
	return n;
}

static char *cgroup_path_walk(uint64_t id, const char *filter)
{
	struct root *roots = calloc(32, sizeof(*roots));
	char *text = NULL, path[PATH_MAX_LEN];
	size_t len = 0;
	FILE *m = roots ? open_memstream(&text, &len) : NULL;
	int n = m ? cgroup_roots(roots, 32) : 0, i, shown = 0;

	for (i = 0; i < n; i++) {
		struct stat st;

		if (filter && *filter && fnmatch(filter, roots[i].name, 0) != 0)
			continue;
		if (stat(roots[i].dir, &st) == 0 && st.st_ino == id)
			snprintf(path, sizeof(path), "/");
		else if (!find_ino(roots[i].dir, "", id, path, sizeof(path), 0))
			continue; /* not in this hierarchy: left out, as bpftrace does */
		fprintf(m, "%s%s:%s", shown++ ? "," : "", roots[i].name, path);
	}
	if (m)
		fclose(m);
	free(roots);
	return text;
}

/* The walk reads every cgroup directory: a map with many keys of a few
 * cgroups asks for the same ids again, so recent answers are kept. */
#define CG_CACHE 64
static struct {
	uint64_t id;
	char *filter, *text;
} cg_cache[CG_CACHE];
static unsigned cg_next;
static pthread_mutex_t cg_lock = PTHREAD_MUTEX_INITIALIZER;

static char *cgroup_path(uint64_t id, const char *filter)
{
	char *text = NULL;
	int i;

	filter = filter ? filter : "";
	pthread_mutex_lock(&cg_lock);
	for (i = 0; i < CG_CACHE && !text; i++)
		if (cg_cache[i].text && cg_cache[i].id == id && !strcmp(cg_cache[i].filter, filter))
			text = strdup(cg_cache[i].text);
	pthread_mutex_unlock(&cg_lock);
	if (text)
		return text;
	text = cgroup_path_walk(id, filter);
	if (!text)
		return NULL;
	pthread_mutex_lock(&cg_lock);
	i = (int)(cg_next++ % CG_CACHE);
	free(cg_cache[i].filter);
	free(cg_cache[i].text);
	cg_cache[i].id = id;
	cg_cache[i].filter = strdup(filter);
	cg_cache[i].text = cg_cache[i].filter ? strdup(text) : NULL;
	pthread_mutex_unlock(&cg_lock);
	return text;
}

/* signal_name(n): the C library's description of signal n, 0 to 64
 * ("Interrupt", "Unknown signal 0", "Real-time signal 0"), "N/A" for
 * other numbers: bpftrace 0.27's stdlib table is strsignal(3)'s text. */
static char *signal_name(uint64_t v)
{
	return strdup(v <= 64 ? strsignal((int)v) : "N/A");
}

/* An enum value, how = "enum NAME:ONE=1,TWO=2": the name of the first
 * enumerator of that value, else the number (bpftrace prints both so). */
static char *enum_name(const char *how, int64_t v)
{
	const char *p = strchr(how, ':');
	char buf[32];

	while (p && *p++) {
		size_t len = strcspn(p, "=");
		const char *num = p + len;

		if (*num == '=' && strtoll(num + 1, NULL, 10) == v)
			return strndup(p, len);
		p = strchr(num, ',');
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return strdup(buf);
}

char *sp_format_text(const char *how, uint64_t v)
{
	if (!how)
		return NULL;
	if (!strcmp(how, "bool"))
		return strdup(v ? "true" : "false");
	if (!strncmp(how, "enum ", 5))
		return enum_name(how, (int64_t)v);
	if (!strcmp(how, "username"))
		return username(v);
	if (!strcmp(how, "strerror"))
		return strdup(strerror((int)v));
	if (!strcmp(how, "macaddr"))
		return macaddr(v);
	if (!strcmp(how, "signal_name"))
		return signal_name(v);
	if (!strncmp(how, "cgroup_path", 11))
		return cgroup_path(v, how[11] == ':' ? how + 12 : NULL);
	return NULL;
}
