// Package inputfile reads the files a user names as acpconform's input (a
// report to diff or merge, a baseline): regular files only, bounded, and
// never blocking on what is no file, such as a FIFO nobody writes to.
package inputfile

import (
	"fmt"
	"io"
	"os"
)

// Read returns the contents of the regular file at path, or an error
// naming it: path is no regular file (a FIFO, a device, a directory), or
// it holds more than limit bytes. Opening a FIFO does not wait for a
// writer (O_NONBLOCK where the system has it), so Read never blocks on
// one.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err // names the file
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, kind(st.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	case int64(len(data)) > limit:
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, nil
}

// TooLargeError is a file over Read's limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %d bytes", e.Path, e.Limit)
}

// kind names what a file that is not regular is.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
