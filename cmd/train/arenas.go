package main

// glibc gives each thread that allocates its own malloc arena, 64 MiB of address space reserved
// (the Go runtime's threads of a cgo build allocate as they start), so that under an
// address-space limit (ulimit -v) posformer ran out of it with a dozen threads doing nothing.
// One arena is enough: Go allocates its own memory, not through malloc. A constructor runs
// before the Go runtime starts its threads. Built only with cgo (without it there is no glibc
// malloc in the process).

/*
#include <malloc.h>

__attribute__((constructor)) static void posformerOneArena(void) { mallopt(M_ARENA_MAX, 1); }
*/
import "C"
