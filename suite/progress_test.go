package suite

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
		LeafNodeLabels: []string{"area:" + area},
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

func TestProgressSaysEachAreaOnceWhenItsLastCheckEnds(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	p := newProgress(w, time.Hour)
	p.expect(types.Report{SpecReports: types.SpecReports{
		specIn("SCH", types.SpecStatePassed, ""), specIn("TOK", types.SpecStatePassed, ""),
		specIn("SCH", types.SpecStatePassed, ""), specIn("VAL", types.SpecStateSkipped, ""), // not selected
	}})
	p.begin(types.Report{})
	p.spec(specIn("SCH", types.SpecStatePassed, ""))
	p.spec(specIn("VAL", types.SpecStateSkipped, "")) // deselected: no line
	if got := w.text(); got != "" {
		t.Fatalf("a line before SCH's last check: %q", got)
	}
	p.spec(specIn("TOK", types.SpecStateFailed, "boom"))
	p.spec(specIn("SCH", types.SpecStateSkipped, "needs the Go API"))
	p.end(types.Report{})
	want := "  TOK     1 checks: 0 passed, 1 failed, 0 skipped\n  SCH     2 checks: 1 passed, 0 failed, 1 skipped\n"
	if got := w.text(); got != want {
		t.Errorf("progress:\n%s\nwant:\n%s", got, want)
	}
}

func TestProgressWritesAnUnfinishedAreaAtTheEnd(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	p := newProgress(w, time.Hour)
	p.expect(types.Report{SpecReports: types.SpecReports{specIn("RTE", types.SpecStatePassed, ""), specIn("RTE", types.SpecStatePassed, "")}})
	p.begin(types.Report{})
	p.spec(specIn("RTE", types.SpecStateInterrupted, "Interrupted by User"))
	p.end(types.Report{})
	if got := w.text(); got != "  RTE     1 checks: 0 passed, 1 failed, 0 skipped\n" {
		t.Errorf("an interrupted area: %q", got)
	}
}

func TestProgressHeartbeatSaysWhatRuns(t *testing.T) {
	w := &lines{c: make(chan string, 16)}
	p := newProgress(w, 40*time.Millisecond)
	p.expect(types.Report{SpecReports: types.SpecReports{specIn("FB", types.SpecStatePassed, "")}})
	p.begin(types.Report{})
	defer p.end(types.Report{})
	p.started(specIn("FB", types.SpecStatePassed, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case line := <-w.c:
		if !strings.Contains(line, "0 of 1 checks done") || !strings.Contains(line, "running FB check") {
			t.Errorf("heartbeat %q", line)
		}
	case <-ctx.Done():
		t.Fatal("no heartbeat")
	}
}
