package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/internal/testbound"
)

// The hostile tests run the built acpconform against subjects that misbehave
// on purpose (mocks/hostile), one test per row of the CLI's table of
// hostile subjects. Each checks the exit code, the diagnosis, the three
// reports and that no process of the subject outlives the run.

var (
	hostileOnce sync.Once
	hostileBin  string
	hostileErr  error

	raceOnce sync.Once
	raceBin  string
	raceErr  error
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER, which package
// syscall does not name.
const prSetChildSubreaper = 36

// hostileBinary builds mocks/hostile next to acpconform, once. It also
// makes this test process the subreaper of whatever the runs orphan: a
// subject process that was killed becomes a zombie here, where it is
// reaped and counted as gone, while one left a zombie elsewhere (unreaped
// by a live subject process) counts as left.
func hostileBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds acpconform and hostile, runs them for minutes")
	}
	binaries(t)
	hostileOnce.Do(func() {
		hostileBin = filepath.Join(binDir, "hostile")
		if hostileErr = gobuild.Run("", "-o", hostileBin, "../../mocks/hostile"); hostileErr != nil {
			return
		}
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
			hostileErr = fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
		}
	})
	if hostileErr != nil {
		t.Fatal(hostileErr)
	}
	return hostileBin
}

// raceBinary builds acpconform with the race detector, once.
func raceBinary(t *testing.T) string {
	t.Helper()
	hostileBinary(t)
	raceOnce.Do(func() {
		raceBin = filepath.Join(binDir, "acpconform-race")
		if out, err := exec.Command("go", "build", "-trimpath", "-race", "-o", raceBin, ".").CombinedOutput(); err != nil {
			raceErr = fmt.Errorf("go build -race: %v\n%s", err, out)
		}
	})
	if raceErr != nil {
		t.Fatal(raceErr)
	}
	return raceBin
}

// subjectRun is a directory for the runs of one test: their reports, and
// the file in which hostile subjects record their processes. Every process
// a run starts inherits $HOSTILE_PIDFILE, unique to the test, which is how
// the ones it leaves behind are found, hostile or not.
type subjectRun struct {
	t       *testing.T
	dir     string
	pidfile string
	env     []string
	acp     string // the acpconform that runs
	hostile string
	junit   string
	json    string
	summary string
}

func newRun(t *testing.T, env ...string) *subjectRun {
	t.Helper()
	h := hostileBinary(t)
	dir := t.TempDir()
	s := &subjectRun{t: t, dir: dir, pidfile: filepath.Join(dir, "pids"), acp: built, hostile: h,
		junit: filepath.Join(dir, "junit.xml"), json: filepath.Join(dir, "report.json"), summary: filepath.Join(dir, "summary.md")}
	s.env = append([]string{"HOSTILE_PIDFILE=" + s.pidfile}, env...)
	t.Cleanup(func() { s.killLeft() })
	return s
}

// ended is how one run of acpconform ended.
type ended struct {
	code           int // -1 when a signal killed it
	state          string
	stdout, stderr string
}

func (e ended) String() string {
	return fmt.Sprintf("%s\nstdout:\n%s\nstderr:\n%s", e.state, clip(e.stdout, 4000), clip(e.stderr, 4000))
}

// clip keeps the start and the end of a long text.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + fmt.Sprintf("\n[... %d bytes ...]\n", len(s)-n) + s[len(s)-n/2:]
}

// command makes the acpconform command for args. A command that runs checks
// writes its reports in the run's directory unless args name them.
func (s *subjectRun) command(ctx context.Context, args ...string) *exec.Cmd {
	full := []string{args[0]}
	if slices.Index([]string{"agent", "client", "relay", "run"}, args[0]) >= 0 {
		flags := args[1:]
		if i := slices.Index(flags, "--"); i >= 0 {
			flags = flags[:i]
		}
		for _, f := range [][2]string{{"--junit", s.junit}, {"--json", s.json}, {"--summary", s.summary}} {
			if slices.Index(flags, f[0]) < 0 {
				full = append(full, f[0], f[1])
			}
		}
	}
	full = append(full, args[1:]...)
	cmd := exec.CommandContext(ctx, s.acp, full...)
	cmd.Env = append(os.Environ(), s.env...)
	// A process left behind may hold acpconform's stdout or stderr open:
	// once acpconform has exited, wait that long for them, then stop
	// reading. expectNoneLeft reports such a process.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs acpconform with args to its end, at most until the test's
// bound (testbound): a hang fails the test.
func (s *subjectRun) run(args ...string) ended {
	s.t.Helper()
	ctx := testbound.Context(s.t)
	cmd := s.command(ctx, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		s.t.Fatalf("acpconform %q did not end: %v\nstdout:\n%s\nstderr:\n%s", args, testbound.Err(ctx, nil), clip(stdout.String(), 4000), clip(stderr.String(), 4000))
	}
	if cmd.ProcessState == nil {
		s.t.Fatalf("acpconform %q: %v", args, err)
	}
	e := ended{code: cmd.ProcessState.ExitCode(), state: cmd.ProcessState.String(), stdout: stdout.String(), stderr: stderr.String()}
	expectNoPanic(s.t, e)
	return e
}

// goTraceback is the header of a goroutine in a Go panic or fatal error.
var goTraceback = regexp.MustCompile(`(?m)^panic: |^fatal error: |goroutine \d+ \[`)

// expectNoPanic fails on a Go panic or fatal error in acpconform's stderr.
func expectNoPanic(t *testing.T, e ended) {
	t.Helper()
	if goTraceback.MatchString(e.stderr) {
		t.Errorf("a Go panic in stderr:\n%s", clip(e.stderr, 8000))
	}
}

// expectExit checks the exit code, and goes on: what else is wrong tells
// why.
func expectExit(t *testing.T, e ended, code int) {
	t.Helper()
	if e.code != code {
		t.Errorf("exit %d (%s), want %d\n%s", e.code, e.state, code, e)
	}
}

// expectIn fails unless text holds every fragment, ignoring case.
func expectIn(t *testing.T, what, text string, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(strings.ToLower(text), strings.ToLower(f)) {
			t.Errorf("%s lacks %q:\n%s", what, f, clip(text, 1500))
		}
	}
}

// reportFile is report.json as the CLI's spec describes it.
type reportFile struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Totals  struct {
		Passed     int `json:"passed"`
		Failed     int `json:"failed"`
		MustFailed int `json:"mustFailed"`
		Skipped    int `json:"skipped"`
		Deselected int `json:"deselected"`
	} `json:"totals"`
	Checks []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		State       string `json:"state"`
		Cause       string `json:"cause"`
		Failure     string `json:"failure"`
		Process     string `json:"process"`
		Diagnostics string `json:"diagnostics"`
		Transcript  string `json:"transcript"`
	} `json:"checks"`
}

// written is the three reports of a run.
type written struct {
	report                  reportFile
	jsonText, xml, summary  string
	suites                  []junit.Suite
	jsonOK, junitOK, summOK bool
}

// reportLimit bounds what is read of a report: past it, the report is
// broken anyway, and reading on could exhaust memory.
const reportLimit = 64 << 20

// readReport reads the report file at path: a regular file of at most
// reportLimit bytes. A device (a full one, say) reads without end.
func readReport(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, reportLimit+1))
	if err == nil && len(data) > reportLimit {
		err = fmt.Errorf("%s is over %d bytes", path, reportLimit)
	}
	return data, err
}

