/* runtime/stacks/kallsyms.h: kernel text symbols from /proc/kallsyms.
 *
 * Read once, kept sorted by address; a symbol extends to the next one.
 * kallsyms shows runtime addresses, so KASLR needs no correction. When the
 * kernel hides addresses (kptr_restrict, no CAP_SYSLOG) every address reads
 * as zero and nothing resolves.
 */
#ifndef SPROF_RUNTIME_STACKS_KALLSYMS_H
#define SPROF_RUNTIME_STACKS_KALLSYMS_H

#include <stdint.h>

struct sp_ksym {
	uint64_t addr;
	const char *name;
	const char *module;    /* "[kernel.kallsyms]" or the module's name */
};

struct sp_kallsyms;

/* path NULL reads /proc/kallsyms. NULL with errno set on failure. */
struct sp_kallsyms *sp_kallsyms__load(const char *path);
void sp_kallsyms__free(struct sp_kallsyms *ks); /* accepts NULL */
/* The text symbol containing addr, or NULL. */
const struct sp_ksym *sp_kallsyms__find(const struct sp_kallsyms *ks, uint64_t addr);
/* Address of a text symbol by name; 0 when absent. */
uint64_t sp_kallsyms__lookup(const struct sp_kallsyms *ks, const char *name);
int sp_kallsyms__count(const struct sp_kallsyms *ks);
/* One symbol of any type (text or data) by name, without loading the
 * table (kaddr() at compile time). path NULL: /proc/kallsyms. 0, -ENOENT,
 * -EPERM when the kernel hides addresses, or -errno. */
int sp_kallsyms_addr_of(const char *path, const char *name, uint64_t *addr);

/* Hex GNU build id from a raw note file: /sys/kernel/notes for the kernel,
 * /sys/module/MOD/notes/.note.gnu.build-id for a module. malloc'd or NULL. */
char *sp_kernel_build_id(const char *notes_path);

#endif
