/* runtime/outpath.c: the report is never lost to a bad -o path.
 *
 * Before anything is attached, -o's folder must exist and be writable (and
 * the file, when it exists, writable), so a typo fails at once instead of
 * after a long run. At the end, a report that cannot go where -o said
 * (the folder was removed meanwhile, the disk is read-only) goes to a file
 * in $TMPDIR (or /tmp) named after -o's, and stderr says where.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/outpath.h"

static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

int sp_outpath_check(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	int err = 0;

	if (!path)
		return 0;
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st))
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		err = -errno;
	else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		err = -EISDIR;
	else if (stat(path, &st) == 0 && access(path, W_OK))
		err = -errno;
	if (err)
		fprintf(stderr, "sprof: cannot write '%s': %s\n", path, strerror(-err));
	return err;
}

int sp_outpath_fallback(const char *path, char *out, size_t len)
{
	const char *tmp = getenv("TMPDIR"), *base = strrchr(path, '/');
	int n;

	base = base ? base + 1 : path;
	if (!tmp || !*tmp || access(tmp, W_OK | X_OK))
		tmp = "/tmp";
	n = snprintf(out, len, "%s/sprof-%d-%s", tmp, (int)getpid(), *base ? base : "report");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool sp_outpath_still_there(const char *path, int fd)
{
	struct stat a, b;

	return stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int copy_fd(int from, int to)
{
	char buf[65536];
	ssize_t n;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -errno;
	while ((n = read(from, buf, sizeof(buf))) > 0)
		for (ssize_t o = 0; o < n;) {
			ssize_t w = write(to, buf + o, (size_t)(n - o));

			if (w < 0)
				return -errno;
			o += w;
		}
	return n < 0 ? -errno : 0;
}

int sp_outpath_rescue(const char *path, int fd)
{
	char fb[PATH_MAX];
	int to, err = sp_outpath_fallback(path, fb, sizeof(fb));

	if (err)
		return err;
	to = open(fb, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (to < 0) {
		err = -errno;
		fprintf(stderr, "sprof: cannot write '%s' nor '%s': %s: the report is lost\n", path,
			fb, strerror(-err));
		return err;
	}
	err = copy_fd(fd, to);
	if (close(to) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "sprof: cannot write '%s' nor '%s': %s\n", path, fb, strerror(-err));
	else
		fprintf(stderr, "sprof: '%s' is gone (its folder was removed?): the report is in '%s'\n",
			path, fb);
	return err ? err : -EIO;
}

static bool path_trouble(int err)
{
	return err == -EIO || err == -ENOSPC || err == -EROFS || err == -EACCES || err == -EPERM ||
	       err == -EDQUOT || err == -ENOTDIR || err == -EFBIG;
}

int sp_outpath_write(const struct sp_profile *p, const struct sp_report_opts *o,
		     const char *output, bool on_stdout)
{
	struct sp_report_opts fo = *o;
	char fb[PATH_MAX];
	int err;

	if (on_stdout) { /* text, json: stdout is the -o file since the start */
		err = sp_report_write(p, o);
		fflush(stdout);
		if (output && !sp_outpath_still_there(output, STDOUT_FILENO))
			err = sp_outpath_rescue(output, STDOUT_FILENO);
		return err;
	}
	if (!o->output)
		return sp_report_write(p, o);
	err = sp_outpath_check(o->output);
	if (!err) {
		err = sp_report_write(p, o);
		if (!path_trouble(err))
			return err;
	}
	err = sp_outpath_fallback(o->output, fb, sizeof(fb));
	fo.output = fb;
	if (!err)
		err = sp_report_write(p, &fo);
	if (err) {
		fprintf(stderr, "sprof: the report is lost: cannot write '%s' nor '%s'\n", o->output, fb);
		return err;
	}
	fprintf(stderr, "sprof: cannot write '%s': the report is in '%s'\n", o->output, fb);
	return -EIO;
}
