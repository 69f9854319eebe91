package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/suggest"
	"github.com/acpconform/acpconform/suite"
)

// maxSuggestions bounds a "did you mean": a few names, not a list.
const maxSuggestions = 3

// didYouMean is "; did you mean A, B?" for the names nearest word among
// names, or "" when none is near.
func didYouMean(word string, names []string) string {
	near := suggest.Nearest(word, names, maxSuggestions)
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + orList(near) + "?"
}

// orList is "A", "A or B", "A, B or C".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// unknownCommand is the root's Args: a name that is no command is a usage
// error that says the nearest commands, or lists them all when none is
// near. cobra's own NoArgs says neither, and without Args cobra would
// print its suggestions over several lines.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	hint := didYouMean(args[0], names)
	if hint == "" {
		hint = "; the commands are " + strings.Join(names, ", ")
	}
	return usagef(cmd, "unknown command %q for %q%s", args[0], cmd.CommandPath(), hint)
}

// ruleIDs are the CONTRACT's IDs, in order.
func ruleIDs() []string {
	var ids []string
	for _, r := range suite.Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}

// notARule is the error of a name that is no CONTRACT ID: the nearest
// IDs, or where to find them all.
func notARule(id string) error {
	if rule, _, ok := strings.Cut(id, "/"); ok { // a check ID: TOK-2/leading-zero
		if r, known := suite.Lookup(strings.ToUpper(rule)); known {
			return fmt.Errorf("%q is a check ID, not a CONTRACT ID; its rule is %s", id, r.ID)
		}
	}
	if near := didYouMean(id, ruleIDs()); near != "" {
		return fmt.Errorf("%q is not a CONTRACT ID%s", id, near)
	}
	return fmt.Errorf("%q is not a CONTRACT ID (see acpconform list)", id)
}
