package reference

import "strings"

// validate checks the arguments of AskChoice in the contract's order
// (VAL-1..4) and returns the first violation. It runs before anything else,
// so invalid arguments never reach the capability check, a fallback or the
// wire (VAL-5).
func validate[T any](question string, choices []Choice[T]) error {
	if isBlank(question) {
		return ErrBlankQuestion
	}
	if len(choices) == 0 {
		return ErrNoChoices
	}
	defaults := 0
	for _, c := range choices {
		if isBlank(c.Label) {
			return ErrBlankLabel
		}
		if c.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return ErrMoreThanOneDefault
	}
	return nil
}

// isBlank reports whether s is empty or only Unicode white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
