/* runtime/attach/tracefs.c: find tracefs, list trace events, parse their formats.
 *
 * tracefs is usually at /sys/kernel/tracing, sometimes only under
 * debugfs, and on minimal systems not mounted at all: then we mount it,
 * since libbpf's tracepoint attach reads event ids from it too.
 *
 * A format file looks like
 *     field:const char * filename;	offset:24;	size:8;	signed:0;
 *     field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *     field:__data_loc char[] filename;	offset:8;	size:4;	signed:0;
 * The declaration is split at its last identifier: the name, with any
 * array suffix moved onto the type ("char[16]").
 */
#define _GNU_SOURCE
#include "runtime/attach/tracefs.h"

#include <bpf/btf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/attach/resolve.h"

static bool has_events(const char *dir)
{
	char buf[512];
	struct stat st;

	snprintf(buf, sizeof(buf), "%s/events", dir);
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
}

int sp_tracefs_root(char *buf, size_t len)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (has_events(dirs[i])) {
			snprintf(buf, len, "%s", dirs[i]);
			return 0;
		}
	}
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 && has_events(dirs[0])) {
		snprintf(buf, len, "%s", dirs[0]);
		return 0;
	}
	return -ENOENT;
}

/* --- format files ------------------------------------------------------------ */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool get_num(const char *line, const char *key, long *v)
{
	const char *p = strstr(line, key);

	if (!p)
		return false;
	*v = strtol(p + strlen(key), NULL, 10);
	return true;
}

/* "char prev_comm[16]" -> type "char[16]", name "prev_comm", array_len 16;
 * "__data_loc char[] filename" -> type "__data_loc char[]", name "filename". */
