package proc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/acpconform/acpconform/internal/testbound"
)

// printDeathSignal, as the only argument of this test binary, makes it a
// helper that reads a line, prints its parent-death signal and exits.
const printDeathSignal = "proc-test-print-parent-death-signal"

func init() {
	if len(os.Args) != 2 || os.Args[1] != printDeathSignal {
		return
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	var sig int32
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0, 0, 0); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(sig)
	os.Exit(0)
}

// requireGone fails t unless every pid is gone from /proc: a zombie no one
// has reaped is left behind.
func requireGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if s, err := readStat(pid); err == nil {
			t.Errorf("process %d is left behind: state %c, parent %d, group %d", pid, s.state, s.ppid, s.pgid)
		}
	}
}

// requireGroupsGone fails t unless no process, zombies included, is in any
// of the groups.
func requireGroupsGone(t *testing.T, pgids ...int) {
	t.Helper()
	for _, s := range processes() {
		if slices.Contains(pgids, s.pgid) {
			t.Errorf("process %d is left behind in group %d: state %c, parent %d", s.pid, s.pgid, s.state, s.ppid)
		}
	}
}

func TestReadStatReadsThisProcess(t *testing.T) {
	s, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// The state is the main thread's, which may sleep while this one runs.
	if s.ppid != os.Getppid() || s.pgid != syscall.Getpgrp() || (s.state != 'R' && s.state != 'S') || s.start == 0 {
		t.Errorf("readStat = %+v, want parent %d, group %d, alive, a start time", s, os.Getppid(), syscall.Getpgrp())
	}
	// The same process: its state may have changed between the two reads.
	same := func(p procStat) bool { p.state = s.state; return p == s }
	if !slices.ContainsFunc(processes(), same) {
		t.Error("processes does not list this process")
	}
}

func TestParseStatCountsFieldsFromTheNamesEnd(t *testing.T) {
	// A command name may hold spaces and parentheses: prctl(PR_SET_NAME).
	line := "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200 18446744073709551615\n"
	s, err := parseStat(4242, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if want := (procStat{pid: 4242, ppid: 17, pgid: 4242, state: 'S', start: 987654}); s != want {
		t.Errorf("parseStat = %+v, want %+v", s, want)
	}
	for _, bad := range []string{"4242 no name S 1 2", "4242 (short) S 1 2 3", "4242 (x) S one 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"} {
		if s, err := parseStat(4242, []byte(bad)); err == nil {
			t.Errorf("parseStat(%q) = %+v, want an error", bad, s)
		}
	}
}

// BenchmarkProcesses times one look at every process, which stopping a
// subject takes a few of.
func BenchmarkProcesses(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(processes()) == 0 {
			b.Fatal("no process listed")
		}
	}
}

func TestStopKillsAGrandchildThatLeftTheGroupHoldingStdout(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	p := start(t, "sh", "-c", `setsid sh -c 'echo $$; exec sleep 1000' & exit 0`)
	grandchild := pidLine(ctx, t, p)
	group := pgid(t, grandchild)
	awaitExit(ctx, t, p) // no parent link left to walk, no group in common
	if group == p.cmd.Process.Pid {
		t.Fatalf("the grandchild %d did not leave the group", grandchild)
	}
	stop(ctx, t, func() { p.Stop() })
	requireGone(t, p.cmd.Process.Pid, grandchild)
	requireGroupsGone(t, p.cmd.Process.Pid, group)
}

func TestStopKillsAGrandchildThatLeftTheGroupAndClearedItsEnvironment(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	// Only the parent links find it, while its parent runs.
	p := start(t, "sh", "-c", `setsid env -i /bin/sh -c 'echo $$; exec /bin/sleep 1000' & wait`)
	grandchild := pidLine(ctx, t, p)
	group := pgid(t, grandchild)
	if group == p.cmd.Process.Pid {
		t.Fatalf("the grandchild %d did not leave the group", grandchild)
	}
	stop(ctx, t, func() { p.Stop() })
	if got, want := p.ExitDescription(), "stopped by SIGTERM, still running 2s after its stdin closed"; got != want {
		t.Errorf("ExitDescription = %q, want %q", got, want)
	}
	requireGone(t, p.cmd.Process.Pid, grandchild)
	requireGroupsGone(t, p.cmd.Process.Pid, group)
}

func TestBecomeSubreaperAdoptsOrphans(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	p := start(t, "sh", "-c", "sleep 1000 & echo $!")
	orphan := pidLine(ctx, t, p)
	awaitExit(ctx, t, p)
	s, err := readStat(orphan)
	if err != nil {
		t.Fatal(err)
	}
	if s.ppid != os.Getpid() {
		t.Errorf("the orphan's parent is %d, not this process (%d)", s.ppid, os.Getpid())
	}
	stop(ctx, t, func() { p.Stop() })
	requireGone(t, p.cmd.Process.Pid, orphan)
	requireGroupsGone(t, p.cmd.Process.Pid)
}

func TestStopLeavesOtherChildrenToTheirWait(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	// A child not started here, exited and not yet waited for: Stop reaps
	// what it killed, and must not take this one's status.
	other := exec.Command("sh", "-c", "exit 3")
	out, err := other.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		io.Copy(io.Discard, out) // to EOF: it is exiting
		close(ended)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal(testbound.Err(ctx, ctx.Err()))
	}
	p := start(t, "sh", "-c", `setsid sh -c 'echo $$; exec sleep 1000' & exit 0`)
	grandchild := pidLine(ctx, t, p)
	awaitExit(ctx, t, p)
	stop(ctx, t, func() { p.Stop() }) // kills and reaps the grandchild, ours now
	var exit *exec.ExitError
	if err := other.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Wait for a child not started here = %v, want exit status 3", err)
	}
	requireGone(t, grandchild)
}

// A subject gets SIGKILL as its parent-death signal, and it is its
// program's death that sends it, not the end of the thread that called
// Start: a goroutine locked to its thread that returns ends the thread.
func TestSubjectDiesWithTheProgramNotWithAThread(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type started struct {
		p   *Process
		tid int
		err error
	}
	c := make(chan started, 1)
	var s started
	for s.p == nil && s.err == nil {
		go func() {
			runtime.LockOSThread()
			if unix.Gettid() == os.Getpid() {
				// The main thread: the runtime parks it for ever rather
				// than end it, and the wait below would last the test's
				// whole bound. Leave it, and try from another goroutine.
				runtime.UnlockOSThread()
				c <- started{}
				return
			}
			// Never unlocked: the thread ends with this goroutine.
			p, err := Start([]string{self, printDeathSignal})
			c <- started{p, unix.Gettid(), err}
		}()
		s = <-c
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	t.Cleanup(func() { s.p.Kill() })
	thread := fmt.Sprintf("/proc/self/task/%d", s.tid)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(thread); errors.Is(err, os.ErrNotExist) {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("the thread that called Start did not end: %v", testbound.Err(ctx, ctx.Err()))
		}
	}
	if _, err := io.WriteString(s.p.Stdin, "go on\n"); err != nil {
		awaitExit(ctx, t, s.p)
		t.Fatalf("the subject died with the thread that started it: %v (%s)", err, s.p.ExitDescription())
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(s.p.Stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case line := <-lines:
		if line != fmt.Sprint(int(syscall.SIGKILL)) {
			awaitExit(ctx, t, s.p)
			t.Errorf("the subject says its parent-death signal is %q, want %d (SIGKILL); it %s", line, syscall.SIGKILL, s.p.ExitDescription())
		}
	case <-ctx.Done():
		t.Fatalf("the subject said nothing: %v", testbound.Err(ctx, ctx.Err()))
	}
}
