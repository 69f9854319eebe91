package mutants

// clientMutants break the reference client (reference/probeclient), one
// rule of a client under test at a time. Each answers validly, or exits
// otherwise than it should, so that only the checks of the test mode
// (CLI-5) can kill it; they run as `acpconform client -- <mutant>
// reference-client` (see Mutant.Role).
var clientMutants = []Mutant{
	{"picks-one-based", "CLI-5", "probeclient/client.go", "opt, _ := oneOf[int(i)].(map[string]any)", "opt, _ := oneOf[max(int(i)-1, 0)].(map[string]any)"},
	{"default-is-first-option", "CLI-5", "probeclient/client.go", `		if d, ok := choice["default"].(string); ok {`,
		`		if d, ok := choice["oneOf"].([]any)[0].(map[string]any)["const"].(string); ok {`},
	{"decline-answered-as-cancel", "CLI-5", "probeclient/client.go", `		return acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: "decline"}}, nil
	case "cancel":`, `		return cancel(), nil
	case "cancel":`},
	{"cancel-answered-as-decline", "CLI-5", "probeclient/client.go", "\tcase \"cancel\":\n\t\treturn cancel(), nil",
		"\tcase \"cancel\":\n\t\treturn acp.UnstableCreateElicitationResponse{Decline: &acp.UnstableCreateElicitationDecline{Action: \"decline\"}}, nil"},
	{"exits-1-after-turn", "CLI-5", "probeclient/run.go", "\treturn 0\n}", "\treturn 1\n}"},
	{"stays-after-turn", "CLI-5", "probeclient/run.go", "\t\treturn fmt.Errorf(\"session/prompt: %w\", err)\n\t}\n\treturn nil\n}",
		"\t\treturn fmt.Errorf(\"session/prompt: %w\", err)\n\t}\n\t<-conn.Done() // until the agent hangs up\n\treturn nil\n}"},
}

// The reference client's mutants are mutants of the reference too.
func init() { All = append(All, clientMutants...) }
