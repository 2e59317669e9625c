/* main.c: the sprof command line, the one place that joins the layers.
 *
 *   source text -> parser/ (parse, sema) -> codegen/ (LLVM -> BPF object + plan)
 *               -> runtime/ (load, attach, collect, report)
 *
 * The program is `-e TEXT`, or the first positional argument: a file when
 * one exists by that name (or a stdlib script by name), program text
 * otherwise. Further positional arguments are $1..$N.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "abi/interp_usdt.h"
#include "base/log.h"
#include "codegen/codegen.h"   /* one face per layer: each includes its layer's services */
#include "parser/frontend.h"
#include "runtime/runtime.h"
#include "sprof_version.h" /* generated: SPROF_VERSION, SPROF_GIT_REV */
#define DEFAULT_MAX_KEYS (1u << 20)
#define DEFAULT_MAP_SIZE 4096

struct sp_stdlib_script {
	const char *name;
	const char *text;
};
extern const struct sp_stdlib_script sp_stdlib[];

/* -d STAGE, in pipeline order */
enum dump_kind {
	DUMP_NONE, DUMP_TOKENS, DUMP_AST, DUMP_TYPES, DUMP_IR, DUMP_IR_RAW, DUMP_BPF,
	DUMP_VERIFIER, DUMP_PLAN,
};

static const char *const dump_names[] = {
	[DUMP_TOKENS] = "tokens", [DUMP_AST] = "ast", [DUMP_TYPES] = "types", [DUMP_IR] = "ir",
	[DUMP_IR_RAW] = "ir-raw", [DUMP_BPF] = "bpf", [DUMP_VERIFIER] = "verifier",
	[DUMP_PLAN] = "plan",
};

struct cli {
	const char *prog_text;  /* -e */
	const char *prog_file;  /* positional file */
	const char *stdlib_name;
	char **params;          /* $1..$N */
	int nparams;
	const char *named[64];  /* "--name[=value]" after the program, for getopt() */
	int nnamed;
	enum dump_kind dump;
	const char *emit_elf;
	const char *probe_filter;  /* --probe-filter REGEX */
	struct sp_run_opts run;
	bool unsafe;
	bool list;
	const char *list_pattern;
	int strlen_;
	const char **script_kv; /* --param NAME=VALUE, in order */
	int nscript_kv;
	bool list_scripts;
	const char *incdirs[16];   /* -I DIR */
	int nincdirs;
	const char *includes[16];  /* --include FILE */
	int nincludes;
	int bpf_compat;            /* SPROF_BPF_COMPAT: 1 the helpers for kernels before 5.17,
				    * 0 the others, -1 (unset) as the kernel answers */
	bool info;                 /* --info */
	const char *cache_dir;     /* SPROF_CACHE_DIR: compiled objects; NULL: the default */
	bool no_cache;             /* --no-cache */
	bool no_warnings;          /* --no-warnings: no compile warnings, warnf() silent */
	const char *xdg_cache_home, *home; /* where the default cache directory is */
	uint32_t given;            /* options seen (bit i: opt_rules[i]) */
};

enum {
	OPT_MAX_KEYS = 256,
	OPT_DURATION,
	OPT_MAP,
	OPT_TITLE,
	OPT_UNSAFE,
	OPT_EMIT_ELF,
	OPT_NO_STATUS,
	OPT_STRLEN,
	OPT_TOP,
	OPT_EXPORT,
	OPT_HOST_NAME,
	OPT_RETENTION,
	OPT_SPOOL,
	OPT_SPOOL_SIZE,
	OPT_SPOOL_AGE,
	OPT_FROM,
	OPT_WHERE,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_BY,
	OPT_TIMEOUT,
	OPT_SKIP_DOWN,
	OPT_CLUSTER,
	OPT_LOCAL,
	OPT_COPY_FROM,
	OPT_PASSWORD_FILE,
	OPT_PARAM,
	OPT_LIST_SCRIPTS,
	OPT_INCLUDE,
	OPT_MAP_SIZE,
	OPT_CONTINUOUS,
	OPT_INTERP,
	OPT_INFO,
	OPT_USDT_FILE_ACTIVATION,
	OPT_NO_INLINE,
	OPT_NO_FOLLOW,
	OPT_NO_CACHE,
	OPT_NO_WARNINGS,
	OPT_STATS,
	OPT_DRY_RUN,
	OPT_PROBE_FILTER,
};

/* --password-file FILE: the ClickHouse URL parser (runtime/store/ch_conn.c)
 * reads it, as it reads SPROF_CLICKHOUSE_PASSWORD_FILE, for --export,
 * report and fleet init alike. */
static int password_file(const char *path)
{
	if (access(path, R_OK) != 0) {
		fprintf(stderr, "sprof: cannot read the password file '%s': %s\n", path, strerror(errno));
		return -EINVAL;
	}
	return setenv("SPROF_CLICKHOUSE_PASSWORD_FILE", path, 1) ? -errno : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"USAGE: sprof [options] PROGRAM [ARGS...]\n"
		"       sprof [options] -e PROGRAM [ARGS...]\n"
		"       sprof [options] FILE.sp [ARGS...]\n"
		"       sprof diff [-o FILE] [-f text|svg] BASE NEW   what changed between two profiles\n"
		"       sprof report --from clickhouse://... [-o FILE] [-f FORMAT] [--where SQL]\n"
		"                    [--since TIME] [--until TIME]   a fleet's profile from ClickHouse\n"
		"       sprof fleet init clickhouse://...            create the table --export writes to\n"
		"       sprof serve clickhouse://... [--listen ADDR]  the fleet's profiles in a browser\n"
		"\n"
		"  -e TEXT          program text\n"
		"  -p PID           trace only this process (its threads) and its descendants\n"
		"  -c 'CMD ARGS'    run CMD, trace only it and the processes it starts, stop\n"
		"                   when it exits (with its status)\n"
		"  --no-follow      -c, -p: only the process itself, not its children\n"
		"  --no-cache       compile the program even when the object cache has it\n"
		"  --no-warnings    print no compile warnings, and warnf() prints nothing\n"
		"  --stats          at the end: each probe's runs and BPF time, where stacks went\n"
		"  -o FILE          write the report to FILE (format from its extension)\n"
		"  -f FORMAT        text (default), json, folded, svg, pprof, speedscope,\n"
		"                   residency\n"
		"  -d STAGE         print one stage and exit: tokens, ast, types, ir, ir-raw,\n"
		"                   bpf, verifier (loads: root), plan\n"
		"  -l [PATTERN]     list probes (with -v: arguments and fields)\n"
		"  -v               verbose: what each probe attached where, full verifier log,\n"
		"                   libbpf messages\n"
		"  -q               quiet: no \"Attached N probes\" line\n"
		"  -k, -kk          report failed helper calls at exit: -k delete()s of missing\n"
		"                   keys, -kk also reads of probed memory (full maps: always)\n"
		"  --info           what this kernel offers: helpers, map and probe types\n"
		"  --usdt-file-activation\n"
		"                   accepted for bpftrace: USDT semaphores are always raised\n"
		"                   in every process that maps the file\n"
		"  --duration TIME  stop TIME after the probes are attached (10s, 500ms, 2m)\n"
		"  --continuous PERIOD  never stop sampling; report every PERIOD (10s, 500ms,\n"
		"                   1m): to stdout, to -o FILE (%%t: the period's UTC time),\n"
		"                   to --export\n"
		"  --max-keys N     keys kept per map (env SPROF_MAX_MAP_KEYS; default %u)\n"
		"  --map-size N     entries per BPF map, at most --max-keys (env SPROF_MAP_SIZE;\n"
		"                   default %u): aggregations move to user space before\n"
		"                   it fills, other maps stop there\n"
		"  --interp MODE    interpreter frames in ustack/pystack: memory (default: read\n"
		"                   the interpreter's frames), usdt (its entry/return probes),\n"
		"                   off (native frames only)\n"
		"  --map @NAME      report only this map\n"
		"  --title TEXT     title of the flame graph\n"
		"  --strlen N       bytes of a string (env SPROF_STRLEN; default 64, at most 1024)\n"
		"  --no-inline      no frames for functions inlined into user frames\n"
		"  --export URL     also send the stacks to clickhouse://[USER[:PASS]@]HOST[:PORT]/DB.TABLE\n"
		"  --host-name NAME host name in exported rows (default: gethostname)\n"
		"  --password-file FILE  the ClickHouse password: FILE's first line\n"
		"  --retention TIME drop exported days older than TIME (7d, 12h)\n"
		"  --spool DIR      exports wait in DIR while the server is away, and across restarts\n"
		"  --spool-size MB  the spool's bound; the oldest batches go past it (default 256)\n"
		"  --spool-age TIME batches older than TIME leave the spool, counted (e.g. 1d, 12h)\n"
		"  --unsafe         allow system()\n"
		"  -I DIR           look for #include files in DIR\n"
		"  --include FILE   read FILE's C definitions before the program\n"
		"  --emit-elf FILE  write the BPF object to FILE and stop (a dry run)\n"
		"  --dry-run        load and attach the probes, then stop: BEGIN, the probes\n"
		"                   and the report do not run (bpftrace 0.27)\n"
		"  --probe-filter REGEX  attach only the probes whose attach point matches\n"
		"                   REGEX (extended; BEGIN and END always run)\n"
		"  --param K=V      set a script parameter (see --list-scripts)\n"
		"  --list-scripts   list the stdlib scripts, their purpose and parameters\n"
		"  -h, --help       this text\n"
		"  -V, --version    version\n"
		"\n"
		"environment: SPROF_STRLEN, SPROF_MAX_MAP_KEYS, SPROF_MAP_SIZE; bpftrace's\n"
		"BPFTRACE_STRLEN, BPFTRACE_MAP_KEYS_MAX, BPFTRACE_CAT_BYTES_MAX (and 0.27's\n"
		"BPFTRACE_MAX_STRLEN, BPFTRACE_MAX_MAP_KEYS, BPFTRACE_MAX_CAT_BYTES) and\n"
		"BPFTRACE_LOG_SIZE are read too (the SPROF_ ones win); SPROF_MAX_PROBES\n"
		"(or BPFTRACE_MAX_PROBES, BPFTRACE_MAX_BPF_PROGS) raises the limit of\n"
		"%d attach points\n",
		DEFAULT_MAX_KEYS, DEFAULT_MAP_SIZE, SP_DEFAULT_MAX_PROBES);
}

