/* runtime/format_text.h: text of username, strerror, macaddr and
 * cgroup_path values (SP_F_TEXT slots; abi/plan.h). */
#ifndef SPROF_RUNTIME_FORMAT_TEXT_H
#define SPROF_RUNTIME_FORMAT_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* how: the field's fmt ("bool", "username", "strerror", "macaddr",
 * "cgroup_path[:FILTER]", "enum NAME:ONE=1,..."); a malloc'd string, or NULL. */
char *sp_format_text(const char *how, uint64_t v);

#endif
