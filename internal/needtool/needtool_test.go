package needtool_test

import (
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
