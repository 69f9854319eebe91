package needtool_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/needtool"
)

// recorder is a testing.TB that records how a test ended instead of
// ending it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = args[0].(string) }
func (r *recorder) Fatal(args ...any) { r.failed = args[0].(string) }

func TestPathFindsATool(t *testing.T) {
	if got := needtool.Path(t, "sh", "dash"); !strings.HasSuffix(got, "/sh") {
		t.Errorf("Path(sh) = %q, want the path of sh", got)
	}
}

// A missing tool skips, naming its package; with the variable set, it
// fails.
func TestPathSkipsOrFails(t *testing.T) {
	const missing = "acpconform-no-such-tool"
	t.Setenv(needtool.RequireEnv, "")
	r := &recorder{TB: t}
	needtool.Path(r, missing, "the-package")
	if !strings.Contains(r.skipped, "apt-get install -y the-package") || r.failed != "" {
		t.Errorf("without %s: skipped %q, failed %q; want a skip naming the package", needtool.RequireEnv, r.skipped, r.failed)
	}
	t.Setenv(needtool.RequireEnv, "1")
	r = &recorder{TB: t}
	needtool.Path(r, missing, "the-package")
	if !strings.Contains(r.failed, "apt-get install -y the-package") || r.skipped != "" {
		t.Errorf("with %s=1: skipped %q, failed %q; want a failure naming the package", needtool.RequireEnv, r.skipped, r.failed)
	}
}

// A shim in front of Python, as a version manager puts on the PATH, is
// looked through; a python3 that does not name an interpreter is kept.
func TestPython3LooksThroughAShim(t *testing.T) {
	python3 := needtool.Path(t, "python3", "python3")
	dir := t.TempDir()
	shim := filepath.Join(dir, "python3")
	if err := os.WriteFile(shim, []byte("#!/bin/sh\nexec "+python3+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := needtool.Python3(t.Context(), shim)
	if got == shim || !filepath.IsAbs(got) {
		t.Errorf("Python3(a shim) = %q, want the interpreter behind it", got)
	}
	if out, err := exec.Command(got, "-c", "print(6*7)").Output(); err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Errorf("%s runs no Python: %q, %v", got, out, err)
	}
	liar := filepath.Join(dir, "liar")
	if err := os.WriteFile(liar, []byte("#!/bin/sh\necho /no/such/python\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := needtool.Python3(t.Context(), liar); got != liar {
		t.Errorf("Python3(a program naming no interpreter) = %q, want it kept", got)
	}
}