// reports reads the three reports, failing the test for each one that is
// missing or does not parse.
func (s *subjectRun) reports() written {
	s.t.Helper()
	var w written
	if data, err := readReport(s.json); err != nil {
		s.t.Errorf("report.json: %v", err)
	} else if err := json.Unmarshal(data, &w.report); err != nil {
		s.t.Errorf("report.json does not parse: %v\n%s", err, clip(string(data), 2000))
	} else {
		w.jsonText, w.jsonOK = string(data), true
	}
	if data, err := readReport(s.junit); err != nil {
		s.t.Errorf("junit.xml: %v", err)
	} else if suites, err := junit.Ingest(data); err != nil {
		s.t.Errorf("junit.xml does not parse: %v\n%s", err, clip(string(data), 2000))
	} else {
		w.xml, w.suites, w.junitOK = string(data), suites, true
	}
	if data, err := readReport(s.summary); err != nil {
		s.t.Errorf("summary.md: %v", err)
	} else if len(strings.TrimSpace(string(data))) == 0 {
		s.t.Errorf("summary.md is empty")
	} else {
		w.summary, w.summOK = string(data), true
	}
	return w
}

// Verdicts of report.json.
const (
	verdictConformant    = "conformant"
	verdictNotConformant = "not conformant"
	verdictNothing       = "nothing checked"
	verdictCouldNotRun   = "could not run"
	verdictInterrupted   = "interrupted"
)

// expectVerdict reads the reports and checks that each says verdict:
// report.json in its field, summary.md in words, junit.xml in its failed
// cases (none for a run that passed or checked nothing, some for a run
// that failed or could not run; the word for an interrupted one).
func (s *subjectRun) expectVerdict(verdict string) written {
	s.t.Helper()
	w := s.reports()
	if w.jsonOK && w.report.Verdict != verdict {
		s.t.Errorf("report.json verdict %q (reason %q), want %q", w.report.Verdict, w.report.Reason, verdict)
	}
	if w.summOK && !saysVerdict(w.summary, verdict) {
		s.t.Errorf("summary.md does not say %q:\n%s", verdict, clip(w.summary, 2000))
	}
	if w.junitOK {
		failed, tests := 0, 0
		for _, suite := range w.suites {
			failed += suite.Totals.Failed + suite.Totals.Error
			tests += suite.Totals.Tests
		}
		switch verdict {
		case verdictConformant, verdictNothing:
			if failed != 0 {
				s.t.Errorf("junit.xml has %d failed cases for a run that is %s:\n%s", failed, verdict, failedChecks(w))
			}
		case verdictNotConformant, verdictCouldNotRun:
			if failed == 0 {
				s.t.Errorf("junit.xml has no failed case (of %d) for a run that is %s", tests, verdict)
			}
		case verdictInterrupted:
			if !strings.Contains(strings.ToLower(w.xml), verdictInterrupted) {
				s.t.Errorf("junit.xml does not say interrupted:\n%s", clip(w.xml, 2000))
			}
		}
	}
	return w
}

// failedChecks says which checks of report.json failed, and why, so that
// a test failure names them.
func failedChecks(w written) string {
	var b strings.Builder
	for _, c := range w.report.Checks {
		if c.State != "passed" && c.State != "skipped" && c.State != "deselected" {
			fmt.Fprintf(&b, "%s %s: %s\n", c.State, c.ID, clip(c.Failure, 2000))
		}
	}
	return b.String()
}

// saysVerdict reports whether text says verdict in words.
func saysVerdict(text, verdict string) bool {
	lower := strings.ToLower(text)
	switch verdict {
	case verdictConformant:
		return strings.Contains(lower, verdictConformant) && !strings.Contains(lower, verdictNotConformant)
	case verdictNothing:
		return strings.Contains(lower, verdictNothing) || strings.Contains(lower, "nothing was checked")
	}
	return strings.Contains(lower, verdict)
}

// recorded is one line of the pidfile: "PID PGID MODE".
type recorded struct {
	pid, pgid int
	mode      string
}

func (s *subjectRun) recorded() []recorded {
	data, err := os.ReadFile(s.pidfile)
	if err != nil && !os.IsNotExist(err) {
		s.t.Fatalf("pidfile: %v", err)
	}
	var out []recorded
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		pgid, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			s.t.Fatalf("pidfile line %q", line)
		}
		r := recorded{pid: pid, pgid: pgid}
		if len(f) > 2 {
			r.mode = f[2]
		}
		out = append(out, r)
	}
	return out
}

// process is one entry of /proc.
type process struct {
	pid, ppid, pgid int
	state           byte
	ours            bool // it carries this test's $HOSTILE_PIDFILE
	dying           bool // SIGKILL is pending: it is gone in all but name
	cmdline         string
}

func (p process) String() string {
	return fmt.Sprintf("pid %d (ppid %d, pgid %d, state %c) %s", p.pid, p.ppid, p.pgid, p.state, p.cmdline)
}

// processes reads /proc, marking the processes that carry marker in their
// environment.
func processes(marker string) map[int]process {
	out := map[int]process{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold anything but ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 3 {
			continue
		}
		p := process{pid: pid, state: f[0][0]}
		p.ppid, _ = strconv.Atoi(f[1])
		p.pgid, _ = strconv.Atoi(f[2])
		if env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ")); err == nil {
			for _, kv := range strings.Split(string(env), "\x00") {
				p.ours = p.ours || kv == marker
			}
		}
		if cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil {
			p.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
		p.dying = sigkillPending(pid)
		out[pid] = p
	}
	return out
}

// sigkillPending reports whether SIGKILL waits for the process.
func sigkillPending(pid int) bool {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		key, value, _ := strings.Cut(line, ":")
		if key == "SigPnd" || key == "ShdPnd" {
			mask, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
			if err == nil && mask&(1<<(syscall.SIGKILL-1)) != 0 {
				return true
			}
		}
	}
	return false
}

// left lists the run's processes still there: alive and carrying the
// run's marker, or a zombie of a recorded pid or group whose parent is a
// process of the run (left unreaped by it). A zombie whose parent is this
// test process, the subreaper, died after its parent: it is reaped here.
func (s *subjectRun) left() []process {
	rec := s.recorded()
	pids, pgids := map[int]bool{}, map[int]bool{}
	for _, r := range rec {
		pids[r.pid], pgids[r.pgid] = true, true
	}
	all := processes("HOSTILE_PIDFILE=" + s.pidfile)
	var out []process
	for _, p := range all {
		switch {
		case p.state == 'Z' && (pids[p.pid] || pgids[p.pgid]):
			if p.ppid == os.Getpid() {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
			} else if all[p.ppid].ours {
				out = append(out, p)
			}
		case p.state == 'Z' || p.state == 'X' || p.dying:
		case p.ours:
			out = append(out, p)
		}
	}
	return out
}

// expectRecorded fails the test unless a process of the subject recorded
// itself in mode: a test of what a run leaves behind proves nothing about
// a process that never started.
func (s *subjectRun) expectRecorded(mode string) {
	s.t.Helper()
	for _, r := range s.recorded() {
		if r.mode == mode {
			return
		}
	}
	s.t.Errorf("no process recorded itself as %s: %v", mode, s.recorded())
}

