#!/bin/sh
# acpconform in a CI pipeline other than GitHub Actions (there, use the
# action: docs/ci/README.md): check an agent under test, write the reports,
# and fail only on failures the baseline does not list.
#
#   AGENT       the command that starts the agent under test (required)
#   ACPCONFORM  the acpconform binary (default: acpconform on the PATH);
#               install a pinned release, never @latest:
#               go install github.com/acpconform/acpconform/cmd/acpconform@VERSION
#               (no tag yet: from a clone, go install ./cmd/...)
#   BASELINE    known failures with reasons (default: acpconform-baseline.yaml,
#               used when it exists); write a first one with
#               $ACPCONFORM agent --write-baseline acpconform-baseline.yaml -- $AGENT
#   REPORTS     where the reports go (default: acpconform-reports)
#
# Exit codes are acpconform's: 0 conformant (or only known failures), 1 a new
# MUST failure, 2 a usage error (a baseline reason still TODO included), 3 the
# agent could not start, 7 conformant with stale baseline entries to take off.
set -eu

: "${AGENT:?set AGENT to the command that starts your agent}"
ACPCONFORM=${ACPCONFORM:-acpconform}
BASELINE=${BASELINE:-acpconform-baseline.yaml}
REPORTS=${REPORTS:-acpconform-reports}

set -- --junit "$REPORTS/junit.xml" --json "$REPORTS/report.json" --summary "$REPORTS/summary.md"
if [ -f "$BASELINE" ]; then
	set -- "$@" --baseline "$BASELINE"
fi

# $AGENT is split into words on purpose: it is a command line.
# shellcheck disable=SC2086
exec $ACPCONFORM agent "$@" -- $AGENT