/* "10s", "500ms", "2m", "1h", "1500us", plain number = seconds. */
static int parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -EINVAL;
	double mult = 1e9;
	if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "m"))
		mult = 60e9;
	else if (!strcmp(end, "h"))
		mult = 3600e9;
	else if (!strcmp(end, "d"))
		mult = 86400e9;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*ns = (uint64_t)(v * mult);
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int parse_strlen(const char *s, int *out)
{
	uint32_t v;
	if (parse_u32(s, &v) || v > 1024)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* "offcpu", "offcpu.sp" or "stdlib/offcpu.sp" (when no such file exists) */
static const char *find_stdlib(const char *name)
{
	if (!strncmp(name, "stdlib/", 7))
		name += 7;
	for (int i = 0; sp_stdlib[i].name; i++) {
		const char *n = sp_stdlib[i].name;
		size_t len = strlen(n) - 3; /* without ".sp" */
		if (!strcmp(n, name) || (strlen(name) == len && !strncmp(n, name, len)))
			return sp_stdlib[i].text;
	}
	return NULL;
}

/* A plain script name ("offcpu", "offcpu.sp"): letters, digits, '_', '-'. */
static bool stdlib_name_ok(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
	return n > 0 && (!name[n] || !strcmp(name + n, ".sp"));
}

/* The folders stdlib scripts are read from, first match wins: the source
 * tree's stdlib/ when this binary is the build tree's, <prefix>/share/sprof
 * found from the binary's own path (a relocated install, the .deb), then the
 * folder configured at build time. The built-in copies come after these. */
static int stdlib_dirs(char dirs[3][PATH_MAX])
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int nd = 0;

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		if (!strcmp(exe, SPROF_BUILD_DIR))
			nd += snprintf(dirs[nd], PATH_MAX, "%s/stdlib", SPROF_SOURCE_DIR) < PATH_MAX;
		nd += snprintf(dirs[nd], PATH_MAX, "%s/%s", exe, SPROF_REL_DATADIR) < PATH_MAX;
	}
	nd += snprintf(dirs[nd], PATH_MAX, "%s", SPROF_DATADIR) < PATH_MAX;
	return nd;
}

/* Path of stdlib script NAME in a stdlib folder; false when none has it. */
static bool stdlib_file(const char *name, char path[PATH_MAX])
{
	char dirs[3][PATH_MAX];
	int nd = stdlib_dirs(dirs);
	const char *ext = strstr(name, ".sp") ? "" : ".sp";

	if (!stdlib_name_ok(name))
		return false;
	for (int i = 0; i < nd; i++)
		if (snprintf(path, PATH_MAX, "%s/%s%s", dirs[i], name, ext) < PATH_MAX &&
		    access(path, R_OK) == 0)
			return true;
	return false;
}

static bool stdlib_exists(const char *name)
{
	char path[PATH_MAX];
	return stdlib_file(name, path) || find_stdlib(name);
}

/* Stdlib script NAME: its file when a stdlib folder has one, else the built-in copy. */
static struct sp_source *stdlib_source(const char *name)
{
	char path[PATH_MAX];
	struct sp_source *src;

