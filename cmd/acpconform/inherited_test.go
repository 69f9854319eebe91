//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpconform/acpconform/internal/testbound"
)

// TestInheritedChildrenAreLeftAlone: a shell that execs acpconform hands
// it its children; they are the caller's, and acpconform's end, which
// ends what subjects orphaned, leaves them running: a background job
// (`sleep 300 & exec acpconform --version`) and the process that logs the
// shell's output (`exec > >(tee log); exec acpconform version`), whose
// log is then complete. (That a subject's daemon is still ended is
// TestHostileDaemon's.)
func TestInheritedChildrenAreLeftAlone(t *testing.T) {
	t.Parallel()
	bin, _ := binaries(t)
	dir := t.TempDir()
	ctx := testbound.Context(t)

	t.Run("a background job", func(t *testing.T) {
		pidFile := filepath.Join(dir, "sleep.pid")
		// The sleep's output goes elsewhere: it would hold ours open.
		script := `sleep 300 >/dev/null 2>&1 & echo $! > "$1"; exec "$2" --version`
		if out, err := exec.CommandContext(ctx, "bash", "-c", script, "bash", pidFile, bin).CombinedOutput(); err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		pid := readPid(t, pidFile)
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		if !alive(pid) {
			t.Errorf("the shell's background sleep (pid %d) was ended by acpconform", pid)
		}
	})

	t.Run("the logger of the shell's output", func(t *testing.T) {
		// A logger that writes what it read when its input ends, as tee's
		// last block is written: after acpconform has exited, so after
		// acpconform's end has had its chance to end it.
		log, pidFile := filepath.Join(dir, "log"), filepath.Join(dir, "logger.pid")
		script := `exec > >(all=$(cat); printf '%s\n' "$all" > "$1") 2>&1; echo $! > "$2"; exec "$3" version`
		if out, err := exec.CommandContext(ctx, "bash", "-c", script, "bash", log, pidFile, bin).CombinedOutput(); err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		pid := readPid(t, pidFile)
		// Wait for the logger to exit (a pidfd is readable then), within
		// the test's bound.
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			deadline, _ := ctx.Deadline()
			for {
				ms := max(int(time.Until(deadline).Milliseconds()), 0)
				n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
				if err == unix.EINTR {
					continue
				}
				if n == 0 {
					t.Fatalf("the logger (pid %d) did not exit: %v", pid, testbound.Err(ctx, nil))
				}
				break
			}
			unix.Close(fd)
		}
		data, err := os.ReadFile(log)
		if !strings.Contains(string(data), "acpconform") {
			t.Errorf("the log lacks acpconform --version's output: the logger was ended before it wrote it (%v):\n%q", err, data)
		}
	})
}

// readPid reads the pid a shell wrote to name.
func readPid(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return pid
}
