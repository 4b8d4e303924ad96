//go:build !linux

package tools

import "os"

// dirPath: without /proc there is no portable way to ask where an open
// directory is; the checks made while opening it (openDir) stand alone.
func dirPath(*os.Root) (string, bool) { return "", false }