static bool split_decl(char *decl, struct sp_tracefs_field *f)
{
	char *end, *start, *type, *br;
	char suffix[32] = "";

	end = decl + strlen(decl);
	while (end > decl && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (end > decl && end[-1] == ']' && (br = strrchr(decl, '['))) {
		snprintf(suffix, sizeof(suffix), "%s", br);
		f->array_len = (uint32_t)strtoul(br + 1, NULL, 10);
		*br = '\0';
		end = br;
		while (end > decl && isspace((unsigned char)end[-1]))
			*--end = '\0';
	}
	start = end;
	while (start > decl && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
		start--;
	if (start == end)
		return false;
	f->name = strdup(start);
	*start = '\0';
	type = trim(decl);
	if (asprintf(&f->type, "%s%s", type, suffix) < 0)
		f->type = NULL;
	return f->name && f->type;
}

static void classify(struct sp_tracefs_field *f)
{
	const char *t = f->type;
	bool is_char;

	f->is_data_loc = strncmp(t, "__data_loc ", 11) == 0;
	if (f->is_data_loc)
		t += 11;
	if (strncmp(t, "const ", 6) == 0)
		t += 6;
	is_char = strncmp(t, "char", 4) == 0 && (t[4] == '\0' || t[4] == ' ' || t[4] == '[' || t[4] == '*');
	f->is_pointer = strchr(t, '*') != NULL;
	f->is_string = is_char && (strchr(t, '[') || (f->is_pointer && !strstr(t, "**")));
	f->is_common = strncmp(f->name, "common_", 7) == 0;
}

/* Syscall records store every argument in 8 unsigned bytes
 * ("field:pid_t pid; offset:16; size:8; signed:0;"); bpftrace types each by
 * its declaration (pid_t: a 4-byte signed int), so kill(-1234) shows -1234. */
static void narrow_declared(struct sp_tracefs_field *f)
{
	static const struct { const char *name; uint32_t size; bool sign; } ints[] = {
		{ "int", 4, true }, { "pid_t", 4, true }, { "key_t", 4, true },
		{ "clockid_t", 4, true }, { "timer_t", 4, true }, { "mqd_t", 4, true },
		{ "rwf_t", 4, true }, { "key_serial_t", 4, true }, { "__s32", 4, true },
		{ "unsigned int", 4, false }, { "unsigned", 4, false }, { "u32", 4, false },
		{ "__u32", 4, false }, { "uid_t", 4, false }, { "gid_t", 4, false },
		{ "qid_t", 4, false }, { "umode_t", 2, false }, { "long", 8, true },
		{ "loff_t", 8, true }, { "off_t", 8, true },
	};
	const char *t = f->type;

	if (f->is_pointer || f->is_data_loc || strchr(t, '['))
		return;
	if (strncmp(t, "const ", 6) == 0)
		t += 6;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (strcmp(t, ints[i].name) || ints[i].size > f->size)
			continue;
		f->size = ints[i].size;
		f->is_signed = ints[i].sign;
		return;
	}
}

bool sp_tp_parse_field_line(const char *line, struct sp_tracefs_field *f)
{
	const char *p = strstr(line, "field:");
	char decl[256];
	const char *semi;
	long off, size, sign = 0;

	memset(f, 0, sizeof(*f));
	if (!p)
		return false;
	p += 6;
	semi = strchr(p, ';');
	if (!semi || (size_t)(semi - p) >= sizeof(decl))
		return false;
	memcpy(decl, p, semi - p);
	decl[semi - p] = '\0';
	if (!get_num(semi, "offset:", &off) || !get_num(semi, "size:", &size))
		return false;
	get_num(semi, "signed:", &sign);
	if (!split_decl(decl, f)) {
		free(f->name);
		free(f->type);
		memset(f, 0, sizeof(*f));
		return false;
	}
	f->offset = (uint32_t)off;
	f->size = (uint32_t)size;
	f->is_signed = sign != 0;
	classify(f);
	narrow_declared(f);
	return true;
}

void sp_tracefs_fields_free(struct sp_tracefs_field *f, int n)
{
	int i;

	for (i = 0; i < n && f; i++) {
		free(f[i].name);
		free(f[i].type);
	}
	free(f);
}

int sp_tp_parse_format(const char *text, struct sp_tracefs_field **out, int *n)
{
	struct sp_tracefs_field *v = NULL, f;
	const char *line = text;
	int cnt = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[512];
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (sp_tp_parse_field_line(buf, &f)) {
				struct sp_tracefs_field *nv = realloc(v, (cnt + 1) * sizeof(*v));

				if (!nv) {
					sp_tracefs_fields_free(v, cnt);
					return -ENOMEM;
				}
				v = nv;
				v[cnt++] = f;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	*out = v;
	*n = cnt;
	return 0;
}

static char *read_file(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (!fp)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);

			if (!nb) {
				free(buf);
				fclose(fp);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + len, 1, 4096, fp);
		len += r;
	} while (r > 0);
	fclose(fp);
	buf[len] = '\0';
	return buf;
}

static bool valid_event_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int sp_tracepoint_fields(const char *cat, const char *name, struct sp_tracefs_field **out, int *n)
{
	char root[256], path[768];
	char *text;
	int err;

	*out = NULL;
	*n = 0;
	if (!valid_event_name(cat) || !valid_event_name(name))
		return -ENOENT;
	err = sp_tracefs_root(root, sizeof(root));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, cat, name);
	text = read_file(path);
	if (!text)
		return errno == EACCES ? -EACCES : -ENOENT;
	err = sp_tp_parse_format(text, out, n);
	free(text);
	return err;
}

static bool same_field(const struct sp_tracefs_field *a, const struct sp_tracefs_field *b)
{
	return !strcmp(a->name, b->name) && a->offset == b->offset && a->size == b->size &&
	       a->is_signed == b->is_signed && !strcmp(a->type ? a->type : "", b->type ? b->type : "");
}

/* Keep in f[0..*nf) the fields that g[0..ng) has too. */
static void keep_common(struct sp_tracefs_field *f, int *nf, const struct sp_tracefs_field *g,
			int ng)
{
	int i, j, kept = 0;

	for (i = 0; i < *nf; i++) {
		for (j = 0; j < ng && !same_field(&f[i], &g[j]); j++)
			;
		if (j < ng) {
			f[kept++] = f[i];
			continue;
		}
		free(f[i].name);
		free(f[i].type);
	}
	*nf = kept;
}

