package mutants

// wireMutants read what the client sent as Go's encoding/json reads a
// struct, matching member names case-insensitively, where ACP's SDKs
// (zod, serde, pydantic) match them exactly (contract revision 5, Reading
// the wire): each takes a capitalised member for the one it resembles, so
// that {"Action":"accept",...} is an acceptance instead of an invalid
// response, and {"elicitation":{"Form":{}}} advertises form. Each breaks
// one member's reading, and the checks that send that member capitalised
// kill it.
var wireMutants = []Mutant{
	{"action-name-folded", "RES-2", "answer.go", "\tif a, ok := fields[\"action\"]; ok {\n",
		"\tfor k, v := range fields {\n\t\tif strings.EqualFold(k, \"action\") {\n\t\t\tfields[\"action\"] = v\n\t\t}\n\t}\n\tif a, ok := fields[\"action\"]; ok {\n"},
	{"content-name-folded", "TOK-2", "answer.go", "\tresp.Content = fields[\"content\"]\n",
		"\tfor k, v := range fields {\n\t\tif strings.EqualFold(k, \"content\") {\n\t\t\tfields[\"content\"] = v\n\t\t}\n\t}\n\tresp.Content = fields[\"content\"]\n"},
	{"choice-name-folded", "TOK-2", "answer.go", "\traw, ok := fields[ChoiceProperty]\n",
		"\tfor k, v := range fields {\n\t\tif strings.EqualFold(k, ChoiceProperty) {\n\t\t\tfields[ChoiceProperty] = v\n\t\t}\n\t}\n\traw, ok := fields[ChoiceProperty]\n"},
	// The typed decoding of initialize (the acp-go-sdk's, encoding/json's)
	// left to read "Form" as form.
	{"form-name-folded", "CAP-1", "session.go", `modesChanged := dropLookalikes(e, "form", "url")`, `modesChanged := dropLookalikes(e, "url")`},
}

func init() { All = append(All, wireMutants...) }
