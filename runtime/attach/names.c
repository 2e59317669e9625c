/* runtime/attach/names.c: pre-load preparation and wildcard names (see probe_names.h).
 *
 * Sizing happens before load because an ARRAY map's size is fixed then;
 * the entries are written at attach time, when each probe type knows its
 * matches in the order it attaches them. Reservation is stateless (the
 * first empty entry) so attach ops need no shared counter.
 */
#include "runtime/attach/names.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/usdt_spec.h"

int sp_probe_names_reserve(struct bpf_object *obj, int n)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, SP_MAP_PROBE_NAMES);
	struct sp_probe_name e;
	uint32_t i, max;
	int fd;

	if (!m || (fd = bpf_map__fd(m)) < 0)
		return -ENOENT;
	max = bpf_map__max_entries(m);
	for (i = 0; i < max; i++) {
		if (bpf_map_lookup_elem(fd, &i, &e))
			return -errno;
		if (!e.probe[0])
			break;
	}
	if (i + (uint32_t)n > max)
		return -ENOSPC;
	return (int)i;
}

const char *sp_probe_names_strerror(int err)
{
	if (err == -ENOSPC)
		return "the names map was not sized for them before load (sp_probes_prepare)";
	return strerror(-err);
}

int sp_probe_names_set(struct bpf_object *obj, uint32_t idx, const char *func, const char *probe)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, SP_MAP_PROBE_NAMES);
	struct sp_probe_name e;

	if (!m)
		return -ENOENT;
	memset(&e, 0, sizeof(e));
	snprintf(e.func, sizeof(e.func), "%s", func ? func : "");
	snprintf(e.probe, sizeof(e.probe), "%s", probe ? probe : "?");
	if (bpf_map_update_elem(bpf_map__fd(m), &idx, &e, BPF_ANY))
		return -errno;
	return 0;
}
