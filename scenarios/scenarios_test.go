package scenarios_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/internal/gobuild"
	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

var update = flag.Bool("update", false, "rewrite the list of checks in docs/catalogue.md")

// The catalogue runs unchanged against the reference three ways: in this
// process, as a process over stdio, and over a loopback WebSocket.
var (
	binary   string // acpconform, built for the stdio subject
	wsServer *relay.Server
)

func TestScenarios(t *testing.T) {
	dir := t.TempDir()
	binary = filepath.Join(dir, "acpconform")
	if err := gobuild.Run("", "-o", binary, "../cmd/acpconform"); err != nil {
		t.Fatal(err)
	}
	suite.BridgeCommand = []string{binary} // {agent} runs acpconform bridge, not this test binary
	var err error
	wsServer, err = relay.NewServer("127.0.0.1:0", relay.ReferenceAgent(), relay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer wsServer.Close()
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scenario catalogue")
}

// relayResponse bounds each wait of the relay catalogue here. REL-7 sends
// messages of nearly and over 1 MiB through our relays and the mock
// peers of both ends, all built with the race detector in this test
// binary: on a 2-core runner with two busy loops beside go test, one took
// 13 s to cross, where the CLI's default (5 s) is meant for a subject
// built for use. A relay that drops a message still fails within this
// bound; the relay catalogue takes as long with it as with 5 s on quiet
// cores (no check waits a response timeout out when the relay is right).
// A check makes several such waits: its own bound is twice this.
const relayResponse = 30 * time.Second

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
	scenarios.Catalogue(scenarios.Options{Subject: suite.Relay([]string{binary, "mirror", suite.URLPlaceholder, "--unstable-protocol"}, wire.Options{}), Response: relayResponse, Scenario: 2 * relayResponse})
})

var _ = Describe("reference mirror in-process", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.ReferenceMirror(), Response: relayResponse, Scenario: 2 * relayResponse})
})

var _ = Describe("reference command relay in-process", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.ReferenceCommandRelay(), Response: relayResponse, Scenario: 2 * relayResponse})
})

var _ = Describe("reference client spawning its agent", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Command([]string{binary, "reference-client", "--agent", suite.AgentPlaceholder}, suite.ClientRole, wire.Options{})})
})

var _ = Describe("stdio relay spawning its agent", func() {
	scenarios.Catalogue(scenarios.Options{Subject: suite.Relay([]string{"sh", "-c", "exec " + suite.AgentPlaceholder}, wire.Options{}), Response: relayResponse, Scenario: 2 * relayResponse})
})

// The contract audit: every rule covered, every cited ID known, no two
// specs of one name. The pending list is printed until it is empty.
var _ = ReportAfterSuite("contract coverage and timing", func(r Report) {
	if err := suite.Audit(r); err != nil {
		Fail("the catalogue breaks the contract audit:\n" + err.Error())
	}
	keepListCurrent(r)
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

// catalogueDoc is where the list of checks is kept.
const catalogueDoc = "../docs/catalogue.md"

// The list of checks sits between these lines of docs/catalogue.md.
const (
	listStart = "<!-- checks: generated by go test ./scenarios -update; do not edit -->"
	listEnd   = "<!-- end of checks -->"
)

// keepListCurrent rewrites the list of checks in docs/catalogue.md with
// -update, and otherwise fails when the list there is not the catalogue's.
func keepListCurrent(r Report) {
	doc, err := os.ReadFile(catalogueDoc)
	if err != nil {
		Fail(fmt.Sprintf("the list of checks cannot be kept current: %v", err))
	}
	start, end := strings.Index(string(doc), listStart), strings.Index(string(doc), listEnd)
	if start < 0 || end < start {
		Fail(fmt.Sprintf("%s has no %q ... %q section for the list of checks", catalogueDoc, listStart, listEnd))
	}
	current := string(doc[:start]) + listStart + "\n\n" + checkList(r) + "\n" + string(doc[end:])
	if current == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(catalogueDoc, []byte(current), 0o644); err != nil {
			Fail(fmt.Sprintf("the list of checks cannot be written: %v", err))
		}
		return
	}
	Fail(catalogueDoc + " does not list the catalogue's checks as they are: run go test ./scenarios -update")
}

// checkList is the Markdown table of every check of r, one row per ID
// with the name reports give the check,
// in the contract's order of their rules, then in the source's.
func checkList(r Report) string {
	type row struct {
		id, title, level, role string
		rule                   int
		at                     types.CodeLocation
	}
	order := map[string]int{}
	for i, rule := range suite.Rules() {
		order[rule.ID] = i
	}
	seen := map[string]bool{}
	var rows []row
	for _, s := range r.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		var x row
		for _, l := range s.Labels() {
			if id, ok := suite.CheckID(l); ok {
				x.id = id
			}
			key, value, _ := strings.Cut(l, ":")
			switch key {
			case "level":
				x.level = value
			case "role":
				x.role = value
			}
		}
		if x.id == "" || seen[x.id] {
			continue
		}
		seen[x.id] = true
		rule, _, _ := strings.Cut(x.id, "/")
		x.rule, x.at = order[rule], s.LeafNodeLocation
		// The check's name in a run's reports: its full text without the
		// subject's container.
		x.title = reports.Name(s.ContainerHierarchyTexts[1:], s.LeafNodeText)
		rows = append(rows, x)
	}
	// Stable: the checks of one table declared in a loop share a line, and
	// keep the order they run in.
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.rule != b.rule {
			return a.rule < b.rule
		}
		if a.at.FileName != b.at.FileName {
			return a.at.FileName < b.at.FileName
		}
		return a.at.LineNumber < b.at.LineNumber
	})
	var b strings.Builder
	cell := strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;")
	// The rules first, each with the level its source gives it (contract
	// revision 5): what decides conformance, and on whose word.
	fmt.Fprintf(&b, "%d rules, each at its source's level.\n\n| rule | level | role | source |\n|---|---|---|---|\n", len(suite.Rules()))
	for _, rule := range suite.Rules() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", rule.ID, rule.Level, rule.Role, cell.Replace(rule.Source))
	}
	fmt.Fprintf(&b, "\n%d checks.\n\n| ID | level | role | check |\n|---|---|---|---|\n", len(rows))
	for _, x := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", x.id, x.level, x.role, cell.Replace(x.title))
	}
	return b.String()
}
