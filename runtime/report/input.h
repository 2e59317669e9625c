/* runtime/report/input.h: profiles read back from files, for `sprof diff`.
 *
 * A profile file becomes what the flame-graph writers are built from: a list
 * of root-first paths (struct sp_path, impl.h) with weights. Frames carry a
 * name and a kind only (user, kernel, unknown); labels, addresses and
 * mappings are not kept. Readers report problems naming the file and return
 * -errno.
 */
#ifndef SPROF_RUNTIME_REPORT_INPUT_H
#define SPROF_RUNTIME_REPORT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/report/impl.h"

struct sp_stacks {
	struct sp_path *paths; /* root first, names owned */
	int n, cap;
	uint64_t total;        /* sum of the weights */
};

/* Appends a path of n names (root first) with weight w; kind from each
 * name: "_[k]" suffix (removed) = kernel, "_[i]" (removed) = inlined,
 * "[...]" = unknown, else user. */
int sp_stacks_add(struct sp_stacks *s, char **names, int n, uint64_t w);
void sp_stacks_free(struct sp_stacks *s);

/* Folded stacks: "a;b;c 123" lines (flamegraph.pl's, sprof's -f folded). */
int sp_read_folded(const char *path, const char *text, size_t len, struct sp_stacks *out);
/* A pprof profile.proto, gzip'd or not; the first sample value is the weight. */
int sp_read_pprof(const char *path, const uint8_t *data, size_t len, struct sp_stacks *out);
/* Either, by content: gzip or protobuf bytes are pprof, text is folded. */
int sp_read_stacks(const char *path, struct sp_stacks *out);

#endif
