/* codegen/cg_maps.c: the script's maps, as BTF-defined BPF maps.
 *
 * Every `@name` becomes one map in ".maps" named AT_name (AT_ for `@`) plus
 * a per-CPU drop counter DR_name. Aggregations (count, sum, min, max, avg,
 * stats, hist, lhist) are PERCPU_HASH maps merged by user space; plain
 * values are HASH maps. A scalar map (`@x = ...`) has one u64 key 0, like
 * bpftrace's. hist/lhist keys end in a u64 bucket index, also like
 * bpftrace. Value layouts are described in plan.h. Aggregations BPF never
 * reads back are marked for draining (plan.h: sp_plan_map.drain).
 *
 * Map definitions use the __uint() pointer-to-array trick of libbpf's
 * bpf_helpers.h, built with the DIBuilder (see the spike notes): type,
 * max_entries, key_size and value_size.
 */
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "base/vec.h"

static const char *const agg_names[] = {
	"",
#define X(k, s) s,
	SP_AGG_KINDS(X)
#undef X
};

int cg_agg_kind(const char *name)
{
	for (int i = 1; name && i < (int)(sizeof(agg_names) / sizeof(agg_names[0])); i++)
		if (strcmp(name, agg_names[i]) == 0)
			return i;
	return SP_AGG_NONE;
}

struct cg_map *cg_map_find(struct cg *g, const char *name)
{
	for (int i = 0; i < g->nmaps; i++)
		if (strcmp(g->maps[i].name, name) == 0)
			return &g->maps[i];
	return NULL;
}

static char *bpf_map_name(const char *prefix, const char *name)
{
	size_t n = strlen(prefix) + strlen(name) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s", prefix, name + (name[0] == '@'));
	return s;
}

static struct cg_map *map_add(struct cg *g, const struct sp_node *mapnode)
{
	struct cg_map *m = cg_map_find(g, mapnode->name);

	if (m)
		return m;
	if (SP_GROW(g->maps, g->capmaps, g->nmaps + 1, 8))
		return NULL;
	m = &g->maps[g->nmaps++];
	memset(m, 0, sizeof(*m));
	m->name = mapnode->name;
	m->bpf_name = bpf_map_name("AT_", mapnode->name);
	m->drops_name = bpf_map_name("DR_", mapnode->name);
	m->span = mapnode->span;
	m->key_known = false;
	return m;
}

/* The key type of a map reference: NULL for none, the key's type for one,
 * a tuple of the keys' types for several (kept in keytuple). */
static void note_key(struct cg *g, struct cg_map *m, const struct sp_node *mapnode)
{
	int n = mapnode->list.len;

	if (m->key_known)
		return;
	m->key_known = true;
	if (n == 0 && !mapnode->key_type) /* len(@m), clear(@m) first: sema knows the keys */
		return;
	if (n)
		m->key_use = mapnode;
	if (mapnode->key_type) { /* sema's widened key type, the same for every use */
		m->keyt = mapnode->key_type;
		return;
	}
	if (n == 1) {
		m->keyt = mapnode->list.items[0]->type;
		return;
	}
	m->keytuple.kind = SP_T_TUPLE;
	m->keytuple.nelems = n;
	m->keytuple.elems = calloc(n, sizeof(*m->keytuple.elems));
	for (int i = 0; i < n; i++)
		m->keytuple.elems[i] = mapnode->list.items[i]->type;
	m->keyt = &m->keytuple;
}

static int64_t int_arg(const struct sp_node *call, int i, int64_t dflt)
{
	if (call->list.len > i && call->list.items[i]->kind == SP_N_INT)
		return call->list.items[i]->ival;
	return dflt;
}

