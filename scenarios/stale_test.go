package scenarios_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reference/probeagent"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// staleAgent is the reference probe agent, counted as no part of this
// process so that its checks share connections, that goes wrong on a
// connection's second session and after: every prompt turn it ends then
// ends with "refusal". Every check that reuses a connection fails there,
// and must pass on the fresh one it runs again on, as against the
// reference: sharing never changes a verdict.
type staleAgent struct{}

const staleName = "reference going stale on a reused connection"

func (staleAgent) Name() string               { return staleName }
func (staleAgent) Role() suite.Role           { return suite.AgentRole }
func (staleAgent) InProcess() bool            { return false }
func (staleAgent) Transport() suite.Transport { return suite.StdioTransport }
func (staleAgent) Connect(context.Context) (*suite.Link, error) {
	mine, theirs := wire.Pipe(wire.Options{})
	s := wire.NewSDKStream(theirs)
	agent := probeagent.Serve(&goingStale{w: s}, s, slog.New(slog.DiscardHandler))
	return suite.NewLink(mine, func() error {
		mine.Close()
		theirs.Close()
		<-agent.Done()
		return nil
	}), nil
}

// goingStale passes the agent's lines on, but for end_turn once a second
// session was opened.
type goingStale struct {
	w        io.Writer
	mu       sync.Mutex
	sessions int
}

func (g *goingStale) Write(p []byte) (int, error) {
	g.mu.Lock()
	if bytes.Contains(p, []byte(`"sessionId"`)) && bytes.Contains(p, []byte(`"result"`)) && !bytes.Contains(p, []byte(`"stopReason"`)) {
		g.sessions++
	}
	stale := g.sessions > 1
	g.mu.Unlock()
	if stale {
		if q := bytes.ReplaceAll(p, []byte(`"stopReason":"end_turn"`), []byte(`"stopReason":"refusal"`)); !bytes.Equal(q, p) {
			_, err := g.w.Write(q)
			return len(p), err
		}
	}
	return g.w.Write(p)
}

var _ = Describe(staleName, func() {
	scenarios.Catalogue(scenarios.Options{Subject: staleAgent{}})
})

// Its checks all pass, and those that ran on a reused connection ran
// twice: the rerun is what keeps the verdict.
var _ = ReportAfterSuite("sharing never changes a verdict", func(r Report) {
	rerun := 0
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt || len(s.ContainerHierarchyTexts) == 0 || s.ContainerHierarchyTexts[0] != staleName {
			continue
		}
		if s.State.Is(types.SpecStateFailureStates) {
			Fail("against the " + staleName + ", " + s.FullText() + " failed: " + s.Failure.Message)
		}
		if s.NumAttempts > 1 {
			rerun++
		}
	}
	if rerun < 50 {
		Fail("against the " + staleName + ", only a few checks ran again on a fresh connection: sharing did not happen")
	}
})
