package script

import (
	"encoding/json"
	"fmt"

	"github.com/acpconform/acpconform/internal/exactjson"
)

// Form is what a typed-choice elicitation/create offers, read leniently
// from its params so that a broken request can still be described, and
// exactly: by member names as spelt, as ACP's SDKs read them ("Mode" is no
// mode).
type Form struct {
	Mode      string          `json:"mode"`
	Message   *string         `json:"message"`
	SessionID *string         `json:"sessionId"`
	Options   []Option        `json:"-"` // requestedSchema.properties.choice.oneOf
	Default   json.RawMessage `json:"-"` // requestedSchema.properties.choice.default; nil when absent
	Meta      json.RawMessage `json:"_meta"`
}

// Option is one oneOf entry.
type Option struct {
	Const json.RawMessage `json:"const"`
	Title string          `json:"title"`
	Meta  json.RawMessage `json:"_meta"`
}

// Token is the option's const as a string, or its JSON when it is not one.
func (o Option) Token() string {
	var s string
	if json.Unmarshal(o.Const, &s) == nil {
		return s
	}
	return string(o.Const)
}

// ReadForm reads the typed-choice form in elicitation/create params. Of a
// member named twice it reads the last (exactjson.Unmarshal): a judgement
// of the request runs on each of its readings, as Expect.Check does.
func ReadForm(params json.RawMessage) (Form, error) {
	var f struct {
		Form
		RequestedSchema struct {
			Properties struct {
				Choice struct {
					OneOf   []Option        `json:"oneOf"`
					Default json.RawMessage `json:"default"`
				} `json:"choice"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := exactjson.Unmarshal(params, &f); err != nil {
		return Form{}, fmt.Errorf("elicitation params are not a typed-choice form: %v", err)
	}
	form := f.Form
	form.Options = f.RequestedSchema.Properties.Choice.OneOf
	form.Default = f.RequestedSchema.Properties.Choice.Default
	return form, nil
}

// Tokens lists the options' consts.
func (f Form) Tokens() []string {
	out := make([]string, len(f.Options))
	for i, o := range f.Options {
		out[i] = o.Token()
	}
	return out
}

// Labels lists the options' titles.
func (f Form) Labels() []string {
	out := make([]string, len(f.Options))
	for i, o := range f.Options {
		out[i] = o.Title
	}
	return out
}
