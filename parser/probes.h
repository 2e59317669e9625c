/* parser/probes.h: probe types as the front end knows them (internal).
 *
 * One X-macro row per probe type (abi/plan.h's SP_PROBE_TYPES): canonical
 * name, bpftrace's alias, and the attach-point shape shown when one is
 * malformed; the parser's kinds are the plan's types, in the same order. sema uses the kind
 * bits to check where builtins may appear (stdlib/builtins.def).
 */
#ifndef SPROF_PARSER_PROBES_H
#define SPROF_PARSER_PROBES_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/plan.h"

struct sp_arena;
struct sp_diag;
struct sp_node;

/* X(KIND, name, alias, usage): the one table of probe types, abi/plan.h's. */
#define SP_PROBE_KINDS(X) SP_PROBE_TYPES(X)

enum sp_probe_kind {
#define X(k, n, a, u) SP_PK_##k,
	SP_PROBE_KINDS(X)
#undef X
	SP_PK__COUNT
};

/* Bit masks over probe kinds, used by stdlib/builtins.def. */
enum {
#define X(k, n, a, u) P_##k = 1 << SP_PK_##k,
	SP_PROBE_KINDS(X)
#undef X
};
#define P_ALL ((1u << SP_PK__COUNT) - 1)
#define P_UPROBES (P_UPROBE | P_URETPROBE | P_USDT)
#define P_KPROBES (P_KPROBE | P_KRETPROBE)
#define P_FENTRIES (P_FENTRY | P_FEXIT)
#define P_ARGS (P_UPROBE | P_USDT | P_KPROBE | P_RAWTRACEPOINT | P_FENTRIES)
#define P_RET (P_URETPROBE | P_KRETPROBE | P_FEXIT)
#define P_FUNC (P_UPROBES | P_KPROBES | P_FENTRIES)

const char *sp_probe_kind_name(enum sp_probe_kind k);
/* Splits and checks the ATTACH node's raw text into its sp_attach,
 * reporting problems at the offending field. Returns the probe kind, or -1
 * when the type is unknown; when a field is wrong the kind is returned but
 * sp_attach.provider stays NULL. Positional parameters ($1) are expanded
 * first; sp_attach.raw is then the expanded text. */
int sp_attach_parse(struct sp_arena *a, struct sp_diag *d, struct sp_node *at, int nparams,
		    char **params);

#endif
