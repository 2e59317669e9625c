/* runtime/report/folded.c: folded ("collapsed") stacks, one line per key.
 *
 *   comm;main;foo;vfs_read_[k];leaf_[k] 42
 *
 * What flamegraph.pl, inferno, speedscope and friends read: frames root
 * first joined by ';', one space, an integer count. The key's non-stack
 * parts (comm, pid, ...) lead, then user frames, then kernel frames marked
 * "_[k]" (on top, as the kernel ran on behalf of that user stack); a
 * function inlined into its caller is a frame of its own, marked "_[i]"
 * (stackcollapse-perf --inline's mark).
 * Stacks that differ only in offsets are merged; lines are sorted.
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

#include "runtime/report/impl.h"

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

void sp_folded_name(FILE *f, const char *s, enum sp_pe_kind kind)
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
	else if (kind == SP_PE_INLINE)
		fputs("_[i]", f);
}

int sp_report_folded(FILE *f, const struct sp_mapdata *m)
{
	struct sp_path *v;
	int n = 0, err = sp_map_paths(m, false, &v, &n);

	if (err)
		return err;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < v[i].n; j++) {
			if (j)
				fputc(';', f);
			sp_folded_name(f, v[i].el[j].name, v[i].el[j].kind);
		}
		fprintf(f, " %" PRIu64 "\n", v[i].weight);
	}
	sp_paths_free(v, n);
	return 0;
}
