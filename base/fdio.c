/* base/fdio.c: whole writes to a file descriptor (see fdio.h). */
#include "base/fdio.h"

#include <errno.h>
#include <unistd.h>

int sp_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}
