//go:build bindings

package main

// bindingsBuild: this binary only writes the TypeScript bindings
// (scripts/bindings.sh), which needs no display and takes no command.
const bindingsBuild = true
