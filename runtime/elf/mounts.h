/* runtime/elf/mounts.h: whether a path lies on a mount that may never
 * answer (FUSE, network file systems), found without touching that mount. */
#ifndef SPROF_RUNTIME_ELF_MOUNTS_H
#define SPROF_RUNTIME_ELF_MOUNTS_H

#include <stdbool.h>

/* true when `path` (absolute, relative to the working directory,
 * /proc/PID/root/..., or a /proc/PID/map_files/ link) is under a FUSE or
 * network mount of the mount namespace it is seen in, or when that cannot
 * be told (then the careful way is the right one). Reads only
 * /proc/.../mountinfo (cached a second per process) and readlink()s a
 * map_files link, so a hung mount cannot hold it. */
bool sp_path_on_slow_mount(const char *path);

#endif