// expectNoneLeft fails the test for every process of the run still there.
// With subject, the subject must have recorded its processes: a run that
// started none proves nothing.
func (s *subjectRun) expectNoneLeft(subject bool) {
	s.t.Helper()
	if subject && len(s.recorded()) == 0 {
		s.t.Errorf("the subject recorded no process in %s", s.pidfile)
	}
	if left := s.left(); len(left) > 0 {
		var b strings.Builder
		for _, p := range left {
			fmt.Fprintf(&b, "\n  %s", p)
		}
		s.t.Errorf("processes of the subject outlived acpconform:%s", b.String())
	}
}

// killLeft ends whatever the run left, so that one failed test does not
// burden the others.
func (s *subjectRun) killLeft() {
	for _, p := range s.left() {
		if p.state != 'Z' {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

// events makes a FIFO on which hostile agents announce the requests they
// read ($HOSTILE_EVENTS), and returns the announcements, "METHOD PID".
func (s *subjectRun) events() <-chan string {
	s.t.Helper()
	path := filepath.Join(s.dir, "events")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		s.t.Fatal(err)
	}
	// Read-write: the writers' opens never block, and no EOF comes between them.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	s.env = append(s.env, "HOSTILE_EVENTS="+path)
	out := make(chan string, 1024)
	done := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(f)
		for lines.Scan() {
			select {
			case out <- lines.Text():
			case <-done:
				return
			}
		}
	}()
	s.t.Cleanup(func() {
		close(done)
		f.Close()
	})
	return out
}

// awaitEvent waits for the announcement of method and returns the pid
// that made it.
func awaitEvent(ctx context.Context, t *testing.T, events <-chan string, method string) int {
	t.Helper()
	for {
		select {
		case e := <-events:
			if m, pid, _ := strings.Cut(e, " "); m == method {
				n, err := strconv.Atoi(pid)
				if err != nil {
					t.Fatalf("event %q", e)
				}
				return n
			}
		case <-ctx.Done():
			t.Fatalf("no %s reached the subject: %v", method, testbound.Err(ctx, ctx.Err()))
		}
	}
}

// started is acpconform running in the background.
type started struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed once Wait returned
	mu       sync.Mutex
	stdout   strings.Builder
	stderr   strings.Builder
	checking chan struct{} // closed at the stderr line "acpconform: checking"
	partial  []byte        // stderr after its last newline
	once     sync.Once
}

// start starts acpconform with args, its stdout and stderr kept.
func (s *subjectRun) start(ctx context.Context, args ...string) *started {
	s.t.Helper()
	st := &started{cmd: s.command(ctx, args...), done: make(chan struct{}), checking: make(chan struct{})}
	st.cmd.Stdout = &lockedWriter{mu: &st.mu, w: &st.stdout}
	st.cmd.Stderr = stderrWatch{st}
	if err := st.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() {
		_ = st.cmd.Wait()
		close(st.done)
	}()
	return st
}

// stderrWatch keeps acpconform's stderr and closes checking at the line
// that says the checks began.
type stderrWatch struct{ st *started }

func (w stderrWatch) Write(p []byte) (int, error) {
	st := w.st
	st.mu.Lock()
	defer st.mu.Unlock()
	st.stderr.Write(p)
	st.partial = append(st.partial, p...)
	for {
		line, rest, ok := bytes.Cut(st.partial, []byte("\n"))
		if !ok {
			break
		}
		if bytes.HasPrefix(line, []byte("acpconform: checking")) {
			st.once.Do(func() { close(st.checking) })
		}
		st.partial = append(st.partial[:0], rest...)
	}
	return len(p), nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// wait waits for acpconform to end, at most until ctx ends.
func (st *started) wait(ctx context.Context, t *testing.T) ended {
	t.Helper()
	select {
	case <-st.done:
	case <-ctx.Done():
		_ = st.cmd.Process.Kill()
		<-st.done
		st.mu.Lock()
		defer st.mu.Unlock()
		t.Fatalf("acpconform did not end: %v\nstderr:\n%s", testbound.Err(ctx, ctx.Err()), clip(st.stderr.String(), 4000))
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	e := ended{code: st.cmd.ProcessState.ExitCode(), state: st.cmd.ProcessState.String(), stdout: st.stdout.String(), stderr: st.stderr.String()}
	expectNoPanic(t, e)
	return e
}

// TestHostileRelayCouldNotRun: row 1, relays that exit, sleep or dial too
// late: exit 3 with what the relay did, no panic; and the mirror with its
// flag before the URL, which crashed the harness, is checked like any relay.
func TestHostileRelayCouldNotRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     []string
		command func(s *subjectRun) []string
		timeout string
		says    string
	}{
		{"exits", nil, func(s *subjectRun) []string { return []string{s.hostile, "relay-exit", "{url}"} }, "5s", "exited with status 1"},
		{"never dials", nil, func(s *subjectRun) []string { return []string{s.hostile, "relay-sleep", "{url}"} }, "5s", "did not connect"},
		{"dials late", []string{"HOSTILE_DELAY=5s"}, func(s *subjectRun) []string { return []string{s.hostile, "relay-dial-late", "{url}"} }, "2s", "did not connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newRun(t, tc.env...)
			e := s.run(append([]string{"relay", "--startup-timeout", tc.timeout, "--response-timeout", "2s", "--"}, tc.command(s)...)...)
			if strings.Contains(e.stderr, "panic:") || strings.Contains(e.stderr, "goroutine ") {
				t.Fatalf("a Go panic:\n%s", clip(e.stderr, 4000))
			}
			expectExit(t, e, 3)
			expectIn(t, "stderr", e.stderr, "acpconform relay: could not run:", tc.says)
			s.expectVerdict(verdictCouldNotRun)
			s.expectNoneLeft(true)
		})
	}
	t.Run("mirror flag before URL", func(t *testing.T) {
		t.Parallel()
		s := newRun(t)
		e := s.run("relay", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.acp, "mirror", "--unstable-protocol", "{url}")
		expectNoPanic(t, e)
		expectExit(t, e, 0)
		s.expectVerdict(verdictConformant)
		s.expectNoneLeft(false)
	})
}

// TestHostileRaceFreeRelayRun: row 2, a -race build checks the mirror, a
// passing relay: exit 0, no data race in what it does at once.
func TestHostileRaceFreeRelayRun(t *testing.T) {
	t.Parallel()
	race := raceBinary(t)
	s := newRun(t)
	s.acp = race
	// A -race build runs several times slower: its bound per message is
	// wider, so that a loaded runner cannot fail a SHOULD check of speed
	// (REL-7's near-1 MiB frames) on what is a test for data races.
	// The checks of what runs at once (both directions, cancels, ends),
	// not those of large frames (REL-7, REL-1's 300 KiB of text): the race
	// detector looks for concurrent access, and makes each copy of a
	// megabyte cost ten times the CPU. The Go mirror's interop row and the
	// scenarios' in-process relays run those.
	e := s.run("relay", "--response-timeout", "20s", "--check", "RTE-5/*,REL-1/ids-mapped-back,REL-1/answers-unchanged,REL-2/*,REL-3/*,REL-4/*,REL-5/*,REL-6/*",
		"--", race, "mirror", "{url}", "--unstable-protocol")
	if strings.Contains(e.stderr, "DATA RACE") {
		t.Errorf("a data race:\n%s", clip(e.stderr, 20000))
	}
	expectExit(t, e, 0)
	s.expectVerdict(verdictConformant)
	s.expectNoneLeft(false)
}

