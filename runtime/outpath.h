/* runtime/outpath.h: -o checked before the run, and a fallback file after it. */
#ifndef SPROF_RUNTIME_OUTPATH_H
#define SPROF_RUNTIME_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/profile/profile.h"
#include "runtime/report/report.h"

/* 0 when `path` can be created or overwritten (its folder exists and is
 * writable); else prints "sprof: cannot write 'PATH': why" and returns
 * -errno. NULL path (stdout): 0. */
int sp_outpath_check(const char *path);
/* "$TMPDIR/sprof-PID-BASENAME" (/tmp without a usable $TMPDIR), or
 * "sprof-PID.N-BASENAME" when that name is taken: a name nothing has yet
 * (-EEXIST after 100 tries). Create it with O_EXCL. */
int sp_outpath_fallback(const char *path, char *out, size_t len);
/* True when `path` still names the file open as `fd` (not removed). */
bool sp_outpath_still_there(const char *path, int fd);
/* Copies what was written to fd (opened for reading too) into the fallback
 * file and says where on stderr. Returns -EIO when rescued (the run still
 * failed), another -errno when even that failed. */
int sp_outpath_rescue(const char *path, int fd);

/* Writes the report where -o says, else into the fallback file (saying
 * where; -EIO: the run failed, the report is safe). on_stdout: text/json,
 * whose -o file was opened as stdout (read-write) at the start. */
int sp_outpath_write(const struct sp_profile *p, const struct sp_report_opts *o,
		     const char *output, bool on_stdout);

#endif
