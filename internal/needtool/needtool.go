// Package needtool finds the external programs that some tests need: a
// test skips, naming the Debian package to install, when its program is
// missing, except where ACPCONFORM_REQUIRE_TOOLS=1 (as .ci/run sets it),
// where a missing program fails the test, so that CI cannot pass by
// skipping.
package needtool

import (
	"os"
	"os/exec"
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