	if (!stdlib_file(name, path))
		return sp_source_from_string(name, find_stdlib(name));
	src = sp_source_from_file(path);
	if (!src) {
		fprintf(stderr, "sprof: cannot read script '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	/* named as typed, wherever it was found: diagnostics, -d output and
	 * messages read the same for the on-disk and the built-in copy */
	char *shown = strdup(name);
	if (shown) {
		free((char *)src->name);
		src->name = shown;
	}
	return src;
}

static bool looks_like_file(const char *arg)
{
	struct stat st;
	if (stat(arg, &st) == 0)
		return true;
	size_t n = strlen(arg);
	/* a name ending in .sp/.bt, or a path, that does not exist: report it */
	return (n > 3 && (!strcmp(arg + n - 3, ".sp") || !strcmp(arg + n - 3, ".bt"))) ||
	       (strchr(arg, '/') && !strpbrk(arg, " {}<>:;"));
}

static int parse_dump(const char *s, enum dump_kind *out)
{
	for (int k = DUMP_TOKENS; k <= DUMP_PLAN; k++)
		if (!strcmp(s, dump_names[k])) {
			*out = (enum dump_kind)k;
			return 0;
		}
	fprintf(stderr, "sprof: unknown stage '%s' for -d (tokens, ast, types, ir, ir-raw, bpf, "
		"verifier, plan)\n", s);
	return -EINVAL;
}

/* -d bpf|verifier|plan: the stages after codegen */
static int dump_object(const struct cli *c, const struct sp_source *src,
		       const struct sp_plan *plan, const void *obj, size_t len)
{
	switch (c->dump) {
	case DUMP_BPF:
		return sp_bpf_disasm(stdout, obj, len, src->name, src->text) ? 1 : 0;
	case DUMP_VERIFIER:
		return sp_verifier_dump(plan, obj, len, src->text, &c->run, stdout) ? 1 : 0;
	case DUMP_PLAN:
		sp_plan_dump(stdout, plan);
		return 0;
	default:
		return 0;
	}
}

static int add_script_kv(struct cli *c, int argc, const char *kv)
{
	if (!c->script_kv)
		c->script_kv = calloc((size_t)argc, sizeof(*c->script_kv));
	if (!c->script_kv)
		return -ENOMEM;
	c->script_kv[c->nscript_kv++] = kv;
	return 0;
}

/* --list-scripts: each stdlib script, its purpose line and parameters */
static int list_scripts(FILE *f)
{
	struct sp_arena *a = sp_arena_new();
	char err[256];

	for (int i = 0; sp_stdlib[i].name; i++) {
		struct sp_script_info si;
		const char *n = sp_stdlib[i].name;

		if (sp_script_info_parse(a, sp_stdlib[i].text, &si, err, sizeof(err)))
			fprintf(stderr, "sprof: %s: %s\n", n, err);
		fprintf(f, "%-12.*s %s\n", (int)(strlen(n) - 3), n, si.purpose ? si.purpose : "");
		sp_script_params_print(f, &si, "             --param ");
	}
	sp_arena_destroy(a);
	return 0;
}

/* The script's declared parameters with the --param values bound; prints
 * the error and the valid parameters when one is wrong. */
static int script_params(const struct cli *c, const struct sp_source *src, struct sp_arena *a,
			 struct sp_script_info *si)
{
	char err[512];
	int i = 0;

	if (sp_script_info_parse(a, src->text, si, err, sizeof(err)))
		goto fail;
	for (; i < c->nscript_kv; i++)
		if (sp_script_param_set(si, c->script_kv[i], err, sizeof(err)))
			goto fail;
	if (sp_script_params_check(si, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "sprof: %s: %s\n", src->name, err);
	if (si->nparams) {
		fprintf(stderr, "parameters of %s:\n", src->name);
		sp_script_params_print(stderr, si, "  --param ");
	}
	return -EINVAL;
}

/* --interp memory|usdt|off (abi/interp_usdt.h) */
static int parse_interp(const char *s, int *mode)
{
	static const char *const names[] = { [SP_INTERP_MEMORY] = "memory",
					     [SP_INTERP_USDT] = "usdt", [SP_INTERP_OFF] = "off" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(s, names[i])) {
			*mode = i;
			return 0;
		}
	fprintf(stderr, "sprof: invalid --interp '%s': expected memory, usdt or off\n", s);
	return -EINVAL;
}

/* A count from the environment into *out; -EINVAL after a message. */
static int env_u32(const char *name, uint32_t *out)
{
	const char *v = getenv(name);

	if (v && parse_u32(v, out)) {
		fprintf(stderr, "sprof: invalid %s '%s': expected a positive number\n", name, v);
		return -EINVAL;
	}
	return 0;
}

/* The attach point limit: SPROF_MAX_PROBES, else the larger of bpftrace's
 * BPFTRACE_MAX_PROBES and BPFTRACE_MAX_BPF_PROGS. bpftrace counts a
 * wildcard whose body uses `probe` against the second (one program per
 * match there); sprof makes one program for the whole match, so either
 * variable raising the limit raises it. */
static int read_max_probes(struct cli *c)
{
	uint32_t probes = 0, progs = 0;

	if (env_u32("SPROF_MAX_PROBES", &c->run.max_probes) ||
	    env_u32("BPFTRACE_MAX_PROBES", &probes) || env_u32("BPFTRACE_MAX_BPF_PROGS", &progs))
		return -EINVAL;
	if (!c->run.max_probes)
		c->run.max_probes = probes > progs ? probes : progs;
	return 0;
}

/* SPROF_* settings, and bpftrace's BPFTRACE_* ones where sprof has the
 * same knob (an SPROF_ variable wins over its BPFTRACE_ twin).
 * BPFTRACE_MAP_KEYS_MAX caps a map at N keys as in bpftrace: both the BPF
 * map and the user-space table. */
static int read_env(struct cli *c)
{
	const char *envd = getenv("SPROF_NO_DRAIN");
	/* bpftrace 0.17's names, 0.27's (BPFTRACE_MAX_*), then sprof's: the last set wins */
	const char *names[] = { "BPFTRACE_STRLEN", "BPFTRACE_MAX_STRLEN", "SPROF_STRLEN" };
	uint32_t keys = 0;

	c->run.max_keys = DEFAULT_MAX_KEYS;
	c->run.map_size = DEFAULT_MAP_SIZE;
	c->run.status_line = true;
	c->run.no_drain = envd && strcmp(envd, "1") == 0;
	if (env_u32("BPFTRACE_MAP_KEYS_MAX", &keys) || env_u32("BPFTRACE_MAX_MAP_KEYS", &keys) ||
	    env_u32("SPROF_MAX_MAP_KEYS", &c->run.max_keys) ||
	    env_u32("SPROF_MAP_SIZE", &c->run.map_size) ||
	    env_u32("BPFTRACE_CAT_BYTES_MAX", &c->run.cat_bytes_max) ||
	    env_u32("BPFTRACE_MAX_CAT_BYTES", &c->run.cat_bytes_max) ||
	    env_u32("BPFTRACE_LOG_SIZE", &c->run.log_size) || read_max_probes(c))
		return -EINVAL;
	if (keys && !getenv("SPROF_MAX_MAP_KEYS"))
		c->run.max_keys = keys;
	if (keys && !getenv("SPROF_MAP_SIZE"))
		c->run.map_size = keys;
	for (int k = 0; k < 3; k++) {
		const char *v = getenv(names[k]);
		uint32_t big;

		/* 0.27 allows longer strings than sprof's 1024 bytes: those get 1024 */
		if (k == 1 && v && !parse_u32(v, &big) && big > 1024) {
			fprintf(stderr, "sprof: warning: %s '%s': sprof strings hold at most 1024 "
				"bytes; using 1024\n", names[k], v);
			c->strlen_ = 1024;
			continue;
		}
		if (v && parse_strlen(v, &c->strlen_)) {
			fprintf(stderr, "sprof: invalid %s '%s': expected 1 to 1024\n", names[k], v);
			return -EINVAL;
		}
	}
	envd = getenv("SPROF_BPF_COMPAT");
	c->bpf_compat = envd && *envd ? strcmp(envd, "0") != 0 : -1;
	if (env_u32("SPROF_UNWIND_ROWS", &c->run.unwind_rows) ||
	    env_u32("SPROF_TEST_STACK_HASH_BITS", &c->run.test_hash_bits))
		return -EINVAL;
	envd = getenv("SPROF_NO_DWARF");
	c->run.no_dwarf = envd && *envd && strcmp(envd, "0");
	envd = getenv("SPROF_CACHE_DIR");
	c->cache_dir = envd && *envd ? envd : NULL;
	c->xdg_cache_home = getenv("XDG_CACHE_HOME");
	c->home = getenv("HOME");
	envd = getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED");
	c->run.notify_attached = envd && *envd && strcmp(envd, "0");
	return 0;
}

/* bpftrace's options that need no argument of their own: true when opt
 * was one. */
static bool compat_option(struct cli *c, int opt)
{
	switch (opt) {
	case 'q':
		c->run.quiet = true;
		return true;
	case 'k': /* -k, -kk */
		c->run.helper_checks++;
		return true;
	case OPT_INFO:
		c->info = true;
		return true;
	case OPT_USDT_FILE_ACTIVATION: /* what sprof always does (runtime/attach/usdt.c) */
		return true;
	default:
		return false;
	}
}

/* -p PID: a decimal number within the kernel's PID_MAX_LIMIT (messages as
 * bpftrace words them). */
static int parse_pid(const char *arg, pid_t *pid)
{
	const long limit = 4194304; /* PID_MAX_LIMIT on 64-bit */
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!*arg || *end || isspace((unsigned char)*arg)) {
		fprintf(stderr, "sprof: pid '%s' is not a valid decimal number\n", arg);
		return -EINVAL;
	}
	if (errno || v < 1 || v > limit) {
		fprintf(stderr, "sprof: pid '%s' out of valid pid range [1,%ld]\n", arg, limit);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

/* An option whose value is checked: 0, -EINVAL after a message, or 1
 * when opt is none of these. */
static int checked_option(struct cli *c, int opt, const char *arg)
{
	uint64_t ns;

	switch (opt) {
	case 'p':
		return parse_pid(arg, &c->run.pid) ? -EINVAL : 0;
	case 'f':
		if (sp_format_parse(arg) < 0) {
			fprintf(stderr, "sprof: invalid output format '%s' (text, json, folded, svg, pprof, speedscope, residency)\n",
				arg);
			return -EINVAL;
		}
		c->run.format = arg;
		return 0;
	case 'd':
		return parse_dump(arg, &c->dump) ? -EINVAL : 0;
	case OPT_MAX_KEYS:
	case OPT_MAP_SIZE:
		if (parse_u32(arg, opt == OPT_MAX_KEYS ? &c->run.max_keys : &c->run.map_size)) {
			fprintf(stderr, "sprof: invalid %s '%s': expected a positive number\n",
				opt == OPT_MAX_KEYS ? "--max-keys" : "--map-size", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_INTERP:
		return parse_interp(arg, &c->run.interp) ? -EINVAL : 0;
	case OPT_DURATION:
		if (parse_duration(arg, &c->run.duration_ns)) {
			fprintf(stderr, "sprof: invalid --duration '%s' (e.g. 10s, 500ms, 2m)\n", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_CONTINUOUS:
		if (parse_duration(arg, &c->run.continuous_ns) || c->run.continuous_ns < 100000000ull) {
			fprintf(stderr, "sprof: invalid --continuous '%s' (a period of at least "
				"100ms: 10s, 500ms, 1m)\n", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_STRLEN:
		if (parse_strlen(arg, &c->strlen_)) {
			fprintf(stderr, "sprof: invalid --strlen '%s': expected 1 to 1024\n", arg);
			return -EINVAL;
		}
		return 0;
	case OPT_RETENTION:
		if (parse_duration(arg, &ns) || ns < 1000000000ull) {
			fprintf(stderr, "sprof: invalid --retention '%s' (e.g. 7d, 12h)\n", arg);
			return -EINVAL;
		}
		c->run.retention_s = ns / 1000000000ull;
		return 0;
	case OPT_SPOOL_SIZE: {
		char *end;
		unsigned long long mb = strtoull(arg, &end, 10);

		if (end == arg || *end || mb < 1 || mb > 1024 * 1024) {
			fprintf(stderr, "sprof: invalid --spool-size '%s' (MiB, 1 to 1048576)\n", arg);
			return -EINVAL;
		}
		c->run.spool_bytes = (size_t)mb << 20;
		return 0;
	}
	case OPT_SPOOL_AGE:
		if (parse_duration(arg, &ns) || ns < 1000000000ull) {
			fprintf(stderr, "sprof: invalid --spool-age '%s' (at least 1s: 1d, 12h, 30m)\n", arg);
			return -EINVAL;
		}
		c->run.spool_age_s = ns / 1000000000ull;
		return 0;
	}
	return 1;
}

/* -I DIR and --include FILE: up to 16 of each. */
static int add_include(struct cli *c, int opt, const char *arg)
{
	const char **v = opt == 'I' ? c->incdirs : c->includes;
	int *n = opt == 'I' ? &c->nincdirs : &c->nincludes;

	if (*n >= 16) {
		fprintf(stderr, "sprof: too many %s options (at most 16)\n", opt == 'I' ? "-I" : "--include");
		return -EINVAL;
	}
	v[(*n)++] = arg;
	return 0;
}

/* The one table of option rules. An option marked once takes one value: a
 * second is an error, never a silent replacement of the first (two -e ran
 * the last program only, two --duration the last one). An option with
 * `not` cannot be given with those (checked once all are read, whatever
 * their order), `why` saying what makes them clash. */
static const struct opt_rule {
	int opt;
	const char *name;
	bool once;
	int not[4];
	const char *why;
} opt_rules[] = {
	{ 'e', "-e", true, { 0 }, NULL },
	{ 'c', "-c", true, { 0 }, NULL },
	{ 'o', "-o", true, { 0 }, NULL },
	{ 'p', "-p", true, { 'c' }, "the run is of the given process or of the command" },
	{ 'f', "-f", true, { 0 }, NULL },
	{ 'd', "-d", true, { 0 }, NULL },
	{ 'l', "-l", false, { 'd' }, "it lists probes and exits" },
	{ OPT_LIST_SCRIPTS, "--list-scripts", false, { 'e', 'd', 'l' }, "it lists scripts and exits" },
	{ OPT_DURATION, "--duration", true, { 0 }, NULL },
	{ OPT_CONTINUOUS, "--continuous", true, { 'l', 'd', OPT_LIST_SCRIPTS }, "it lists or prints and exits" },
	{ OPT_MAP, "--map", true, { 0 }, NULL },
	{ OPT_TITLE, "--title", true, { 0 }, NULL },
	{ OPT_MAX_KEYS, "--max-keys", true, { 0 }, NULL },
	{ OPT_MAP_SIZE, "--map-size", true, { 0 }, NULL },
	{ OPT_STRLEN, "--strlen", true, { 0 }, NULL },
	{ OPT_INTERP, "--interp", true, { 0 }, NULL },
	{ OPT_EMIT_ELF, "--emit-elf", true, { 0 }, NULL },
	{ OPT_EXPORT, "--export", true, { 'd', 'l' }, "it lists or prints and exits" },
	{ OPT_HOST_NAME, "--host-name", true, { 0 }, NULL },
	{ OPT_PASSWORD_FILE, "--password-file", true, { 0 }, NULL },
	{ OPT_RETENTION, "--retention", true, { 0 }, NULL },
	{ OPT_SPOOL, "--spool", true, { 0 }, NULL },
	{ OPT_SPOOL_SIZE, "--spool-size", true, { 0 }, NULL },
	{ OPT_SPOOL_AGE, "--spool-age", true, { 0 }, NULL },
};
#define NRULES (sizeof(opt_rules) / sizeof(opt_rules[0]))

static const struct opt_rule *opt_rule(int opt)
{
	for (unsigned i = 0; i < NRULES; i++)
		if (opt_rules[i].opt == opt)
			return &opt_rules[i];
	return NULL;
}

static int given_twice(struct cli *c, int opt)
{
	const struct opt_rule *r = opt_rule(opt);
	uint32_t bit = r ? 1u << (r - opt_rules) : 0;

	if (r && r->once && (c->given & bit)) {
		fprintf(stderr, "sprof: %s given twice\n", r->name);
		return -EINVAL;
	}
	c->given |= bit;
	return 0;
}

/* The first clash of options given together, by the table. */
static int options_clash(const struct cli *c)
{
	for (unsigned i = 0; i < NRULES; i++) {
		if (!(c->given & (1u << i)))
			continue;
		for (unsigned k = 0; k < 4 && opt_rules[i].not[k]; k++) {
			const struct opt_rule *o = opt_rule(opt_rules[i].not[k]);

			if (o && (c->given & (1u << (o - opt_rules)))) {
				fprintf(stderr, "sprof: %s cannot be used with %s: %s\n", opt_rules[i].name, o->name,
					opt_rules[i].why);
				return -EINVAL;
			}
		}
	}
	return 0;
}

_Static_assert(sizeof(opt_rules) / sizeof(opt_rules[0]) <= 32, "cli.given has 32 bits");

/* A flag, or a value kept as given: 0, -EINVAL after a message. */
static int plain_option(struct cli *c, int opt, const char *arg, int argc)
{
	switch (opt) {
	case 'e': c->prog_text = arg; break;
	case 'c': c->run.cmd = arg; break;
	case 'o': c->run.output = arg; break;
	case 'l': c->list = true; break;
	case 'v': c->run.verbose++; break;
	case 'I':
	case OPT_INCLUDE: return add_include(c, opt, arg);
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("sprof %s (git %s)\n", SPROF_VERSION, SPROF_GIT_REV);
		exit(0);
	case OPT_MAP: c->run.map_filter = arg; break;
	case OPT_TITLE: c->run.title = arg; break;
	case OPT_UNSAFE: c->unsafe = c->run.unsafe = true; break;
	case OPT_EMIT_ELF: c->emit_elf = arg; break;
	case OPT_NO_STATUS: c->run.status_line = false; break;
	case OPT_NO_INLINE: c->run.no_inline = true; break;
	case OPT_NO_FOLLOW: c->run.no_follow = true; break;
	case OPT_NO_CACHE: c->no_cache = true; break;
	case OPT_NO_WARNINGS: c->no_warnings = true; break;
	case OPT_STATS: c->run.stats = true; break;
	case OPT_DRY_RUN: c->run.dry_run = true; break;
	case OPT_PROBE_FILTER: c->probe_filter = arg; break;
	case OPT_EXPORT: c->run.export_url = arg; break;
	case OPT_HOST_NAME: c->run.host_name = arg; break;
	case OPT_SPOOL: c->run.spool_dir = arg; break;
	case OPT_PASSWORD_FILE: return password_file(arg);
	case OPT_PARAM: return add_script_kv(c, argc, arg) ? -ENOMEM : 0;
	case OPT_LIST_SCRIPTS: c->list_scripts = true; break;
	default:
		if (compat_option(c, opt))
			break;
		usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* bpftrace 0.27: words "--name[=value]" among the parameters are named
 * ones, read by getopt(); the others stay $1..$N in their order. */
static int split_named(struct cli *c)
{
	int np = 0;
	const int max = (int)(sizeof(c->named) / sizeof(c->named[0]));

	for (int i = 0; i < c->nparams; i++) {
		if (!strcmp(c->params[i], "--")) /* "p1 -- 20": $1 p1, $2 20 */
			continue;
		if (!strncmp(c->params[i], "--", 2) && c->params[i][2] != '=') {
			if (c->nnamed == max) {
				fprintf(stderr, "sprof: too many named parameters (at most %d)\n", max);
				return -EINVAL;
			}
			c->named[c->nnamed++] = c->params[i];
		} else {
			c->params[np++] = c->params[i];
		}
	}
	c->nparams = np;
	return 0;
}

/* After the options: -l's pattern, or the program (text, a file, "-" for
 * stdin, a stdlib script's name), then its positional parameters. */
static int positional(struct cli *c, int argc, char **argv, int i)
{
	const char *arg;

	if (c->list_scripts || c->info)
		return 0;
	if (c->list) {
		if (i < argc)
			c->list_pattern = argv[i++];
		return 0;
	}
	if (!c->prog_text) {
		if (i >= argc) {
			fprintf(stderr, "sprof: no program given (try 'sprof -h')\n");
			return -EINVAL;
		}
		arg = argv[i++];
		if (!strcmp(arg, "-") || looks_like_file(arg)) /* "-": the script on stdin */
			c->prog_file = arg;
		else if (stdlib_exists(arg))
			c->stdlib_name = arg;
		else
			c->prog_text = arg;
	}
	c->params = argv + i;
	c->nparams = argc - i;
	return split_named(c);
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"max-keys", required_argument, NULL, OPT_MAX_KEYS},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"map", required_argument, NULL, OPT_MAP},
		{"title", required_argument, NULL, OPT_TITLE},
		{"unsafe", no_argument, NULL, OPT_UNSAFE},
		{"emit-elf", required_argument, NULL, OPT_EMIT_ELF},
		{"no-status", no_argument, NULL, OPT_NO_STATUS},
		{"strlen", required_argument, NULL, OPT_STRLEN},
		{"export", required_argument, NULL, OPT_EXPORT},
		{"host-name", required_argument, NULL, OPT_HOST_NAME},
		{"password-file", required_argument, NULL, OPT_PASSWORD_FILE},
		{"retention", required_argument, NULL, OPT_RETENTION},
		{"spool", required_argument, NULL, OPT_SPOOL},
		{"spool-size", required_argument, NULL, OPT_SPOOL_SIZE},
		{"spool-age", required_argument, NULL, OPT_SPOOL_AGE},
		{"param", required_argument, NULL, OPT_PARAM},
		{"list-scripts", no_argument, NULL, OPT_LIST_SCRIPTS},
		{"include", required_argument, NULL, OPT_INCLUDE},
		{"map-size", required_argument, NULL, OPT_MAP_SIZE},
		{"continuous", required_argument, NULL, OPT_CONTINUOUS},
		{"interp", required_argument, NULL, OPT_INTERP},
		{"info", no_argument, NULL, OPT_INFO},
		{"usdt-file-activation", no_argument, NULL, OPT_USDT_FILE_ACTIVATION},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"no-follow", no_argument, NULL, OPT_NO_FOLLOW},
		{"no-cache", no_argument, NULL, OPT_NO_CACHE},
		{"no-warnings", no_argument, NULL, OPT_NO_WARNINGS},
		{"stats", no_argument, NULL, OPT_STATS},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"probe-filter", required_argument, NULL, OPT_PROBE_FILTER},
		{NULL, 0, NULL, 0},
	};
	int opt, err;

	if (read_env(c))
		return -EINVAL;
	while ((opt = getopt_long(argc, argv, "e:p:c:o:f:d:I:lvqkhV", longopts, NULL)) != -1) {
		err = given_twice(c, opt);
		if (!err)
			err = checked_option(c, opt, optarg);
		if (err == 1)
			err = plain_option(c, opt, optarg, argc);
		if (err)
			return err;
	}
	if (options_clash(c))
		return -EINVAL;
	if ((c->run.spool_bytes || c->run.spool_age_s) && !c->run.spool_dir) {
		fprintf(stderr, "sprof: --spool-size and --spool-age bound a spool: give --spool DIR\n");
		return -EINVAL;
	}
	return positional(c, argc, argv, optind);
}

/* `sprof -`: the program read from stdin, named "stdin" in diagnostics. */
static struct sp_source *stdin_source(void)
{
	struct sp_source *src = sp_source_from_file("/dev/stdin");
	char *name = src ? strdup("stdin") : NULL;

	if (!src || !name) {
		fprintf(stderr, "sprof: cannot read the program from stdin: %s\n", strerror(errno));
		sp_source_free(src);
		return NULL;
	}
	free((char *)src->name);
	src->name = name;
	return src;
}

static struct sp_source *load_source(const struct cli *c)
{
	struct sp_source *src;
	if (c->prog_file && !strcmp(c->prog_file, "-"))
		return stdin_source();
	if (c->prog_file) {
		src = sp_source_from_file(c->prog_file);
		if (!src && errno == ENOENT && stdlib_exists(c->prog_file))
			return stdlib_source(c->prog_file);
		if (!src)
			fprintf(stderr, "sprof: failed to open file '%s': %s\n", c->prog_file,
				strerror(errno));
		return src;
	}
	if (c->stdlib_name)
		return stdlib_source(c->stdlib_name);
	src = sp_source_from_string("<cmdline>", c->prog_text);
	if (!src)
		fprintf(stderr, "sprof: %s\n", strerror(errno));
	return src;
}

/* sema's view of a tracepoint's record: the runtime's tracefs fields, copied
 * into the arena so they live as long as the tree. For a wildcard, the
 * fields every match has in the same place (they share one program). */
static int tp_fields(void *ctx, const char *cat, const char *event, const struct sp_tp_field **out,
		     int *n)
{
	struct sp_arena *arena = ctx;
	struct sp_tracefs_field *f = NULL;
	int nf = 0, err;

	if (!cat)
		return -ENOENT; /* raw tracepoints: typed through arg0..N */
	if (strchr(cat, '*') || strchr(event, '*')) {
		err = sp_tracepoint_fields_common(cat, event, &f, &nf);
	} else {
		err = sp_tracepoint_fields(cat, event, &f, &nf);
	}
	if (err)
		return err;
	struct sp_tp_field *o = sp_arena_alloc(arena, sizeof(*o) * (nf ? nf : 1));
	for (int i = 0; i < nf; i++) {
		o[i] = (struct sp_tp_field){
			.name = sp_arena_strdup(arena, f[i].name),
			.type = f[i].type ? sp_arena_strdup(arena, f[i].type) : NULL,
			.offset = f[i].offset,
			.size = f[i].size,
			.is_signed = f[i].is_signed,
			.is_pointer = f[i].is_pointer,
			.is_string = f[i].is_string,
			.is_data_loc = f[i].is_data_loc,
			.is_common = f[i].is_common,
			.array_len = f[i].array_len,
		};
	}
	sp_tracefs_fields_free(f, nf);
	*out = o;
	*n = nf;
	return 0;
}

/* sema's list of the tracepoints a wildcard matches, copied into the arena. */
static int tp_list(void *ctx, const char *cat, const char *event, const char ***out, int *n)
{
	struct sp_arena *arena = ctx;
	char **names;
	int nn, err = sp_tracepoints_list(cat, event, &names, &nn);
	const char **o;

	if (err)
		return err;
	o = sp_arena_alloc(arena, sizeof(*o) * (size_t)(nn ? nn : 1));
	for (int i = 0; i < nn; i++)
		o[i] = sp_arena_strdup(arena, names[i]);
	sp_strv_free(names, nn);
	*out = o;
	*n = nn;
	return 0;
}

static void runtime_diag(void *ctx, uint32_t line, uint32_t col, const char *msg)
{
	struct sp_diag *d = ctx;
	if (line)
		sp_diag_at_linecol(d, SP_DIAG_ERROR, line, col ? col : 1, "%s", msg);
	else {
		fprintf(d->out, "%s: error: %s\n", d->src->name, msg);
		d->errors++;
	}
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "sprof: cannot write '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -errno;
	}
	return 0;
}

/* Front end and codegen; returns 0 with plan and obj set, 1 on errors. */
/* The user stacks of a kernel without bpf_loop, said once. */
static void note_compat_stacks(const struct cli *c)
{
	struct utsname u;

	if (c->bpf_compat == 1) {
		fprintf(stderr, "sprof: note: SPROF_BPF_COMPAT=1: DWARF user stacks only in registered "
			"processes\n");
		return;
	}
	if (uname(&u))
		strcpy(u.release, "?");
	fprintf(stderr, "sprof: note: this kernel (%s) has no bpf_loop and bpf_find_vma (Linux 5.17): "
		"user stacks are DWARF-unwound once sprof has registered the process (a sample "
		"before that is walked by frame pointers)\n", u.release);
}

/* The object cache (runtime/objcache.h) for codegen: SPROF_CACHE_DIR or the
 * default directory; none with --no-cache, or when it cannot be used (-v says why). */
static struct sp_objcache *open_cache(const struct cli *c)
{
	char buf[PATH_MAX];
	const char *dir = c->cache_dir;
	struct sp_objcache *oc;

	if (c->no_cache)
		return NULL;
	if (!dir)
		dir = sp_objcache_default_dir(buf, sizeof(buf), c->xdg_cache_home, c->home);
	if (!dir)
		return NULL;
	oc = sp_objcache_open(dir, 64ull << 20);
	if (!oc && c->run.verbose)
		fprintf(stderr, "sprof: object cache '%s' not used: %s\n", dir,
			errno == EPERM ? "not owned by this user or writable by others"
				       : strerror(errno));
	return oc;
}

static int cache_get(void *ctx, const char *key, const char *ext, void **obj, size_t *len)
{
	return sp_objcache_get(ctx, key, ext, obj, len);
}

static void cache_put(void *ctx, const char *key, const char *ext, const void *obj, size_t len)
{
	sp_objcache_put(ctx, key, ext, obj, len);
}

/* uaddr()/kaddr() for codegen, through the runtime's symbol readers. */
static int sym_addr(void *ctx, const char *binary, const char *name, uint64_t *addr)
{
	(void)ctx;
	return binary ? sp_elf_symbol_vaddr(binary, name, addr) : sp_kallsyms_addr_of(NULL, name, addr);
}

/* A named parameter no getopt() reads: an error, as in bpftrace. */
static bool named_unused(const struct cli *c, const bool *used)
{
	bool bad = false;

	for (int i = 0; used && i < c->nnamed; i++) {
		if (used[i])
			continue;
		fprintf(stderr, "%s%s", bad ? " " : "sprof: unexpected program command line "
			"options: ", c->named[i]);
		bad = true;
	}
	if (bad)
		fprintf(stderr, "\n");
	return bad;
}

/* The script's config = { ... } block, where the environment and the
 * command line left a knob at its default (bpftrace: the environment wins). */
static void apply_config(struct cli *c, const struct sp_script_config *cfg)
{
	if (cfg->max_strlen && !c->strlen_)
		c->strlen_ = (int)cfg->max_strlen;
	if (cfg->max_map_keys && c->run.max_keys == DEFAULT_MAX_KEYS &&
	    c->run.map_size == DEFAULT_MAP_SIZE)
		c->run.max_keys = c->run.map_size = cfg->max_map_keys;
	if (cfg->max_cat_bytes && !c->run.cat_bytes_max)
		c->run.cat_bytes_max = cfg->max_cat_bytes;
	c->run.no_exit_maps = cfg->no_exit_maps;
	if (cfg->log_size && !c->run.log_size)
		c->run.log_size = cfg->log_size;
	if (cfg->max_probes && !c->run.max_probes)
		c->run.max_probes = cfg->max_probes;
}

/* Whether attach points of a block must each get a program when the block
 * reads probe/func: the kernel's answer, or SPROF_NO_COOKIES=1 (tests of
 * the fallback on a kernel that has them). */
static bool no_cookies(void)
{
	const char *e = getenv("SPROF_NO_COOKIES");

	if (e && *e)
		return strcmp(e, "0") != 0;
	return !sp_info_has_attach_cookie();
}

/* --probe-filter REGEX (bpftrace 0.27): the attach points that do not
 * match leave the plan, so they are neither loaded nor attached; BEGIN and
 * END stay. None left that matches is an error. 0 or 1 after a message. */
static int filter_probes(const char *re, struct sp_plan *plan)
{
	regex_t rx;
	int err = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), kept = 0;

	if (err) {
		char msg[256];

		regerror(err, &rx, msg, sizeof(msg));
		fprintf(stderr, "sprof: --probe-filter: invalid regular expression '%s': %s\n", re,
			msg);
		return 1;
	}
	for (int i = plan->nprobes - 1; i >= 0; i--) {
		const struct sp_plan_probe *p = &plan->probes[i];

		if (p->type == SP_PROBE_BEGIN || p->type == SP_PROBE_END)
			continue;
		if (regexec(&rx, p->spec, 0, NULL, 0) == 0)
			kept++;
		else
			sp_plan_drop_probe(plan, i);
	}
	regfree(&rx);
	if (kept)
		return 0;
	fprintf(stderr, "sprof: --probe-filter '%s' matches no probe of the program\n", re);
	return 1;
}

/* sprof's pid namespace when it is not the initial one (the kernel's
 * PROC_PID_INIT_INO): pid and tid are then numbers in it, as bpftrace 0.27
 * has them (pid(init) the global ones). 0 in the initial namespace. */
static void own_pidns(struct sp_codegen_opts *co)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == 0xeffffffcu)
		return;
	co->pidns_dev = (uint64_t)st.st_dev;
	co->pidns_ino = (uint64_t)st.st_ino;
}

static int compile(struct cli *c, struct sp_source *src, struct sp_diag *d, struct sp_arena *arena,
		   struct sp_plan **plan, void **obj, size_t *objlen)
{
	struct sp_script_config cfg;
	struct sp_node *prog = NULL;
	struct sp_script_info si;
	int err;
	struct sp_sema_opts so = {
		.strlen = c->strlen_ ? c->strlen_ : SP_DEFAULT_STRLEN,
		.nparams = c->nparams,
		.params = c->params,
		.unsafe = c->unsafe,
		.tp_fields = tp_fields,
		.tp_list = tp_list,
		.tp_ctx = arena,
		.sym_size = sp_elf_symbol_size,
	};
	char dir[PATH_MAX];
	struct sp_parse_opts po = {
		.incdirs = c->incdirs, .nincdirs = c->nincdirs,
		.includes = c->includes, .nincludes = c->nincludes,
	};

	if (script_params(c, src, arena, &si))
		return 1;
	if (c->dump == DUMP_TOKENS)
		return sp_tokens_dump(stdout, arena, src, d) || sp_diag_errors(d) ? 1 : 0;
	if (c->prog_file && strchr(c->prog_file, '/')) { /* #include "x": next to the script */
		snprintf(dir, sizeof(dir), "%s", c->prog_file);
		*strrchr(dir, '/') = '\0';
		po.script_dir = dir[0] ? dir : "/";
	} else if (c->prog_file) {
		po.script_dir = ".";
	}
	sp_parse_ex(arena, src, d, &po, &prog);
	if (sp_diag_errors(d) || !prog)
		return 1;
	if (sp_script_params_bind(arena, prog, &si, d))
		return 1;
	if (sp_config_read(prog, d, &cfg))
		return 1;
	apply_config(c, &cfg);
	so.strlen = c->strlen_ ? c->strlen_ : SP_DEFAULT_STRLEN;
	so.named = c->named;
	so.nnamed = c->nnamed;
	so.named_used = calloc((size_t)c->nnamed + 1, sizeof(bool));
	sp_sema(arena, prog, &so, d);
	sp_timing_lap("parse, sema");
	if (!sp_diag_errors(d) && named_unused(c, so.named_used)) {
		free(so.named_used);
		return 1;
	}
	free(so.named_used);
	if (sp_diag_errors(d))
		return 1;
	if (c->dump == DUMP_AST || c->dump == DUMP_TYPES) {
		if (c->dump == DUMP_AST)
			sp_ast_dump(stdout, prog, true);
		else
			sp_types_dump(stdout, prog);
		return 0;
	}
	struct sp_codegen_opts co = {
		.sym_addr = sym_addr,
		.max_keys = c->run.map_size < c->run.max_keys ? c->run.map_size : c->run.max_keys,
		.dump_ir = c->dump == DUMP_IR ? stdout : NULL,
		.dump_ir_raw = c->dump == DUMP_IR_RAW ? stdout : NULL,
		.interp = c->run.interp,
		.follow = (c->run.cmd || c->run.pid) && !c->run.no_follow,
		.helper_checks = c->run.helper_checks,
		.compat = c->bpf_compat >= 0 ? c->bpf_compat : !sp_info_has_bpf_loop(),
		.no_cookies = no_cookies(),
	};
	struct sp_objcache *oc = open_cache(c);
	struct sp_codegen_cache cc = { cache_get, cache_put, oc, SPROF_VERSION " " SPROF_GIT_REV,
				       false, "" };
	bool hit = false, script_hit = false;
	char host[1024];

	struct sp_codegen_times ct;

	own_pidns(&co);
	/* C headers (#include, --include) shape types the AST dump does not spell out */
	cc.script = c->dump == DUMP_NONE && !c->nincludes && !strstr(src->text, "#include");
	cc.host = oc && cc.script ? sp_objcache_host(host, sizeof(host)) : "";
	co.cache = oc ? &cc : NULL;
	co.cache_hit = &hit;
	co.script_hit = &script_hit;
	co.times = sp_timings_on() ? &ct : NULL;
	err = sp_codegen(prog, src, &co, d, plan, obj, objlen);
	sp_objcache_close(oc);
	sp_timing_lap(hit ? "codegen (object cache hit)" : "codegen (compiled)");
	if (co.times && script_hit)
		sp_timing_note("codegen: plan and object by the script's key, no LLVM work: "
			       "%.2f ms", ct.build);
	else if (co.times)
		sp_timing_note("codegen: %.2f ms LLVM and helpers, %.2f ms IR%s, %.2f ms optimize, "
			       "%.2f ms emit", ct.init, ct.build, hit ? " and cache key" : "", ct.opt,
			       ct.emit);
	if (err || sp_diag_errors(d))
		return 1;
	if (hit && c->run.verbose)
		fprintf(stderr, "sprof: BPF object from the cache, not compiled%s (--no-cache "
			"compiles)\n", script_hit ? ", plan by the script's key" : "");
	if (co.compat && (*plan)->uses_ustack && c->dump == DUMP_NONE)
		note_compat_stacks(c);
	if ((*plan)->cookie_fallbacks && c->run.verbose)
		fprintf(stderr, "sprof: this kernel has no BPF cookies (bpf_get_attach_cookie, Linux "
			"5.15): %d probe block%s reading probe/func compiled once per attach point\n",
			(*plan)->cookie_fallbacks, (*plan)->cookie_fallbacks > 1 ? "s" : "");
	if (c->emit_elf && write_file(c->emit_elf, *obj, *objlen))
		return 1;
	return 0;
}

/* -l: the listing, with -v each uprobe's and raw tracepoint's arguments
 * (the front end's DWARF/BTF reader, handed to the runtime as a hook). */
static int list_probes(const struct cli *c)
{
	struct sp_arglister *al = sp_arglister_new();
	int err = sp_list_probes_ex(c->list_pattern, c->run.pid, c->run.verbose > 0,
				    al ? sp_list_args : NULL, al, stdout);

	sp_arglister_free(al);
	return err ? 1 : 0;
}

static void diff_usage(FILE *f)
{
	fprintf(f, "usage: sprof diff [-o FILE] [-f text|svg] [--title TEXT] [--top N] BASE NEW\n"
		   "  BASE, NEW: pprof (.pb.gz) or folded files\n"
		   "  -o FILE     write to FILE (svg when it ends in .svg)\n"
		   "  -f FORMAT   text (the functions whose share changed most) or svg (differential\n"
		   "              flame graph: red grew, blue shrank)\n"
		   "  --top N     text: the N functions whose share changed most\n"
		   "  --title T   svg: the title\n");
}

/* sprof diff BASE NEW: runtime/report/diff.c does the work. */
static int diff_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"title", required_argument, NULL, OPT_TITLE},
		{"top", required_argument, NULL, OPT_TOP},
		{NULL, 0, NULL, 0},
	};
	struct sp_diff_opts o = { .format = SP_FMT_TEXT };
	const char *fmt = NULL;
	uint32_t top;
	int opt;

