package reports

import (
	"regexp"
	"strings"
)

// A shard's report.json says how to run each of its checks again (Again),
// and merge puts that in every merged report and summary, where people
// copy it into a shell. A shard's report is a file anyone could have
// written, so merge never copies that text: it builds the command from the
// catalogue, the check's ID and the subject's command line, and only from
// a command line that is words as acpconform quotes them
// (internal/bridge.CommandLine), nothing a shell would run apart.

var (
	// commandLine is a line of words each of them plain or single-quoted,
	// a quote within written '\''.
	commandLine = regexp.MustCompile(`^(?:` + word + `(?: ` + word + `)*)?$`)
	plainWord   = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)
)

const word = `(?:[A-Za-z0-9_@%+=:,./-]+|'(?:[^']|'\\'')*')`

// catalogues are the commands whose runs merge combines.
var catalogues = map[string]bool{"run": true, "agent": true, "client": true, "relay": true}

// againOf is the command that runs the check with this ID alone again,
// for a run of catalogue on the subject command line (none for run): ""
// when either is not what acpconform writes.
func againOf(catalogue, command, id string) string {
	if !catalogues[catalogue] || id == "" || !commandLine.MatchString(command) || (catalogue == "run") != (command == "") {
		return ""
	}
	line := "acpconform " + catalogue + " --check " + quoteWord(id) + " -v"
	if command != "" {
		line += " -- " + command
	}
	return line
}

// quoteWord is w as one word of a shell's command line.
func quoteWord(w string) string {
	if plainWord.MatchString(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
