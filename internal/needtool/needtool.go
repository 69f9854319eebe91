// Package needtool finds the external programs that some tests need: a
// test skips, naming the Debian package to install, when its program is
// missing, except where ACPCONFORM_REQUIRE_TOOLS=1 (as .ci/run sets it),
// where a missing program fails the test, so that CI cannot pass by
// skipping.
package needtool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireEnv is the environment variable that makes a missing tool a
// failure rather than a skip, when it is "1".
const RequireEnv = "ACPCONFORM_REQUIRE_TOOLS"

// Path is the path of the program name on the PATH. When there is none,
// it skips t with a message naming debianPackage, or fails t when
// RequireEnv is "1".
func Path(t testing.TB, name, debianPackage string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	msg := name + " is not on the PATH (" + err.Error() + "): install it with apt-get install -y " + debianPackage
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(msg + " (" + RequireEnv + "=1: a missing tool fails)")
		return "" // Fatal ends a real test; a TB of another kind may return
	}
	t.Skip(msg)
	return ""
}

// Python3 is the Python 3 interpreter that the program python3, found on
// the PATH, runs: its sys.executable. A version manager's python3 is a
// shim that finds the interpreter anew at every start (pyenv's, a bash
// script, starts some 300 processes, 0.45 CPU-seconds against the
// interpreter's 0.08), which tests that start Python hundreds of times
// should pay once. It is python3 itself when that does not say, or says a
// file that is not there.
func Python3(ctx context.Context, python3 string) string {
	out, err := exec.CommandContext(ctx, python3, "-c", "import sys; print(sys.executable)").Output()
	exe := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(exe) {
		return python3
	}
	if info, err := os.Stat(exe); err != nil || !info.Mode().IsRegular() {
		return python3
	}
	return exe
}