	while ((opt = getopt_long(argc, argv, "o:f:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o.output = optarg;
			break;
		case 'f':
			fmt = optarg;
			break;
		case OPT_TITLE:
			o.title = optarg;
			break;
		case OPT_TOP:
			if (parse_u32(optarg, &top)) {
				fprintf(stderr, "sprof: invalid --top '%s': expected a positive number\n", optarg);
				return 1;
			}
			o.top = (int)(top > 1000000 ? 1000000 : top);
			break;
		case 'h':
			diff_usage(stdout);
			return 0;
		default:
			diff_usage(stderr);
			return 1;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "sprof diff: expected two profiles, BASE and NEW\n");
		diff_usage(stderr);
		return 1;
	}
	if (fmt && strcmp(fmt, "text") && strcmp(fmt, "svg") && strcmp(fmt, "flamegraph")) {
		fprintf(stderr, "sprof diff: unknown format '%s' (text, svg)\n", fmt);
		return 1;
	}
	if (fmt ? strcmp(fmt, "text") != 0 : o.output && sp_format_from_path(o.output) == SP_FMT_SVG)
		o.format = SP_FMT_SVG;
	o.base = argv[optind];
	o.cur = argv[optind + 1];
	return sp_diff(&o) ? 1 : 0;
}

static void report_usage(FILE *f)
{
	fprintf(f, "usage: sprof report --from clickhouse://[USER[:PASS]@]HOST[:PORT]/DB.TABLE [options]\n"
		   "  -o FILE          write to FILE (format from its extension)\n"
		   "  -f FORMAT        text, json, folded, svg, pprof, speedscope, residency\n"
		   "  --where SQL      only rows matching this condition (host = 'web1')\n"
		   "  --since TIME     only rows of the last TIME (1h, 30m, 7d) or since a UTC time\n"
		   "                   ('2026-11-25 06:00:00', '2026-11-25')\n"
		   "  --until TIME     only rows older than TIME ago, or before a UTC time\n"
		   "  --map @NAME      only rows of this map\n"
		   "  --by COLUMNS     split by host, map, comm, pid (comma-separated): leading frames;\n"
		   "                   default comm (one tower per program), none: all merged\n"
		   "  --title TEXT     title of the flame graph\n"
		   "  --timeout TIME   stop the query after TIME (30s, 10m; default: no limit)\n"
		   "  --skip-down-shards  report without the shards that cannot be reached\n"
		   "  --password-file FILE  the password: FILE's first line\n");
}

/* "2026-11-25", "2026-11-25 06:00", "2026-11-25T06:00:30" (UTC) -> seconds since the epoch. */
static int parse_utc(const char *s, uint64_t *at)
{
	struct tm tm = { 0 };
	char sep = ' ', rest;
	int n = sscanf(s, "%4d-%2d-%2d%c%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &sep,
		       &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &rest);
	time_t t;

	if (n != 3 && n != 6 && n != 7)
		return -EINVAL;
	if ((n > 3 && sep != ' ' && sep != 'T') || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (t <= 0)
		return -EINVAL;
	*at = (uint64_t)t;
	return 0;
}

/* --since/--until: a time ago (1h) or a UTC date and time. */
static int report_time(const char *opt, const char *arg, uint64_t *ago, uint64_t *at)
{
	uint64_t ns;

	if (!parse_duration(arg, &ns) && ns >= 1000000000ull) {
		*ago = ns / 1000000000ull;
		return 0;
	}
	if (!parse_utc(arg, at))
		return 0;
	fprintf(stderr, "sprof report: invalid %s '%s' (a time ago: 1h, 30m, 7d; or a UTC time: "
			"'2026-11-25 06:00:00')\n", opt, arg);
	return -EINVAL;
}

static int report_args(int argc, char **argv, struct sp_clickhouse_query *q, struct sp_report_opts *ro,
		       const char **fmt)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},       {"from", required_argument, NULL, OPT_FROM},
		{"where", required_argument, NULL, OPT_WHERE}, {"since", required_argument, NULL, OPT_SINCE},
		{"until", required_argument, NULL, OPT_UNTIL}, {"map", required_argument, NULL, OPT_MAP},
		{"title", required_argument, NULL, OPT_TITLE}, {"by", required_argument, NULL, OPT_BY},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"skip-down-shards", no_argument, NULL, OPT_SKIP_DOWN},
		{"password-file", required_argument, NULL, OPT_PASSWORD_FILE},
		{NULL, 0, NULL, 0},
	};
	uint64_t ns;
	int opt;

	while ((opt = getopt_long(argc, argv, "o:f:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o': ro->output = optarg; break;
		case 'f': *fmt = optarg; break;
		case OPT_FROM: q->url = optarg; break;
		case OPT_WHERE: q->where = optarg; break;
		case OPT_BY: q->by = optarg; break;
		case OPT_MAP: q->map = ro->map_filter = optarg; break;
		case OPT_TITLE: ro->title = optarg; break;
		case OPT_SKIP_DOWN: q->skip_down_shards = true; break;
		case OPT_PASSWORD_FILE:
			if (password_file(optarg))
				return -EINVAL;
			break;
		case OPT_TIMEOUT:
			if (parse_duration(optarg, &ns) || ns < 1000000000ull || ns / 1000000 > 86400000ull) {
				fprintf(stderr, "sprof report: invalid --timeout '%s' (1s to 1d: 30s, 10m, 2h)\n",
					optarg);
				return -EINVAL;
			}
			q->timeout_ms = ns / 1000000;
			break;
		case OPT_SINCE:
			if (report_time("--since", optarg, &q->since_s, &q->since_at))
				return -EINVAL;
			break;
		case OPT_UNTIL:
			if (report_time("--until", optarg, &q->until_s, &q->until_at))
				return -EINVAL;
			break;
		case 'h':
			report_usage(stdout);
			exit(0);
		default:
			report_usage(stderr);
			return -EINVAL;
		}
	}
	if (!q->by)
		q->by = "comm"; /* programs apart: not every program's main merged into one */
	if (!q->url || optind != argc) {
		fprintf(stderr, "sprof report: %s\n", q->url ? "unexpected arguments" : "--from URL is needed");
		report_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* sprof report --from clickhouse://...: the stacks ClickHouse sums, through
 * the usual writers. */
static int report_main(int argc, char **argv)
{
	struct sp_clickhouse_query q = { 0 };
	struct sp_report_opts ro = { .width = 1200 };
	struct sp_profile prof;
	const char *fmt = NULL;
	int f, err;

	if (report_args(argc, argv, &q, &ro, &fmt))
		return 1;
	f = fmt ? sp_format_parse(fmt) : (int)sp_format_from_path(ro.output);
	if (f < 0) {
		fprintf(stderr, "sprof report: unknown output format '%s' (text, json, folded, svg, pprof, "
				"speedscope, residency)\n", fmt);
		return 1;
	}
	ro.format = (enum sp_format)f;
	ro.map_filter = NULL; /* the query kept that map; the profile's one map is "@" */
	if (sp_clickhouse_fetch(&q, &prof))
		return 1;
	err = sp_report_write(&prof, &ro);
	sp_clickhouse_profile_free(&prof);
	return err ? 1 : 0;
}

static void serve_usage(FILE *f)
{
	fprintf(f, "usage: sprof serve clickhouse://[USER@]HOST[:PORT]/DB.TABLE [options]\n"
		   "  a web page over the table --export fills: a timeline by host or program, a\n"
		   "  selected range as a flame graph and its top functions, two ranges compared\n"
		   "  --listen ADDR    [HOST:]PORT to listen on (default 127.0.0.1:4040; port 0: any)\n"
		   "  --timeout TIME   each query's limit on the server (default 60s)\n"
		   "  --password-file FILE  the password: FILE's first line\n"
		   "  --quiet          no line per request\n");
}

/* sprof serve URL: runtime/store/serve.c's page until Ctrl-C. */
static int serve_main(int argc, char **argv)
{
	enum { S_LISTEN = 1000, S_TIMEOUT, S_PASSWORD_FILE, S_QUIET };
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},      {"listen", required_argument, NULL, S_LISTEN},
		{"timeout", required_argument, NULL, S_TIMEOUT},
		{"password-file", required_argument, NULL, S_PASSWORD_FILE},
		{"quiet", no_argument, NULL, S_QUIET}, {NULL, 0, NULL, 0},
	};
	struct sp_serve_opts o = { 0 };
	uint64_t ns;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case S_LISTEN: o.listen = optarg; break;
		case S_QUIET: o.quiet = true; break;
		case S_PASSWORD_FILE:
			if (password_file(optarg))
				return 1;
			break;
		case S_TIMEOUT:
			if (parse_duration(optarg, &ns) || ns < 1000000000ull || ns / 1000000 > 86400000ull) {
				fprintf(stderr, "sprof serve: invalid --timeout '%s' (1s to 1d: 30s, 10m)\n", optarg);
				return 1;
			}
			o.timeout_ms = ns / 1000000;
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			serve_usage(stderr);
			return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sprof serve: %s\n", optind == argc ? "the table's URL is needed" :
								  "unexpected arguments");
		serve_usage(stderr);
		return 1;
	}
	o.url = argv[optind];
	return sp_serve(&o) ? 1 : 0;
}

