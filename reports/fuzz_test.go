package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// FuzzLoadBaseline feeds arbitrary files to the baseline loader: it never
// panics, every error is one line naming the file, and a baseline that loads lists only
// entries with a check and a reason.
func FuzzLoadBaseline(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "baseline.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := reports.LoadBaseline(path)
		if err != nil {
			for _, e := range each(err) {
				if !strings.HasPrefix(e.Error(), path+":") {
					t.Fatalf("LoadBaseline of\n%q\nsays\n%v\nof which %q does not name the file", data, err, e)
				}
				if strings.Contains(e.Error(), "\n") {
					t.Fatalf("LoadBaseline of\n%q\nsays %q, over more than one line", data, e)
				}
			}
			return
		}
		if b.File() != path {
			t.Fatalf("LoadBaseline of\n%q\nsays it came from %q, not %q", data, b.File(), path)
		}
		for i, k := range b.Known {
			if strings.TrimSpace(k.Check) == "" || strings.TrimSpace(k.Reason) == "" {
				t.Fatalf("LoadBaseline of\n%q\nloaded entry %d without a check or a reason: %+v", data, i, k)
			}
		}
	})
}

// each is the errors joined in err, or err alone.
func each(err error) []error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return joined.Unwrap()
	}
	return []error{err}
}
