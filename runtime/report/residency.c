/* runtime/report/residency.c: -f residency, each stack's share of all samples.
 *
 *   65.3%  hot;main;__libc_start_call_main;[hotwarm]
 *   32.1%  warm;main;__libc_start_call_main;[hotwarm]
 *
 * The answer to "where does the time go" without a viewer, as yap prints it:
 * one line per distinct stack, its weight as a percentage of the map's total
 * with one decimal, then the stack leaf first (the folded line reversed:
 * kernel frames, user frames, then the key's other parts such as comm), the
 * largest share first (ties in folded order). Names are the folded writer's,
 * so a line reads like a folded line turned around.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/impl.h"

static int by_weight(const void *x, const void *y)
{
	const struct sp_path *const *a = x, *const *b = y;

	if ((*a)->weight != (*b)->weight)
		return ((*a)->weight < (*b)->weight) - ((*a)->weight > (*b)->weight);
	return (*a > *b) - (*a < *b); /* folded order for equal shares */
}

int sp_report_residency(FILE *f, const struct sp_mapdata *m)
{
	struct sp_path *v, **order;
	uint64_t total = 0;
	int n = 0, err = sp_map_paths(m, false, &v, &n);

	if (err)
		return err;
	order = calloc(n + 1, sizeof(*order));
	if (!order) {
		sp_paths_free(v, n);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		order[i] = &v[i];
		total += v[i].weight;
	}
	qsort(order, n, sizeof(*order), by_weight);
	for (int i = 0; i < n; i++) {
		const struct sp_path *p = order[i];

		fprintf(f, "%4.1f%%  ", total ? 100.0 * (double)p->weight / (double)total : 0.0);
		for (int j = p->n - 1; j >= 0; j--) {
			sp_folded_name(f, p->el[j].name, p->el[j].kind);
			if (j)
				fputc(';', f);
		}
		fputc('\n', f);
	}
	free(order);
	sp_paths_free(v, n);
	return 0;
}
