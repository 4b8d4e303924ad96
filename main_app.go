//go:build !bindings

package main

// bindingsBuild: see main_bindings.go.
const bindingsBuild = false