// TestHostileAgentExitsAfterInitialize: row 3, an agent that exits right after
// answering initialize, 20 times: never "could not run", and every failure
// says the agent exited.
func TestHostileAgentExitsAfterInitialize(t *testing.T) {
	t.Parallel()
	for i := range 20 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			e := s.run("agent", "--id", "SCH-1", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.hostile, "exit-after-initialize")
			expectExit(t, e, 1)
			w := s.expectVerdict(verdictNotConformant)
			failed := 0
			for _, c := range w.report.Checks {
				if c.State == "failed" {
					failed++
					if !strings.Contains(c.Failure+c.Process+c.Diagnostics, "exited with status 0") {
						t.Errorf("%q does not say the agent exited with status 0:\n%s\n%s", c.Name, clip(c.Failure, 2000), clip(c.Diagnostics, 2000))
					}
				}
			}
			if w.jsonOK && failed == 0 {
				t.Errorf("no check failed")
			}
			s.expectNoneLeft(true)
		})
	}
}

// TestHostileLastWords: row 4, an agent that writes to stderr and exits 5, 30
// times: could not run, with its last words and its status.
func TestHostileLastWords(t *testing.T) {
	t.Parallel()
	for i := range 30 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			// The agent runs in its own group, so its pgid is its pid.
			e := s.run("agent", "--startup-timeout", "5s", "--", "sh", "-c", `echo "$$ $$ sh" >>"$HOSTILE_PIDFILE"; echo LAST-WORDS >&2; exit 5`)
			expectExit(t, e, 3)
			expectIn(t, "stderr", e.stderr, "LAST-WORDS", "exited with status 5")
			if w := s.expectVerdict(verdictCouldNotRun); w.jsonOK {
				expectIn(t, "report.json", w.jsonText, "LAST-WORDS")
			}
			s.expectNoneLeft(true)
		})
	}
}

// TestHostileSegfaultOnPrompt: row 5, an agent killed by SIGSEGV in its turn:
// the failure names the signal everywhere.
func TestHostileSegfaultOnPrompt(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--id", "TOK-1", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.hostile, "segv-on-prompt")
	expectExit(t, e, 1)
	expectIn(t, "the terminal", e.stdout+e.stderr, "SIGSEGV")
	w := s.expectVerdict(verdictNotConformant)
	for _, r := range []struct {
		name, text string
		ok         bool
	}{{"report.json", w.jsonText, w.jsonOK}, {"junit.xml", w.xml, w.junitOK}, {"summary.md", w.summary, w.summOK}} {
		if r.ok {
			expectIn(t, r.name, r.text, "SIGSEGV")
		}
	}
	s.expectNoneLeft(true)
}

// TestHostileCrashOnEveryPrompt: an agent that crashes on every prompt,
// its traceback on stderr, over three areas of the catalogue: every failure is one
// cause, which the terminal and summary.md show once, the traceback once,
// listing every check it failed; report.json names that cause for each,
// and junit.xml keeps a failed testcase for each.
func TestHostileCrashOnEveryPrompt(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	const lastWords = "RuntimeError: model backend unavailable"
	crashy := filepath.Join(s.dir, "crashy.sh") // a file: the command line that runs it again stays short
	script := `echo "$$ $$ sh" >>"$HOSTILE_PIDFILE"
"$1" segv-on-prompt
cat >&2 <<'EOF'
Traceback (most recent call last):
  File "agent.py", line 88, in handle_prompt
    raise RuntimeError("model backend unavailable")
` + lastWords + `
EOF
exit 1
`
	if err := os.WriteFile(crashy, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// Three areas, some ninety checks: a cause's list outgrows the screen
	// long before the whole catalogue's two hundred, each a process.
	// --keep-going: by default the run would end at the fifth rule the
	// crash failed (TestStartersRunWithoutTheClone).
	e := s.run("agent", "--keep-going", "--check", "VAL-*", "--check", "TOK-*", "--check", "FB-*", "--startup-timeout", "5s", "--response-timeout", "2s", "--", "sh", crashy, s.hostile)
	expectExit(t, e, 1)
	w := s.expectVerdict(verdictNotConformant)
	if !w.jsonOK {
		t.FailNow()
	}
	var failed []string
	ran := 0
	for _, c := range w.report.Checks {
		if c.State != "deselected" && c.State != "skipped" {
			ran++
		}
		if c.State != "failed" {
			continue
		}
		failed = append(failed, c.ID)
		if c.Cause != failed[0] || !strings.Contains(c.Process, "exited with status 1") || c.Failure == "" {
			t.Errorf("report.json: %s has cause %q, process %q and failure %q; want the cause %s, the exit, and a failure of its own",
				c.ID, c.Cause, c.Process, clip(c.Failure, 300), failed[0])
		}
	}
	if len(failed) < 80 || len(failed) != ran {
		t.Fatalf("%d of the %d checks that ran failed; want every one, over 80", len(failed), ran)
	}
	if n := strings.Count(e.stdout, lastWords); n != 1 {
		t.Errorf("the terminal has the traceback %d times, want once:\n%s", n, clip(e.stdout, 3000))
	}
	if n := len(regexp.MustCompile(`(?m)^FAILED `).FindAllString(e.stdout, -1)); n != 1 {
		t.Errorf("the terminal has %d FAILED blocks, want 1:\n%s", n, clip(e.stdout, 3000))
	}
	expectIn(t, "the terminal", e.stdout, fmt.Sprintf("the same cause failed %d checks", len(failed)))
	expectIn(t, "summary.md", w.summary, fmt.Sprintf("The same cause failed %d checks", len(failed)))
	// One screen: the first checks, each with its command, and how many
	// more summary.md lists.
	_, list, _ := strings.Cut(e.stdout, "the same cause failed")
	listed := regexp.MustCompile(`(?m)^    (\S+) \(`).FindAllStringSubmatch(list, -1)
	for i, m := range listed {
		if m[1] != failed[i] || !strings.Contains(e.stdout, "--check "+m[1]+" -v") {
			t.Errorf("the terminal lists %s as the check number %d, want %s with the command that runs it again", m[1], i+1, failed[i])
		}
	}
	if len(listed) == 0 {
		t.Errorf("the terminal lists none of the cause's checks:\n%s", clip(e.stdout, 3000))
	}
	expectIn(t, "the terminal", e.stdout, fmt.Sprintf("and %d more: summary.md and report.json list each", len(failed)-len(listed)))
	for _, id := range failed {
		if !strings.Contains(w.summary, "\n- `"+id+"` (") {
			t.Errorf("summary.md does not list %s", id)
		}
	}
	if lines := strings.Count(e.stdout, "\n"); lines > 60 {
		t.Errorf("the terminal has %d lines for %d checks of one cause", lines, len(failed))
	}
	if n := strings.Count(w.summary, lastWords); n != 1 {
		t.Errorf("summary.md has the traceback %d times, want once", n)
	}
	if w.junitOK {
		junitFailed := 0
		for _, suite := range w.suites {
			for _, tc := range suite.Tests {
				if tc.Status == junit.StatusFailed {
					junitFailed++
				}
			}
		}
		if junitFailed != len(failed) {
			t.Errorf("junit.xml has %d failed testcases, want %d: one a check", junitFailed, len(failed))
		}
	}
	s.expectNoneLeft(true)
}

// TestHostileProtocolBreaks: row 6, initialize answered with a line that is
// not JSON, a batch, a wrong id, a null id: could not run at once, naming
// the break.
func TestHostileProtocolBreaks(t *testing.T) {
	quotedHello := regexp.MustCompile("[\"'`]hello world")
	for _, tc := range []struct {
		mode string
		says []string // any of them
	}{
		{"not-json", []string{"not JSON"}},
		{"batch", []string{"batch"}},
		{"wrong-id", []string{"never sent"}},
		{"null-id", []string{"id null", `"id": null`, `"id":null`}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			// Only a prompt diagnosis ends the run before the test's
			// bound, which is under go test's -timeout (10m by default).
			e := s.run("agent", "--startup-timeout", "10m", "--", s.hostile, tc.mode)
			expectExit(t, e, 3)
			expectIn(t, "stderr", e.stderr, "acpconform agent: could not run:")
			said := false
			for _, f := range tc.says {
				said = said || strings.Contains(strings.ToLower(e.stderr), strings.ToLower(f))
			}
			if !said {
				t.Errorf("stderr says none of %q:\n%s", tc.says, clip(e.stderr, 4000))
			}
			if tc.mode == "not-json" && !quotedHello.MatchString(e.stderr) {
				t.Errorf("stderr does not quote the line, hello world:\n%s", clip(e.stderr, 4000))
			}
			s.expectVerdict(verdictCouldNotRun)
			s.expectNoneLeft(true)
		})
	}
}

