/* runtime/store/ch_spool.c: --spool DIR, export batches kept on disk.
 *
 * With a spool every batch is written to DIR before it is sent and removed
 * once ClickHouse has it, so batches wait out an outage of any length (up
 * to the spool's size) and a restarted sprof sends what an earlier run
 * left. One file per batch, named by the batch id in hex (ids grow with
 * time, so names sort oldest first) and the layout ('c' stack-id, 'o' a
 * stack per row): "0001890f5c3e2a10.c". Its text: a header line
 * "sprof-batch 1 ROWS SAMPLES ROWBYTES STACKBYTES", the rows, the stacks.
 * Files are written under a ".tmp" name and renamed, so a crash leaves a
 * whole batch or none (a leftover .tmp is removed).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fdio.h"
#include "runtime/store/ch_spool.h"

static int spool_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n == 18 && d->d_name[16] == '.' && (d->d_name[17] == 'c' || d->d_name[17] == 'o') &&
	       strspn(d->d_name, "0123456789abcdef") == 16;
}

int sp_spool_list(const char *dir, char ***names)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, spool_name, alphasort);

	*names = NULL;
	if (n < 0)
		return -errno;
	*names = calloc((size_t)n + 1, sizeof(**names));
	for (int i = 0; i < n; i++) {
		if (*names)
			(*names)[i] = strdup(ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return *names ? n : -ENOMEM;
}

void sp_spool_names_free(char **names)
{
	for (int i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

int sp_spool_write(const char *dir, const struct sp_ch_text *b, size_t *bytes)
{
	char path[4096], tmp[4200], head[128];
	int fd, e, n;

	snprintf(path, sizeof(path), "%s/%016" PRIx64 ".%c", dir, b->id, b->compact ? 'c' : 'o');
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	n = snprintf(head, sizeof(head), "sprof-batch 1 %" PRIu64 " %" PRIu64 " %zu %zu\n", b->nrows,
		     b->samples, b->len, b->slen);
	e = sp_write_all(fd, head, (size_t)n);
	if (!e)
		e = sp_write_all(fd, b->rows, b->len);
	if (!e && b->slen)
		e = sp_write_all(fd, b->stacks, b->slen);
	if (!e && fsync(fd) != 0)
		e = -errno;
	if (close(fd) != 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) != 0)
		e = -errno;
	if (e)
		unlink(tmp);
	*bytes = (size_t)n + b->len + b->slen;
	return e;
}

int sp_spool_read(const char *dir, const char *name, struct sp_ch_text *b, size_t *bytes)
{
	char path[4096];
	unsigned long long rows, samples;
	size_t len, slen;
	FILE *f;
	int e = 0;

	memset(b, 0, sizeof(*b));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "sprof-batch 1 %llu %llu %zu %zu", &rows, &samples, &len, &slen) != 4 || fgetc(f) != '\n' ||
	    len > (1u << 30) || slen > (1u << 30)) {
		fclose(f);
		return -EBADMSG;
	}
	b->id = strtoull(name, NULL, 16);
	b->compact = name[17] == 'c';
	b->nrows = rows;
	b->samples = samples;
	b->len = len;
	b->slen = slen;
	b->rows = malloc(len + 1);
	b->stacks = slen ? malloc(slen + 1) : NULL;
	if (!b->rows || (slen && !b->stacks))
		e = -ENOMEM;
	else if (fread(b->rows, 1, len, f) != len || (slen && fread(b->stacks, 1, slen, f) != slen))
		e = -EBADMSG;
	*bytes = (size_t)ftell(f);
	fclose(f);
	if (e) {
		free(b->rows);
		free(b->stacks);
		memset(b, 0, sizeof(*b));
	}
	return e;
}

int sp_spool_header(const char *dir, const char *name, uint64_t *rows, uint64_t *samples, size_t *bytes)
{
	char path[4096];
	unsigned long long r = 0, s = 0;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) != 0)
		return -errno;
	*bytes = (size_t)st.st_size;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "sprof-batch 1 %llu %llu", &r, &s) != 2)
		r = s = 0;
	fclose(f);
	*rows = r;
	*samples = s;
	return 0;
}

void sp_spool_remove(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

int sp_spool_open(const char *dir)
{
	struct dirent *d;
	struct stat st;
	DIR *dp;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (stat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (access(dir, W_OK | X_OK) != 0)
		return -errno;
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) { /* half-written batches of a run that died */
		size_t n = strlen(d->d_name);

		if (n > 4 && strcmp(d->d_name + n - 4, ".tmp") == 0)
			sp_spool_remove(dir, d->d_name);
	}
	closedir(dp);
	return 0;
}
