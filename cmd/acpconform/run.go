package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const runLong = `
Runs the whole catalogue, every role, against the reference peers built into
this binary: the reference agent, the reference client, and our relays (the
mirror and the command relay), all in-process. It prints a summary and
writes the reports (to acpconform-reports/ unless --junit, --json and
--summary say otherwise), which name every MUST and SHOULD rule of the
contract. It is what the README's first command runs; acpconform agent,
client and relay run the same catalogue against other people's
implementations.

Exit codes: acpconform help exit-codes.`

// builtIn names the reference peers of acpconform run in its reports.
const builtIn = "the built-in reference (agent, client and relays, in-process)"

// referencePeer is a subject of acpconform run, and the rules it is there
// to show: nil for every rule of its role.
type referencePeer struct {
	subject suite.Subject
	only    []string
}

// referencePeers are the subjects acpconform run checks, which between
// them check every rule of the contract: a client without form
// elicitation is the only one CLI-4 applies to, and one without URL
// elicitation the only one ELI-6 does; each is there for that.
var referencePeers = []referencePeer{
	{subject: suite.Reference()},
	{subject: suite.ReferenceClient(probeclient.Options{})},
	{subject: suite.ReferenceClient(probeclient.Options{NoForm: true}), only: []string{"CLI-4"}},
	{subject: suite.ReferenceClient(probeclient.Options{NoURL: true}), only: []string{"ELI-6"}},
	{subject: suite.ReferenceMirror()},
	{subject: suite.ReferenceCommandRelay()},
}

// referenceRun is what acpconform run checks: the subjects, each kept to
// its rules.
func referenceRun() subjects {
	s := subjects{name: builtIn}
	var scopes []string
	for i, p := range referencePeers {
		s.list = append(s.list, p.subject)
		if p.only != nil {
			scopes = append(scopes, fmt.Sprintf("(!%s || rule: containsAny {%s})", subjectLabel(i), strings.Join(p.only, ", ")))
		}
	}
	s.scope = strings.Join(scopes, " && ")
	return s
}

func (a *app) runCommand() *cobra.Command {
	var f checkFlags
	var isolate bool
	cmd := a.command("run [flags]", "Run the whole catalogue against the built-in reference peers and write the reports", runLong,
		func(cmd *cobra.Command, _ []string) (int, error) {
			return a.checkSubjects(cmd, referenceRun(), nil, "", scenarios.Options{Isolate: isolate}, &f, false)
		})
	cmd.Args = cobra.NoArgs
	f.register(cmd.Flags())
	cmd.Flags().BoolVar(&isolate, "isolate", false, "give every check of the reference agent a connection of its own; by default they share connections, as against any agent (see acpconform agent --help)")
	return cmd
}