// TestHostileHugeLine: row 7, initialize answered with a 50 MB line: could not
// run, naming the limit and its flag.
func TestHostileHugeLine(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--startup-timeout", "10m", "--", s.hostile, "huge-line")
	expectExit(t, e, 3)
	expectIn(t, "stderr", e.stderr, "1048576", "--max-frame")
	s.expectVerdict(verdictCouldNotRun)
	s.expectNoneLeft(true)
}

// TestHostileFlood: row 8, an agent that floods its turn with 200 MiB of
// updates, held to 4 MiB: the check fails naming the flood and --max-held.
func TestHostileFlood(t *testing.T) {
	t.Parallel()
	s := newRun(t, "HOSTILE_COUNT=200", fmt.Sprintf("HOSTILE_SIZE=%d", 1<<20))
	// Frames of 1 MiB of text are within --max-frame: what fails is the flood.
	e := s.run("agent", "--id", "TOK-1", "--max-held", strconv.Itoa(4<<20), "--max-frame", strconv.Itoa(2<<20),
		"--startup-timeout", "5s", "--response-timeout", "5s", "--", s.hostile, "flood")
	expectExit(t, e, 1)
	w := s.expectVerdict(verdictNotConformant)
	named := false
	for _, c := range w.report.Checks {
		text := strings.ToLower(c.Failure + c.Process + c.Diagnostics)
		named = named || (c.State == "failed" && strings.Contains(text, "flood") && strings.Contains(text, "--max-held"))
	}
	if w.jsonOK && !named {
		t.Errorf("no failed check names the flood and --max-held:\n%s", clip(w.jsonText, 4000))
	}
	s.expectNoneLeft(true)
}

// TestHostileHugeNumberIsElided: row 9, outcomes holding a 1 MB number: the
// reports and the terminal stay small, eliding it with its size.
func TestHostileHugeNumberIsElided(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--id", "TOK-1", "--startup-timeout", "5s", "--response-timeout", "5s", "--", s.hostile, "huge-number")
	expectExit(t, e, 1)
	for _, line := range strings.Split(e.stdout, "\n") {
		if len(line) > 4<<10 {
			t.Errorf("a stdout line of %d bytes: %.200s...", len(line), line)
		}
	}
	w := s.expectVerdict(verdictNotConformant)
	for _, f := range []struct {
		name  string
		text  string
		limit int
	}{{"summary.md", w.summary, 1 << 20}, {"junit.xml", w.xml, 4 << 20}, {"report.json", w.jsonText, 4 << 20}} {
		if len(f.text) >= f.limit {
			t.Errorf("%s is %d bytes, want under %d", f.name, len(f.text), f.limit)
		}
	}
	if !strings.Contains(e.stdout+w.summary+w.xml+w.jsonText, "bytes in all]") {
		t.Errorf(`no report elides the number ("[N bytes in all]")`)
	}
	s.expectNoneLeft(true)
}

// TestHostileSignalsDuringCheck: row 10, SIGINT, two SIGINTs, SIGHUP or SIGTERM
// while a check waits on an agent that ignores SIGTERM, as does its child:
// exit 5, the reports say interrupted, and no subject process is left.
func TestHostileSignalsDuringCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		signals []syscall.Signal
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}},
		{"SIGINT twice", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}},
		{"SIGHUP", []syscall.Signal{syscall.SIGHUP}},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			events := s.events()
			ctx := testbound.Context(t)
			st := s.start(ctx, "agent", "--id", "TOK-1", "--startup-timeout", "30s", "--response-timeout", "1m", "--", s.hostile, "ignore-term")
			select {
			case <-st.checking:
			case <-st.done:
				t.Fatalf("acpconform ended before checking:\n%s", st.wait(ctx, t))
			case <-ctx.Done():
				t.Fatalf("acpconform did not start checking: %v", testbound.Err(ctx, nil))
			}
			agent := awaitEvent(ctx, t, events, "session/prompt")
			child := false
			for _, r := range s.recorded() {
				child = child || (r.pgid == agent && r.pid != agent && r.mode == "child-ignore-term")
			}
			if !child {
				t.Fatalf("the agent %d recorded no child: %v", agent, s.recorded())
			}
			for _, sig := range tc.signals {
				if err := st.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			}
			e := st.wait(ctx, t)
			expectExit(t, e, 5)
			expectIn(t, "stderr", e.stderr, "interrupted")
			if w := s.expectVerdict(verdictInterrupted); w.jsonOK && !markedInterrupted(w.report) {
				t.Errorf("no check of report.json is marked interrupted:\n%s", clip(w.jsonText, 4000))
			}
			s.expectNoneLeft(true)
		})
	}
}

