package reports_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/acpconform/acpconform/reports"
)

// A report is written whole or not at all: a write that fails leaves the
// previous one as it was.
func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "reports-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "summary.md")
	_ = reports.WriteFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "## acpconform: conformant\n")
		return err
	})
	err := reports.WriteFile(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "## acpconform: not")
		return errors.New("disk gone")
	})
	kept, _ := os.ReadFile(path)
	fmt.Printf("%v; the file still reads %q\n", err, kept)
	// Output: disk gone; the file still reads "## acpconform: conformant\n"
}

// A run holds its reports from its start to its end; another run given
// the same paths meanwhile is refused.
func ExampleLock() {
	dir, _ := os.MkdirTemp("", "reports-")
	defer os.RemoveAll(dir)
	p := reports.Paths{JSON: filepath.Join(dir, "report.json")}
	held, _ := p.Lock()
	_, err := p.Lock() // as a second run would
	var locked *reports.LockedError
	fmt.Println(errors.As(err, &locked), filepath.Base(locked.File))
	held.Release()
	again, err := p.Lock()
	fmt.Println(err)
	again.Release()
	// Output:
	// true report.json
	// <nil>
}
