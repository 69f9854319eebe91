//go:build unix

package proc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpconform/acpconform/internal/testbound"
	"github.com/acpconform/acpconform/internal/testcost/budget"
)

func TestMain(m *testing.M) {
	// As the CLI does: what a subject orphans comes to us, and must be reaped.
	if err := BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(budget.Main(m))
}

// start starts argv and kills it, if a test has not stopped it, at the
// test's end.
func start(t *testing.T, argv ...string) *Process {
	t.Helper()
	p, err := Start(argv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// testContext ends a margin before go test's -timeout runs out.
func testContext(t *testing.T) context.Context { return testbound.Context(t) }

// pidLine reads the first line of p's stdout, a pid the shell printed.
func pidLine(ctx context.Context, t *testing.T, p *Process) int {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(p.Stdout).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("stdout %q: not a pid", line)
		}
		return pid
	case <-ctx.Done():
		t.Fatalf("no pid on stdout: %v", testbound.Err(ctx, ctx.Err()))
		return 0
	}
}

func pgid(t *testing.T, pid int) int {
	t.Helper()
	g, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatalf("group of %d: %v", pid, err)
	}
	return g
}

func awaitExit(ctx context.Context, t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Exited():
	case <-ctx.Done():
		t.Fatalf("%s did not exit: %v", p.name, testbound.Err(ctx, ctx.Err()))
	}
}

// stop runs end in the background, failing the test if it does not return
// before ctx ends.
func stop(ctx context.Context, t *testing.T, end func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		end()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("did not return: %v", testbound.Err(ctx, ctx.Err()))
	}
}

func TestStopEndsAProcessThatIgnoresSIGTERMAndItsChild(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	p := start(t, "sh", "-c", `trap "" TERM; echo started >&2; sleep 1000 & echo $!; wait`)
	child := pidLine(ctx, t, p)
	begun := time.Now()
	err := p.Stop()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop = %v, want the process killed", err)
	}
	if d := time.Since(begun); d < 2*StopGrace {
		t.Errorf("stopped after %s, before both graces ran out", d)
	}
	if got, want := p.ExitDescription(), "killed by SIGKILL after ignoring SIGTERM"; got != want {
		t.Errorf("ExitDescription = %q, want %q", got, want)
	}
	if !strings.Contains(p.Stderr.String(), "started") {
		t.Errorf("stderr %q", p.Stderr.String())
	}
	requireGone(t, p.cmd.Process.Pid, child)
	requireGroupsGone(t, p.cmd.Process.Pid)
}

func TestStopLetsAProcessEndOnItsStdin(t *testing.T) {
	t.Parallel()
	p := start(t, "cat")
	if err := p.Stop(); err != nil {
		t.Errorf("cat did not end cleanly when its stdin closed: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Exited is not closed after Stop")
	}
	if got, want := p.ExitDescription(), "exited with status 0"; got != want {
		t.Errorf("ExitDescription = %q, want %q", got, want)
	}
	if _, err := p.Stdout.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("read from stdout after Stop: %v, want it closed", err)
	}
	requireGone(t, p.cmd.Process.Pid)
	requireGroupsGone(t, p.cmd.Process.Pid)
}

func TestStartFailsForAMissingCommand(t *testing.T) {
	if _, err := Start([]string{"/nonexistent/agent"}); err == nil {
		t.Error("a missing command started")
	}
	if _, err := Start(nil); err == nil {
		t.Error("no command started")
	}
}

