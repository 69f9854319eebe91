package reports

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/internal/elide"
)

// DefaultHeartbeat is how long progress stays silent while checks run
// before it says what the run is doing: a CI log that says nothing for a
// minute looks hung.
const DefaultHeartbeat = 30 * time.Second

// Progress prints a run as it goes, the same on a terminal and in a CI
// log, each line led by the time since the run began ([01:05]): a line per
// contract area when the last of its selected checks has finished, and a
// line saying what runs when nothing was said for a heartbeat. Verbose
// adds a line for each check as it ends, with a failure's first line.
// None of it is the test framework's own output. The checks of an area
// need not run one after another (wire-only checks of SCH run with the
// WIRE ones), so the number each area will run is read from a preview of
// the run first (Expect).
//
// Its methods take what Ginkgo's reporting nodes receive: the run wires
// Begin to ReportBeforeSuite, Started to ReportBeforeEach, Finished to
// ReportAfterEach and End to ReportAfterSuite.
type Progress struct {
	w         io.Writer
	heartbeat time.Duration
	verbose   bool
	began     time.Time
	now       func() time.Time

	mu       sync.Mutex
	expected map[string]int            // area -> checks the run will execute
	counts   map[string]map[string]int // area -> state -> checks
	order    []string                  // areas in the order their first check ran
	done     int
	total    int
	current  string    // the check running
	since    time.Time // when it started
	said     time.Time // when the last line was written
	stop     chan struct{}
	stopped  sync.WaitGroup
}

// NewProgress returns the progress of a run that began at began (zero:
// when Begin is called), written to w. heartbeat is how long it may stay
// silent while a check runs (zero: DefaultHeartbeat); verbose adds a line
// for each check.
func NewProgress(w io.Writer, began time.Time, heartbeat time.Duration, verbose bool) *Progress {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	return &Progress{w: w, heartbeat: heartbeat, verbose: verbose, began: began, now: time.Now,
		expected: map[string]int{}, counts: map[string]map[string]int{}}
}

// Expect reads from a preview of the run how many checks of each area it
// will execute.
func (p *Progress) Expect(preview types.Report) {
	for _, s := range preview.SpecReports {
		if s.LeafNodeType == types.NodeTypeIt && s.State == types.SpecStatePassed { // would run
			p.expected[specArea(s)]++
			p.total++
		}
	}
}

func specArea(s types.SpecReport) string {
	for _, l := range s.Labels() {
		if a, ok := strings.CutPrefix(l, "area:"); ok {
			return a
		}
	}
	return ""
}

// Begin starts the clock, unless the run's began already, and the
// heartbeat.
func (p *Progress) Begin(types.Report) {
	p.mu.Lock()
	now := p.now()
	if p.began.IsZero() {
		p.began = now
	}
	p.said = now
	p.stop = make(chan struct{})
	p.mu.Unlock()
	p.stopped.Add(1)
	go p.beat()
}

// beat says what the run is doing when nothing was said for a heartbeat.
func (p *Progress) beat() {
	defer p.stopped.Done()
	t := time.NewTicker(p.heartbeat / 4)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if now := p.now(); now.Sub(p.said) >= p.heartbeat {
				running := ""
				if p.current != "" {
					running = fmt.Sprintf("; running %s for %s", p.current, now.Sub(p.since).Round(time.Second))
				}
				p.line(fmt.Sprintf("... %d of %d checks done%s", p.done, p.total, running))
			}
			p.mu.Unlock()
		}
	}
}

// Started notes the check now running, for the heartbeat.
func (p *Progress) Started(s types.SpecReport) {
	if s.LeafNodeType != types.NodeTypeIt {
		return
	}
	c := checkOf(s, nil, false)
	p.mu.Lock()
	p.current, p.since = elide.EscapeLine(c.Key()), p.now()
	p.mu.Unlock()
}

// Finished counts a finished check, says it when verbose, and writes its
// area's line when it was the area's last.
func (p *Progress) Finished(s types.SpecReport) {
	if s.LeafNodeType != types.NodeTypeIt || s.State == types.SpecStateSkipped && s.Failure.Message == "" {
		return // not selected, or not reached
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = ""
	area := specArea(s)
	c := p.counts[area]
	if c == nil {
		c = map[string]int{}
		p.counts[area] = c
		p.order = append(p.order, area)
	}
	c["ran"]++
	p.done++
	check := checkOf(s, nil, false)
	switch check.State {
	case StatePassed:
		c["passed"]++
	case StateError:
		c["errors"]++ // did not run: neither passed nor failed
	case StateFailed, StateInterrupted:
		c["failed"]++
	default:
		c["skipped"]++
	}
	if p.verbose {
		p.check(check)
	}
	if c["ran"] == p.expected[area] {
		p.area(area)
	}
}

// check says how a check ended, on a line of its own, and a failure's or
// skip's first line under it.
func (p *Progress) check(c Check) {
	word := map[string]string{StatePassed: "passed", StateFailed: "FAILED", StateInterrupted: "INTERRUPTED",
		StateError: "COULD NOT RUN", StateSkipped: "skipped"}[c.State]
	p.line(fmt.Sprintf("%-7s %s", word, elide.EscapeLine(c.Heading(""))))
	why := c.Failure
	if c.State == StateSkipped {
		why = c.SkipReason
	}
	if first := strings.TrimSpace(why); first != "" {
		first, _, _ = strings.Cut(first, "\n")
		fmt.Fprintln(p.w, cut(strings.Repeat(" ", len("[00:00] passed  "))+elide.EscapeLine(first), TerminalColumns))
	}
}

// area writes an area's totals; the lock is held.
func (p *Progress) area(area string) {
	c := p.counts[area]
	errors := ""
	if c["errors"] > 0 {
		errors = fmt.Sprintf(", %d could not run", c["errors"])
	}
	p.line(fmt.Sprintf("%-5s %3d checks: %d passed, %d failed, %d skipped%s", elide.EscapeLine(area), c["ran"], c["passed"], c["failed"], c["skipped"], errors))
}

// line writes a line led by the time since the run began, cut to the
// terminal's width; the lock is held.
func (p *Progress) line(s string) {
	now := p.now()
	fmt.Fprintln(p.w, cut(Elapsed(now.Sub(p.began))+" "+s, TerminalColumns))
	p.said = now
}

// Elapsed is how progress shows the time since the run began: [mm:ss],
// or [h:mm:ss] from an hour on.
func Elapsed(d time.Duration) string {
	s := int(max(d, 0) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("[%d:%02d:%02d]", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("[%02d:%02d]", s/60, s%60)
}

// End stops the heartbeat and writes the areas an interrupted run left
// unfinished.
func (p *Progress) End(types.Report) {
	p.mu.Lock()
	stop := p.stop
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		p.stopped.Wait()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, area := range p.order {
		if p.counts[area]["ran"] < p.expected[area] {
			p.area(area)
		}
	}
}