static void note_value(struct cg *g, struct cg_map *m, const struct sp_node *mapnode,
		       const struct sp_node *val)
{
	int agg = SP_AGG_NONE;

	if (val && val->kind == SP_N_CALL)
		agg = cg_agg_kind(val->name);
	if (agg == SP_AGG_NONE && mapnode->type && mapnode->type->kind == SP_T_AGG)
		agg = mapnode->type->agg;
	if (agg != SP_AGG_NONE) {
		const struct sp_type *t = mapnode->type;

		if (m->agg != SP_AGG_NONE && !val)
			return; /* a later bare use must not reset lhist's bounds */
		m->agg = agg;
		m->lhist_min = t && t->kind == SP_T_AGG ? t->lhist_min : 0;
		m->lhist_max = t && t->kind == SP_T_AGG ? t->lhist_max : 0;
		m->lhist_step = t && t->kind == SP_T_AGG ? t->lhist_step : 0;
		if (agg == SP_AGG_TSERIES)
			m->ts_signed = t && t->kind == SP_T_AGG ? t->is_signed : true;
		if (val && (agg == SP_AGG_LHIST || agg == SP_AGG_TSERIES)) {
			m->lhist_min = int_arg(val, 1, m->lhist_min);
			m->lhist_max = int_arg(val, 2, m->lhist_max);
			m->lhist_step = int_arg(val, 3, m->lhist_step);
		}
		return;
	}
	if (m->valt)
		return;
	m->val_use = val;
	/* sema gives every use of a map its widened value type */
	if (mapnode->type && mapnode->type->kind != SP_T_NONE && mapnode->type->kind != SP_T_VOID)
		m->valt = mapnode->type;
	else if (val && val->type && val->type->kind != SP_T_NONE)
		m->valt = val->type;
}

static void walk(struct cg *g, const struct sp_node *n)
{
	struct cg_map *m;

	if (!n || (n->kind == SP_N_LET && n->a && n->a->kind == SP_N_MAP))
		return; /* a map declaration (note_decls): not a use */
	if ((n->kind == SP_N_ASSIGN || n->kind == SP_N_INCDEC) && n->a &&
	    n->a->kind == SP_N_MAP) {
		m = map_add(g, n->a);
		if (m) {
			note_key(g, m, n->a);
			note_value(g, m, n->a, n->kind == SP_N_ASSIGN ? n->b : NULL);
		}
	} else if (n->kind == SP_N_MAP) {
		m = map_add(g, n);
		if (m) {
			note_key(g, m, n);
			note_value(g, m, n, NULL);
		}
	}
	walk(g, n->a);
	walk(g, n->b);
	walk(g, n->c);
	for (int i = 0; i < n->list.len; i++)
		walk(g, n->list.items[i]);
}

static uint32_t agg_value_size(int agg)
{
	switch (agg) {
	case SP_AGG_MIN:
	case SP_AGG_MAX:
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		return 16;
	case SP_AGG_TSERIES:
		return 24;
	default:
		return 8;
	}
}

static void size_map(struct cg_map *m)
{
	m->key_size = m->keyt ? cg_size(m->keyt) : 0;
	if (cg_agg_bucketed(m->agg))
		m->bpf_key_size = cg_round_up(m->key_size, 8) + 8;
	else
		m->bpf_key_size = m->keyt ? cg_round_up(m->key_size, 8) : 8;
	if (m->agg != SP_AGG_NONE)
		m->value_size = agg_value_size(m->agg);
	else
		m->value_size = cg_round_up(m->valt ? cg_size(m->valt) : 8, 8);
	if (m->value_size == 0)
		m->value_size = 8;
}

/* let @m = hash(N); and its kin: the map's size, LRU or not (percpu: what
 * the values need, as for undeclared maps). */
static void note_decls(struct cg *g, const struct sp_node *prog)
{
	for (int i = 0; prog->c && i < prog->c->list.len; i++) {
		const struct sp_node *d = prog->c->list.items[i];
		struct cg_map *m = cg_map_find(g, d->a->name);

		if (!m)
			continue; /* never used: sema warned */
		m->decl_max = (uint32_t)d->ival;
		m->decl_lru = strstr(d->name, "lru") != NULL;
	}
}

int cg_collect_maps(struct cg *g, const struct sp_node *prog)
{
	walk(g, prog);
	note_decls(g, prog);
	for (int i = 0; i < g->nmaps; i++)
		size_map(&g->maps[i]);
	return 0;
}

/* The BTF of struct { __uint(f0, v0); ... } name SEC(".maps"); for a map
 * global of four pointers. */
