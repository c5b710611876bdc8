// File: allocator_config.cc
// nodeprobe allocates through jemalloc (Debian's libjemalloc2) in the
// builds it ships; sanitizer builds keep their own allocators. Why: a
// daemon that strangers can reach must give back what a flood of
// connections made it hold. Under glibc the coordinator kept 12.8 MB after
// 8 waves of 3000 junk connections (1.64x idle): gRPC's epoll poller keeps
// every connection's small fd record on a freelist for reuse, and those
// survivors, scattered through glibc's arena, pin a page each. jemalloc
// keeps objects of one size together in their own slabs, so what a flood
// freed leaves whole pages behind (bench/stranger_flood.sh: 1.10x idle).
//   narenas:1, tcache:false   one arena, no per-thread caches: nodeprobe's
//                             threads are few and its allocation rate low;
//                             caches would keep memory per thread.
//   dirty/muzzy_decay_ms:0    freed pages go back to the kernel at once
//                             (no background thread needed to purge them).
// An operator may still override any of it with MALLOC_CONF.
extern "C" {
// jemalloc reads this symbol at its first allocation.
const char* malloc_conf = "narenas:1,tcache:false,dirty_decay_ms:0,muzzy_decay_ms:0";
}
