/* codegen/plan_dump.c: `-d plan`, the plain data codegen hands the runtime
 * besides the BPF object (plan.h): which program serves which attach point,
 * how every map's keys and values are laid out in bytes, and the printf
 * records. It is the contract between the compiler and the runtime, so
 * seeing it answers "what will sprof attach, and what will it read back".
 */
#include "codegen/plan_dump.h"

#include "abi/plan.h"
#include "parser/types/types.h"

static const char *field_kind(enum sp_field_kind k)
{
	static const char *const names[] = {
		[SP_F_INT] = "int", [SP_F_STR] = "string", [SP_F_USTACK] = "ustack",
		[SP_F_KSTACK] = "kstack", [SP_F_USYM] = "usym", [SP_F_KSYM] = "ksym",
		[SP_F_TUPLE] = "tuple", [SP_F_BUF] = "buf", [SP_F_NONE] = "none",
		[SP_F_TIMESTAMP] = "timestamp", [SP_F_INET] = "inet",
		[SP_F_TEXT] = "text",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) && names[k] ? names[k] : "?";
}

/* One slot on the current line; the elements of a tuple on lines of their
 * own, indented by `indent` */
static void dump_field(FILE *f, const struct sp_plan_field *x, int indent)
{
	fprintf(f, "%s @%u size %u", field_kind(x->kind), x->offset, x->size);
	if (x->kind == SP_F_INT)
		fprintf(f, " %s", x->is_signed ? "signed" : "unsigned");
	if (x->kind == SP_F_USTACK || x->kind == SP_F_KSTACK)
		fprintf(f, " limit %d", x->stack_limit);
	if (x->name)
		fprintf(f, " (%s)", x->name);
	if (x->fmt)
		fprintf(f, " fmt \"%s\"", x->fmt);
	fputc('\n', f);
	for (int i = 0; i < x->nelems; i++) {
		fprintf(f, "%*s", indent, "");
		dump_field(f, &x->elems[i], indent + 2);
	}
}

static void dump_probe(FILE *f, const struct sp_plan_probe *p)
{
	fprintf(f, "  %s -> program %s (%s, line %u:%u)\n", p->spec, p->prog,
		sp_probe_type_name(p->type), p->line, p->col);
	if (p->target || p->func || p->ns)
		fprintf(f, "    target %s, func %s%s%s\n", p->target ? p->target : "-",
			p->func ? p->func : "-", p->ns ? ", provider " : "", p->ns ? p->ns : "");
	if (p->has_value)
		fprintf(f, "    value %llu%s%s\n", (unsigned long long)p->value, p->unit ? " " : "",
			p->unit ? p->unit : "");
	if (p->has_offset || p->is_addr)
		fprintf(f, "    %s 0x%llx\n", p->is_addr ? "address" : "offset",
			(unsigned long long)p->offset);
	if (p->uses_names)
		fprintf(f, "    func and probe read by bpf cookie (a wildcard, or a program "
			"shared by the block's points)\n");
}

static void dump_map(FILE *f, const struct sp_plan_map *m)
{
	fprintf(f, "  %s -> BPF map %s: %s, key %u bytes, value %u bytes%s\n", m->name, m->bpf_name,
		m->agg ? sp_agg_name((enum sp_agg_kind)m->agg) : "plain value", m->key_size,
		m->value_size, m->percpu ? ", per CPU" : "");
	if (m->lhist_step)
		fprintf(f, "    lhist min %lld max %lld step %lld\n", (long long)m->lhist_min,
			(long long)m->lhist_max, (long long)m->lhist_step);
	fprintf(f, "    key: ");
	dump_field(f, &m->key, 6);
	if (!m->agg) {
		fprintf(f, "    value: ");
		dump_field(f, &m->value, 6);
	}
	if (m->drops_name)
		fprintf(f, "    full-map drops counted in %s\n", m->drops_name);
}

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
}

void sp_plan_dump(FILE *f, const struct sp_plan *p)
{
	fprintf(f, "probes:\n");
	for (int i = 0; i < p->nprobes; i++)
		dump_probe(f, &p->probes[i]);
	fprintf(f, "maps:\n");
	for (int i = 0; i < p->nmaps; i++)
		dump_map(f, &p->maps[i]);
	fprintf(f, "printf records:\n");
	for (int i = 0; i < p->nprintfs; i++) {
		fprintf(f, "  %d: ", i);
		if (p->printfs[i].fmt) {
			fputc('"', f);
			put_escaped(f, p->printfs[i].fmt);
			fputs("\"\n", f);
		} else {
			fputs("print(value)\n", f);
		}
		fprintf(f, "    args: ");
		dump_field(f, &p->printfs[i].args, 6);
	}
	fprintf(f, "stacks: user %s, kernel %s\n", p->uses_ustack ? "yes" : "no",
		p->uses_kstack ? "yes" : "no");
}