// TestHostileSIGKILL: kill -9 of acpconform mid-check, as the OOM killer,
// timeout -s KILL or a CI job cancelled past its grace do it. Within 5 s
// (docs/cli.md) no process of the run is left, found by pid or by marker:
// not the agent in the check, not the spare started ahead of need, not
// their children, not the grandchildren that left their process group.
func TestHostileSIGKILL(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	events := s.events()
	ctx := testbound.Context(t)
	st := s.start(ctx, "agent", "--id", "TOK-1", "--startup-timeout", "30s", "--response-timeout", "1m", "--", s.hostile, "family")
	// The check's agent has its prompt, and a spare is up with its family.
	prompted, families := 0, map[int]bool{}
	spareUp := func() bool {
		for pid := range families {
			if pid != prompted && alive(pid) {
				return true
			}
		}
		return false
	}
	for prompted == 0 || !spareUp() {
		select {
		case e := <-events:
			what, pid, _ := strings.Cut(e, " ")
			n, err := strconv.Atoi(pid)
			if err != nil {
				t.Fatalf("event %q", e)
			}
			switch what {
			case "family":
				families[n] = true
			case "session/prompt":
				prompted = n
			}
		case <-st.done:
			t.Fatalf("acpconform ended before the check:\n%s", st.wait(ctx, t))
		case <-ctx.Done():
			t.Fatalf("no prompt and spare (prompted %d, families %v): %v", prompted, families, testbound.Err(ctx, nil))
		}
	}
	markers := map[string]bool{}
	modes := map[string]int{}
	for _, r := range s.recorded() {
		if alive(r.pid) {
			modes[r.mode]++
			for _, m := range subjectMarkers(r.pid) {
				markers[m] = true
			}
		}
	}
	if modes["family"] < 2 || modes["child-parent"] < 2 || modes["child-setsid"] < 2 || len(markers) == 0 {
		t.Fatalf("want two agents with a child and a grandchild each, all marked; running: %v, markers %v", modes, markers)
	}
	if err := st.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	st.wait(ctx, t)
	gone, cancel := context.WithDeadline(ctx, killed.Add(5*time.Second))
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		left := map[int]string{} // what is left, by pid, and how it was found
		for _, p := range s.left() {
			left[p.pid] = p.String()
		}
		for _, r := range s.recorded() {
			if alive(r.pid) {
				left[r.pid] = fmt.Sprintf("pid %d, recorded as %s", r.pid, r.mode)
			}
		}
		for _, p := range markedWith(markers) {
			left[p.pid] = p.String()
		}
		if len(left) == 0 {
			t.Logf("no process of the run left %s after kill -9", time.Since(killed).Round(time.Millisecond))
			return
		}
		select {
		case <-tick.C:
		case <-gone.Done():
			var b strings.Builder
			for _, p := range left {
				fmt.Fprintf(&b, "\n  %s", p)
			}
			t.Fatalf("5 s after kill -9 of acpconform, processes of its run are left:%s", b.String())
		}
	}
}

// alive reports whether pid is a process that has not exited: neither gone
// nor a zombie, nor dying of a pending SIGKILL.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X" && !sigkillPending(pid)
}

// subjectMarkers are the markers acpconform gave pid (ACPCONFORM_SUBJECT).
func subjectMarkers(pid int) []string {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil
	}
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "ACPCONFORM_SUBJECT="); ok {
			return strings.Fields(v)
		}
	}
	return nil
}

