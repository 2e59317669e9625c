/* runtime/attach/follow.h: -c and -p follow the target's children (see follow.c). */
#ifndef SPROF_RUNTIME_ATTACH_FOLLOW_H
#define SPROF_RUNTIME_ATTACH_FOLLOW_H

#include <stdbool.h>
#include <sys/types.h>

#include "runtime/attach/probe.h"

struct bpf_object;

/* Attaches the hidden programs that follow root's process tree when obj
 * has them (codegen keeps them for -c and -p without --no-follow; else
 * nothing to do), into links; with `existing` (-p) root's running
 * descendants are followed too. 0 or -errno, the message printed. */
int sp_follow_attach(struct bpf_object *obj, pid_t root, bool existing, struct sp_links *links);

/* The map of followed processes (tgid -> 1) when obj follows, else -1. */
int sp_follow_map_fd(struct bpf_object *obj);

#endif
