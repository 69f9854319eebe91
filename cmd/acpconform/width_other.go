//go:build !unix

package main

import (
	"io"
	"os"

	"github.com/acpconform/acpconform/reports"
)

// terminalWidth is the columns of the console w writes to, which the
// summary wraps at: reports.TerminalColumns, since this platform's build
// does not ask the console; 0 when w is no console, where nothing is
// wrapped, so that what is copied from it is whole.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			return reports.TerminalColumns
		}
	}
	return 0
}