// A recorder passes its agent's stderr on as it comes; when where it
// passes it fails (the editor closed its end), the process's stderr is
// still drained, so that it never blocks writing to it, and kept.
func TestStartPassingStderr(t *testing.T) {
	ctx := testContext(t)
	var passed syncBuffer
	p, err := StartPassingStderr([]string{"sh", "-c", "echo one >&2; echo two >&2"}, &passed)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := passed.String(); got != "one\ntwo\n" {
		t.Errorf("passed on %q, want both lines", got)
	}

	// 1 MiB, sixteen times what a pipe holds, into a writer that fails.
	p, err = StartPassingStderr([]string{"sh", "-c", "head -c 1048576 /dev/zero >&2; echo LAST >&2"}, failingWriter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("the process did not end while its stderr went nowhere: %v", err)
	}
	if !strings.HasSuffix(p.Stderr.String(), "LAST\n") {
		t.Errorf("its stderr's end was not kept: %q", p.Stderr.String()[max(0, len(p.Stderr.String())-20):])
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

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
		p := start(t, "seq", strconv.Itoa(lines))
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(bufio.NewReaderSize(p.Stdout, 64<<10))
			got <- b
		}()
		var b []byte
		select {
		case b = <-got:
		case <-ctx.Done():
			t.Fatalf("run %d: stdout did not end: %v", run, testbound.Err(ctx, ctx.Err()))
		}
		if err := p.Stop(); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if !bytes.Equal(b, want.Bytes()) {
			t.Fatalf("run %d: read %d of %d bytes", run, len(b), want.Len())
		}
	}
}

func TestWaitGetsTheWholeStderrTail(t *testing.T) {
	ctx := testContext(t)
	for run := range 50 {
		p := start(t, "sh", "-c", "echo LAST-WORDS >&2; exit 5")
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
		p := start(t, "sh", "-c", "echo LAST-WORDS >&2; exit 5")
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
	p := start(t, "sh", "-c", "sleep 1000 & echo $!; echo bye >&2")
	child := pidLine(ctx, t, p)
	awaitExit(ctx, t, p)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := p.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v while sleep holds stderr, want the deadline", err)
	}
	stop(ctx, t, func() { p.Stop() })
	if err := p.Wait(ctx); err != nil {
		t.Errorf("Wait after Stop: %v", err)
	}
	if got := p.Stderr.String(); got != "bye\n" {
		t.Errorf("stderr %q", got)
	}
	requireGone(t, p.cmd.Process.Pid, child)
	requireGroupsGone(t, p.cmd.Process.Pid)
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
			p := start(t, "sh", "-c", c.script)
			p.Stop()
			if got := p.ExitDescription(); got != c.want {
				t.Errorf("ExitDescription = %q, want %q", got, c.want)
			}
			requireGone(t, p.cmd.Process.Pid)
			requireGroupsGone(t, p.cmd.Process.Pid)
		})
	}
	t.Run("killed", func(t *testing.T) {
		t.Parallel()
		p := start(t, "cat")
		if got, want := p.ExitDescription(), "still running"; got != want {
			t.Errorf("ExitDescription before the end = %q, want %q", got, want)
		}
		p.Kill()
		if got, want := p.ExitDescription(), "killed at once by SIGKILL"; got != want {
			t.Errorf("ExitDescription = %q, want %q", got, want)
		}
		requireGone(t, p.cmd.Process.Pid)
		requireGroupsGone(t, p.cmd.Process.Pid)
	})
}

// outsider starts a process that is not ours to stop, and ends it at the
// end of the test.
func outsider(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

func requireAlive(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("a process not started here is gone: %v", err)
	}
}

// The tests of StopAll and KillAll do not run in parallel: they end every
// process started.

func TestStopAllStopsEveryLiveProcess(t *testing.T) {
	ctx := testContext(t)
	other := outsider(t)
	ps := []*Process{
		start(t, "cat"),
		start(t, "sh", "-c", "sleep 1000 & echo $!; exec cat"),
		start(t, "cat"),
	}
	child := pidLine(ctx, t, ps[1])
	watchdog := watchdogPid(t)
	go ps[0].Stop() // Stop and StopAll together
	stop(ctx, t, StopAll)
	stop(ctx, t, StopAll)
	requireGone(t, watchdog) // nothing left to watch
	for _, p := range ps {
		select {
		case <-p.Exited():
		default:
			t.Errorf("%s is still running", p.name)
		}
		requireGone(t, p.cmd.Process.Pid)
		requireGroupsGone(t, p.cmd.Process.Pid)
	}
	requireGone(t, child)
	if n := len(started()); n != 0 {
		t.Errorf("%d processes still registered", n)
	}
	requireAlive(t, other)
}

