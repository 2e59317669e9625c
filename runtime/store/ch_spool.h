/* runtime/store/ch_spool.h: export batches in a spool directory (--spool). */
#ifndef SPROF_RUNTIME_STORE_CH_SPOOL_H
#define SPROF_RUNTIME_STORE_CH_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/store/ch_rows.h"

/* Makes dir (0700) when missing, checks it is a writable directory, removes
 * half-written batches; 0 or -errno. */
int sp_spool_open(const char *dir);
/* The batch files in dir, oldest first, in a NULL-ended array; how many or -errno. */
int sp_spool_list(const char *dir, char ***names);
void sp_spool_names_free(char **names);
/* Writes b (its id, layout, rows and stacks) as one file; *bytes its size. */
int sp_spool_write(const char *dir, const struct sp_ch_text *b, size_t *bytes);
/* Reads a batch file back (ids of its stacks are not kept); -EBADMSG for a damaged one. */
int sp_spool_read(const char *dir, const char *name, struct sp_ch_text *b, size_t *bytes);
/* A file's rows, samples and size, without reading the rows. */
int sp_spool_header(const char *dir, const char *name, uint64_t *rows, uint64_t *samples, size_t *bytes);
void sp_spool_remove(const char *dir, const char *name);

#endif