// markedWith lists the live processes that carry one of markers.
func markedWith(markers map[string]bool) []process {
	var out []process
	for pid, p := range processes("") {
		if !alive(pid) {
			continue
		}
		for _, m := range subjectMarkers(pid) {
			if markers[m] {
				p.cmdline += " (marked " + m + ")"
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// markedInterrupted reports whether a check of r is marked as the one the
// run was interrupted in: by its state, or as a failure that says so.
func markedInterrupted(r reportFile) bool {
	for _, c := range r.Checks {
		if c.State == "interrupted" || (c.State == "failed" && strings.Contains(strings.ToLower(c.Failure), "interrupt")) {
			return true
		}
	}
	return false
}

// TestHostileSetsidGrandchild: row 11, an agent whose child leaves its process
// group with setsid() and holds stdout: it does not outlive the run.
func TestHostileSetsidGrandchild(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--id", "SCH-1", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.hostile, "setsid-child")
	expectExit(t, e, 1) // declines without asking: SCH-1 fails
	s.expectVerdict(verdictNotConformant)
	s.expectRecorded("child-setsid")
	s.expectNoneLeft(true)
}

// TestHostileDaemon: an agent that leaves a daemon (its own session, an
// orphan, an environment without acpconform's marker, deaf to SIGTERM,
// SIGHUP and SIGINT) does not have it outlive a run that ends normally.
func TestHostileDaemon(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--id", "SCH-1", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.hostile, "daemon")
	expectExit(t, e, 1) // declines without asking: SCH-1 fails
	s.expectRecorded("child-daemon")
	s.expectNoneLeft(true)
}

// TestHostileInterruptDuringStartup: row 12, SIGINT while the agent has not
// answered initialize: exit 5, the reports say interrupted.
func TestHostileInterruptDuringStartup(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	events := s.events()
	ctx := testbound.Context(t)
	st := s.start(ctx, "agent", "--startup-timeout", "10m", "--", s.hostile, "mute")
	awaitEvent(ctx, t, events, "initialize")
	if err := st.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	e := st.wait(ctx, t)
	expectExit(t, e, 5)
	expectIn(t, "stderr", e.stderr, "interrupted")
	s.expectVerdict(verdictInterrupted)
	s.expectNoneLeft(true)
}

// TestHostileBrokenStdoutPipe: row 13, stdout a pipe nobody reads: the
// baseline, the step summary and the reports are written all the same.
func TestHostileBrokenStdoutPipe(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	baseline := filepath.Join(s.dir, "baseline.yaml")
	step := filepath.Join(s.dir, "step-summary.md")
	s.env = append(s.env, "GITHUB_STEP_SUMMARY="+step)
	ctx := testbound.Context(t)
	cmd := s.command(ctx, "agent", "--write-baseline", baseline, "--id", "SCH-1", "--", s.acp, "reference-agent")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close() // the reader is gone before acpconform writes a byte
	_ = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("acpconform did not end: %v\n%s", testbound.Err(ctx, nil), stderr.String())
	}
	e := ended{code: cmd.ProcessState.ExitCode(), state: cmd.ProcessState.String(), stderr: stderr.String()}
	expectNoPanic(t, e)
	// Which of 0 and 6 a lost stdout deserves, the spec does not say; a
	// death by SIGPIPE (exit -1) is wrong either way.
	if e.code != 0 && e.code != 6 {
		t.Errorf("exit %d (%s), want 0 (or 6)\n%s", e.code, e.state, e)
	}
	for _, f := range []string{baseline, step} {
		if data, err := os.ReadFile(f); err != nil || len(data) == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	s.expectVerdict(verdictConformant)
	s.expectNoneLeft(false)
}

// TestHostileNothingChecked: row 14, filters that select nothing: exit 4,
// nothing was checked, the unselected checks deselected (not skipped).
func TestHostileNothingChecked(t *testing.T) {
	for _, filter := range [][]string{{"--label-filter", "area: containsAny SHC"}, {"--id", "CLI-1"}} {
		t.Run(strings.Join(filter, " "), func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			e := s.run(append(append([]string{"agent"}, filter...), "--", s.acp, "reference-agent")...)
			expectExit(t, e, 4)
			expectIn(t, "the terminal", e.stdout+e.stderr, "nothing was checked")
			w := s.expectVerdict(verdictNothing)
			if !w.jsonOK {
				return
			}
			if tot := w.report.Totals; tot.Passed != 0 || tot.Failed != 0 || tot.Skipped != 0 || tot.Deselected == 0 {
				t.Errorf("totals %+v, want all deselected", tot)
			}
			for _, c := range w.report.Checks {
				if c.State != "deselected" {
					t.Errorf("%q is %s, want deselected", c.Name, c.State)
				}
			}
			s.expectNoneLeft(false)
		})
	}
}

// fullDevice makes a device like /dev/full in dir: writes to it fail with
// ENOSPC. A CLI that removed /dev/full itself, as root, would break the
// machine; this one is the test's own. Without the right to make devices,
// the real one is safe from removal.
func fullDevice(t *testing.T, dir string) string {
	path := filepath.Join(dir, "full")
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		if os.Getuid() == 0 {
			t.Fatalf("mknod: %v", err)
		}
		return "/dev/full"
	}
	return path
}

// TestHostileReportWriteErrors: row 15, a report under a regular file and one
// on a full device: exit 6, the error with the path, and stdout does not
// list the report.
func TestHostileReportWriteErrors(t *testing.T) {
	for _, tc := range []struct {
		name, flag, oserr string
	}{
		{"json under a file", "--json", "not a directory"},
		{"junit on a full device", "--junit", "no space left on device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			var path string
			if tc.flag == "--json" {
				file := filepath.Join(s.dir, "file")
				if err := os.WriteFile(file, []byte("a regular file\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				path = filepath.Join(file, "report.json")
				s.json = path
			} else {
				path = fullDevice(t, s.dir)
				s.junit = path
			}
			e := s.run("agent", "--id", "SCH-1", "--", s.acp, "reference-agent")
			expectExit(t, e, 6)
			expectIn(t, "stderr", e.stderr, path, tc.oserr)
			if strings.Contains(e.stdout, path) {
				t.Errorf("stdout lists %s, which was not written:\n%s", path, e.stdout)
			}
			// The other two reports are written and say the subject passed.
			if tc.flag == "--json" {
				if md, err := readReport(s.summary); err != nil || !saysVerdict(string(md), verdictConformant) {
					t.Errorf("summary.md (%v):\n%s", err, clip(string(md), 2000))
				}
			} else {
				var r reportFile
				data, err := readReport(s.json)
				if err == nil {
					err = json.Unmarshal(data, &r)
				}
				if err != nil || r.Verdict != verdictConformant {
					t.Errorf("report.json (%v) verdict %q, want %q", err, r.Verdict, verdictConformant)
				}
			}
			s.expectNoneLeft(false)
		})
	}
}

// TestHostileBaselineWriteError: row 16, --write-baseline into a directory
// that does not exist: exit 6 and the error.
func TestHostileBaselineWriteError(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	// Under the test's own directory, not /nonexistent: as root, a CLI
	// that made the directory would litter the machine.
	baseline := filepath.Join(s.dir, "nonexistent", "x.yaml")
	e := s.run("agent", "--write-baseline", baseline, "--id", "SCH-1", "--", s.acp, "reference-agent")
	expectExit(t, e, 6)
	expectIn(t, "stderr", e.stderr, baseline, "no such file or directory")
	s.expectVerdict(verdictConformant)
	s.expectNoneLeft(false)
}

// TestHostileReportsReplacedByNextRun: row 17, a passing run, then one that
// could not run, to the same paths: the reports say could not run.
func TestHostileReportsReplacedByNextRun(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--id", "SCH-1", "--", s.acp, "reference-agent")
	expectExit(t, e, 0)
	s.expectVerdict(verdictConformant)
	e = s.run("agent", "--startup-timeout", "5s", "--", "false")
	expectExit(t, e, 3)
	s.expectVerdict(verdictCouldNotRun)
	s.expectNoneLeft(false)
}

// TestHostileClientFailsOneStart: row 18, a client whose second start fails:
// that check fails saying why, and none is skipped as if the client did not
// advertise form.
func TestHostileClientFailsOneStart(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	s.env = append(s.env, "HOSTILE_COUNTER="+filepath.Join(s.dir, "starts"), "HOSTILE_FAIL_START=2", "HOSTILE_EXEC="+s.acp+" reference-client")
	e := s.run("client", "--startup-timeout", "5s", "--response-timeout", "5s", "--", s.hostile, "client-fail-start")
	expectExit(t, e, 1)
	w := s.expectVerdict(verdictNotConformant)
	for name, text := range map[string]string{"stdout": e.stdout, "report.json": w.jsonText, "junit.xml": w.xml} {
		if strings.Contains(text, "does not advertise form") {
			t.Errorf("%s skips a check for want of form, which the client advertises:\n%s", name, clip(text, 4000))
		}
	}
	why := false
	for _, c := range w.report.Checks {
		why = why || (c.State == "failed" && strings.Contains(c.Failure+c.Process+c.Diagnostics, "exited with status 1"))
	}
	if w.jsonOK && !why {
		t.Errorf("no failed check says the client exited with status 1:\n%s", clip(w.jsonText, 4000))
	}
	s.expectNoneLeft(true)
}

// TestHostileClientCapitalised: a client in test mode that capitalises
// the members of its answers ({"Action":"accept","Content":{...}}), as a Go
// client with untagged structs writes them. No ACP SDK reads that as an
// answer, so its MUST check fails, naming the member (contract revision 5,
// Reading the wire); Go's encoding/json would have passed it.
func TestHostileClientCapitalised(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("client", "--check", "CLI-2/accept-the-second-option", "--startup-timeout", "10s", "--response-timeout", "5s", "--", s.hostile, "client-capitalised")
	expectExit(t, e, 1)
	w := s.expectVerdict(verdictNotConformant)
	if c, ok := checkOf(w, "CLI-2/accept-the-second-option"); w.jsonOK && (!ok || c.State != "failed" || !strings.Contains(c.Failure, `no member "action"`) || !strings.Contains(c.Failure, `it has "Action"`)) {
		t.Errorf("CLI-2/accept-the-second-option did not fail naming \"Action\":\n%s", clip(w.jsonText, 4000))
	}
	s.expectNoneLeft(true)
}

// TestHostileClientHiddenDeclineContent: a client in test mode whose
// instructed decline carries content, hidden behind a capitalised null
// (which encoding/json took for the content) or a second, null "content"
// (which JavaScript and Python read last). Read as sent, on every reading,
// the content shows: CLI-5 fails naming it, while CLI-2, which no longer
// holds a decline to carry none (revision 5: that is ELI-8's advice),
// passes.
func TestHostileClientHiddenDeclineContent(t *testing.T) {
	t.Parallel()
	for _, variant := range []string{"capitalised", "duplicate"} {
		t.Run(variant, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			e := s.run("client", "--check", "CLI-5/decline,CLI-2/decline-without-content", "--startup-timeout", "10s", "--response-timeout", "5s",
				"--", s.hostile, "client-hidden-decline-content", variant)
			expectExit(t, e, 1)
			w := s.expectVerdict(verdictNotConformant)
			if c, ok := checkOf(w, "CLI-5/decline"); w.jsonOK && (!ok || c.State != "failed" || !strings.Contains(c.Failure, `the decline carries the content {"name":"Ada"}`)) {
				t.Errorf("CLI-5/decline did not fail naming the content {\"name\":\"Ada\"}:\n%s", clip(w.jsonText, 4000))
			}
			if c, ok := checkOf(w, "CLI-2/decline-without-content"); w.jsonOK && (!ok || c.State != "passed") {
				t.Errorf("CLI-2/decline-without-content is %q, want passed: content on a decline is ELI-8's advice\n%s", c.State, clip(w.jsonText, 4000))
			}
			s.expectNoneLeft(true)
		})
	}
}

// checkOf finds the check id in report.json.
func checkOf(w written, id string) (struct{ State, Failure string }, bool) {
	for _, c := range w.report.Checks {
		if c.ID == id {
			return struct{ State, Failure string }{c.State, c.Failure}, true
		}
	}
	return struct{ State, Failure string }{}, false
}

// TestHostileRelayNotJSON: row 19, a relay that writes a line that is not
// JSON to its client: not 0, naming it.
func TestHostileRelayNotJSON(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("relay", "--startup-timeout", "5s", "--response-timeout", "2s", "--", s.hostile, "relay-not-json", "{url}")
	if e.code != 1 && e.code != 3 {
		t.Fatalf("exit %d, want 1 (or 3)\n%s", e.code, e)
	}
	w := s.expectVerdict(map[int]string{1: verdictNotConformant, 3: verdictCouldNotRun}[e.code])
	expectIn(t, "the terminal and report.json", e.stdout+e.stderr+w.jsonText, "not JSON")
	s.expectNoneLeft(true)
}

// TestHostileUsageErrors: row 20, values no run can use: exit 2, one line
// naming the flag (or the value).
func TestHostileUsageErrors(t *testing.T) {
	// A flag is named with one dash or two ("-max-frame" is in both).
	for _, tc := range []struct {
		args  []string
		names []string // any of them
	}{
		{[]string{"agent", "--max-frame", "9223372036854775807", "--", "x"}, []string{"-max-frame"}},
		{[]string{"agent", "--max-frame", "-5", "--", "x"}, []string{"-max-frame"}},
		{[]string{"agent", "--url", "ws://[::1"}, []string{"-url"}},
		{[]string{"agent", "--", ""}, []string{`""`, "empty"}},
		{[]string{"mirror", "http://x"}, []string{"http://x"}},
		{[]string{"agent", "--max-held", "0", "--", "x"}, []string{"-max-held"}},
		{[]string{"agent", "--timeout", "-1s", "--", "x"}, []string{"-timeout"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			e := s.run(tc.args...)
			expectExit(t, e, 2)
			if lines := strings.Split(strings.TrimSpace(e.stderr), "\n"); len(lines) != 1 {
				t.Errorf("stderr is %d lines, want one:\n%s", len(lines), e.stderr)
			}
			named := false
			for _, n := range tc.names {
				named = named || strings.Contains(e.stderr, n)
			}
			if !named {
				t.Errorf("stderr names none of %q:\n%s", tc.names, e.stderr)
			}
			if strings.Contains(e.stderr, "provided but not defined") {
				t.Errorf("the flag does not exist: %s", e.stderr)
			}
			s.expectNoneLeft(false)
		})
	}
}

// TestHostileWholeRunTimeout: row 21, --timeout 5s over an agent that never
// answers its prompts and ignores SIGTERM: exit 5, timed out, reports
// written, nothing left.
func TestHostileWholeRunTimeout(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	e := s.run("agent", "--timeout", "5s", "--", s.hostile, "hang")
	expectExit(t, e, 5)
	if !strings.Contains(e.stderr, "--timeout") && !strings.Contains(strings.ToLower(e.stderr), "timed out") {
		t.Errorf("stderr does not say the run timed out (--timeout):\n%s", clip(e.stderr, 4000))
	}
	s.expectVerdict(verdictInterrupted)
	s.expectNoneLeft(true)
}

// TestHostileSecondConnection: row 22, subjects that connect twice in one
// check, a health check first and then for real: a relay that dials its
// {url} twice, a relay and a client that run their {agent} twice. Each
// could not run, saying it connected a second time, long before the
// --startup-timeout it would once have waited out (60 s; the bound of 30 s
// leaves a loaded machine more than it needs).
func TestHostileSecondConnection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		command func(s *subjectRun) []string
		says    string
	}{
		{"relay dials {url} twice", func(s *subjectRun) []string {
			s.env = append(s.env, "HOSTILE_EXEC="+s.acp+" mirror --unstable-protocol")
			return []string{"relay", "--", s.hostile, "relay-health-check", "{url}"}
		}, "the relay connected a second time to {url}; acpconform serves one connection per check"},
		{"relay runs {agent} twice", func(s *subjectRun) []string {
			return []string{"relay", "--", "sh", "-c", "{agent} </dev/null; exec {agent}"}
		}, "the relay connected a second time through {agent}; acpconform serves one connection per check"},
		{"client runs {agent} twice", func(s *subjectRun) []string {
			return []string{"client", "--", "sh", "-c", `{agent} </dev/null; exec "$1" reference-client --agent "$0"`, "{agent}", s.acp}
		}, "the client connected a second time through {agent}; acpconform serves one connection per check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			args := tc.command(s)
			args = append(args[:1:1], append([]string{"--startup-timeout", "60s"}, args[1:]...)...)
			start := time.Now()
			e := s.run(args...)
			took := time.Since(start)
			t.Logf("the run took %s", took.Round(time.Millisecond))
			expectExit(t, e, 3)
			expectIn(t, "stderr", e.stderr, "could not run: "+tc.says)
			w := s.expectVerdict(verdictCouldNotRun)
			expectIn(t, "report.json", w.jsonText, tc.says)
			if took > 30*time.Second {
				t.Errorf("the run took %s: it waited for --startup-timeout 60s instead of saying the second connection at once", took.Round(time.Millisecond))
			}
			s.expectNoneLeft(false)
		})
	}
}

