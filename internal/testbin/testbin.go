// Package testbin builds, once, the command whose package the tests are
// in, and runs it as users do: for the tests of the binaries acpconform
// ships beside the CLI (acpconform-reference-agent and -client).
package testbin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testcost/budget"
)

// Main builds the main package in the working folder into a folder of its
// own, sets *bin to the binary, runs the tests under budget.Main and
// removes the folder; it returns the exit code for TestMain. A build that
// fails is printed and fails the run.
func Main(m *testing.M, bin *string) int {
	here, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", filepath.Base(here))
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, filepath.Base(here))
	if err := gobuild.Run("", "-o", *bin, "."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return budget.Main(m)
}

// Case is a command line and what the binary must do with it: exit with
// Code, its output holding Says.
type Case struct {
	Args []string
	Code int
	Says string
}

// Arguments runs bin with each case's arguments, stdin as its input (nil:
// an empty one), within ctx, and fails t for each case it does not meet.
func Arguments(t *testing.T, ctx context.Context, bin string, stdin io.Reader, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		cmd := exec.CommandContext(ctx, bin, tc.Args...)
		cmd.Stdin = stdin
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch code := 0; {
		case err != nil && !errors.As(err, &exit):
			t.Errorf("%q: %v", tc.Args, err)
		default:
			if exit != nil {
				code = exit.ExitCode()
			}
			if code != tc.Code {
				t.Errorf("%q: exit %d, want %d\n%s", tc.Args, code, tc.Code, out)
			}
		}
		if !strings.Contains(string(out), tc.Says) {
			t.Errorf("%q: output %q, want it to say %q", tc.Args, out, tc.Says)
		}
	}
}
