/* runtime/attach/fentry.h: whether this kernel runs fentry/fexit probes
 * (runtime/attach/fentry.c; --info asks too). */
#ifndef SPROF_RUNTIME_ATTACH_FENTRY_H
#define SPROF_RUNTIME_ATTACH_FENTRY_H

#include <stdbool.h>

/* A tracing program loaded against vfs_read and attached: BPF trampolines
 * (Linux 5.5+, x86-64, BTF, CONFIG_FUNCTION_TRACER). */
bool sp_fentry_available(void);

#endif
