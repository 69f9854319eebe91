//go:build unix && !aix

package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// TestLockNeverWritesThroughALink: a lock file planted as a symbolic link,
// or as a hard link, to a file of someone else's is refused, naming it,
// and that file keeps every byte: taking the lock used to follow the link
// and truncate the file.
func TestLockNeverWritesThroughALink(t *testing.T) {
	for _, plant := range []struct {
		name string
		link func(target, at string) error
		want string
	}{
		{"symbolic", os.Symlink, "is a symbolic link"},
		{"hard", os.Link, "is a hard link of another file"},
	} {
		t.Run(plant.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim.txt")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			report := filepath.Join(dir, "report.json")
			if err := plant.link(victim, reports.LockName(report)); err != nil {
				t.Skipf("cannot make a %s link: %v", plant.name, err)
			}
			l, err := reports.Paths{JSON: report}.Lock()
			if err == nil || !strings.Contains(err.Error(), plant.want) {
				l.Release()
				t.Errorf("Lock over a %s link = %v, want it refused as one", plant.name, err)
			}
			if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
				t.Errorf("the link's target now reads %q", got)
			}
		})
	}
}

// TestLockHoldsReportHTML: report.html is held as the other reports are.
func TestLockHoldsReportHTML(t *testing.T) {
	html := filepath.Join(t.TempDir(), "report.html")
	first, err := reports.Paths{HTML: html}.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if _, err := (reports.Paths{HTML: html}).Lock(); err == nil {
		t.Error("a second run took report.html while the first held it")
	}
}