static void map_di(struct cg *g, LLVMValueRef gv, const long *vals)
{
	static const char *const fields[4] = { "type", "max_entries", "key_size", "value_size" };
	LLVMMetadataRef members[4], st, gve, expr;
	size_t nlen;
	const char *name = LLVMGetValueName2(gv, &nlen);

	for (int i = 0; i < 4; i++) {
		LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(g->D, 0, vals[i]);
		LLVMMetadataRef arr = LLVMDIBuilderCreateArrayType(g->D, vals[i] * 32, 32,
								   g->di_int, &sub, 1);
		LLVMMetadataRef pt = LLVMDIBuilderCreatePointerType(g->D, arr, 64, 0, 0, NULL, 0);

		members[i] = LLVMDIBuilderCreateMemberType(g->D, g->file, fields[i],
							   strlen(fields[i]), g->file, 1, 64, 0,
							   i * 64, LLVMDIFlagZero, pt);
	}
	st = LLVMDIBuilderCreateStructType(g->D, g->file, NULL, 0, g->file, 1, 4 * 64, 0,
					   LLVMDIFlagZero, NULL, members, 4, 0, NULL, NULL, 0);
	expr = LLVMDIBuilderCreateExpression(g->D, NULL, 0);
	gve = LLVMDIBuilderCreateGlobalVariableExpression(g->D, g->cu, name, nlen, name, nlen,
							  g->file, 1, st, 0, expr, NULL, 64);
	LLVMGlobalSetMetadata(gv, LLVMGetMDKindIDInContext(g->C, "dbg", 3), gve);
}

/* An aggregation that is drained unless BPF reads it too (cg_fill_plan_maps
 * decides once every probe is made). */
static bool may_drain(const struct cg_map *m)
{
	return m->agg != SP_AGG_NONE && m->agg != SP_AGG_TSERIES && !m->decl_max;
}

void cg_define_maps(struct cg *g)
{
	uint32_t max = g->opts->max_keys ? g->opts->max_keys : 4096;

	for (int i = 0; i < g->nmaps; i++) {
		struct cg_map *m = &g->maps[i];
		long v[4] = { m->agg ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH,
			      m->decl_max ? m->decl_max : max, m->bpf_key_size, m->value_size };
		long d[4] = { BPF_MAP_TYPE_PERCPU_ARRAY, 2, 4, 8 }; /* drops, SP_DROPS_INFLIGHT */
		char alt[256];

		if (m->decl_lru)
			v[0] = m->agg ? BPF_MAP_TYPE_LRU_PERCPU_HASH : BPF_MAP_TYPE_LRU_HASH;

		m->gv = cg_map_global_ir(g, m->bpf_name);
		map_di(g, m->gv, v);
		m->gv_alt = m->gv;
		if (may_drain(m) && sp_map_alt_name(alt, sizeof(alt), m->bpf_name)) {
			/* BPF may still read it: cg_maplimit.c takes it out then */
			m->gv_alt = cg_map_global_ir(g, alt);
			map_di(g, m->gv_alt, v);
		}
		m->drops_gv = cg_map_global_ir(g, m->drops_name);
		map_di(g, m->drops_gv, d);
	}
}

/* sp_scratch, sized for the program that needs the most. */
void cg_define_scratch(struct cg *g)
{
	long v[4] = { BPF_MAP_TYPE_PERCPU_ARRAY, 1, 4, (g->scratch_size + 7) & ~7u };

	if (!g->scratch_gv)
		return;
	if (v[3] == 0)
		v[3] = 8;
	map_di(g, g->scratch_gv, v);
}

/* ---- keys and updates ------------------------------------------------------- */

/* Builds the key of a map reference in zeroed stack memory. */
LLVMValueRef cg_map_key(struct cg *g, struct cg_map *m, const struct sp_node *mapnode)
{
	LLVMValueRef key = cg_alloca(g, m->bpf_key_size, "key");
	int n = mapnode->list.len;

	cg_memset0(g, key, m->bpf_key_size);
	if (!m->keyt || n == 0)
		return key;
	if (n == 1) {
		const struct sp_node *k = mapnode->list.items[0];

		cg_expr_to(g, k, key, m->keyt);
		return key;
	}
	for (int i = 0; i < n && i < m->keyt->nelems; i++) {
		const struct sp_node *k = mapnode->list.items[i];

		cg_expr_to(g, k, cg_gep(g, key, cg_tuple_offset(m->keyt, i)), m->keyt->elems[i]);
	}
	return key;
}

static LLVMValueRef map_lookup(struct cg *g, struct cg_map *m, LLVMValueRef key)
{
	LLVMValueRef args[2] = { m->gv, key };

	return cg_call_helper(g, BPF_FUNC_map_lookup_elem, g->ptr, args, 2);
}

