/* Map keys and values shared by the BPF program and the supervisor (C layout, no padding
 * surprises: every struct is a multiple of 8 bytes with explicit fields). */
#ifndef RUVIO_ALLOC_TRACE_MAPS_H
#define RUVIO_ALLOC_TRACE_MAPS_H

#include <linux/types.h>

#define RUVIO_STACK_DEPTH 32

struct ptr_key {
  __u32 pid;
  __u32 pad;
  __u64 ptr;
};

struct ptr_info {
  __u64 size;   /* usable size: mimalloc's size class for the sampled mode */
  __u64 weight; /* bytes this sample stands for (1 in full mode: count the size itself) */
  __s32 stack;  /* stack-trace map id, < 0 when the stack could not be taken */
  __u32 pad;
};

struct class_key {
  __u32 pid;
  __u32 size_class;
};

struct stack_key {
  __u32 pid;
  __s32 stack;
};

struct live_val {
  __s64 bytes;
  __s64 count;
};

struct pending {
  __u64 size;
  __u32 depth;
  __s32 stack;
};

#endif
