package suite

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/reports"
)

// DefaultHeartbeat is how long progress stays silent while checks run
// before it says what the run is doing: a CI log that says nothing for a
// minute looks hung.
const DefaultHeartbeat = 30 * time.Second

// progress writes one line per contract area, when the last of the area's
// selected checks has finished, so that a terminal and a plain CI log read
// alike and no area shows twice. The checks of an area need not run one
// after another (wire-only checks of SCH run with the WIRE ones), so the
// number each area will run is read from a preview of the run first.
type progress struct {
	w         io.Writer
	heartbeat time.Duration

	mu       sync.Mutex
	expected map[string]int            // area -> checks the run will execute
	counts   map[string]map[string]int // area -> state -> checks
	order    []string                  // areas in the order their first check ran
	done     int
	total    int
	current  string    // the check running
	said     time.Time // when the last line was written
	stop     chan struct{}
	stopped  sync.WaitGroup
}

func newProgress(w io.Writer, heartbeat time.Duration) *progress {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	return &progress{w: w, heartbeat: heartbeat, expected: map[string]int{}, counts: map[string]map[string]int{}}
}

// expect reads from a preview of the run how many checks of each area it
// will execute.
func (p *progress) expect(preview types.Report) {
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

// begin starts the heartbeat.
func (p *progress) begin(types.Report) {
	p.mu.Lock()
	p.said = time.Now()
	p.stop = make(chan struct{})
	p.mu.Unlock()
	p.stopped.Add(1)
	go p.beat()
}

// beat says what the run is doing when nothing was said for a heartbeat.
func (p *progress) beat() {
	defer p.stopped.Done()
	t := time.NewTicker(p.heartbeat / 4)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			if now.Sub(p.said) >= p.heartbeat {
				fmt.Fprintf(p.w, "  ... %d of %d checks done after %s; running %s\n", p.done, p.total, now.Sub(p.said).Round(time.Second), p.current)
				p.said = now
			}
			p.mu.Unlock()
		}
	}
}

// started notes the check now running, for the heartbeat.
func (p *progress) started(s types.SpecReport) {
	if s.LeafNodeType != types.NodeTypeIt {
		return
	}
	p.mu.Lock()
	p.current = s.FullText()
	p.mu.Unlock()
}

// spec counts a finished check and writes its area's line when it was the
// area's last.
func (p *progress) spec(s types.SpecReport) {
	if s.LeafNodeType != types.NodeTypeIt || s.State == types.SpecStateSkipped && s.Failure.Message == "" {
		return // not selected, or not reached
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	area := specArea(s)
	c := p.counts[area]
	if c == nil {
		c = map[string]int{}
		p.counts[area] = c
		p.order = append(p.order, area)
	}
	c["ran"]++
	p.done++
	switch {
	case s.State == types.SpecStatePassed:
		c["passed"]++
	case reports.DidNotStart(s):
		c["errors"]++ // did not run: neither passed nor failed
	case s.State.Is(types.SpecStateFailureStates):
		c["failed"]++
	default:
		c["skipped"]++
	}
	if c["ran"] == p.expected[area] {
		p.line(area)
	}
}

// line writes an area's totals; the lock is held.
func (p *progress) line(area string) {
	c := p.counts[area]
	errors := ""
	if c["errors"] > 0 {
		errors = fmt.Sprintf(", %d could not run", c["errors"])
	}
	fmt.Fprintf(p.w, "  %-5s %3d checks: %d passed, %d failed, %d skipped%s\n", area, c["ran"], c["passed"], c["failed"], c["skipped"], errors)
	p.said = time.Now()
}

// end stops the heartbeat and writes the areas an interrupted run left
// unfinished.
func (p *progress) end(types.Report) {
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
			p.line(area)
		}
	}
}
