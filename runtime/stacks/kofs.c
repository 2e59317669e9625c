/* runtime/stacks/kofs.c: vm_area_struct, file, inode and super_block field offsets from vmlinux BTF.
 *
 * And where a task's saved user registers are (task_struct.stack, the
 * size of struct pt_regs), for kernels without bpf_task_pt_regs (5.15).
 *
 * Members are found by name through anonymous structs and unions (6.x
 * kernels keep vm_flags in a union, vm_start in an anonymous struct), the
 * offsets summed on the way down.
 */
#include "runtime/stacks/kofs.h"

#include <bpf/btf.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

/* Byte offset of member `name` of struct/union type `id` (anonymous
 * members searched too); -1 when absent. */
static long member_off(const struct btf *btf, __u32 id, const char *name, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || depth > 4 || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		long sub;

		if (n && n[0] && strcmp(n, name) == 0)
			return btf_member_bit_offset(t, i) / 8;
		if (n && n[0])
			continue;
		sub = member_off(btf, btf__resolve_type(btf, m->type), name, depth + 1);
		if (sub >= 0)
			return btf_member_bit_offset(t, i) / 8 + sub;
	}
	return -1;
}

static int field(const struct btf *btf, const char *type, const char *name, __u32 *out)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	long off = id > 0 ? member_off(btf, (__u32)id, name, 0) : -1;

	if (off < 0)
		return -ENOENT;
	*out = (__u32)off;
	return 0;
}

/* x86-64's task_pt_regs(): the user registers saved at kernel entry lie at
 * the top of the task's kernel stack, THREAD_SIZE (16 KB, 32 KB with KASAN,
 * told by its struct kasan_cache) above task->stack, with no padding. */
static void task_regs(const struct btf *btf, struct sp_unw_kofs *k)
{
	int id = btf__find_by_name_kind(btf, "pt_regs", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	__u32 thread_size = btf__find_by_name_kind(btf, "kasan_cache", BTF_KIND_STRUCT) > 0 ? 32768
												 : 16384;

	if (!t || t->size >= thread_size || field(btf, "task_struct", "stack", &k->task_stack))
		return;
	k->regs_top = thread_size - t->size;
	k->regs_ok = 1;
}

/* Every offset sprof takes from vmlinux BTF, read once per process:
 * parsing the 6 MB file costs ~11 ms, and the unwinder and the Ruby
 * walker each asked for it on every start. */
static struct {
	pthread_once_t once;
	struct sp_unw_kofs vma;
	int vma_err;
	uint32_t fsbase;
	int fsbase_err;
} kernel = { .once = PTHREAD_ONCE_INIT };

static void read_kernel(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct sp_unw_kofs *k = &kernel.vma;
	__u32 thread = 0, fsbase = 0;

	if (!btf) {
		kernel.vma_err = kernel.fsbase_err = -ENOENT;
		return;
	}
	kernel.vma_err = field(btf, "vm_area_struct", "vm_start", &k->vm_start) ?:
			 field(btf, "vm_area_struct", "vm_end", &k->vm_end) ?:
			 field(btf, "vm_area_struct", "vm_pgoff", &k->vm_pgoff) ?:
			 field(btf, "vm_area_struct", "vm_flags", &k->vm_flags) ?:
			 field(btf, "vm_area_struct", "vm_file", &k->vm_file) ?:
			 field(btf, "file", "f_inode", &k->f_inode) ?:
			 field(btf, "inode", "i_ino", &k->i_ino) ?:
			 field(btf, "inode", "i_sb", &k->i_sb) ?:
			 field(btf, "super_block", "s_dev", &k->s_dev);
	k->ok = kernel.vma_err == 0;
	task_regs(btf, k);
	/* a forked child's parent (bpf/unwind.bpf.c: its entry until the
	 * child's own is made) */
	if (field(btf, "task_struct", "real_parent", &k->task_parent) ||
	    field(btf, "task_struct", "tgid", &k->task_tgid) ||
	    field(btf, "task_struct", "self_exec_id", &k->task_exec_id))
		k->task_parent = 0;
	if (field(btf, "task_struct", "mm", &k->task_mm))
		k->task_mm = 0;
	kernel.fsbase_err = field(btf, "task_struct", "thread", &thread) ?:
			    field(btf, "thread_struct", "fsbase", &fsbase);
	kernel.fsbase = thread + fsbase;
	btf__free(btf);
}

static void *prefetch_thread(void *arg)
{
	(void)arg;
	pthread_once(&kernel.once, read_kernel);
	return NULL;
}

/* The thread takes no signals: they stay the main and signal threads'. */
void sp_kofs__prefetch(void)
{
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;

	if (pthread_attr_init(&a))
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED))
		pthread_create(&t, &a, prefetch_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
}

int sp_kofs__read(struct sp_unw_kofs *k)
{
	pthread_once(&kernel.once, read_kernel);
	*k = kernel.vma;
	/* Go's current g is in its TLS (bpf/unwind.bpf.c, GO_SWITCH rows) */
	k->task_fsbase = kernel.fsbase_err ? 0 : kernel.fsbase;
	return kernel.vma_err;
}

int sp_kofs__task_fsbase(uint32_t *off)
{
	pthread_once(&kernel.once, read_kernel);
	if (!kernel.fsbase_err)
		*off = kernel.fsbase;
	return kernel.fsbase_err;
}
