/* base/log.h: the one sink for what sprof says on stderr below main.c.
 *
 * Lower layers used to write to stderr themselves under five prefixes
 * ("sprof:", "sprof: warning:", "error:", "warning:", none); -q and -v
 * reached them only where a context struct happened to carry the flag.
 * Now every message goes through here: errors read "sprof: TEXT",
 * warnings "sprof: warning: TEXT", and accounts and progress (the -v lines
 * of what attached where, a subcommand's own voice such as "sprof serve:")
 * are written as given. main.c sets the level once from -v and -q; the
 * default, for tests and tools that never call sp_log_setup(), prints all
 * but debug lines. Like libbpf's print callback this is process-wide
 * state, set once before any work starts.
 */
#ifndef SPROF_BASE_LOG_H
#define SPROF_BASE_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum sp_log_level {
	SP_LOG_ERROR, /* always printed */
	SP_LOG_WARN,  /* always printed */
	SP_LOG_INFO,  /* hidden by -q, unless -v asks for it too */
	SP_LOG_DEBUG, /* printed with -v only */
};

/* verbose: how many -v; quiet: -q. */
void sp_log_setup(int verbose, bool quiet);
/* Whether a line of this level would be printed (to skip costly text). */
bool sp_log_wants(enum sp_log_level level);

/* The text as given (no prefix): one write, so lines of threads do not mix. */
void sp_log(enum sp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sp_vlog(enum sp_log_level level, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* "sprof: " + text */
void sp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sprof: warning: " + text */
void sp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
