//go:build unix

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
)

// TestInputsThatAreFIFOsAreRefusedAtOnce: a FIFO no one writes to, given
// where acpconform reads a file (diff's reports, merge's shards, a
// baseline), is refused with exit 2 naming it, at once: opening it used
// to wait for a writer for ever, and SIGTERM did not end the wait.
func TestInputsThatAreFIFOsAreRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{
		{"diff", fifo, fifo},
		{"merge", "--json", filepath.Join(dir, "merged.json"), "--junit", "", "--summary", "", "--html", "", fifo},
		{"run", "--baseline", fifo},
	} {
		t.Run(args[0], func(t *testing.T) {
			ctx := testbound.Context(t)
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, args, strings.NewReader(""), &out, &errb) }()
			select {
			case code := <-done:
				if code != exitUsage || !strings.Contains(errb.String(), fifo+": not a regular file (a FIFO)") {
					t.Errorf("%q: exit %d, stderr %q; want 2 and the FIFO refused", args, code, errb.String())
				}
			case <-ctx.Done():
				t.Fatalf("%q blocked on a FIFO: %v", args, testbound.Err(ctx, ctx.Err()))
			}
		})
	}
}
