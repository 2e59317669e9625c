/* runtime/report/report.c: picks the writer for -f/-o and the file(s) it writes.
 *
 * text and json go to one stream like bpftrace's output. The flame-graph
 * formats write the maps whose keys hold stacks: folded, svg and pprof one
 * file per map ("out.svg" -> "out-foo.svg" for @foo; the anonymous map "@"
 * keeps the plain name, and so does a lone map), speedscope one file with a
 * profile per map. --map @name keeps one map.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "runtime/report/impl.h"

static const char *const fmt_names[] = {
	[SP_FMT_TEXT] = "text",     [SP_FMT_JSON] = "json",   [SP_FMT_FOLDED] = "folded",
	[SP_FMT_SVG] = "svg",       [SP_FMT_PPROF] = "pprof", [SP_FMT_SPEEDSCOPE] = "speedscope",
	[SP_FMT_RESIDENCY] = "residency",
};

/* Extensions, longest first so ".speedscope.json" wins over ".json". */
static const struct {
	const char *ext;
	enum sp_format fmt;
} fmt_exts[] = {
	{ ".speedscope.json", SP_FMT_SPEEDSCOPE }, { ".pb.gz", SP_FMT_PPROF },
	{ ".pprof", SP_FMT_PPROF },   { ".pb", SP_FMT_PPROF },
	{ ".folded", SP_FMT_FOLDED }, { ".collapsed", SP_FMT_FOLDED },
	{ ".svg", SP_FMT_SVG },       { ".json", SP_FMT_JSON },
	{ ".txt", SP_FMT_TEXT },
};

int sp_format_parse(const char *name)
{
	for (size_t i = 0; name && i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
		if (strcmp(name, fmt_names[i]) == 0)
			return (int)i;
	if (name && (strcmp(name, "flamegraph") == 0 || strcmp(name, "collapsed") == 0))
		return strcmp(name, "flamegraph") == 0 ? SP_FMT_SVG : SP_FMT_FOLDED;
	return -1;
}

static const char *known_ext(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(fmt_exts) / sizeof(fmt_exts[0]); i++) {
		size_t e = strlen(fmt_exts[i].ext);

		if (n > e && strcmp(path + n - e, fmt_exts[i].ext) == 0)
			return path + n - e;
	}
	return NULL;
}

enum sp_format sp_format_from_path(const char *path)
{
	const char *ext = path ? known_ext(path) : NULL;

	for (size_t i = 0; ext && i < sizeof(fmt_exts) / sizeof(fmt_exts[0]); i++)
		if (strcmp(ext, fmt_exts[i].ext) == 0)
			return fmt_exts[i].fmt;
	return SP_FMT_TEXT;
}

/* "out.svg" + "foo" -> "out-foo.svg"; the extension is a known one, else
 * whatever follows the last '.' of the file name. */
char *sp_report_suffixed_path(const char *path, const char *suffix)
{
	const char *ext = known_ext(path), *base = strrchr(path, '/');
	size_t n = strlen(path), cut;
	char *out;

	base = base ? base + 1 : path;
	if (!ext) {
		ext = strrchr(base, '.');
		ext = ext && ext != base ? ext : path + n;
	}
	cut = (size_t)(ext - path);
	out = malloc(n + strlen(suffix) + 2);
	if (!out)
		return NULL;
	memcpy(out, path, cut);
	sprintf(out + cut, "-%s%s", suffix, ext);
	return out;
}

FILE *sp_report_open(const struct sp_report_opts *o, const char *suffix, char **path)
{
	FILE *f;

	*path = NULL;
	if (!o->output)
		return stdout;
	*path = suffix ? sp_report_suffixed_path(o->output, suffix) : strdup(o->output);
	if (!*path) {
		sp_err("cannot write '%s': %s\n", o->output, strerror(ENOMEM));
		return NULL;
	}
	if (o->exclusive) {
		int fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (fd >= 0 && !f)
			close(fd);
	} else {
		f = fopen(*path, "we");
	}
	if (!f) {
		int e = errno;

		sp_err("cannot write '%s': %s\n", *path, strerror(e));
		free(*path);
		*path = NULL;
		errno = e;
	}
	return f;
}

/* A write that failed (a full disk) leaves its bytes in the buffer, where
 * the last flush fails again and says why: that errno is the one named. */
int sp_report_close(FILE *f, char *path, const char *stdout_name)
{
	bool bad = ferror(f);
	int err = 0;

	errno = 0;
	if ((f == stdout ? fflush(f) : fclose(f)) != 0 || bad)
		err = errno ? -errno : -EIO;
	if (err && f == stdout && stdout_name)
		sp_err("cannot write '%s': %s\n", stdout_name, strerror(-err));
	else if (err && f == stdout)
		sp_err("cannot write the report to stdout: %s\n", strerror(-err));
	else if (err)
		sp_err("cannot write '%s': %s\n", path, strerror(-err));
	free(path);
	return err;
}

static int first_err(int a, int b)
{
	return a ? a : b;
}

static bool has_map(const struct sp_profile *p, const char *name)
{
	for (int i = 0; i < p->nmaps; i++)
		if (p->maps[i].map && p->maps[i].map->name && strcmp(p->maps[i].map->name, name) == 0)
			return true;
	return false;
}

