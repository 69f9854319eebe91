package mutants

// contentMutants break the reference agent's judge of an accepted form's
// content (reference/content.go, ContentProblems, which CreateElicitation
// calls), one keyword of the schema at a time: each hole was measured in
// subjects that passed every ELI check before scenarios/elicontent.go.
// Those that let invalid content through break ELI-3, a SHOULD, and leave
// the run conformant; those that refuse valid content break ELI-2.
//
// ContentProblems is also the harness's ELI-8 judge of clients, so a
// process running as one of these judges clients wrongly too; an agent
// mutant's run selects the agent's checks alone (role: containsAny agent),
// and none of those calls ContentProblems: only the reference agent under
// test does.
var contentMutants = []Mutant{
	{"pattern-ignored", "ELI-3", "content.go", "err == nil && !re.MatchString(s) {", "err == nil && !re.MatchString(s) && false {"},
	{"uri-format-ignored", "ELI-3", "content.go", "\t\treturn isURI(s)\n", "\t\treturn true\n"},
	{"date-format-ignored", "ELI-3", "content.go", "\t\treturn isFullDate(s)\n", "\t\treturn true\n"},
	{"date-time-format-ignored", "ELI-3", "content.go", "\t\treturn isDateTime(s)\n", "\t\treturn true\n"},
	{"minimum-ignored", "ELI-3", "content.go", "ok && n.Cmp(min) < 0 {", "ok && n.Cmp(min) < 0 && false {"},
	{"max-length-ignored", "ELI-3", "content.go", "} else if p.MaxLength != nil && n > *p.MaxLength {", "} else if p.MaxLength != nil && n > *p.MaxLength && false {"},
	{"max-items-ignored", "ELI-3", "content.go", "if p.MaxItems != nil && len(items) > *p.MaxItems {", "if p.MaxItems != nil && len(items) > *p.MaxItems && false {"},
	// Anything taken for a number, as a validator that only checks
	// integers would.
	{"number-type-unchecked", "ELI-3", "content.go", "\t\tif !ok {\n\t\t\treturn \"is \" + shown + \", want \" + article(p.Type)\n",
		"\t\tif !ok && p.Type == \"number\" {\n\t\t\treturn \"\"\n\t\t}\n\t\tif !ok {\n\t\t\treturn \"is \" + shown + \", want \" + article(p.Type)\n"},
	// maximum read as exclusiveMaximum: the bound itself refused.
	{"maximum-exclusive", "ELI-2", "content.go", "ok && n.Cmp(max) > 0 {", "ok && n.Cmp(max) >= 0 {"},
	// An integer read by its spelling, as decoding into an int64 does:
	// 36.0 and 3.6e1 refused.
	{"integer-by-spelling", "ELI-2", "content.go", "\t\tif p.Type == \"integer\" && !n.IsInt() {\n",
		"\t\tif p.Type == \"integer\" && (!n.IsInt() || bytes.ContainsAny(value, \".eE\")) {\n"},
}

func init() { All = append(All, contentMutants...) }
