/* tests/fuzz/fuzz_frontend.c: libFuzzer entry for the front end and codegen.
 *
 * Parses and type-checks arbitrary bytes (with positional parameters and
 * a fake tracepoint format so those paths run too), dumps the tree and, when
 * the program is valid, compiles it to a BPF object (never loaded); the
 * compiler must never crash, hang or leak whatever the input. Built by
 * -DSPROF_FUZZ=ON (tests/tier_fuzz.py, tests/fuzz/run.sh); the seed corpus
 * is tests/fuzz/corpus/frontend.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/plan.h"
#include "codegen/codegen.h"
#include "parser/base/arena.h"
#include "parser/base/diag.h"
#include "parser/frontend.h"
#include "parser/base/source.h"

static const struct sp_tp_field fields[] = {
	{ .name = "common_pid", .offset = 4, .size = 4, .is_signed = true, .is_common = true },
	{ .name = "filename", .offset = 24, .size = 4, .is_string = true, .is_data_loc = true },
	{ .name = "comm", .offset = 8, .size = 16, .is_string = true, .array_len = 16 },
	{ .name = "pid", .offset = 24, .size = 4, .is_signed = true },
	{ .name = "flags", .offset = 32, .size = 8 },
	{ .name = "ptr", .offset = 40, .size = 8, .is_pointer = true, .is_string = true },
	{ .name = "args", .offset = 48, .size = 48, .array_len = 6 },
};

static int tp_fields(void *ctx, const char *cat, const char *event,
		     const struct sp_tp_field **out, int *n)
{
	(void)ctx;
	(void)cat;
	if (!strcmp(event, "missing"))
		return -ENOENT;
	*out = fields;
	*n = (int)(sizeof(fields) / sizeof(fields[0]));
	return 0;
}

/* Codegen with the lighter pass pipeline (the IR sprof builds is what is
 * under test, not LLVM's optimizer) and small maps. */
static void compile(const struct sp_node *prog, const struct sp_source *src, struct sp_diag *d)
{
	struct sp_codegen_opts co = { .max_keys = 64, .passes = SP_CODEGEN_FAST_PASSES };
	struct sp_plan *plan = NULL;
	void *obj = NULL;
	size_t objlen = 0;

	sp_codegen(prog, src, &co, d, &plan, &obj, &objlen);
	free(obj);
	sp_plan_free(plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *params[] = { "42", "hello" };
	struct sp_sema_opts o = { .strlen = 64, .nparams = 2, .params = params,
				  .tp_fields = tp_fields };
	char *text = malloc(size + 1);
	struct sp_source *src;
	struct sp_arena *a;
	struct sp_node *prog = NULL;
	struct sp_diag d;
	FILE *null = fopen("/dev/null", "w");

	memcpy(text, data, size);
	text[size] = '\0';
	src = sp_source_from_string("fuzz", text);
	a = sp_arena_new();
	sp_diag_init(&d, src, null);
	sp_parse(a, src, &d, &prog);
	if (prog) /* sema must cope with the probes that parsed, too */
		sp_sema(a, prog, &o, &d);
	if (prog)
		sp_ast_dump(null, prog, true);
	if (prog && !sp_diag_errors(&d))
		compile(prog, src, &d);
	fclose(null);
	sp_arena_destroy(a);
	sp_source_free(src);
	free(text);
	return 0;
}
