package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/suite"
)

// completeIDs adds shell completion of IDs (cobra's completion command
// generates the scripts): rule IDs for explain and --id, and check IDs for
// explain once a "/" is typed; check IDs of the command's catalogue for
// --check, and list's --for. cobra completes the
// subcommands and flag names itself.
func completeIDs(ctx context.Context, root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() == "explain" {
			c.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
				switch {
				case len(args) > 0:
					return nil, cobra.ShellCompDirectiveNoFileComp
				case strings.Contains(prefix, "/"): // a check ID, of any role
					return checkCompletions(ctx, "run", prefix), cobra.ShellCompDirectiveNoFileComp
				}
				return ruleCompletions(prefix), cobra.ShellCompDirectiveNoFileComp
			}
		}
		if c.Flags().Lookup("id") != nil {
			_ = c.RegisterFlagCompletionFunc("id", func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return listCompletions(prefix, ruleCompletions), cobra.ShellCompDirectiveNoFileComp
			})
		}
		if c.Flags().Lookup("check") != nil {
			_ = c.RegisterFlagCompletionFunc("check", func(cmd *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return listCompletions(prefix, func(p string) []cobra.Completion { return checkCompletions(ctx, catalogueName(cmd), p) }), cobra.ShellCompDirectiveNoFileComp
			})
		}
		if c.Flags().Lookup("for") != nil {
			_ = c.RegisterFlagCompletionFunc("for", cobra.FixedCompletions(listRoles, cobra.ShellCompDirectiveNoFileComp))
		}
	}
}

// catalogueName is the command whose catalogue a command's --check
// selects from: its own, or list's --for.
func catalogueName(cmd *cobra.Command) string {
	if f := cmd.Flags().Lookup("for"); f != nil {
		return f.Value.String()
	}
	return cmd.Name()
}

// ruleCompletions are the rule IDs that start with prefix (in any case),
// each described by the start of its text.
func ruleCompletions(prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, r := range suite.Rules() {
		if hasPrefixFold(r.ID, prefix) {
			out = append(out, cobra.CompletionWithDesc(r.ID, string(r.Level)+": "+firstWords(r.Text, 60)))
		}
	}
	return out
}

// checkCompletions are the IDs of the checks of command's catalogue that
// start with prefix, each once, described by its level and rules. It
// walks the catalogue without running it, as list does.
func checkCompletions(ctx context.Context, command, prefix string) []cobra.Completion {
	s, err := catalogueOf(command)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	seen := map[string]bool{}
	for _, ch := range dryRun(ctx, command, s, "", &checkFlags{}).Checks {
		if ch.ID != "" && !seen[ch.ID] && hasPrefixFold(ch.ID, prefix) {
			seen[ch.ID] = true
			out = append(out, cobra.CompletionWithDesc(ch.ID, ch.Level+" "+strings.Join(ch.Rules, " ")))
		}
	}
	return out
}

// listCompletions completes the last item of a comma-separated list
// (--id TOK-1,CA), keeping the items before it.
func listCompletions(arg string, complete func(prefix string) []cobra.Completion) []cobra.Completion {
	i := strings.LastIndex(arg, ",")
	done, last := arg[:i+1], arg[i+1:]
	out := complete(last)
	for j, c := range out {
		out[j] = done + c
	}
	return out
}

// firstWords is the start of text on one line, cut at a word before n
// bytes, for a completion's description.
func firstWords(text string, n int) string {
	text = oneLine(text)
	if len(text) <= n {
		return text
	}
	if i := strings.LastIndex(text[:n], " "); i > 0 {
		return text[:i] + " …"
	}
	return elide.Head(text, n)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
