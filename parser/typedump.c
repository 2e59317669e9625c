/* parser/typedump.c: sp_types_dump() (typedump.h). */
#include "parser/typedump.h"

#include <string.h>

#include "parser/ast.h"
#include "parser/types/types.h"

#define MAX_NAMES 512

struct seen {
	const char *names[MAX_NAMES];
	int n;
};

/* true the first time a name is seen (and there is room to remember it) */
static int first_time(struct seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return 0;
	if (s->n == MAX_NAMES)
		return 0;
	s->names[s->n++] = name;
	return 1;
}

static void walk(FILE *f, const struct sp_node *n, enum sp_node_kind kind, struct seen *s)
{
	char kb[256], vb[256];

	if (!n)
		return;
	if (n->kind == kind && n->name && n->type && first_time(s, n->name)) {
		sp_type_str(n->type, vb, sizeof(vb));
		if (kind == SP_N_MAP && n->key_type)
			fprintf(f, "  %s[%s]: %s\n", n->name, sp_type_str(n->key_type, kb, sizeof(kb)),
				vb);
		else
			fprintf(f, "  %s: %s\n", n->name, vb);
	}
	walk(f, n->a, kind, s);
	walk(f, n->b, kind, s);
	walk(f, n->c, kind, s);
	for (int i = 0; i < n->list.len; i++)
		walk(f, n->list.items[i], kind, s);
}

void sp_types_dump(FILE *f, const struct sp_node *prog)
{
	struct seen maps = { .n = 0 };

	fprintf(f, "maps:\n");
	walk(f, prog, SP_N_MAP, &maps);
	for (int i = 0; i < prog->list.len; i++) {
		const struct sp_node *p = prog->list.items[i];
		struct seen vars = { .n = 0 };

		fprintf(f, "probe %d:", i + 1);
		for (int j = 0; j < p->list.len; j++)
			fprintf(f, "%s %s", j ? "," : "", p->list.items[j]->attach->raw);
		fprintf(f, "\n");
		walk(f, p->a, SP_N_VAR, &vars);
		walk(f, p->b, SP_N_VAR, &vars);
	}
}
