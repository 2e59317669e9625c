/* tests/fuzz/fuzz_frontend.c: libFuzzer entry for the front end.
 *
 * Parses and type-checks arbitrary bytes (with positional parameters and
 * a fake tracepoint format so those paths run too) and dumps the tree; the
 * front end must never crash, hang or leak whatever the input. Not part of
 * the default build:
 *
 *   cmake --build build --target sp_parser     # generates lexer.c/parser.c
 *   clang-16 -g -O1 -fsanitize=fuzzer,address,undefined -Iparser -Ibuild \
 *       tests/fuzz/fuzz_frontend.c parser/[a-z]*.c build/lexer.c build/parser.c \
 *       -lbpf -ldw -o build/fuzz_frontend
 *   build/fuzz_frontend -max_total_time=60 -max_len=512 tests/parse
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/arena.h"
#include "parser/diag.h"
#include "parser/frontend.h"
#include "parser/source.h"

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
	fclose(null);
	sp_arena_destroy(a);
	sp_source_free(src);
	free(text);
	return 0;
}
