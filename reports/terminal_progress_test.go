package reports

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func specIn(area string, state types.SpecState, message string) types.SpecReport {
	return types.SpecReport{
		LeafNodeType:   types.NodeTypeIt,
		LeafNodeText:   area + " check",
		LeafNodeLabels: []string{"area:" + area, "check:" + area + "-1:" + strings.ToLower(area) + "-check", "rule:" + area + "-1", "level:MUST"},
		State:          state,
		Failure:        types.Failure{Message: message},
	}
}

// lines is a writer that hands over each write.
type lines struct {
	mu  sync.Mutex
	all []string
	c   chan string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.all = append(l.all, string(p))
	l.mu.Unlock()
	select {
	case l.c <- string(p):
	default:
	}
	return len(p), nil
}

func (l *lines) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.all, "")
}

// clock is a time that tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// progressAt is progress whose clock is c, begun at c's time.
func progressAt(w *lines, c *clock, heartbeat time.Duration, verbose bool) *Progress {
	p := NewProgress(w, c.now(), heartbeat, verbose)
	p.now = c.now
	return p
}

func TestProgressSaysEachAreaOnceWhenItsLastCheckEnds(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	c := &clock{t: time.Unix(1000, 0)}
	p := progressAt(w, c, time.Hour, false)
	p.Expect(types.Report{SpecReports: types.SpecReports{
		specIn("SCH", types.SpecStatePassed, ""), specIn("TOK", types.SpecStatePassed, ""),
		specIn("SCH", types.SpecStatePassed, ""), specIn("VAL", types.SpecStateSkipped, ""), // not selected
	}})
	p.Begin(types.Report{})
	p.Finished(specIn("SCH", types.SpecStatePassed, ""))
	p.Finished(specIn("VAL", types.SpecStateSkipped, "")) // deselected: no line
	if got := w.text(); got != "" {
		t.Fatalf("a line before SCH's last check: %q", got)
	}
	c.advance(65 * time.Second)
	p.Finished(specIn("TOK", types.SpecStateFailed, "boom"))
	c.advance(2 * time.Second)
	p.Finished(specIn("SCH", types.SpecStateSkipped, "needs the Go API"))
	p.End(types.Report{})
	want := "[01:05] TOK     1 checks: 0 passed, 1 failed, 0 skipped\n[01:07] SCH     2 checks: 1 passed, 0 failed, 1 skipped\n"
	if got := w.text(); got != want {
		t.Errorf("progress:\n%s\nwant:\n%s", got, want)
	}
}

// TestProgressCountsFromTheRunsStart: a run that began before its checks
// (its subject's start) counts from then, not from its first check.
func TestProgressCountsFromTheRunsStart(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	c := &clock{t: time.Unix(1000, 0)}
	p := progressAt(w, c, time.Hour, false)
	c.advance(3 * time.Second) // the subject starts
	p.Expect(types.Report{SpecReports: types.SpecReports{specIn("TOK", types.SpecStatePassed, "")}})
	p.Begin(types.Report{})
	c.advance(4 * time.Second)
	p.Finished(specIn("TOK", types.SpecStatePassed, ""))
	p.End(types.Report{})
	if got, want := w.text(), "[00:07] TOK     1 checks: 1 passed, 0 failed, 0 skipped\n"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}

func TestProgressWritesAnUnfinishedAreaAtTheEnd(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	p := progressAt(w, &clock{}, time.Hour, false)
	p.Expect(types.Report{SpecReports: types.SpecReports{specIn("RTE", types.SpecStatePassed, ""), specIn("RTE", types.SpecStatePassed, "")}})
	p.Begin(types.Report{})
	p.Finished(specIn("RTE", types.SpecStateInterrupted, "Interrupted by User"))
	p.End(types.Report{})
	if got := w.text(); got != "[00:00] RTE     1 checks: 0 passed, 1 failed, 0 skipped\n" {
		t.Errorf("an interrupted area: %q", got)
	}
}

func TestProgressHeartbeatSaysWhatRuns(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	p := NewProgress(w, time.Time{}, 40*time.Millisecond, false)
	p.Expect(types.Report{SpecReports: types.SpecReports{specIn("FB", types.SpecStatePassed, "")}})
	p.Begin(types.Report{})
	defer p.End(types.Report{})
	p.Started(specIn("FB", types.SpecStatePassed, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case line := <-w.c:
		if !strings.HasPrefix(line, "[00:00] ") || !strings.Contains(line, "0 of 1 checks done") || !strings.Contains(line, "running FB-1/fb-check for ") {
			t.Errorf("heartbeat %q", line)
		}
	case <-ctx.Done():
		t.Fatal("no heartbeat")
	}
}

// TestProgressVerboseSaysEachCheck: -v says each check as it ends, a
// failure's first line under it, in the terminal's width, with no word
// of the test framework's.
func TestProgressVerboseSaysEachCheck(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	c := &clock{t: time.Unix(1000, 0)}
	p := progressAt(w, c, time.Hour, true)
	p.Expect(types.Report{SpecReports: types.SpecReports{specIn("TOK", types.SpecStatePassed, ""), specIn("TOK", types.SpecStatePassed, ""), specIn("TOK", types.SpecStatePassed, "")}})
	p.Begin(types.Report{})
	c.advance(time.Second)
	p.Finished(specIn("TOK", types.SpecStatePassed, ""))
	c.advance(time.Second)
	huge := "the agent reported " + strings.Repeat("accepted \x1b[2J", 1000) + "\nsecond line"
	p.Finished(specIn("TOK", types.SpecStateFailed, huge))
	p.Finished(specIn("TOK", types.SpecStateSkipped, "needs the Go API"))
	p.End(types.Report{})
	got := w.text()
	for _, want := range []string{
		"[00:01] passed  TOK-1/tok-check (TOK-1 MUST): TOK check\n",
		"[00:02] FAILED  TOK-1/tok-check (TOK-1 MUST): TOK check\n                the agent reported accepted \\x1b[2Jaccepted",
		"[00:02] skipped TOK-1/tok-check (TOK-1 MUST): TOK check\n                needs the Go API\n",
		"[00:02] TOK     3 checks: 1 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "second line") {
		t.Errorf("progress shows more than a failure's first line:\n%s", got)
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if n := len([]rune(l)); n > TerminalColumns {
			t.Errorf("a line of %d columns:\n%s", n, l)
		}
	}
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "[00:00]", 999 * time.Millisecond: "[00:00]", 65 * time.Second: "[01:05]",
		59*time.Minute + 59*time.Second: "[59:59]", time.Hour + 2*time.Minute + 3*time.Second: "[1:02:03]", -time.Second: "[00:00]",
	} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%s) = %q, want %q", d, got, want)
		}
	}
}
