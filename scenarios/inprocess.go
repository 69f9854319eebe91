package scenarios

import (
	"context"
	"log/slog"

	acp "github.com/coder/acp-go-sdk"
	. "github.com/onsi/ginkgo/v2"

	"github.com/acpconform/acpconform/mocks/client"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reference"
)

// goSession serves a reference AgentConnection to a mock client and returns
// a reference session on it, for the checks of the Go API that no probe
// request can express. The caller must have called needInProcess.
func (e *env) goSession(ctx context.Context, cfg client.Config) (*reference.Session, *fixture) {
	GinkgoHelper()
	mine, theirs := wire.Pipe(wire.Options{})
	s := wire.NewSDKStream(theirs)
	conn := reference.NewUnstartedAgentConnection(initializeOnly{}, s, s)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	conn.Start()
	f := &fixture{e: e, mc: client.New(cfg)}
	f.mc.Connect(mine)
	DeferCleanup(func() {
		f.mc.Close()
		theirs.Close()
		if CurrentSpecReport().Failed() {
			AddReportEntry("transcript", f.mc.Transcript().String(), ReportEntryVisibilityFailureOrVerbose)
		}
	})
	must("initialize", f.mc.Initialize(e.wait(ctx)))
	return conn.Session("go-session"), f
}

// initializeOnly is an agent that answers initialize; the Go checks call
// AskChoice themselves.
type initializeOnly struct{ acp.Agent }

func (initializeOnly) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}, nil
}