LLVMValueRef cg_agg_bucket(struct cg *g, struct cg_map *m, LLVMValueRef v)
{
	if (m->agg == SP_AGG_HIST)
		return cg_call_fn(g, "sp_log2_bucket", &v, 1);
	LLVMValueRef a[4] = { v, cg_u64(g, m->lhist_min), cg_u64(g, m->lhist_max),
			      cg_u64(g, m->lhist_step) };
	return cg_call_fn(g, "sp_lin_bucket", a, 4);
}

static LLVMValueRef ld64(struct cg *g, LLVMValueRef p, uint32_t off)
{
	LLVMValueRef v = LLVMBuildLoad2(g->B, g->i64, cg_gep(g, p, off), "");

	LLVMSetAlignment(v, 8);
	return v;
}

static void st64(struct cg *g, LLVMValueRef p, uint32_t off, LLVMValueRef v)
{
	LLVMSetAlignment(LLVMBuildStore(g->B, v, cg_gep(g, p, off)), 8);
}

/* Applies one aggregation step to this CPU's value slot p. */
void cg_agg_apply(struct cg *g, int agg, LLVMValueRef p, LLVMValueRef v)
{
	LLVMValueRef old, take, seen;

	switch (agg) {
	case SP_AGG_SUM:
		st64(g, p, 0, LLVMBuildAdd(g->B, ld64(g, p, 0), v, ""));
		break;
	case SP_AGG_MIN:
	case SP_AGG_MAX:
		old = ld64(g, p, 0);
		seen = LLVMBuildICmp(g->B, LLVMIntNE, ld64(g, p, 8), cg_u64(g, 0), "");
		take = LLVMBuildICmp(g->B, agg == SP_AGG_MIN ? LLVMIntSLT : LLVMIntSGT, v, old, "");
		take = LLVMBuildOr(g->B, take, LLVMBuildNot(g->B, seen, ""), "");
		st64(g, p, 0, LLVMBuildSelect(g->B, take, v, old, ""));
		st64(g, p, 8, cg_u64(g, 1));
		break;
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		st64(g, p, 0, LLVMBuildAdd(g->B, ld64(g, p, 0), cg_u64(g, 1), ""));
		st64(g, p, 8, LLVMBuildAdd(g->B, ld64(g, p, 8), v, ""));
		break;
	default: /* count, hist, lhist */
		st64(g, p, 0, LLVMBuildAdd(g->B, ld64(g, p, 0), cg_u64(g, 1), ""));
		break;
	}
}

/* @m[k] = agg(args) */
void cg_map_agg(struct cg *g, const struct sp_node *assign)
{
	const struct sp_node *call = assign->b;
	struct cg_map *m = cg_map_find(g, assign->a->name);
	LLVMValueRef key, v = NULL;

	if (!m)
		return;
	key = cg_map_key(g, m, assign->a);
	if (m->agg != SP_AGG_COUNT && call->list.len > 0)
		v = cg_expr(g, call->list.items[0]);
	if (cg_oob_wanted(g)) { /* in a while loop: cg_oob.c */
		cg_oob_agg(g, m, key, v ? v : cg_u64(g, 0), assign->span);
		return;
	}
	if (m->agg == SP_AGG_TSERIES) {
		cg_tseries_update(g, m, key, cg_alloca(g, m->value_size, "init"),
				  v ? v : cg_u64(g, 0));
		return;
	}
	if (m->agg == SP_AGG_HIST || m->agg == SP_AGG_LHIST)
		st64(g, key, m->bpf_key_size - 8, cg_agg_bucket(g, m, v ? v : cg_u64(g, 0)));
	cg_agg_upsert(g, m, key, cg_alloca(g, m->value_size, "init"), v ? v : cg_u64(g, 0), NULL,
		      NULL);
}

void cg_agg_upsert(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef init,
		   LLVMValueRef v, cg_slot_step *step, void *arg)
{
	LLVMValueRef p, args[6];
	LLVMBasicBlockRef have, done;
	bool halves = m->gv_alt != m->gv;
	int n = 0;

	cg_memset0(g, init, m->value_size);
	args[n++] = m->gv;
	if (halves) /* sp_map_upsert: which half, counted as under way */
		args[n++] = m->gv_alt;
	args[n++] = key;
	args[n++] = init;
	args[n++] = m->drops_gv;
	args[n++] = LLVMConstInt(g->i32, (unsigned long long)(m - g->maps), 0);
	p = cg_call_fn(g, halves ? "sp_map_upsert" : "sp_map_upsert1", args, n);
	have = cg_block(g, "agg");
	done = cg_block(g, "agg_done");
	LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, p, ""), have, done);
	LLVMPositionBuilderAtEnd(g->B, have);
	if (step)
		step(g, m, p, v, arg);
	else
		cg_agg_apply(g, m->agg, p, v);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
	if (halves) /* cg_maplimit.c cg_drop_unread_halves finds the pair by this */
		cg_call_fn(g, "sp_map_leave", &m->drops_gv, 1);
}

