/* base/log.c: the stderr sink of base/log.h. */
#include <stdio.h>

#include "base/log.h"

static int log_verbose;
static bool log_quiet;

void sp_log_setup(int verbose, bool quiet)
{
	log_verbose = verbose;
	log_quiet = quiet;
}

bool sp_log_wants(enum sp_log_level level)
{
	switch (level) {
	case SP_LOG_ERROR:
	case SP_LOG_WARN:
		return true;
	case SP_LOG_INFO:
		return !log_quiet || log_verbose > 0;
	case SP_LOG_DEBUG:
		return log_verbose > 0;
	}
	return true;
}

void sp_vlog(enum sp_log_level level, const char *prefix, const char *fmt, va_list ap)
{
	if (!sp_log_wants(level))
		return;
	flockfile(stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	funlockfile(stderr);
}

void sp_log(enum sp_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_vlog(level, NULL, fmt, ap);
	va_end(ap);
}

void sp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_vlog(SP_LOG_ERROR, "sprof: ", fmt, ap);
	va_end(ap);
}

void sp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_vlog(SP_LOG_WARN, "sprof: warning: ", fmt, ap);
	va_end(ap);
}
