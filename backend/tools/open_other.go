//go:build !unix

package tools

// openNonblock: FIFOs do not block opens on other systems.
const openNonblock = 0