static void map_put(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef val)
{
	LLVMValueRef args[4] = { m->gv, key, val, m->drops_gv };

	cg_call_fn(g, "sp_map_put", args, 4);
}

/* @m[k] = expr: the value is built in place. */
void cg_map_assign(struct cg *g, const struct sp_node *mapnode, const struct sp_node *e)
{
	struct cg_map *m = cg_map_find(g, mapnode->name);
	LLVMValueRef key, val;

	if (!m)
		return;
	key = cg_map_key(g, m, mapnode);
	val = cg_alloca(g, m->value_size, "val");
	cg_memset0(g, val, m->value_size);
	cg_expr_to(g, e, val, m->valt ? m->valt : e->type);
	if (cg_oob_wanted(g)) /* in a while loop: cg_oob.c */
		cg_oob_put(g, m, key, val, e->span);
	else
		map_put(g, m, key, val);
}

/* A plain value at key (0 / zeroes when missing). */
static LLVMValueRef read_at(struct cg *g, struct cg_map *m, LLVMValueRef key)
{
	static const struct sp_type i64t = { .kind = SP_T_INT, .size = 8, .is_signed = true };
	const struct sp_type *t = m->valt ? m->valt : &i64t;
	LLVMValueRef p, res = NULL, v;
	LLVMBasicBlockRef from, have, done;

	if (cg_oob_wanted(g) && cg_is_scalar(t)) /* in a while loop: cg_oob.c */
		return cg_oob_get(g, m, key, t);
	p = map_lookup(g, m, key);
	from = LLVMGetInsertBlock(g->B);
	have = cg_block(g, "found");
	done = cg_block(g, "read_done");

	if (!cg_is_scalar(t)) {
		res = cg_alloca(g, cg_size(t), "mapval");
		cg_memset0(g, res, cg_size(t));
	}
	LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, p, ""), have, done);
	LLVMPositionBuilderAtEnd(g->B, have);
	if (!cg_is_scalar(t)) {
		cg_memcpy(g, res, p, cg_size(t));
		LLVMBuildBr(g->B, done);
		LLVMPositionBuilderAtEnd(g->B, done);
		return res;
	}
	v = cg_load_int(g, p, t);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
	res = LLVMBuildPhi(g->B, g->i64, "");
	LLVMAddIncoming(res, (LLVMValueRef[]){ cg_u64(g, 0), v },
			(LLVMBasicBlockRef[]){ from, have }, 2);
	return res;
}

/* Reading @m[k]: a plain value (0 / zeroes when missing), or an aggregation
 * merged across CPUs like user space merges it. */
LLVMValueRef cg_map_read(struct cg *g, const struct sp_node *mapnode)
{
	struct cg_map *m = cg_map_find(g, mapnode->name);
	LLVMValueRef key, args[3];

	if (!m)
		return cg_u64(g, 0);
	key = cg_map_key(g, m, mapnode);
	m->bpf_reads = true;
	if (m->agg == SP_AGG_NONE)
		return read_at(g, m, key);
	args[0] = m->gv;
	args[1] = key;
	args[2] = LLVMConstInt(g->i32, m->agg, 0);
	return cg_call_fn(g, "sp_percpu_read", args, 3);
}

/* @m[k] op= rhs and @m[k]++: one key for the read and the write. Returns
 * the new value, or the old one when `old` (postfix ++/--). */
