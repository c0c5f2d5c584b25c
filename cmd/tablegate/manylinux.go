//go:build manylinux

package main

// The manylinux build (integrations/dagster/build_wheel.sh) links libstdc++ statically. A
// libstdc++.a built against glibc 2.36 or later calls arc4random, which older glibcs lack: its
// calls are routed (-Wl,--wrap=arc4random) to this one, which reads getrandom (glibc 2.25).

/*
#include <stdint.h>
#include <sys/types.h>
#include <sys/random.h>

uint32_t __wrap_arc4random(void) {
	uint32_t v;
	while (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
	}
	return v;
}
*/
import "C"