func TestKillAllKillsEverythingAtOnce(t *testing.T) {
	ctx := testContext(t)
	other := outsider(t)
	stubborn := start(t, "sh", "-c", `trap "" TERM; sleep 1000 & echo $!; wait`)
	child := pidLine(ctx, t, stubborn)
	childGroup := pgid(t, child)
	willing := start(t, "cat")
	stopped := make(chan struct{})
	go func() { // a first interrupt
		stubborn.Stop()
		close(stopped)
	}()
	stop(ctx, t, KillAll) // and a second
	stop(ctx, t, KillAll)
	select {
	case <-stopped:
	case <-ctx.Done():
		t.Fatalf("Stop did not return after KillAll: %v", testbound.Err(ctx, nil))
	}
	for _, p := range []*Process{stubborn, willing} {
		if got, want := p.ExitDescription(), "killed at once by SIGKILL"; got != want {
			t.Errorf("%s: ExitDescription = %q, want %q", p.name, got, want)
		}
		requireGone(t, p.cmd.Process.Pid)
		requireGroupsGone(t, p.cmd.Process.Pid)
	}
	requireGone(t, child)
	requireGroupsGone(t, childGroup)
	if n := len(started()); n != 0 {
		t.Errorf("%d processes still registered", n)
	}
	stop(ctx, t, StopAll)
	requireAlive(t, other)
}

func TestMarkersKeepThoseOfAnEnclosingRun(t *testing.T) {
	got := withMarker([]string{"A=1", MarkerEnv + "=outer-1", "B=2"}, "inner-3")
	want := []string{"A=1", "B=2", MarkerEnv + "=outer-1 inner-3"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("withMarker = %q, want %q", got, want)
	}
	if got := withMarker([]string{"A=1"}, "m-1"); fmt.Sprint(got) != fmt.Sprint([]string{"A=1", MarkerEnv + "=m-1"}) {
		t.Errorf("withMarker = %q", got)
	}
	if a, b := newMarker(), newMarker(); a == b {
		t.Errorf("two processes got the marker %q", a)
	}
}

func TestTailBufferKeepsTheEnd(t *testing.T) {
	b := &TailBuffer{Limit: 8}
	b.Write([]byte("hello "))
	b.Write([]byte("world!"))
	if got := b.String(); got != "[4 earlier bytes dropped]\no world!" {
		t.Errorf("TailBuffer = %q", got)
	}
}

// TestSubjectsGetNoneOfTheRunnersFileCommands: a subject started in a
// GitHub Actions job cannot write the job's environment, outputs, PATH,
// state or summary, nor use the runner's tokens; the rest of the
// environment reaches it.
func TestSubjectsGetNoneOfTheRunnersFileCommands(t *testing.T) {
	withheld := []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL"}
	for _, name := range withheld {
		t.Setenv(name, filepath.Join(t.TempDir(), name))
	}
	t.Setenv("GITHUB_WORKSPACE", "/kept")
	ctx := testContext(t)
	p := start(t, "env")
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(p.Stdout)
		got <- b
	}()
	var env []byte
	select {
	case env = <-got:
	case <-ctx.Done():
		t.Fatalf("env's stdout did not end: %v", testbound.Err(ctx, ctx.Err()))
	}
	_ = p.Stop()
	for _, line := range strings.Split(string(env), "\n") {
		name, _, _ := strings.Cut(line, "=")
		if slices.Contains(withheld, name) {
			t.Errorf("the subject got %s", line)
		}
	}
	if !strings.Contains(string(env), "\nGITHUB_WORKSPACE=/kept\n") {
		t.Errorf("the subject lost the rest of the environment: %q", env)
	}
}
