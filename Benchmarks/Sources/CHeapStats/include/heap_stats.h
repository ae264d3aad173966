#ifndef SHARK_HEAP_STATS_H
#define SHARK_HEAP_STATS_H

#include <stddef.h>

/// The bytes the C heap has handed out and not taken back (small blocks and mmap'd large
/// ones): what the benchmark samples to find each backend's peak. 0 where unknown.
size_t shark_heap_in_use(void);

#endif
