//go:build unix

package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acpconform/acpconform/reports"
)

// terminalWidth is the columns of the terminal w writes to, which the
// summary wraps at; 0 when w is no terminal (a CI log, a pipe, a file),
// where nothing is wrapped, so that what is copied from it is whole.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	size, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	if size.Col == 0 {
		return reports.TerminalColumns // a terminal that does not say
	}
	return int(size.Col)
}
