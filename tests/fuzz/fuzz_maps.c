/* tests/fuzz/fuzz_maps.c: libFuzzer entry for the /proc/PID/maps and perf map parsers.
 *
 * The same bytes are read as a /proc/PID/maps file (runtime/stacks/procmaps.c,
 * sp_procmaps__read with a path, as the tests do) and as a JIT perf map
 * (runtime/stacks/perfmap.c). The perf map is written in two parts with a
 * refresh between them, so the "file grew" path (node appends) runs as well
 * as the first full read, then truncated and refreshed again (the JVM
 * rewrites its map). Lookups run at every symbol's edges.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/stacks/perfmap.h"
#include "runtime/stacks/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(int fd, const uint8_t *data, size_t size)
{
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
}

static void procmaps(const char *path)
{
	struct sp_procmaps pm;

	if (sp_procmaps__read(&pm, 0, path) == 0)
		sp_procmaps__free(&pm);
}

static void lookups(const struct sp_perfmap *pm, const uint8_t *data, size_t size)
{
	uint64_t a = 0;

	sp_perfmap__count(pm);
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		memcpy(&a, data + i, 8);
		sp_perfmap__find(pm, a);
	}
	for (uint64_t x = 0; x < 0x100000; x += 0x1000)
		sp_perfmap__find(pm, x);
}

static void perfmap(int fd, const char *path, const uint8_t *data, size_t size)
{
	struct sp_perfmap *pm = sp_perfmap__open_path(path, "/tmp/perf-1.map");
	int first;

	if (!pm)
		return;
	put(fd, data, size / 2);
	sp_perfmap__refresh(pm);
	put(fd, data + size / 2, size - size / 2);
	sp_perfmap__refresh(pm);
	lookups(pm, data, size);
	if (ftruncate(fd, (off_t)(size / 3)) == 0) {
		sp_perfmap__refresh(pm);
		lookups(pm, data, size);
	}
	sp_perfmap__bad_lines(pm, &first);
	sp_perfmap__destroy(pm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_maps", MFD_CLOEXEC);
	char path[64];

	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	put(fd, data, size);
	procmaps(path);
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	perfmap(fd, path, data, size);
	close(fd);
	return 0;
}
