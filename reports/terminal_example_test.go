package reports_test

import (
	"os"

	"github.com/acpconform/acpconform/reports"
)

// The terminal's summary of a run with one failure: the totals, the
// areas, why a check was skipped, the failure with the commands that take
// it further, and the verdict.
func ExampleTerminal() {
	run := reports.Run{Subject: "agent command ./my-agent", Seconds: 1.5, Checks: []reports.Check{
		{ID: "TOK-1/maps-choice-0", Name: "TOK: reading maps choice_0", Area: "TOK", Rules: []string{"TOK-1"}, Level: "MUST", State: reports.StatePassed},
		{ID: "TOK-2/leading-zero", Name: "TOK: reading refuses choice_01", Area: "TOK", Rules: []string{"TOK-2"}, Level: "MUST", State: reports.StateFailed,
			Failure: `the agent reported accepted choice 1 ("production"), want an invalid_response error`,
			Again:   "acpconform agent --check TOK-2/leading-zero -v -- ./my-agent"},
		{ID: "FB-6/panicking-comparison", Name: "FB: fallbacks skip a panicking comparison", Area: "FB", Rules: []string{"FB-6"}, Level: "MUST", State: reports.StateSkipped,
			SkipReason: "needs the reference's Go API"},
	}}
	reports.Decide(&run, nil, "", false)
	term := reports.Terminal{Out: os.Stdout, Err: os.Stderr, Command: "agent", Areas: []string{"TOK", "FB"}}
	term.Summary(run, []string{"acpconform-reports/report.json"}, "")
	// Output:
	// acpconform: agent command ./my-agent: 1 passed, 1 failed (1 MUST), 1 skipped, 0 deselected in 1.50s
	//   TOK    1 passed   1 failed   0 skipped
	//   FB     0 passed   0 failed   1 skipped
	// skipped 1 check:
	//   needs the reference's Go API
	//     FB-6/panicking-comparison
	// FAILED TOK-2/leading-zero (TOK-2 MUST): TOK: reading refuses choice_01
	//   the agent reported accepted choice 1 ("production"), want an invalid_response error
	//   run it again: acpconform agent --check TOK-2/leading-zero -v -- ./my-agent
	//   the rule:     acpconform explain TOK-2
	// acpconform: agent command ./my-agent is NOT conformant: 1 MUST check failed
	// reports: acpconform-reports/report.json
}