// TestHostileConcurrentRuns: row 23, two runs given the same reports at
// once. The first holds them from its start (one process of its subject,
// the first to get there, waits on a gate until the second run has ended,
// and the first run cannot end without it); the second, whose subject could not run,
// is refused at once (exit 2, naming the first's pid and a report) and
// writes nothing, and the reports that remain are the first run's, whole.
func TestHostileConcurrentRuns(t *testing.T) {
	t.Parallel()
	s := newRun(t)
	started, gate := filepath.Join(s.dir, "started"), filepath.Join(s.dir, "gate")
	for _, fifo := range []string{started, gate} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx := testbound.Context(t)
	first := s.command(ctx, "agent", "--id", "SCH-1", "--startup-timeout", "60s", "--",
		"sh", "-c", `if mkdir "$0.once" 2>/dev/null; then echo started >"$0"; read go <"$1"; fi; exec "$2" reference-agent`, started, gate, s.acp)
	var out strings.Builder
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- first.Wait() }()
	heard := make(chan error, 1)
	go func() { // the first run's subject started: the run holds its reports
		_, err := os.ReadFile(started)
		heard <- err
	}()
	select {
	case err := <-heard:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-ran:
		t.Fatalf("the first run ended before its subject started: %v\n%s", err, out.String())
	case <-ctx.Done():
		t.Fatalf("the first run's subject did not start: %v", testbound.Err(ctx, nil))
	}

	second := s.run("agent", "--startup-timeout", "5s", "--", "false")
	expectExit(t, second, 2)
	expectIn(t, "the second run's stderr", second.stderr, fmt.Sprintf("another acpconform run (pid %d) is writing %s", first.Process.Pid, s.junit))
	for _, path := range []string{s.junit, s.json, s.summary} {
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is there while the first run holds it (%v): the second run wrote it", path, err)
		}
	}

	if err := os.WriteFile(gate, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil {
		t.Fatalf("the first run: %v\n%s", err, out.String())
	}
	w := s.expectVerdict(verdictConformant)
	for name, text := range map[string]string{"report.json": w.jsonText, "junit.xml": w.xml, "summary.md": w.summary} {
		if !strings.Contains(text, "reference-agent") {
			t.Errorf("%s is not of the first run's subject:\n%s", name, clip(text, 2000))
		}
	}
	left, _ := filepath.Glob(filepath.Join(s.dir, ".*"))
	if len(left) > 0 {
		t.Errorf("lock or temporary files left behind: %v", left)
	}
	s.expectNoneLeft(false)
}