/* Every map (or o->map_filter's), in name order, as text or JSON lines. */
static int write_maps(FILE *f, const struct sp_profile *p, const struct sp_report_opts *o)
{
	int n = 0;
	const struct sp_mapdata **maps = sp_sorted_maps(p, o->map_filter, &n);

	if (!maps)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (o->format == SP_FMT_JSON)
			sp_report_json_map(f, maps[i], 0, 1);
		else
			sp_report_text_map(f, maps[i], 0, 1);
	}
	free(maps);
	return 0;
}

static int write_stream(const struct sp_profile *p, const struct sp_report_opts *o)
{
	char *path;
	FILE *f;
	int err;

	if (o->map_filter && !has_map(p, o->map_filter)) {
		sp_err("no map '%s' in the program\n", o->map_filter);
		return -ENOENT;
	}
	f = sp_report_open(o, NULL, &path);
	if (!f)
		return -errno ? -errno : -EIO;
	/* bpftrace separates the run's output from the maps printed at exit. */
	if (f == stdout)
		fputs("\n\n", f);
	err = write_maps(f, p, o);
	if (err)
		sp_err("cannot write the report: %s\n", strerror(-err));
	return first_err(sp_report_close(f, path, o->stdout_name), err);
}

static int write_one(const struct sp_profile *p, const struct sp_mapdata *m,
		     const struct sp_report_opts *o, const char *suffix)
{
	char *path;
	FILE *f = sp_report_open(o, suffix, &path);
	int err;

	if (!f)
		return -errno ? -errno : -EIO;
	switch (o->format) {
	case SP_FMT_FOLDED:
		err = sp_report_folded(f, m);
		break;
	case SP_FMT_SVG:
		err = sp_report_svg(f, m, o);
		break;
	case SP_FMT_RESIDENCY:
		err = sp_report_residency(f, m);
		break;
	default:
		err = sp_report_pprof(f, p, m);
		break;
	}
	if (err)
		sp_err("cannot write the %s report: %s\n", fmt_names[o->format],
		       strerror(-err));
	return first_err(sp_report_close(f, path, o->stdout_name), err);
}

static const char *map_suffix(const struct sp_mapdata *m)
{
	const char *name = m->map && m->map->name ? m->map->name : "@";

	return name[0] == '@' ? name + 1 : name;
}

/* Keeps the maps a flame-graph format writes; *n gets their number. */
static int flame_maps(const struct sp_profile *p, const struct sp_report_opts *o,
		      const struct sp_mapdata ***out, int *n)
{
	int all = 0, k = 0, stacks = 0;
	const struct sp_mapdata **v = sp_sorted_maps(p, o->map_filter, &all);

	if (!v)
		return -errno;
	for (int i = 0; i < all; i++)
		stacks += sp_map_has_stack(v[i]);
	for (int i = 0; i < all; i++)
		if (stacks ? sp_map_has_stack(v[i]) : sp_map_is_flame(v[i]))
			v[k++] = v[i];
	*out = v;
	*n = k;
	if (k == 0) {
		if (o->map_filter)
			sp_err("no map '%s' with a stack or a count to write as %s\n",
			       o->map_filter, fmt_names[o->format]);
		else
			sp_err("no map holds a stack or a count to write as %s\n",
			       fmt_names[o->format]);
		return -ENOENT;
	}
	return 0;
}

static int write_flame(const struct sp_profile *p, const struct sp_report_opts *o)
{
	const struct sp_mapdata **maps = NULL;
	int n = 0, err = flame_maps(p, o, &maps, &n);

	if (!err && !o->output && o->format == SP_FMT_PPROF && isatty(STDOUT_FILENO)) {
		sp_err("pprof output is gzip'd binary: write it with -o FILE.pb.gz\n");
		err = -EINVAL;
	}
	if (!err && n > 1 && !o->output && o->format != SP_FMT_FOLDED && o->format != SP_FMT_RESIDENCY) {
		sp_err("%d maps hold stacks: write them with -o FILE (one file per map) "
			       "or pick one with --map\n", n);
		err = -EINVAL;
	}
	if (!err && o->format == SP_FMT_SPEEDSCOPE) {
		char *path;
		FILE *f = sp_report_open(o, NULL, &path);

		err = f ? sp_report_speedscope(f, p, maps, n) : -EIO;
		if (f)
			err = first_err(sp_report_close(f, path, o->stdout_name), err);
	}
	for (int i = 0; !err && o->format != SP_FMT_SPEEDSCOPE && i < n; i++) {
		const char *sfx = n > 1 && *map_suffix(maps[i]) ? map_suffix(maps[i]) : NULL;

		err = write_one(p, maps[i], o, sfx);
	}
	free(maps);
	return err;
}

int sp_report_write(const struct sp_profile *p, const struct sp_report_opts *o)
{
	switch (o->format) {
	case SP_FMT_TEXT:
	case SP_FMT_JSON:
		return write_stream(p, o);
	case SP_FMT_FOLDED:
	case SP_FMT_SVG:
	case SP_FMT_PPROF:
	case SP_FMT_SPEEDSCOPE:
	case SP_FMT_RESIDENCY:
		return write_flame(p, o);
	}
	sp_err("unknown report format %d\n", (int)o->format);
	return -EINVAL;
}
