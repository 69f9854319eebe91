//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/reports"
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

// TestOutputsThatAreInputsAreRefused: merge --json onto one of its shards'
// reports, or diff --markdown onto HEAD (by another spelling, even), is
// refused with exit 2 before anything is written, and the input keeps
// every byte: both used to overwrite it and exit 0.
func TestOutputsThatAreInputsAreRefused(t *testing.T) {
	dir := t.TempDir()
	report, base := filepath.Join(dir, "report.json"), filepath.Join(dir, "base.json")
	data, _ := json.Marshal(reports.JSON{Acpconform: reports.FormatVersion, Subject: "x", Verdict: reports.Conformant,
		Selection: &reports.Selection{Catalogue: "agent"}, Checks: []reports.Check{{ID: "TOK-1/a", Name: "a", State: reports.StatePassed}}})
	for _, f := range []string{report, base} {
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := dir + "/./report.json" // another spelling of the same file
	for _, args := range [][]string{
		{"merge", "--json", other, "--junit", "", "--summary", "", report},
		{"merge", "--summary", report, "--json", "", "--junit", "", filepath.Join(dir, "none.json"), report},
		{"diff", "--markdown", other, base, report},
	} {
		var out, errb bytes.Buffer
		code := run(testbound.Context(t), args, strings.NewReader(""), &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), "is the input "+report) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the output refused", args, code, errb.String())
		}
		if got, _ := os.ReadFile(report); !bytes.Equal(got, data) {
			t.Fatalf("%q overwrote its input: %q", args, got)
		}
	}
}
