package interop_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/acpconform/acpconform/reports"
)

// TestCatalogueUnderLoad runs the checks whose verdict hangs on time (the
// bounds of RTE-7, the waiting fallbacks of FB-2, the sessions of SES and
// CAP-4's connections at once) against the Node and the Python agent
// adapter, side by side, with a busy loop per CPU running beside them, as
// other jobs on a shared CI runner would, and wants the verdict an idle
// machine gives: conformant. A bound of the harness or of these tests that
// a busy machine outruns fails it. (The whole catalogue against both runs
// in TestInteropMatrix; under load here it cost the suite minutes of CPU
// for the checks no clock decides.)
// docs/ci/README.md says how to load a whole go test run the same way.
func TestCatalogueUnderLoad(t *testing.T) {
	t.Parallel()
	loops := busyLoops(t, runtime.NumCPU())
	var wg sync.WaitGroup
	for _, s := range []subject{tsAgentRow(t), pythonAgentRow()} {
		wg.Go(func() {
			name := fmt.Sprintf("%s as %s over %s, beside %d busy loops", s.implementation, s.role, s.transport, len(loops))
			if r, _ := runRow(t, name, s, "--check", timeBound); r != nil && r.Verdict != reports.Conformant {
				t.Errorf("%s: verdict %q, want conformant: %+v", name, r.Verdict, r.Totals)
			}
		})
	}
	wg.Wait()
	for i, l := range loops {
		select {
		case <-l.done:
			t.Errorf("busy loop %d ended before the runs did (%v): they ran on a machine less loaded than meant", i+1, l.err)
		default:
		}
	}
}

// timeBound selects the agent checks whose verdict a clock decides.
const timeBound = "RTE-7/*,FB-2/*,SES-*,CAP-4/*,ELI-2/cancel"

// spin is a busy loop in sh, as another job on the machine would be: it
// computes, and every few thousand rounds ends unless the process whose
// pid is its argument, the test's, is still there, so that a test binary
// killed before its cleanups leaves no loop behind.
const spin = `while kill -0 "$1" 2>/dev/null; do i=0; while [ "$i" -lt 50000 ]; do i=$((i+1)); done; done`

// busyLoop is a child process that spins; done is closed once it ended,
// with err how.
type busyLoop struct {
	done chan struct{}
	err  error
}

// busyLoops starts n busy loops and kills them when the test ends, failed
// or not, or when its bound runs out.
func busyLoops(t *testing.T, n int) []*busyLoop {
	var loops []*busyLoop
	for range n {
		cmd := exec.CommandContext(ctxFor(t), "sh", "-c", spin, "sh", strconv.Itoa(os.Getpid()))
		if err := cmd.Start(); err != nil {
			t.Fatalf("a busy loop: %v", err)
		}
		l := &busyLoop{done: make(chan struct{})}
		go func() {
			l.err = cmd.Wait()
			close(l.done)
		}()
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-l.done
		})
		loops = append(loops, l)
	}
	return loops
}
