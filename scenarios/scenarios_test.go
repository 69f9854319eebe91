package scenarios_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reference/probeclient"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// The catalogue runs unchanged against the reference three ways: in this
// process, as a process over stdio, and over a loopback WebSocket.
var (
	binary   string // acpconform, built for the stdio subject
	wsServer *relay.Server
)

func TestScenarios(t *testing.T) {
	dir := t.TempDir()
	binary = filepath.Join(dir, "acpconform")
	if out, err := exec.Command("go", "build", "-o", binary, "../cmd/acpconform").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var err error
	wsServer, err = relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer wsServer.Close()
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scenario catalogue")
}

var _ = Describe("reference in-process", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Reference()})
})

var _ = Describe("reference over stdio", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Command([]string{binary, "reference-agent"}, suite.AgentRole, wire.Options{})})
})

var _ = Describe("reference over WebSocket", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.WebSocket(wsServer.URL, nil, wire.Options{})})
})

var _ = Describe("reference client in-process", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.ReferenceClient(probeclient.Options{Prompt: "Ask me."})})
})

var _ = Describe("reference client over stdio", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Command([]string{binary, "reference-client"}, suite.ClientRole, wire.Options{})})
})

var _ = Describe("reference client over WebSocket", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Command([]string{binary, "reference-client", "--websocket", suite.URLPlaceholder}, suite.ClientRole, wire.Options{})})
})

var _ = Describe("reference client advertising no form", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.ReferenceClient(probeclient.Options{NoForm: true})})
})

var _ = Describe("reference mirror, opted in", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Relay([]string{binary, "mirror", suite.URLPlaceholder, "--unstable-protocol"}, wire.Options{})})
})

// The contract audit: every rule covered, every cited ID known, no two
// specs of one name. The pending list is printed until it is empty.
var _ = ReportAfterSuite("contract coverage and timing", func(r Report) {
	Expect(suite.Audit(r)).To(Succeed())
	if pending := suite.PendingIDs(); len(pending) > 0 {
		fmt.Fprintf(os.Stderr, "acpconform: rules still pending: %s\n", strings.Join(pending, ", "))
	}
	per := map[string]time.Duration{}
	for _, s := range r.SpecReports {
		if len(s.ContainerHierarchyTexts) > 0 {
			per[s.ContainerHierarchyTexts[0]] += s.RunTime
		}
	}
	var subjects []string
	for s := range per {
		subjects = append(subjects, s)
	}
	sort.Strings(subjects)
	for _, s := range subjects {
		fmt.Fprintf(os.Stderr, "acpconform: catalogue against the %s: %.2fs\n", s, per[s].Seconds())
	}
})