static void fleet_usage(FILE *f)
{
	fprintf(f, "usage: sprof fleet init clickhouse://[USER@]HOST[:PORT]/DB.TABLE [--cluster NAME --local TABLE]\n"
		   "                  [--copy-from [DB.]TABLE]\n"
		   "  creates the table --export writes to (once, as a user that may create tables;\n"
		   "  agents then need only to insert); an existing table is checked and upgraded\n"
		   "  --cluster NAME   make DB.TABLE Distributed over cluster NAME (from the server's\n"
		   "                   remote_servers), spread over DB.LOCAL on every shard\n"
		   "  --local TABLE    that local table, made on each shard first with fleet init\n"
		   "  --copy-from TABLE  copy every row of an older sprof's table (either layout,\n"
		   "                   same server) into the new, empty one; the old is left as it is\n"
		   "  --password-file FILE  the password: FILE's first line\n");
}

/* sprof fleet init URL: the DDL agents never run (runtime/store/clickhouse.c). */
static int fleet_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'}, {"cluster", required_argument, NULL, OPT_CLUSTER},
		{"local", required_argument, NULL, OPT_LOCAL},
		{"copy-from", required_argument, NULL, OPT_COPY_FROM},
		{"password-file", required_argument, NULL, OPT_PASSWORD_FILE}, {NULL, 0, NULL, 0},
	};
	const char *cluster = NULL, *local = NULL, *copy = NULL;
	struct sp_clickhouse_opts co = { 0 };
	struct sp_clickhouse *ch;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_CLUSTER: cluster = optarg; break;
		case OPT_LOCAL: local = optarg; break;
		case OPT_COPY_FROM: copy = optarg; break;
		case OPT_PASSWORD_FILE:
			if (password_file(optarg))
				return 1;
			break;
		case 'h':
			fleet_usage(stdout);
			return 0;
		default:
			fleet_usage(stderr);
			return 1;
		}
	}
	if (argc - optind != 2 || strcmp(argv[optind], "init") != 0) {
		fprintf(stderr, "sprof fleet: expected `init URL`\n");
		fleet_usage(stderr);
		return 1;
	}
	if (!cluster != !local) {
		fprintf(stderr, "sprof fleet init: --cluster and --local go together\n");
		return 1;
	}
	co.url = argv[optind + 1];
	ch = sp_clickhouse__open(&co);
	if (!ch)
		return 1;
	err = sp_clickhouse__init(ch, cluster, local, copy);
	sp_clickhouse__destroy(ch);
	return err ? 1 : 0;
}