int sp_tracepoint_fields_common(const char *cat_glob, const char *name_glob,
				struct sp_tracefs_field **out, int *n)
{
	struct sp_tracefs_field *f = NULL, *g;
	char **names = NULL;
	int i, nn = 0, nf = 0, ng, err = sp_tracepoints_list(cat_glob, name_glob, &names, &nn);

	if (!err && nn == 0)
		err = -ENOENT;
	for (i = 0; i < nn && !err; i++) {
		char *colon = strchr(names[i], ':');

		if (!colon)
			continue;
		*colon = '\0';
		if (!f) {
			err = sp_tracepoint_fields(names[i], colon + 1, &f, &nf);
			continue;
		}
		if (sp_tracepoint_fields(names[i], colon + 1, &g, &ng))
			continue; /* an unreadable format: attaching reports it */
		keep_common(f, &nf, g, ng);
		sp_tracefs_fields_free(g, ng);
	}
	sp_strv_free(names, nn);
	if (err) {
		sp_tracefs_fields_free(f, nf);
		return err;
	}
	*out = f;
	*n = nf;
	return 0;
}

bool sp_tracepoint_exists(const char *cat, const char *name)
{
	char root[256], path[768];
	struct stat st;

	if (!valid_event_name(cat) || !valid_event_name(name) || sp_tracefs_root(root, sizeof(root)))
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, cat, name);
	return stat(path, &st) == 0;
}

/* --- listing ----------------------------------------------------------------- */

static int strv_add(char ***v, int *n, const char *cat, const char *name)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (asprintf(&nv[*n], "%s:%s", cat, name) < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_category(const char *root, const char *cat, const char *name_glob, char ***out,
			 int *n)
{
	char path[768];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/events/%s", root, cat);
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (name_glob && !sp_glob_match(name_glob, de->d_name))
			continue;
		err = strv_add(out, n, cat, de->d_name);
	}
	closedir(d);
	return err;
}

int sp_tracepoints_list(const char *cat_glob, const char *name_glob, char ***out, int *n)
{
	char root[256], path[512];
	struct dirent *de;
	DIR *d;
	int err;

	*out = NULL;
	*n = 0;
	err = sp_tracefs_root(root, sizeof(root));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/events", root);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (cat_glob && !sp_glob_match(cat_glob, de->d_name))
			continue;
		err = list_category(root, de->d_name, name_glob, out, n);
	}
	closedir(d);
	if (err) {
		sp_strv_free(*out, *n);
		*out = NULL;
		*n = 0;
		return err;
	}
	if (*n) /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(*out, *n, sizeof(**out), cmp_str);
	return 0;
}

/* Levenshtein distance, bounded strings. */
static int edit_distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, j;
	int row[256];

	if (la > 255 || lb > 255)
		return 1 << 20;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		int prev = row[0], cur;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = prev + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[lb];
}

char *sp_tracepoint_suggest(const char *cat, const char *name)
{
	char want[512], *best = NULL;
	char **all;
	int n, i, best_d = 1 << 20;

	if (sp_tracepoints_list(NULL, NULL, &all, &n))
		return NULL;
	snprintf(want, sizeof(want), "%s:%s", cat ? cat : "", name ? name : "");
	for (i = 0; i < n; i++) {
		const char *colon = strchr(all[i], ':');
		int d = edit_distance(want, all[i]);

		/* A right name in the wrong category is a good guess too. */
		if (name && colon && strcmp(colon + 1, name) == 0)
			d = 1;
		if (d < best_d) {
			best_d = d;
			best = all[i];
		}
	}
	/* Only suggest something reasonably close. */
	best = best && best_d <= (int)strlen(want) / 3 + 1 ? strdup(best) : NULL;
	sp_strv_free(all, n);
	return best;
}

static bool btf_has_raw_tp(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char type[256];
	bool found;

	if (!btf)
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	found = btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return found;
}

bool sp_rawtracepoint_exists(const char *name)
{
	char **v;
	int n;
	bool found;

	if (!valid_event_name(name))
		return false;
	if (sp_tracepoints_list(NULL, name, &v, &n) == 0) {
		found = n > 0;
		sp_strv_free(v, n);
		if (found)
			return true;
	}
	return btf_has_raw_tp(name);
}
