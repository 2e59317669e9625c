/* base/fdio.h: whole writes to a file descriptor.
 *
 * write(2) may write less than asked (a pipe or socket with little room,
 * a signal): the caches, the spool and `sprof serve` each want all of a
 * buffer written or a reason why not, so the loop is written once here.
 */
#ifndef SPROF_BASE_FDIO_H
#define SPROF_BASE_FDIO_H

#include <stddef.h>

/* Writes n bytes of p to fd, again after short writes and EINTR: 0, or
 * -errno of the write that failed (-EIO when one wrote nothing). */
int sp_write_all(int fd, const void *p, size_t n);

#endif