/* A ClickHouse URL's password, clickhouse[+https]://USER:PASS@..., stays in
 * /proc/PID/cmdline (ps) for the whole run: the argument is copied for the
 * option parsers and the password's bytes in the original are overwritten
 * with '*' (the same length: ps shows the rest as typed). */
static void hide_url_passwords(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *url = strstr(a, "clickhouse"), *rest, *at, *colon, *copy;

		if (!url || (url != a && url[-1] != '=') || !(rest = strstr(url, "://")))
			continue;
		rest += 3;
		at = strchr(rest, '@');
		colon = strchr(rest, ':');
		if (!at || (strchr(rest, '/') && strchr(rest, '/') < at) || !colon || colon > at)
			continue;
		if (!(copy = strdup(a)))
			continue; /* left as it is: ps shows it, as before */
		argv[i] = copy; /* never freed: argv lives as long as the process */
		memset(colon + 1, '*', (size_t)(at - colon - 1));
	}
}

/* SIGUSR1 prints the maps once the run loop reads signals; sent during
 * start-up (compiling, loading, attaching) it waits for the loop instead
 * of killing sprof by its default action. A -c child unblocks it. */
static void hold_sigusr1(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

int main(int argc, char **argv)
{
	struct cli c = {0};
	struct sp_plan *plan = NULL;
	void *obj = NULL;
	size_t objlen = 0;
	struct sp_diag diag;
	int rc = 1;

	sp_timings_on(); /* SPROF_TIMINGS: the clock starts here */
	hide_url_passwords(argc, argv);
	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return diff_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return report_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "fleet") == 0)
		return fleet_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return serve_main(argc - 1, argv + 1);
	if (parse_args(argc, argv, &c))
		return 1;
	sp_log_setup(c.run.verbose, c.run.quiet); /* the layers below print through base/log.h */
	hold_sigusr1();
	if (c.list_scripts) {
		free(c.script_kv);
		return list_scripts(stdout);
	}
	if (c.list)
		return list_probes(&c);
	if (c.info)
		return sp_info_print(stdout, SPROF_VERSION);
	struct sp_source *src = load_source(&c);
	if (!src)
		return 1;
	struct sp_arena *arena = sp_arena_new();
	sp_diag_init(&diag, src, stderr);
	diag.no_warnings = c.no_warnings;
	sp_timing_lap("arguments, source");
	if (compile(&c, src, &diag, arena, &plan, &obj, &objlen))
		goto out;
	if (c.dump != DUMP_NONE) {
		rc = dump_object(&c, src, plan, obj, objlen);
		goto out;
	}
	if (c.probe_filter && (rc = filter_probes(c.probe_filter, plan)))
		goto out;
	if (c.emit_elf) { /* a dry run, as bpftrace's: the object written, nothing loaded */
		rc = 0;
		goto out;
	}
	c.run.diag = runtime_diag;
	c.run.diag_ctx = &diag;
	rc = sp_run(plan, obj, objlen, &c.run);
out:
	free(obj);
	sp_plan_free(plan);
	sp_arena_destroy(arena);
	sp_source_free(src);
	free(c.script_kv);
	sp_timing_lap("free the plan and program");
	sp_timings_print();
	return rc;
}
