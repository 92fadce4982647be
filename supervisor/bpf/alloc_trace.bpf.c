// eBPF side of the allocation tracer (DESIGN.md §5). Two modes share the maps' layout:
//
// Sampled (always on): the USDT probes ruvio:alloc_sample / ruvio:free_sample that the
// worker fires for the ~1 in 512 KiB allocations it samples (worker/store/alloc_sampler.*).
//
//   sampled_ptrs  {pid, ptr}        -> {size, weight, stack}   which sampled blocks are live
//   class_live    {pid, size class} -> {bytes, count}          weighted live bytes per class
//   stack_live    {pid, stack id}   -> {bytes, count}          weighted live bytes per stack
//
// Full (on demand, one worker for S seconds): uprobes on mimalloc's entry points and
// uretprobes for the returned pointer.
//
//   pending       pid_tgid          -> {size, depth, stack}    an allocation call in flight;
//                                                              depth counts nested entry
//                                                              points (mi_new -> mi_malloc)
//   full_ptrs     {pid, ptr}        -> {size, weight=1, stack} outstanding since the start
//
// Stacks are user stacks (frame pointers) in one stack-trace map; user space symbolizes.
// Only UAPI headers: struct pt_regs and the argument macros, so no vmlinux.h is needed.
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "alloc_trace_maps.h"

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, 16384);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, RUVIO_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 262144);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct ptr_key);
  __type(value, struct ptr_info);
} sampled_ptrs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, struct class_key);
  __type(value, struct live_val);
} class_live SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, struct stack_key);
  __type(value, struct live_val);
} stack_live SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4096);
  __type(key, __u64);
  __type(value, struct pending);
} pending SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1048576);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct ptr_key);
  __type(value, struct ptr_info);
} full_ptrs SEC(".maps");

// Full mode switch, flipped by user space: detaching dozens of uprobes takes the kernel
// seconds, so the probes go quiet at once and are detached off the supervisor's loop.
volatile __u32 full_on = 0;

static __always_inline void add_live(void* map, const void* key, __s64 bytes, __s64 count) {
  struct live_val* v = bpf_map_lookup_elem(map, key);
  if (!v) {
    struct live_val zero = {};
    bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
    v = bpf_map_lookup_elem(map, key);
    if (!v) return;
  }
  __sync_fetch_and_add(&v->bytes, bytes);
  __sync_fetch_and_add(&v->count, count);
}

SEC("usdt")
int BPF_USDT(on_alloc_sample, void* ptr, __u64 size, __u64 weight) {
  __u32 pid = bpf_get_current_pid_tgid() >> 32;
  struct ptr_key k = {.pid = pid, .ptr = (__u64)ptr};
  // Already known: the worker is replaying its live samples for a tracer that just attached.
  if (bpf_map_lookup_elem(&sampled_ptrs, &k)) return 0;
  struct ptr_info info = {.size = size, .weight = weight};
  info.stack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
  bpf_map_update_elem(&sampled_ptrs, &k, &info, BPF_ANY);
  struct class_key ck = {.pid = pid, .size_class = (__u32)size};
  add_live(&class_live, &ck, (__s64)weight, 1);
  struct stack_key sk = {.pid = pid, .stack = info.stack};
  add_live(&stack_live, &sk, (__s64)weight, 1);
  return 0;
}

SEC("usdt")
int BPF_USDT(on_free_sample, void* ptr, __u64 size, __u64 weight) {
  __u32 pid = bpf_get_current_pid_tgid() >> 32;
  struct ptr_key k = {.pid = pid, .ptr = (__u64)ptr};
  struct ptr_info* info = bpf_map_lookup_elem(&sampled_ptrs, &k);
  if (!info) return 0;  // sampled before the tracer attached
  struct class_key ck = {.pid = pid, .size_class = (__u32)info->size};
  add_live(&class_live, &ck, -(__s64)info->weight, -1);
  struct stack_key sk = {.pid = pid, .stack = info->stack};
  add_live(&stack_live, &sk, -(__s64)info->weight, -1);
  bpf_map_delete_elem(&sampled_ptrs, &k);
  return 0;
}

static __always_inline int enter(struct pt_regs* ctx, __u64 size) {
  if (!full_on) return 0;
  __u64 id = bpf_get_current_pid_tgid();
  struct pending* p = bpf_map_lookup_elem(&pending, &id);
  if (p) {
    p->depth++;
    return 0;
  }
  struct pending n = {.size = size, .depth = 1};
  n.stack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
  bpf_map_update_elem(&pending, &id, &n, BPF_ANY);
  return 0;
}

static __always_inline int forget(__u64 ptr) {
  if (ptr == 0 || !full_on) return 0;
  struct ptr_key k = {.pid = bpf_get_current_pid_tgid() >> 32, .ptr = ptr};
  bpf_map_delete_elem(&full_ptrs, &k);
  return 0;
}

SEC("uprobe")
int BPF_KPROBE(full_malloc, __u64 size) { return enter(ctx, size); }

SEC("uprobe")
int BPF_KPROBE(full_calloc, __u64 n, __u64 size) { return enter(ctx, n * size); }

SEC("uprobe")
int BPF_KPROBE(full_realloc, void* old, __u64 size) {
  forget((__u64)old);
  return enter(ctx, size);
}

SEC("uprobe")
int BPF_KPROBE(full_free, void* ptr) { return forget((__u64)ptr); }

SEC("uretprobe")
int BPF_KRETPROBE(full_return, void* ret) {
  if (!full_on) return 0;
  __u64 id = bpf_get_current_pid_tgid();
  struct pending* p = bpf_map_lookup_elem(&pending, &id);
  if (!p) return 0;  // entered before the probes were attached
  if (--p->depth > 0) return 0;
  if (ret) {
    struct ptr_key k = {.pid = id >> 32, .ptr = (__u64)ret};
    struct ptr_info info = {.size = p->size, .weight = 1, .stack = p->stack};
    bpf_map_update_elem(&full_ptrs, &k, &info, BPF_ANY);
  }
  bpf_map_delete_elem(&pending, &id);
  return 0;
}
