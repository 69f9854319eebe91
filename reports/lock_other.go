//go:build aix || !(unix || windows)

package reports

import "os"

const removeWhileHeld = true

// lockFile holds nothing where no file lock is at hand.
func lockFile(*os.File) (bool, error) { return true, nil }
