/* codegen/cg_maplimit.c: no program uses more maps than the kernel allows.
 *
 * The kernel refuses a program that refers to more than 64 maps (the
 * verifier's MAX_USED_MAPS, every kernel since 4.x), counting its BPF
 * functions too. A drained aggregation is two maps, its other half named
 * bpf_name SP_MAP_ALT_SUFFIX (abi/plan.h SP_FILL_GEN: a drain never races
 * an update), and a program that takes stacks already uses ~55 (the
 * unwinder's and the walkers'). So after optimizing, each program's maps
 * are counted, its functions' included; when a program would go over the
 * limit, the other halves it uses are taken out of the whole module (every
 * use becomes the map itself), until it fits or none is left. Those maps
 * are drained as before the halves (an update racing a drain can be lost;
 * the runtime sees no other half in the object and does not flip). A
 * program over the limit without halves is left to the verifier's message.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

#define CG_MAX_USED_MAPS 64

struct vset {
	LLVMValueRef *v;
	size_t n, cap;
};

static bool vset_has(const struct vset *s, LLVMValueRef v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return true;
	return false;
}

static void vset_add(struct vset *s, LLVMValueRef v)
{
	if (vset_has(s, v))
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		LLVMValueRef *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return; /* no memory: counted short, the verifier still says it */
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
}

static bool is_map(LLVMValueRef v)
{
	const char *sec;

	if (!LLVMIsAGlobalVariable(v))
		return false;
	sec = LLVMGetSection(v);
	return sec && strcmp(sec, ".maps") == 0;
}

/* Maps an operand refers to, through constant expressions. */
static void operand_maps(LLVMValueRef op, struct vset *maps, int depth)
{
	if (is_map(op)) {
		vset_add(maps, op);
		return;
	}
	if (depth > 4 || !LLVMIsAConstantExpr(op))
		return;
	for (int i = 0; i < LLVMGetNumOperands(op); i++)
		operand_maps(LLVMGetOperand(op, i), maps, depth + 1);
}

/* The maps of f and of every function it calls (seen: functions done). */
static void function_maps(LLVMValueRef f, struct vset *maps, struct vset *seen)
{
	if (vset_has(seen, f) || LLVMIsDeclaration(f))
		return;
	vset_add(seen, f);
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
			int n = LLVMGetNumOperands(i);

			for (int k = 0; k < n; k++) {
				LLVMValueRef op = LLVMGetOperand(i, k);

				if (LLVMIsAFunction(op))
					function_maps(op, maps, seen);
				else
					operand_maps(op, maps, 0);
			}
		}
}

static bool is_program(LLVMValueRef f)
{
	const char *sec = LLVMGetSection(f);

	return !LLVMIsDeclaration(f) && sec && *sec && strcmp(sec, ".text") != 0;
}

/* The map whose other half gv is, or NULL when gv is none. */
static struct cg_map *half_of(struct cg *g, LLVMValueRef gv)
{
	for (int i = 0; i < g->nmaps; i++)
		if (g->maps[i].gv_alt == gv && gv != g->maps[i].gv)
			return &g->maps[i];
	return NULL;
}

/* Takes m's other half out of the module: every use becomes the map. */
static void drop_half(struct cg_map *m)
{
	LLVMReplaceAllUsesWith(m->gv_alt, m->gv);
	LLVMDeleteGlobal(m->gv_alt);
	m->gv_alt = m->gv;
}

/* Takes one other half out of the module; false when p uses none. After
 * optimizing, the updates' sp_map_enter/leave may be inlined: they stay
 * (counted as under way, harmless; only programs over 64 maps get here). */
static bool drop_one_half(struct cg *g, const struct vset *maps)
{
	for (size_t i = 0; i < maps->n; i++) {
		struct cg_map *m = half_of(g, maps->v[i]);

		if (m) {
			drop_half(m);
			return true;
		}
	}
	return false;
}

/* Calls of f whose argument 0 is arg0. */
static void calls_with(LLVMValueRef f, LLVMValueRef arg0, struct vset *out)
{
	if (!f)
		return;
	for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef c = LLVMGetUser(u);

		if (LLVMIsACallInst(c) && LLVMGetCalledValue(c) == f && LLVMGetOperand(c, 0) == arg0)
			vset_add(out, c);
	}
}

/* m has no other half now: its updates need not be counted as under way.
 * cg_agg_upsert emitted sp_map_upsert(m, m_alt, ...) and sp_map_leave(m's
 * drops) in pairs, and only for maps with two halves: each upsert becomes
 * sp_map_upsert1(m, ...), each leave goes. Before optimizing (calls). */
static void single_updates(struct cg *g, struct cg_map *m)
{
	LLVMValueRef up = LLVMGetNamedFunction(g->M, "sp_map_upsert");
	LLVMValueRef up1 = LLVMGetNamedFunction(g->M, "sp_map_upsert1");
	LLVMBasicBlockRef at = LLVMGetInsertBlock(g->B);
	struct vset ups = { 0 }, leaves = { 0 };

	calls_with(up, m->gv, &ups);
	calls_with(LLVMGetNamedFunction(g->M, "sp_map_leave"), m->drops_gv, &leaves);
	for (size_t i = 0; up1 && i < ups.n; i++) {
		LLVMValueRef c = ups.v[i], a[5], n;

		for (int k = 0; k < 5; k++) /* map, key, init, drops, id: alt (1) left out */
			a[k] = LLVMGetOperand(c, k < 1 ? k : k + 1);
		LLVMPositionBuilderBefore(g->B, c);
		n = LLVMBuildCall2(g->B, LLVMGlobalGetValueType(up1), up1, a, 5, "");
		LLVMReplaceAllUsesWith(c, n);
		LLVMInstructionEraseFromParent(c);
	}
	for (size_t i = 0; up1 && i < leaves.n; i++)
		LLVMInstructionEraseFromParent(leaves.v[i]);
	if (at)
		LLVMPositionBuilderAtEnd(g->B, at);
	free(ups.v);
	free(leaves.v);
}

void cg_drop_unread_halves(struct cg *g)
{
	for (int i = 0; i < g->nmaps; i++) {
		struct cg_map *m = &g->maps[i];

		if (m->gv_alt == m->gv || !m->bpf_reads)
			continue;
		drop_half(m);
		single_updates(g, m);
	}
}

void cg_limit_maps_per_program(struct cg *g)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(g->M); f; f = LLVMGetNextFunction(f)) {
		if (!is_program(f))
			continue;
		for (;;) {
			struct vset maps = { 0 }, seen = { 0 };
			bool dropped = false;

			function_maps(f, &maps, &seen);
			if (maps.n > CG_MAX_USED_MAPS)
				dropped = drop_one_half(g, &maps);
			free(maps.v);
			free(seen.v);
			if (!dropped)
				break;
		}
	}
}