LLVMValueRef cg_map_rmw(struct cg *g, const struct sp_node *mapnode, int op, LLVMValueRef rhs,
			bool old)
{
	static const struct sp_type i64t = { .kind = SP_T_INT, .size = 8, .is_signed = true };
	struct cg_map *m = cg_map_find(g, mapnode->name);
	const struct sp_type *t;
	LLVMValueRef key, val, prev, nv;

	if (!m)
		return cg_u64(g, 0);
	t = m->valt ? m->valt : &i64t;
	key = cg_map_key(g, m, mapnode);
	prev = read_at(g, m, key);
	nv = cg_norm(g, cg_arith(g, op, prev, rhs, t->kind == SP_T_INT && t->is_signed), t);
	val = cg_alloca(g, m->value_size, "val");
	cg_memset0(g, val, m->value_size);
	cg_store_int(g, val, nv, cg_size(t));
	if (cg_oob_wanted(g)) /* in a while loop: cg_oob.c */
		cg_oob_put(g, m, key, val, mapnode->span);
	else
		map_put(g, m, key, val);
	return old ? prev : nv;
}

/* ---- tseries ------------------------------------------------------------------- */

/* The time tseries() files a value under: the wall clock in ns (boot time
 * plus sp_config's offset, bpf/common.bpf.c), or, when the environment
 * names a scalar map in BPFTRACE_DUMMY_TS_MAP, that map's value: the hook
 * bpftrace 0.27's runtime tests drive time with (they step @ts by hand). */
static LLVMValueRef tseries_now(struct cg *g, LLVMValueRef key)
{
	const char *name = getenv("BPFTRACE_DUMMY_TS_MAP");
	struct cg_map *ts = name ? cg_map_find(g, name) : NULL;
	LLVMValueRef p, v, res;
	LLVMBasicBlockRef from, have, done;

	if (!ts || ts->agg != SP_AGG_NONE || ts->keyt)
		return cg_call_fn(g, "sp_wall_ns", NULL, 0);
	cg_memset0(g, key, 8);
	ts->bpf_reads = true;
	p = map_lookup(g, ts, key);
	from = LLVMGetInsertBlock(g->B);
	have = cg_block(g, "ts_found");
	done = cg_block(g, "ts_done");
	LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, p, ""), have, done);
	LLVMPositionBuilderAtEnd(g->B, have);
	v = ld64(g, p, 0);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
	res = LLVMBuildPhi(g->B, g->i64, "");
	LLVMAddIncoming(res, (LLVMValueRef[]){ cg_u64(g, 0), v },
			(LLVMBasicBlockRef[]){ from, have }, 2);
	return res;
}

/* The current interval of a tseries update: its number and the time. */
struct ts_now {
	LLVMValueRef now, epoch;
};

/* One step of the value slot p of the current interval (plan.h's layout):
 * a slot last written in another interval starts again from zero. */
static void tseries_apply(struct cg *g, struct cg_map *m, LLVMValueRef p, LLVMValueRef v,
			  void *arg)
{
	const struct ts_now *t = arg;
	LLVMValueRef stale = LLVMBuildICmp(g->B, LLVMIntNE, ld64(g, p, 16), t->epoch, "");
	LLVMValueRef val = ld64(g, p, 0), meta = ld64(g, p, 8), take;
	bool min = m->lhist_step == SP_TS_MIN;

	if (m->lhist_step != SP_TS_LAST) {
		val = LLVMBuildSelect(g->B, stale, cg_u64(g, 0), val, "");
		meta = LLVMBuildSelect(g->B, stale, cg_u64(g, 0), meta, "");
	}
	switch (m->lhist_step) {
	case SP_TS_AVG:
		meta = LLVMBuildAdd(g->B, meta, cg_u64(g, 1), "");
		/* fall through */
	case SP_TS_SUM:
		val = LLVMBuildAdd(g->B, val, v, "");
		break;
	case SP_TS_MIN:
	case SP_TS_MAX:
		take = LLVMBuildICmp(g->B, min ? (m->ts_signed ? LLVMIntSLT : LLVMIntULT) :
					   (m->ts_signed ? LLVMIntSGT : LLVMIntUGT), v, val, "");
		take = LLVMBuildOr(g->B, take, LLVMBuildICmp(g->B, LLVMIntEQ, meta, cg_u64(g, 0), ""), "");
		val = LLVMBuildSelect(g->B, take, v, val, "");
		meta = cg_u64(g, 1);
		break;
	default: /* the last value wins; meta: when, for merging CPUs */
		val = v;
		meta = t->now;
		break;
	}
	st64(g, p, 0, val);
	st64(g, p, 8, meta);
	st64(g, p, 16, t->epoch);
}

/* @m[k] = tseries(v, interval, num[, fn]): the key's bucket is the current
 * interval's number modulo num, like bpftrace's ring of intervals. init:
 * value_size bytes of the caller's stack (an out-of-line function's own). */
