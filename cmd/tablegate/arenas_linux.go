//go:build cgo

package main

/*
#include <malloc.h>
*/
import "C"

import "syscall"

// glibc gives each thread that allocates its own malloc arena, reserving 64 MB of address space
// each, up to eight per core: DuckDB's threads reserved about 800 MB that way, so under an
// address-space limit (ulimit -v 2G) a thread could not be created and the Go runtime aborted
// with a crash dump. Under such a limit two arenas keep the reservation small (DuckDB's large
// blocks are mapped on their own either way); without one, nothing changes.
func init() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur != ^uint64(0) /* RLIM_INFINITY */ {
		C.mallopt(C.M_ARENA_MAX, 2)
	}
}
