/* parser/config.c: the `config = { key = value; ... }` block (bpftrace 0.27).
 *
 * The block comes before every probe; the parser keeps it as the PROGRAM
 * node's `a` (a CONFIG node whose list holds SETTING nodes). Here each
 * setting is checked and read into struct sp_script_config, which the driver
 * applies where the environment and the command line have not set the same
 * knob (bpftrace: "environment variables take precedence"). Keys are
 * bpftrace's: lower case or BPFTRACE_-prefixed environment spelling, its
 * renamed old names accepted with its warning. Keys bpftrace knows but that
 * change nothing in sprof (symbol caching, licence, ring buffer pages ...)
 * are accepted with a warning; keys whose behaviour sprof lacks, errors.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parser/base/diag.h"
#include "parser/frontend.h"

enum cfg_kind { CFG_APPLIED, CFG_IGNORED, CFG_MISSING, CFG_ENV_ONLY };

static const struct {
	const char *key;
	enum cfg_kind kind;
} cfg_keys[] = {
	{ "max_map_keys", CFG_APPLIED }, { "max_strlen", CFG_APPLIED },
	{ "max_cat_bytes", CFG_APPLIED }, { "log_size", CFG_APPLIED },
	{ "cache_user_symbols", CFG_IGNORED }, { "cpp_demangle", CFG_IGNORED },
	{ "lazy_symbolication", CFG_IGNORED }, { "license", CFG_IGNORED },
	{ "max_bpf_progs", CFG_APPLIED }, { "max_probes", CFG_APPLIED },
	{ "perf_rb_pages", CFG_IGNORED }, { "show_debug_info", CFG_IGNORED },
	{ "use_blazesym", CFG_IGNORED }, { "on_stack_limit", CFG_IGNORED },
	{ "stack_mode", CFG_MISSING }, { "str_trunc_trailer", CFG_MISSING },
	{ "missing_probes", CFG_MISSING }, { "print_maps_on_exit", CFG_APPLIED },
	{ "btf", CFG_ENV_ONLY }, { "kernel_build", CFG_ENV_ONLY },
	{ "kernel_source", CFG_ENV_ONLY }, { "vmlinux", CFG_ENV_ONLY },
};

/* bpftrace's renamed keys: old name, new name */
static const char *const cfg_renamed[][2] = {
	{ "strlen", "max_strlen" }, { "no_cpp_demangle", "cpp_demangle" },
	{ "cat_bytes_max", "max_cat_bytes" }, { "map_keys_max", "max_map_keys" },
};

/* "BPFTRACE_MAX_STRLEN" and "MAX_STRLEN" are "max_strlen" */
static void cfg_normalize(const char *in, char *out, size_t len)
{
	size_t i = 0;

	if (!strncasecmp(in, "bpftrace_", 9))
		in += 9;
	for (; in[i] && i + 1 < len; i++)
		out[i] = (char)tolower((unsigned char)in[i]);
	out[i] = '\0';
}

/* The value of an applied key: a non-negative integer. */
static int cfg_number(struct sp_diag *d, const struct sp_node *set, uint64_t *out)
{
	const struct sp_node *v = set->a;

	if (v->kind != SP_N_INT || v->ival < 0) {
		sp_diag_at(d, SP_DIAG_ERROR, set->span, "%s: expecting a number, got %s", set->name,
			   v->kind == SP_N_STR ? v->str : "a negative number");
		return -1;
	}
	*out = (uint64_t)v->ival;
	return 0;
}

static int cfg_apply(struct sp_diag *d, const struct sp_node *set, const char *key,
		     struct sp_script_config *c)
{
	uint64_t v;

	if (cfg_number(d, set, &v))
		return -1;
	if (!strcmp(key, "max_strlen") && (v < 1 || v > SP_MAX_STRING)) {
		sp_diag_at(d, SP_DIAG_ERROR, set->a->span, "max_strlen: %llu is out of range: sprof "
			   "strings hold 1 to %d bytes", (unsigned long long)v, SP_MAX_STRING);
		return -1;
	}
	if (v > UINT32_MAX) {
		sp_diag_at(d, SP_DIAG_ERROR, set->a->span, "%s: %llu is too big", key,
			   (unsigned long long)v);
		return -1;
	}
	if (!strcmp(key, "max_map_keys"))
		c->max_map_keys = (uint32_t)v;
	else if (!strcmp(key, "max_strlen"))
		c->max_strlen = (uint32_t)v;
	else if (!strcmp(key, "max_cat_bytes"))
		c->max_cat_bytes = (uint32_t)v;
	else if (!strcmp(key, "max_probes") || !strcmp(key, "max_bpf_progs"))
		c->max_probes = c->max_probes > v ? c->max_probes : (uint32_t)v;
	else if (!strcmp(key, "print_maps_on_exit"))
		c->no_exit_maps = v == 0;
	else
		c->log_size = (uint32_t)v;
	return 0;
}

static int cfg_setting(struct sp_diag *d, const struct sp_node *set, struct sp_script_config *c)
{
	char key[64];
	size_t i;

	cfg_normalize(set->name, key, sizeof(key));
	for (i = 0; i < sizeof(cfg_renamed) / sizeof(cfg_renamed[0]); i++) {
		if (strcmp(key, cfg_renamed[i][0]))
			continue;
		sp_diag_at(d, SP_DIAG_WARNING, set->span, "%s has been renamed, please use %s",
			   set->name, cfg_renamed[i][1]);
		snprintf(key, sizeof(key), "%s", cfg_renamed[i][1]);
		break;
	}
	for (i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++)
		if (!strcmp(key, cfg_keys[i].key))
			break;
	if (i == sizeof(cfg_keys) / sizeof(cfg_keys[0])) {
		sp_diag_at(d, SP_DIAG_ERROR, set->span, "%s: not a known configuration option",
			   set->name);
		return -1;
	}
	switch (cfg_keys[i].kind) {
	case CFG_APPLIED:
		return cfg_apply(d, set, key, c);
	case CFG_IGNORED:
		sp_diag_at(d, SP_DIAG_WARNING, set->span, "%s: sprof has no such setting: ignored",
			   set->name);
		return 0;
	case CFG_MISSING:
		sp_diag_at(d, SP_DIAG_ERROR, set->span, "%s: not supported by sprof", set->name);
		return -1;
	default:
		sp_diag_at(d, SP_DIAG_ERROR, set->span, "%s: can only be set as an environment "
			   "variable", set->name);
		return -1;
	}
}

int sp_config_read(const struct sp_node *prog, struct sp_diag *d, struct sp_script_config *c)
{
	const struct sp_node *cfg = prog ? prog->a : NULL;
	int errors = 0;

	memset(c, 0, sizeof(*c));
	if (!cfg || cfg->kind != SP_N_CONFIG)
		return 0;
	for (int i = 0; i < cfg->list.len; i++) {
		const struct sp_node *set = cfg->list.items[i];

		for (int j = 0; j < i; j++)
			if (!strcasecmp(cfg->list.items[j]->name, set->name))
				sp_diag_at(d, SP_DIAG_WARNING, set->span, "%s is set twice: the "
					   "last value counts", set->name);
		errors += cfg_setting(d, set, c) != 0;
	}
	return errors ? -1 : 0;
}