void cg_tseries_update(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef init,
		       LLVMValueRef v)
{
	struct ts_now t = { .now = tseries_now(g, init) };
	uint64_t iv = m->lhist_min > 0 ? (uint64_t)m->lhist_min : 1;

	t.epoch = LLVMBuildUDiv(g->B, t.now, cg_u64(g, iv), "");
	st64(g, key, m->bpf_key_size - 8,
	     LLVMBuildURem(g->B, t.epoch, cg_u64(g, sp_hist_nbuckets(m->agg, 0, m->lhist_max, 0)),
			   ""));
	cg_agg_upsert(g, m, key, init, v, tseries_apply, &t);
}

/* Buckets a hist/lhist key can have (sp_log2_bucket, sp_lin_bucket). */
static uint64_t agg_nbuckets(const struct cg_map *m)
{
	return sp_hist_nbuckets(m->agg, m->lhist_min, m->lhist_max, m->lhist_step);
}

/* A histogram's entries are stored per bucket (key + u64 bucket): deleting
 * key k deletes each of its buckets, in a bounded loop; 1 if any was there. */
static LLVMValueRef delete_buckets(struct cg *g, struct cg_map *m, LLVMValueRef key)
{
	LLVMBasicBlockRef entry = LLVMGetInsertBlock(g->B);
	LLVMBasicBlockRef body = cg_block(g, "del_bucket"), done = cg_block(g, "del_done");
	LLVMValueRef b, any, next, gone, args[2] = { m->gv, key };

	LLVMBuildBr(g->B, body);
	LLVMPositionBuilderAtEnd(g->B, body);
	b = LLVMBuildPhi(g->B, g->i64, "bucket");
	any = LLVMBuildPhi(g->B, g->i64, "any");
	st64(g, key, m->bpf_key_size - 8, b);
	gone = LLVMBuildICmp(g->B, LLVMIntEQ, cg_call_helper(g, BPF_FUNC_map_delete_elem, g->i64,
							      args, 2), cg_u64(g, 0), "");
	gone = LLVMBuildOr(g->B, any, LLVMBuildZExt(g->B, gone, g->i64, ""), "");
	next = LLVMBuildAdd(g->B, b, cg_u64(g, 1), "");
	LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntULT, next, cg_u64(g, agg_nbuckets(m)), ""),
			body, done);
	LLVMBasicBlockRef from[2] = { entry, body };
	LLVMAddIncoming(b, (LLVMValueRef[]){ cg_u64(g, 0), next }, from, 2);
	LLVMAddIncoming(any, (LLVMValueRef[]){ cg_u64(g, 0), gone }, from, 2);
	LLVMPositionBuilderAtEnd(g->B, done);
	return gone;
}

static LLVMValueRef map_delete(struct cg *g, const struct sp_node *mapnode)
{
	struct cg_map *m = cg_map_find(g, mapnode->name);
	LLVMValueRef args[2], rc;

	if (!m)
		return cg_u64(g, 0);
	m->bpf_reads = true;
	args[0] = m->gv;
	args[1] = cg_map_key(g, m, mapnode);
	if (cg_agg_bucketed(m->agg))
		return delete_buckets(g, m, args[1]);
	rc = cg_call_helper(g, BPF_FUNC_map_delete_elem, g->i64, args, 2);
	cg_helper_check(g, rc, 1, SP_LOST_HELPER_DELETE);
	return LLVMBuildZExt(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, rc, cg_u64(g, 0), ""), g->i64, "");
}

static LLVMValueRef map_has_key(struct cg *g, const struct sp_node *mapnode)
{
	struct cg_map *m = cg_map_find(g, mapnode->name);
	LLVMValueRef key;

	if (!m)
		return cg_u64(g, 0);
	if (cg_agg_bucketed(m->agg)) {
		cg_error(g, mapnode->span, "has_key() of a %s() map is not supported",
			 sp_agg_name(m->agg));
		return cg_u64(g, 0);
	}
	m->bpf_reads = true;
	key = cg_map_key(g, m, mapnode);
	return LLVMBuildZExt(g->B, LLVMBuildIsNotNull(g->B, map_lookup(g, m, key), ""), g->i64, "");
}

