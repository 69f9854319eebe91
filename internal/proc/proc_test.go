package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testContext is bounded well below the test binary's timeout.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func awaitExit(ctx context.Context, t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-ctx.Done():
		t.Fatalf("%s did not exit: %v", p.name, ctx.Err())
	}
}

func TestStopEndsAProcessThatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	p, err := Start([]string{"sh", "-c", `trap "" TERM; echo started >&2; while :; do sleep 1; done`})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = p.Stop()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop = %v, want the process killed", err)
	}
	if d := time.Since(start); d < 2*StopGrace {
		t.Errorf("stopped after %s, before both graces ran out", d)
	}
	if got, want := p.ExitDescription(), "killed by SIGKILL after ignoring SIGTERM"; got != want {
		t.Errorf("ExitDescription = %q, want %q", got, want)
	}
	if !strings.Contains(p.Stderr.String(), "started") {
		t.Errorf("stderr %q", p.Stderr.String())
	}
}

func TestStopLetsAProcessEndOnItsStdin(t *testing.T) {
	p, err := Start([]string{"cat"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("cat did not end cleanly when its stdin closed: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Exited is not closed after Stop")
	}
	if _, err := p.Stdout.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read from stdout after Stop: %v, want it closed", err)
	}
}

func TestStdoutKeepsAllAProcessWroteBeforeExiting(t *testing.T) {
	// More than a pipe holds (64 KiB), written as fast as the reader takes
	// it, then the process exits at once: the end is still in the pipe.
	const lines = 50000
	var want bytes.Buffer
	for i := 1; i <= lines; i++ {
		fmt.Fprintln(&want, i)
	}
	ctx := testContext(t)
	for run := range 50 {
		p, err := Start([]string{"seq", strconv.Itoa(lines)})
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(bufio.NewReaderSize(p.Stdout, 64<<10))
			got <- b
		}()
		var b []byte
		select {
		case b = <-got:
		case <-ctx.Done():
			p.Stop()
			t.Fatalf("run %d: stdout did not end: %v", run, ctx.Err())
		}
		if err := p.Stop(); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if !bytes.Equal(b, want.Bytes()) {
			t.Fatalf("run %d: read %d of %d bytes", run, len(b), want.Len())
		}
	}
}

func TestStartFailsForAMissingCommand(t *testing.T) {
	if _, err := Start([]string{"/nonexistent/agent"}); err == nil {
		t.Error("a missing command started")
	}
	if _, err := Start(nil); err == nil {
		t.Error("no command started")
	}
}

func TestWaitGetsTheWholeStderrTail(t *testing.T) {
	ctx := testContext(t)
	for run := range 50 {
		p, err := Start([]string{"sh", "-c", "echo LAST-WORDS >&2; exit 5"})
		if err != nil {
			t.Fatal(err)
		}
		awaitExit(ctx, t, p)
		if err := p.Wait(ctx); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got := p.Stderr.String(); got != "LAST-WORDS\n" {
			t.Fatalf("run %d: stderr %q after Wait", run, got)
		}
		if got, want := p.ExitDescription(), "exited with status 5"; got != want {
			t.Fatalf("run %d: ExitDescription = %q, want %q", run, got, want)
		}
		p.Stop()
	}
}

func TestStopGetsTheWholeStderrTail(t *testing.T) {
	// On one CPU the stderr copier runs only when Stop blocks: Stop must
	// wait for it, not merely be slow enough.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ctx := testContext(t)
	for run := range 50 {
		p, err := Start([]string{"sh", "-c", "echo LAST-WORDS >&2; exit 5"})
		if err != nil {
			t.Fatal(err)
		}
		awaitExit(ctx, t, p)
		p.Stop()
		if got := p.Stderr.String(); got != "LAST-WORDS\n" {
			t.Fatalf("run %d: stderr %q after Stop", run, got)
		}
	}
}

func TestWaitIsBoundedWhileADescendantHoldsStderr(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	p, err := Start([]string{"sh", "-c", "sleep 1000 & echo bye >&2"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	awaitExit(ctx, t, p)
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if err := p.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v while sleep holds stderr, want the deadline", err)
	}
	p.Stop() // ends sleep with the group
	if err := p.Wait(ctx); err != nil {
		t.Errorf("Wait after Stop: %v", err)
	}
	if got := p.Stderr.String(); got != "bye\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestExitDescription(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, script, want string
	}{
		{"status 0", "exit 0", "exited with status 0"},
		{"status 5", "exit 5", "exited with status 5"},
		{"its own SIGSEGV", "kill -SEGV $$", "killed by signal SIGSEGV (segmentation fault)"},
		{"its own SIGKILL", "kill -KILL $$", "killed by signal SIGKILL (killed)"},
		{"stdin closed", "cat", "exited with status 0"},
		{"SIGTERM", "exec sleep 1000", fmt.Sprintf("stopped by SIGTERM, still running %s after its stdin closed", StopGrace)},
		{"SIGTERM trapped", `trap "exit 3" TERM; while :; do sleep 0.1; done`, "exited with status 3 after SIGTERM"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := Start([]string{"sh", "-c", c.script})
			if err != nil {
				t.Fatal(err)
			}
			p.Stop()
			if got := p.ExitDescription(); got != c.want {
				t.Errorf("ExitDescription = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("running", func(t *testing.T) {
		t.Parallel()
		p, err := Start([]string{"cat"})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		if got, want := p.ExitDescription(), "still running"; got != want {
			t.Errorf("ExitDescription before the end = %q, want %q", got, want)
		}
	})
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &TailBuffer{Limit: 8}
	b.Write([]byte("hello "))
	b.Write([]byte("world!"))
	if got := b.String(); got != "[4 earlier bytes dropped]\no world!" {
		t.Errorf("TailBuffer = %q", got)
	}
}
