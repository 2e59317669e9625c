/* runtime/report/read_stacks.c: a profile file read back whatever its format.
 *
 * `sprof diff` takes folded text or pprof (gzip'd or not) and is not told
 * which: the bytes decide (gzip's magic, or control bytes, is pprof), then
 * read_folded.c or read_pprof.c reads them into one path list.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/vec.h"
#include "runtime/report/input.h"

static int slurp(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0;
	uint8_t *d = NULL;
	int err = 0;

	if (!f) {
		err = -errno;
		sp_err("cannot read '%s': %s\n", path, strerror(-err));
		return err;
	}
	for (;;) {
		if (SP_GROW(d, cap, n + 65536, 65536)) {
			err = -ENOMEM;
			break;
		}
		size_t got = fread(d + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err) {
		sp_err("cannot read '%s': %s\n", path, strerror(-err));
		free(d);
		return err;
	}
	*data = d;
	*len = n;
	return 0;
}

/* Text is folded; gzip (1f 8b) or anything with control bytes is pprof. */
static bool looks_binary(const uint8_t *d, size_t n)
{
	if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		return true;
	for (size_t i = 0; i < n && i < 4096; i++)
		if (d[i] < 0x20 && !isspace(d[i]))
			return true;
	return false;
}

int sp_read_stacks(const char *path, struct sp_stacks *out)
{
	uint8_t *d = NULL;
	size_t n = 0;
	int err = slurp(path, &d, &n);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	if (looks_binary(d, n))
		err = sp_read_pprof(path, d, n, out);
	else
		err = sp_read_folded(path, (const char *)d, n, out);
	free(d);
	if (!err && out->total == 0) {
		sp_err("'%s' holds no samples\n", path);
		err = -ENODATA;
	}
	if (err)
		sp_stacks_free(out);
	return err;
}
