package reports_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// expectOnly fails t unless dir holds exactly the files names.
func expectOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// A writer that fails half-way leaves the report that was there whole,
// and no temporary file; one that succeeds replaces it.
func TestWriteFileIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, []byte("the previous run's report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("the writer broke")
	err := reports.WriteFile(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"verdict": "half`); err != nil {
			return err
		}
		return broken
	})
	if !errors.Is(err, broken) {
		t.Errorf("WriteFile = %v, want the writer's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "the previous run's report\n" {
		t.Errorf("after a failed write the report reads %q, want the previous one whole", got)
	}
	expectOnly(t, dir, "report.json")

	if err := reports.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "this run's\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "this run's\n" {
		t.Errorf("the report reads %q, want this run's", got)
	}
	if st, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o644) {
		t.Errorf("the report: %v, %v; want mode 0644", st, err)
	}
	expectOnly(t, dir, "report.json")
}

// A device is written in place, not replaced; a link's file is replaced,
// the link kept.
func TestWriteFileKeepsDevicesAndLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null, and links need privileges")
	}
	if err := reports.WriteFile(os.DevNull, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Errorf("WriteFile(%s) = %v", os.DevNull, err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s is now %v (%v)", os.DevNull, st, err)
	}
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", link); err != nil {
		t.Fatal(err)
	}
	if err := reports.WriteFile(link, func(w io.Writer) error { _, err := io.WriteString(w, "through the link"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "through the link" {
		t.Errorf("the link's target reads %q", got)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", st, err)
	}
}

// A second hold on a report is refused, naming the file and the holder,
// until the first lets go; then the lock file is gone.
func TestLockRefusesASecondRun(t *testing.T) {
	dir := t.TempDir()
	p := reports.Paths{JUnit: filepath.Join(dir, "r", "junit.xml"), JSON: filepath.Join(dir, "r", "report.json"), Summary: reports.StdoutPath}
	first, err := p.Lock()
	if err != nil {
		t.Fatal(err)
	}
	_, err = reports.Lock(filepath.Join(dir, "other.json"), p.JSON)
	var locked *reports.LockedError
	if !errors.As(err, &locked) || locked.File != p.JSON || locked.Holder != "pid "+strconv.Itoa(os.Getpid()) {
		t.Fatalf("a second Lock = %v, want a *LockedError naming %s and this process", err, p.JSON)
	}
	expectOnly(t, filepath.Join(dir, "r"), ".junit.xml.lock", ".report.json.lock")
	expectOnly(t, dir, "r") // the refused Lock let other.json go again
	first.Release()
	expectOnly(t, filepath.Join(dir, "r"))
	again, err := p.Lock()
	if err != nil {
		t.Fatalf("Lock after Release = %v", err)
	}
	again.Release()
}

// A lock file its run left behind (killed, say) holds nothing: the next
// run takes it over. Files that are no regular files take no lock.
func TestLockTakesOverALeftLockFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(reports.LockName(path), []byte("pid 999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := reports.Lock(path, reports.StdoutPath, "", os.DevNull)
	if err != nil {
		t.Fatalf("Lock over a left lock file = %v", err)
	}
	if got, _ := os.ReadFile(reports.LockName(path)); string(got) != "pid "+strconv.Itoa(os.Getpid())+"\n" {
		t.Errorf("the lock file reads %q, want this process", got)
	}
	l.Release()
	l.Release()
	expectOnly(t, dir)
}

// An error names the file the user named, not the temporary one.
func TestWriteFileErrorNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "baseline.yaml")
	err := reports.WriteFile(path, func(io.Writer) error { return nil })
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile = %v, want an error naming %s", err, path)
	}
}
