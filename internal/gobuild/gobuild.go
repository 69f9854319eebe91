// Package gobuild builds this module's programs for its tests as releases
// build them (.goreleaser.yaml, the Dockerfile): paths trimmed and without
// cgo. The tests then start the binaries users run, and a start costs a
// sixth less CPU than a cgo build's, whose dynamic loader and C runtime
// every process pays (43 against 52 ms for `acpconform version`), in
// suites that start a program thousands of times.
package gobuild

import (
	"fmt"
	"os"
	"os/exec"
)

// Command is `go build -trimpath ARGS...` run in dir ("" for the working
// folder) without cgo; a caller may add to its Env before running it.
func Command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build", "-trimpath"}, args...)...)
	cmd.Dir = dir
	cmd.Env = Environ()
	return cmd
}

// Environ is the environment of such a build: this program's, without
// cgo. A `go test -c` for the tests runs in it too.
func Environ() []string { return append(os.Environ(), "CGO_ENABLED=0") }

// Run runs Command(dir, args...); its error holds what go build said.
func Run(dir string, args ...string) error {
	if out, err := Command(dir, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}
