/* runtime/report_folded.c: folded ("collapsed") stacks, one line per key.
 *
 *   comm;main;foo;vfs_read_[k];leaf_[k] 42
 *
 * What flamegraph.pl, inferno, speedscope and friends read: frames root
 * first joined by ';', one space, an integer count. The key's non-stack
 * parts (comm, pid, ...) lead, then user frames, then kernel frames marked
 * "_[k]" (on top, as the kernel ran on behalf of that user stack).
 * Unresolved frames are "[module]" (the file name, as stackcollapse-perf
 * names them) or "[unknown]" outside any module, so they merge. Names
 * are sanitized: ';' becomes ':', line breaks and tabs spaces, and a name
 * ending in " <number>" gets '_' for the blank, since readers would take the
 * number for a (second, differential) count.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* Length of a trailing "<blanks><digits>[.<digits>]" or 0. */
static size_t trailing_number(const char *s, size_t n, size_t *blank)
{
	size_t i = n, digits;

	while (i > 0 && (isdigit((unsigned char)s[i - 1]) || s[i - 1] == '.'))
		i--;
	digits = n - i;
	if (digits == 0 || !isdigit((unsigned char)s[i]))
		return 0;
	*blank = i;
	while (i > 0 && isspace((unsigned char)s[i - 1]))
		i--;
	if (i == *blank || i == 0)
		return 0;
	*blank = i;
	return n - i;
}

static void folded_name(FILE *f, const char *s, enum sp_pe_kind kind)
{
	size_t n = strlen(s), blank = n, num = trailing_number(s, n, &blank);

	if (n == 0)
		s = "[unknown]", n = strlen(s), num = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (num && i >= blank && isspace((unsigned char)c))
			c = '_';
		else if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r' || c == '\t')
			c = ' ';
		fputc(c, f);
	}
	if (kind == SP_PE_KERNEL)
		fputs("_[k]", f);
}

int sp_report_folded(FILE *f, const struct sp_mapdata *m)
{
	int n = 0, err = 0;
	const struct sp_entry **v = sp_sorted_entries(m, 0, &n);

	if (!v)
		return -errno;
	for (int i = 0; i < n && !err; i++) {
		struct sp_path p;

		err = sp_entry_path(m, v[i], &p);
		if (err || p.weight == 0 || p.n == 0) {
			if (!err)
				sp_path_free(&p);
			continue;
		}
		for (int j = 0; j < p.n; j++) {
			if (j)
				fputc(';', f);
			folded_name(f, p.el[j].name, p.el[j].kind);
		}
		fprintf(f, " %" PRIu64 "\n", p.weight);
		sp_path_free(&p);
	}
	free(v);
	return err;
}
