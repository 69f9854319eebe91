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

// A failed check says what to do next, in every report as on the
// terminal: run it alone again, and read each rule it cites.
func ExampleCheck_NextSteps() {
	c := reports.Check{
		ID: "TOK-2/leading-zero", Rules: []string{"TOK-2", "SES-1"}, State: reports.StateFailed,
		Again: "acpconform agent --check TOK-2/leading-zero -v -- ./my-agent",
	}
	for _, l := range c.NextSteps() {
		fmt.Println(l)
	}
	// Output:
	// run it again: acpconform agent --check TOK-2/leading-zero -v -- ./my-agent
	// the rule:     acpconform explain TOK-2
	// other rules:  acpconform explain SES-1
}

func ExampleExplainLine() {
	fmt.Println(reports.ExplainLine("TOK-2"))
	// Output: acpconform explain TOK-2
}

// A check's name ends each container's text with a colon, once: the area's
// title, then a group whose text ends with one, then the check's own.
func ExampleName() {
	fmt.Println(reports.Name([]string{"", "SCH: what ask_choice sends"}, "sends one form request"))
	fmt.Println(reports.Name([]string{"CLI: a client under test", "answers as its scripted user says:"}, "decline"))
	// Output:
	// SCH: what ask_choice sends: sends one form request
	// CLI: a client under test: answers as its scripted user says: decline
}

// A run of several subjects of one role names each check after its
// subject's container first; Within finds it.
func ExampleWithin() {
	name := reports.Name([]string{"reference mirror (in-process)", "REL: a relay under test"}, "keeps ids")
	fmt.Println(reports.Within(name, "reference mirror (in-process)"))
	fmt.Println(reports.Within(name, "reference mirror"))
	// Output:
	// REL: a relay under test: keeps ids true
	//  false
}
