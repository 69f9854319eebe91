package mutants

// clientMutants break the reference client (kit/probeclient, and
// the kit's ScriptedAnswer it answers with), one rule of a client under
// test at a time: each answers validly but not as told, or exits
// otherwise than it should, so that only the checks of the test mode
// (CLI-5) can kill it, or refuses what it must tolerate (CLI-3).
// They run as `acpconform client -- <mutant> reference-client` (see
// Mutant.Role).
var clientMutants = []Mutant{
	{"picks-one-based", "CLI-5", "../kit/client.go", "opt, _ := oneOf[int(i)].(map[string]any)", "opt, _ := oneOf[max(int(i)-1, 0)].(map[string]any)"},
	{"default-is-first-option", "CLI-5", "../kit/client.go", `		if d, ok := choice["default"].(string); ok {`,
		`		if d, ok := choice["oneOf"].([]any)[0].(map[string]any)["const"].(string); ok {`},
	{"decline-answered-as-cancel", "CLI-5", "../kit/client.go", "\tcase probe.ActionDecline:\n\t\treturn declineAnswer(), nil", "\tcase probe.ActionDecline:\n\t\treturn cancelAnswer(), nil"},
	{"cancel-answered-as-decline", "CLI-5", "../kit/client.go", "\tcase probe.ActionCancel:\n\t\treturn cancelAnswer(), nil", "\tcase probe.ActionCancel:\n\t\treturn declineAnswer(), nil"},
	{"exits-1-after-turn", "CLI-5", "../kit/probeclient/run.go", "\treturn 0\n}", "\treturn 1\n}"},
	{"stays-after-turn", "CLI-5", "../kit/probeclient/run.go", "\t\treturn fmt.Errorf(\"session/prompt: %w\", err)\n\t}\n\treturn nil\n}",
		"\t\treturn fmt.Errorf(\"session/prompt: %w\", err)\n\t}\n\t<-conn.Done() // until the agent hangs up\n\treturn nil\n}"},
	// A client written against a schema before 1.19.0, strict about the
	// fields of an option.
	{"description-intolerant", "CLI-3", "../kit/probeclient/client.go", "\tresp, ok, err := kit.ScriptedAnswer(ctx, p)\n", `	if p.Form != nil {
		choice, _ := p.Form.RequestedSchema.Properties["choice"].(map[string]any)
		options, _ := choice["oneOf"].([]any)
		for _, o := range options {
			if opt, _ := o.(map[string]any); opt["description"] != nil {
				return acp.UnstableCreateElicitationResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown option field: description"})
			}
		}
	}
	resp, ok, err := kit.ScriptedAnswer(ctx, p)
`},
	// The broken reference clients of CLI-1 and CLI-2, always broken: what
	// the judge of a trace sees on the wire as the live checks do. Only
	// the typed choice is refused, so that no other rule breaks.
	{"route-unregistered", "CLI-1", "../kit/probeclient/client.go", "\tresp, ok, err := kit.ScriptedAnswer(ctx, p)\n", `	if p.Form != nil && kit.IsTypedChoice(p.Form.RequestedSchema) {
		return acp.UnstableCreateElicitationResponse{}, acp.NewMethodNotFound("elicitation/create")
	}
	resp, ok, err := kit.ScriptedAnswer(ctx, p)
`},
	{"token-not-offered", "CLI-2", "../kit/probeclient/client.go", "\tif c.broken == WrongToken && resp.Accept != nil", "\tif resp.Accept != nil"},
	// A client without form elicitation that answers a form anyway, where
	// ACP's text wants -32602 (run with --no-form, see NoForm).
	{"unadvertised-form-answered", "CLI-4", "../kit/probeclient/client.go", "!(c.broken == AcceptsUnadvertised && p.Form != nil)", "p.Form == nil"},
	// ELI: forms of every shape, URL mode, complete and cancel.
	{"required-dropped-from-content", "ELI-8", "../kit/client.go", "\treturn content, nil\n}", "\tdelete(content, \"name\")\n\treturn content, nil\n}"},
	{"integer-as-string", "ELI-8", "../kit/client.go", "\treturn content, nil\n}",
		"\tfor k, v := range content {\n\t\tif n, ok := v.(json.Number); ok {\n\t\t\tcontent[k] = n.String()\n\t\t}\n\t}\n\treturn content, nil\n}"},
	// Each breaks only the constrained properties, so that every other
	// answer stays as told. ELI-8's mutants run as free users (freeUser):
	// in test mode the instructed content is CLI-5's too.
	{"beyond-bounds", "ELI-8", "../kit/client.go", "\t\tcontent, err = contentOf(user)\n",
		"\t\tcontent, err = contentOf(user)\n\t\tfor k, prop := range req.Form.RequestedSchema.Properties {\n\t\t\tif m, ok := prop.(map[string]any)[\"maximum\"].(float64); ok && content != nil {\n\t\t\t\tcontent[k] = m + 1\n\t\t\t}\n\t\t}\n"},
	{"outside-enum", "ELI-8", "../kit/client.go", "\t\tcontent, err = contentOf(user)\n",
		"\t\tcontent, err = contentOf(user)\n\t\tfor k, prop := range req.Form.RequestedSchema.Properties {\n\t\t\tif _, ok := prop.(map[string]any)[\"enum\"]; ok && content != nil {\n\t\t\t\tcontent[k] = \"not-offered\"\n\t\t\t}\n\t\t}\n"},
	// Every decline and cancel written with content, which ACP's
	// receivers ignore (ELI-8's advice): the SDK's types cannot carry it,
	// so the reference client's --broken content-on-decline writes it.
	{"decline-carries-content", "ELI-8", "../kit/probeclient/run.go", "\tif o.Broken == ContentOnDecline {\n", "\tif true {\n"},
	// Content no elicitation answer may hold: an object as a value.
	{"content-holds-object", "ELI-4", "../kit/client.go", "\treturn content, nil\n}", "\tcontent[\"nested\"] = map[string]any{\"x\": 1}\n\treturn content, nil\n}"},
	{"url-refused", "ELI-5", "../kit/client.go", "\tcase req.Url != nil && (e == nil || e.Url == nil):\n", "\tcase req.Url != nil:\n"},
	{"complete-crashes", "ELI-5", "../kit/probeclient/client.go", "func (c elicitingClient) UnstableCompleteElicitation(context.Context, acp.UnstableCompleteElicitationNotification) error {\n\treturn nil\n}",
		"func (c elicitingClient) UnstableCompleteElicitation(context.Context, acp.UnstableCompleteElicitationNotification) error {\n\tpanic(\"unknown elicitation id\")\n}"},
	// Capabilities out of step with what the client does: initialize
	// advertises form alone, and the client answers URL elicitations.
	{"url-advertised-not", "ELI-6", "../kit/probeclient/run.go", "\t\tClientCapabilities: c.capabilities(),\n",
		"\t\tClientCapabilities: acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}},\n"},
	{"cancel-ignored", "ELI-7", "../kit/client.go", "\t\t<-ctx.Done()\n", "\t\t<-make(chan struct{})\n"},
	// The user waited, the agent cancelled, and the client says the user
	// accepted: what test mode forbids (CLI-5), not ELI-7's missing answer.
	{"cancelled-wait-answered-decline", "CLI-5", "../kit/client.go", "\t\t<-ctx.Done()\n\t\treturn cancelAnswer(), nil\n", "\t\t<-ctx.Done()\n\t\treturn declineAnswer(), nil\n"},
}

// The reference client's mutants are mutants of the reference too.
func init() { All = append(All, clientMutants...) }
