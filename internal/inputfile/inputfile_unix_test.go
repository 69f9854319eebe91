//go:build unix

package inputfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpconform/acpconform/internal/inputfile"
	"github.com/acpconform/acpconform/internal/testbound"
)

// TestReadRefusesAFIFOWithoutBlocking: a FIFO no one writes to is refused
// at once; before O_NONBLOCK, opening it waited for a writer for ever.
func TestReadRefusesAFIFOWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx := testbound.Context(t)
	done := make(chan error, 1)
	go func() {
		_, err := inputfile.Read(fifo, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
			t.Errorf("Read(FIFO) = %v, want it refused as a FIFO", err)
		}
	case <-ctx.Done():
		t.Fatalf("Read blocked on a FIFO: %v", testbound.Err(ctx, ctx.Err()))
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.json")
	if err := os.WriteFile(file, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := inputfile.Read(file, 5); err != nil || string(data) != "12345" {
		t.Errorf("Read = %q, %v", data, err)
	}
	var large *inputfile.TooLargeError
	if _, err := inputfile.Read(file, 4); !errors.As(err, &large) {
		t.Errorf("Read over the limit = %v, want a TooLargeError", err)
	}
	if _, err := inputfile.Read(dir, 4); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("Read(dir) = %v", err)
	}
	if _, err := inputfile.Read("/dev/zero", 4); err == nil || !strings.Contains(err.Error(), "a device") {
		t.Errorf("Read(/dev/zero) = %v", err)
	}
}
