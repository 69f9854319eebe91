package mutants

// offeredMutants break what an agent that offers create_elicitation must
// keep: offering is all or nothing (docs/probe.md §1.9). An adapter that
// says not_offered to every request of the op breaks no rule, and no
// mutant can show it: its run is conformant on ask_choice alone, and its
// verdict says so (kit/offered_test.go). One that says it to some
// requests and runs others must fail the checks where it said it.
var offeredMutants = []Mutant{
	// Forms run, URLs not offered: the reference agent, built on the kit,
	// answers every URL request not_offered, which the form acpconform
	// asks with first does not show.
	{"url-not-offered", "ELI-2", "../kit/agent.go", "\t\tif s.agent.CreateElicitation == nil {\n\t\t\treturn notOffered()\n",
		"\t\tif s.agent.CreateElicitation == nil || req.Mode == \"url\" {\n\t\t\treturn notOffered()\n"},
	// Not offered on a connection that served earlier sessions: acpconform
	// asks on a fresh one, so only the checks on shared connections show
	// it, and pass again on fresh ones (SES-1).
	{"not-offered-on-later-sessions", "SES-1", "../kit/agent.go", "\t\tif s.agent.CreateElicitation == nil {\n\t\t\treturn notOffered()\n",
		"\t\tif s.agent.CreateElicitation == nil || s.sessions.Load() > 1 {\n\t\t\treturn notOffered()\n"},
}

func init() {
	All = append(All, offeredMutants...)
	// Connections are shared only with an agent process: over stdio, the
	// checks of create_elicitation.
	overStdio["not-offered-on-later-sessions"] = []string{"ELI-1", "ELI-2", "ELI-3"}
}
