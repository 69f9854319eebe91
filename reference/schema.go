package reference

import (
	"strconv"

	acp "github.com/coder/acp-go-sdk"
)

// Wire names of the typed-choice form (CONTRACT SCH-2..5).
const (
	// ChoiceProperty is the one property of a typed-choice form.
	ChoiceProperty = "choice"
	// ChoiceTitle is the title of that property.
	ChoiceTitle = "Choice"
	// DescriptionMetaKey is the option metadata key that carries a choice's
	// description: the key ACP Kit uses, so clients see one convention.
	DescriptionMetaKey = "acpkit.dev/choice-description"
	// TokenPrefix starts every choice token; the choice's 0-based index in
	// ASCII decimal without padding follows it.
	TokenPrefix = "choice_"
)

// ElicitationMode is an elicitation mode a client may advertise.
type ElicitationMode string

// The two elicitation modes of ACP.
const (
	ModeForm ElicitationMode = "form"
	ModeURL  ElicitationMode = "url"
)

// ElicitationRequest is the params of an elicitation/create request. Unlike
// the acp-go-sdk type it carries its scope (sessionId, toolCallId), which the
// ACP schema requires; [Session.CreateElicitation] fills in the session.
type ElicitationRequest struct {
	Meta       map[string]any  `json:"_meta,omitempty"`
	SessionID  acp.SessionId   `json:"sessionId,omitempty"`
	ToolCallID acp.ToolCallId  `json:"toolCallId,omitempty"`
	Mode       ElicitationMode `json:"mode"`
	Message    string          `json:"message"`

	// Form mode.
	RequestedSchema *ElicitationSchema `json:"requestedSchema,omitempty"`

	// URL mode.
	ElicitationID string `json:"elicitationId,omitempty"`
	URL           string `json:"url,omitempty"`
}

// ElicitationSchema is a form's requested schema: an object of primitive
// properties. For a typed choice, Properties holds one [ChoiceSchema].
type ElicitationSchema struct {
	Type        string         `json:"type"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	Properties  map[string]any `json:"properties"`
	Required    []string       `json:"required,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// ChoiceSchema is the single-select string property of a typed-choice form.
type ChoiceSchema struct {
	Type    string         `json:"type"`
	Title   string         `json:"title"`
	OneOf   []ChoiceOption `json:"oneOf"`
	Default string         `json:"default,omitempty"` // token of the default choice; absent without one
}

// ChoiceOption is one entry of a [ChoiceSchema]: a token and its label, with
// the description, when there is one, both in the schema's standard field
// (SCH-7) and as metadata under ACP Kit's key (SCH-5).
type ChoiceOption struct {
	Const       string            `json:"const"`
	Title       string            `json:"title"`
	Description string            `json:"description,omitempty"`
	Meta        map[string]string `json:"_meta,omitempty"`
}

// Token returns the opaque token of the choice at index i: "choice_<i>".
func Token(i int) string { return TokenPrefix + strconv.Itoa(i) }

// Compile validates a typed-choice question and compiles it into the form
// request [AskChoice] sends, without a session scope. Mock peers and custom
// senders use it to send exactly what AskChoice would.
func Compile[T any](question string, choices []Choice[T]) (ElicitationRequest, error) {
	if err := validate(question, choices); err != nil {
		return ElicitationRequest{}, err
	}
	return compile(question, choices), nil
}

// compile builds the form of CONTRACT SCH-1..7 and DEF-2 from valid arguments.
// Application values are not consulted: only labels, descriptions and the
// default flag reach the wire.
func compile[T any](question string, choices []Choice[T]) ElicitationRequest {
	prop := ChoiceSchema{Type: "string", Title: ChoiceTitle, OneOf: make([]ChoiceOption, len(choices))}
	for i, c := range choices {
		opt := ChoiceOption{Const: Token(i), Title: c.Label}
		if c.Description != "" {
			opt.Meta = map[string]string{DescriptionMetaKey: c.Description}
			opt.Description = c.Description
		}
		prop.OneOf[i] = opt
		if c.Default {
			prop.Default = opt.Const
		}
	}
	return ElicitationRequest{
		Mode:    ModeForm,
		Message: question,
		RequestedSchema: &ElicitationSchema{
			Type:       "object",
			Properties: map[string]any{ChoiceProperty: prop},
			Required:   []string{ChoiceProperty},
		},
	}
}
