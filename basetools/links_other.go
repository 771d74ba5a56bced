//go:build !unix

package basetools

import "io/fs"

// linkCount is 1 where the file's links are not known.
func linkCount(fs.FileInfo) uint64 { return 1 }