static LLVMValueRef map_len(struct cg *g, const struct sp_node *mapnode)
{
	struct cg_map *m = cg_map_find(g, mapnode->name);

	if (!m)
		return cg_u64(g, 0);
	if (cg_agg_bucketed(m->agg)) {
		cg_error(g, mapnode->span, "len() of a %s() map is not supported",
			 sp_agg_name(m->agg));
		return cg_u64(g, 0);
	}
	m->bpf_reads = true; /* every entry stays in the kernel, none moves to user space */
	return cg_call_fn(g, "sp_map_len", &m->gv, 1);
}

/* delete(@m[k]), has_key(@m[k]) (sema moved the key of delete(@m, k) into
 * the map reference) and len(@m): the emitters of stdlib/builtins.def. */
static const struct sp_node *map_arg(struct cg *g, const struct sp_node *n)
{
	if (n->list.len == 1 && n->list.items[0]->kind == SP_N_MAP)
		return n->list.items[0];
	cg_error(g, n->span, "%s needs a map element: %s(@m, key)", n->name, n->name);
	return NULL;
}

LLVMValueRef cg_emit_delete(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *m = map_arg(g, n);

	return m ? map_delete(g, m) : cg_u64(g, 0);
}

LLVMValueRef cg_emit_has_key(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *m = map_arg(g, n);

	return m ? map_has_key(g, m) : cg_u64(g, 0);
}

LLVMValueRef cg_emit_len(struct cg *g, const struct sp_node *n)
{
	const struct sp_node *m = map_arg(g, n);

	return m ? map_len(g, m) : cg_u64(g, 0);
}

/* ---- the plan's view of the maps ------------------------------------------- */

static void agg_value_field(int agg, bool signed_ts, struct sp_plan_field *f)
{
	static const struct sp_type s64 = { .kind = SP_T_INT, .size = 8, .is_signed = true };
	static const struct sp_type u64 = { .kind = SP_T_INT, .size = 8 };
	const struct sp_type *two[2];

	switch (agg) {
	case SP_AGG_MIN:
	case SP_AGG_MAX:
		two[0] = &s64;
		two[1] = &u64;
		cg_tuple_fields(two, 2, f);
		break;
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		two[0] = &u64;
		two[1] = &s64;
		cg_tuple_fields(two, 2, f);
		break;
	case SP_AGG_SUM:
		cg_field(&s64, 0, f);
		break;
	case SP_AGG_TSERIES: /* the value; its signedness is x's */
		cg_field(signed_ts ? &s64 : &u64, 0, f);
		break;
	default:
		cg_field(&u64, 0, f);
		break;
	}
}

void cg_fill_plan_maps(struct cg *g)
{
	struct sp_plan *p = g->plan;

	p->maps = calloc(g->nmaps + 1, sizeof(*p->maps));
	p->nmaps = g->nmaps;
	for (int i = 0; i < g->nmaps; i++) {
		struct cg_map *m = &g->maps[i];
		struct sp_plan_map *pm = &p->maps[i];

		pm->name = strdup(m->name);
		pm->bpf_name = strdup(m->bpf_name);
		pm->drops_name = strdup(m->drops_name);
		pm->agg = m->agg;
		if (m->keyt)
			cg_field(m->keyt, 0, &pm->key);
		else
			pm->key.kind = SP_F_NONE;
		if (m->key_use && m->key_use->list.len == 1)
			cg_field_fmt(m->key_use->list.items[0], &pm->key);
		for (int k = 0; m->key_use && m->key_use->list.len > 1 && k < pm->key.nelems &&
				k < m->key_use->list.len; k++)
			cg_field_fmt(m->key_use->list.items[k], &pm->key.elems[k]);
		if (m->agg != SP_AGG_NONE)
			agg_value_field(m->agg, m->ts_signed, &pm->value);
		else if (m->valt)
			cg_field(m->valt, 0, &pm->value);
		cg_field_fmt(m->val_use, &pm->value);
		pm->key_size = m->bpf_key_size;
		pm->value_size = m->value_size;
		pm->percpu = m->agg != SP_AGG_NONE;
		/* tseries rows keep their epoch: read whole, never drained */
		pm->drain = may_drain(m) && !m->bpf_reads; /* a declared size is the map's, as in bpftrace */
		pm->declared_max = m->decl_max;
		pm->lhist_min = m->lhist_min;
		pm->lhist_max = m->lhist_max;
		pm->lhist_step = m->lhist_step;
	}
}
