/* runtime/outpath.c: the report is never lost to a bad -o path.
 *
 * Before anything is attached, -o's folder must exist and be writable (and
 * the file, when it exists, writable), so a typo fails at once instead of
 * after a long run. At the end, a report that cannot go where -o said
 * (the folder was removed meanwhile, the disk is read-only or full) goes to
 * a file in $TMPDIR (or /tmp) named after -o's, and stderr says where.
 * sprof runs as root and /tmp is everyone's: the fallback is a new file
 * (O_EXCL|O_NOFOLLOW, mode 0600), never one a local user placed or linked
 * there; a name taken gets a number.
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

#include "base/log.h"
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
		sp_err("cannot write '%s': %s\n", path, strerror(-err));
	return err;
}

#define FALLBACK_TRIES 100

int sp_outpath_fallback(const char *path, char *out, size_t len)
{
	const char *tmp = getenv("TMPDIR"), *base = strrchr(path, '/');
	struct stat st;
	int n;

	base = base ? base + 1 : path;
	base = *base ? base : "report";
	if (!tmp || !*tmp || access(tmp, W_OK | X_OK))
		tmp = "/tmp";
	for (int k = 0; k < FALLBACK_TRIES; k++) {
		n = k ? snprintf(out, len, "%s/sprof-%d.%d-%s", tmp, (int)getpid(), k, base)
		      : snprintf(out, len, "%s/sprof-%d-%s", tmp, (int)getpid(), base);
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		if (lstat(out, &st) != 0 && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

/* The fallback file, new: fd or -errno. */
static int create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	return fd < 0 ? -errno : fd;
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

	to = err ? err : create_new(fb);
	if (to < 0) {
		err = to;
		sp_err("cannot write '%s' nor '%s': %s: the report is lost\n", path,
		       fb, strerror(-err));
		return err;
	}
	err = copy_fd(fd, to);
	if (close(to) && !err)
		err = -errno;
	if (err)
		sp_err("cannot write '%s' nor '%s': %s\n", path, fb, strerror(-err));
	else
		sp_err("'%s' is gone (its folder was removed?): the report is in '%s'\n",
		       path, fb);
	return err ? err : -EIO;
}

static bool path_trouble(int err)
{
	return err == -EIO || err == -ENOSPC || err == -EROFS || err == -EACCES || err == -EPERM ||
	       err == -EDQUOT || err == -ENOTDIR || err == -EFBIG;
}

/* The report into a new fallback file named after `output`; -EIO when it
 * is there (the run still failed), another -errno when it is lost. */
static int write_fallback(const struct sp_profile *p, struct sp_report_opts *fo,
			  const char *output)
{
	char fb[PATH_MAX];
	int err = sp_outpath_fallback(output, fb, sizeof(fb));

	fo->output = fb;
	fo->exclusive = true;
	if (!err)
		err = sp_report_write(p, fo);
	if (err) {
		sp_err("the report is lost: cannot write '%s' nor '%s'\n", output, fb);
		return err;
	}
	sp_err("cannot write '%s': the report is in '%s'\n", output, fb);
	return -EIO;
}

int sp_outpath_write(const struct sp_profile *p, const struct sp_report_opts *o,
		     const char *output, bool on_stdout)
{
	struct sp_report_opts fo = *o;
	int err;

	if (on_stdout) { /* text, json: stdout is the -o file since the start */
		err = sp_report_write(p, o);
		fflush(stdout);
		if (output && !sp_outpath_still_there(output, STDOUT_FILENO))
			return sp_outpath_rescue(output, STDOUT_FILENO);
		if (!output || !path_trouble(err))
			return err;
		fo.stdout_name = NULL; /* said: the maps at least go to the fallback */
		return write_fallback(p, &fo, output);
	}
	if (!o->output)
		return sp_report_write(p, o);
	err = sp_outpath_check(o->output);
	if (!err) {
		err = sp_report_write(p, o);
		if (!path_trouble(err))
			return err;
	}
	return write_fallback(p, &fo, o->output);
}
