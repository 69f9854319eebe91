//go:build aix || !(unix || windows)

package reports

import "os"

// noFollow is nothing where symbolic links are not followed by open, or
// cannot be refused by it.
const noFollow = 0

// links is 1: the file's names are not counted here.
func links(os.FileInfo) uint64 { return 1 }

const removeWhileHeld = true

// lockFile holds nothing where no file lock is at hand.
func lockFile(*os.File) (bool, error) { return true, nil }
