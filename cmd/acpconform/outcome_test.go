package main

import (
	"strings"
	"testing"
)

// The outcome tests run the built acpconform against agents that report
// outcomes the way other JSON libraries write them, or break the outcome
// schema in ways only a number or a nesting can (mocks/hostile).

// TestOutcomeIntegersByValue: the reference probe agent with every integer
// of its outcomes written as 0.0 and -32601.0 (Python's floats), as 0e5
// and 1.0e0, or as -0 and 10e-1 is conformant: the integers are the same.
func TestOutcomeIntegersByValue(t *testing.T) {
	t.Parallel()
	for _, style := range []string{"fraction", "exponent", "tenths"} {
		t.Run(style, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			// The areas whose outcomes carry integers: an accepted index
			// (TOK, RES), an error's code (CAP, RTE's -32601). Every other
			// check reads its outcome through the same code.
			e := s.run("agent", "--check", "TOK-1/*,RES-*,CAP-*,RTE-*", "--", s.hostile, "respelt-integers", style)
			expectExit(t, e, 0)
			w := s.expectVerdict(verdictConformant)
			if w.jsonOK && (w.report.Totals.Failed != 0 || w.report.Totals.Passed < 40) {
				t.Errorf("totals %+v, want 40 checks passed or more and none failed", w.report.Totals)
			}
			s.expectNoneLeft(true)
		})
	}
}

// TestOutcomeRefused: an outcome acpconform cannot take fails the check
// with the reason, naming the member and the number as written or the
// depth, and never as "no outcome": the agent reported one.
func TestOutcomeRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string // after the hostile program
		want string
	}{
		{"index with a fraction", []string{"outcome", `{"acpconform":1,"outcome":"accepted","index":0.5,"value":"production"}`},
			"the agent's outcome does not match the probe contract's outcome schema: at /index: want integer, got number (0.5) (schema: outcome.json#/properties/index/type)"},
		{"index past 2^53-1", []string{"outcome", `{"acpconform":1,"outcome":"accepted","index":1e30,"value":"production"}`},
			"the agent's outcome does not match the probe contract's outcome schema: at /index: want at most 9007199254740991, got 1e30 (schema: outcome.json#/properties/index/maximum)"},
		{"code below -(2^53-1)", []string{"outcome", `{"acpconform":1,"outcome":"error","error":"request_error","code":-1e400,"message":"m"}`},
			"the agent's outcome does not match the probe contract's outcome schema: at /code: want at least -9007199254740991, got -1e400 (schema: outcome.json#/properties/code/minimum)"},
		{"nested 100,000 levels", []string{"deep-outcome", "100000"},
			"the agent's outcome nests 100000 levels deep, deeper than the 10000 acpconform reads"},
		{"nested 10,000,000 levels, past the frame limit", []string{"deep-outcome", "10000000"},
			"the subject wrote a line of more than 1048576 bytes (1 MiB), the size limit of one message, so acpconform closed the connection (raise the limit with --max-frame)"},
		{"nested 10,000,000 levels, within a raised frame limit", []string{"--max-frame", "32MiB", "deep-outcome", "10000000"},
			"the agent's outcome nests 10000000 levels deep, deeper than the 10000 acpconform reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newRun(t)
			// Bounds for a busy machine: ten million levels are 20 MB to carry.
			args := []string{"agent", "--check", "RTE-4/no-opt-in-needed", "--response-timeout", "2m", "--scenario-timeout", "4m"}
			hostile := tc.args
			if hostile[0] == "--max-frame" {
				args, hostile = append(args, hostile[:2]...), hostile[2:]
			}
			e := s.run(append(append(args, "--", s.hostile), hostile...)...)
			expectExit(t, e, 1)
			w := s.expectVerdict(verdictNotConformant)
			var failures []string
			for _, c := range w.report.Checks {
				if c.State == "failed" {
					failures = append(failures, c.Failure)
				}
			}
			if !w.jsonOK || len(failures) != 1 {
				t.Fatalf("report.json, want one check failed:\n%s", clip(w.jsonText, 4000))
			}
			failure := failures[0]
			expectIn(t, "the check's failure", failure, tc.want)
			for _, never := range []string{"no outcome", "none of its"} {
				if strings.Contains(failure, never) {
					t.Errorf("the check's failure says %q of an agent that reported an outcome:\n%s", never, clip(failure, 2000))
				}
			}
			s.expectNoneLeft(true)
		})
	}
}
