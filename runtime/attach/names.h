/* runtime/attach/names.h: what probe types need between open and load, and
 * the names behind wildcard attach points.
 *
 * One BPF program serves every match of a wildcard attach point
 * (uprobe:./app:parse_*). When its body reads `func` or `probe`
 * (sp_plan_probe.uses_names), each match is attached with a bpf cookie
 * indexing SP_MAP_PROBE_NAMES, whose entry holds the match's names; the
 * map is sized before load to the number of matches of all such probes.
 */
#ifndef SPROF_RUNTIME_ATTACH_NAMES_H
#define SPROF_RUNTIME_ATTACH_NAMES_H

#include <stdint.h>
#include <sys/types.h>

#include "abi/plan.h"

struct bpf_object;

/* For attach: the first of `n` free consecutive entries of the names map
 * (stateless: the first entry with an empty probe name), or -errno
 * (-ENOSPC when the map was not sized for them). */
int sp_probe_names_reserve(struct bpf_object *obj, int n);
/* Message for a reserve failure ("the names map was not sized ..."). */
const char *sp_probe_names_strerror(int err);
/* Write entry `idx`. 0 or -errno. */
int sp_probe_names_set(struct bpf_object *obj, uint32_t idx, const char *func, const char *probe);


#endif
