package script_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/mocks/script"
)

// wholeScript are the problems of a script as a whole, which have no line
// of their own: the only errors that may name the file without a line.
var wholeScript = regexp.MustCompile(`^(name .* is not kebab-case|rule .* is not a CONTRACT ID|peer is .*, want client or agent|capabilities and unregistered are for the client peer|no steps)`)

// FuzzLoad feeds arbitrary files to the script loader: it never panics;
// every error names the file and a line of it ("file:LINE: reason"), but
// for a problem of the script as a whole ("file: no steps"); and a script
// that loads validates again.
func FuzzLoad(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := script.Load(path)
		if err != nil {
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range each(err) {
				if problem := located(path, e.Error(), lines); problem != "" {
					t.Fatalf("Load of\n%q\nsays\n%v\n%s: %q", data, err, problem, e)
				}
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Load of\n%q\nreturned a script that does not validate: %v", data, err)
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

// located says what is wrong with one error about the file at path, which
// has lines lines; "" when nothing is.
func located(path, msg string, lines int) string {
	rest, ok := strings.CutPrefix(msg, path+":")
	if !ok {
		return "an error does not start with the file's name"
	}
	if reason, ok := strings.CutPrefix(rest, " "); ok {
		if !wholeScript.MatchString(reason) {
			return "an error names no line of the file"
		}
		return ""
	}
	n, reason, ok := strings.Cut(rest, ": ")
	line, err := strconv.Atoi(n)
	switch {
	case !ok || err != nil:
		return "an error names no line of the file"
	case line < 1 || line > lines:
		return "the error names line " + n + ", which the file does not have"
	case strings.TrimSpace(reason) == "":
		return "an error gives no reason"
	}
	return ""
}
