package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpconform/acpconform/probe"
)

// Errors names your ask_choice's errors, one for each error kind of the
// outcome that only your code can tell (docs/probe.md §1.5). Each is
// matched against the error your function returns, through its wrap
// chain:
//   - a nil pointer of an error type, such as (*ArgumentError)(nil),
//     matches any error of that type, *ArgumentError, or of ArgumentError
//     when that is an error too (errors.As);
//   - errors joined with errors.Join match when any of them does;
//   - any other error matches as errors.Is says.
//
// A nil field matches nothing. The kit itself recognises the rest: a
// [*FallbackError] (fallback_error), a [*RequestError] or *acp.RequestError
// (request_error), [ErrConnectionClosed] (connection); any other error is
// internal, a defect of the adapter.
type Errors struct {
	InvalidArgument error // a blank question or label, no choices, two defaults (VAL-1..4)
	Unsupported     error // no form elicitation and no fallback (CAP-3), or an unadvertised mode (ELI-1)
	InvalidResponse error // an answer that names no offered choice (TOK-2, RES-2), content the schema refuses (ELI-3)
	InvalidFallback error // a fallback's value that was not offered (FB-4, DEP-2, DEP-3)
}

// errorOutcome describes err, an error of ask_choice or create_elicitation.
func (e Errors) errorOutcome(err error) probe.Outcome {
	out := probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeError, Message: err.Error()}
	var fallback *FallbackError
	var reqErr *RequestError
	var sdkErr *acp.RequestError
	switch {
	case errors.As(err, &fallback):
		out.Error, out.Message = probe.ErrorFallback, fallback.Message
	case matches(err, e.InvalidArgument):
		out.Error = probe.ErrorInvalidArgument
	case matches(err, e.Unsupported):
		out.Error = probe.ErrorUnsupported
	case matches(err, e.InvalidResponse):
		out.Error = probe.ErrorInvalidResponse
	case matches(err, e.InvalidFallback):
		out.Error = probe.ErrorInvalidFallback
	case errors.As(err, &reqErr):
		out.Error, out.Code, out.Message, out.Data = probe.ErrorRequest, &reqErr.Code, reqErr.Message, reqErr.Data
	case errors.Is(err, ErrConnectionClosed):
		out.Error = probe.ErrorConnection
	case errors.As(err, &sdkErr):
		out.Error, out.Code, out.Message = probe.ErrorRequest, &sdkErr.Code, sdkErr.Message
		if sdkErr.Data != nil {
			out.Data, _ = json.Marshal(sdkErr.Data)
		}
	default:
		out.Error = probe.ErrorInternal
	}
	return out
}

// matches reports whether err matches target as [Errors] says.
func matches(err, target error) bool {
	if target == nil {
		return false
	}
	if joined, ok := target.(interface{ Unwrap() []error }); ok {
		for _, t := range joined.Unwrap() {
			if matches(err, t) {
				return true
			}
		}
		return false
	}
	if v := reflect.ValueOf(target); v.Kind() == reflect.Pointer && v.IsNil() {
		if errors.As(err, reflect.New(v.Type()).Interface()) {
			return true
		}
		elem := v.Type().Elem() // MyError, when it is an error of its own
		return elem.Implements(reflect.TypeFor[error]()) && errors.As(err, reflect.New(elem).Interface())
	}
	return errors.Is(err, target)
}

// choiceOutcome describes what an ask_choice returned for c: your result
// or a Result, read as [Agent] says.
func (e Errors) choiceOutcome(c *Call, res any, err error) probe.Outcome {
	if err != nil {
		return e.errorOutcome(err)
	}
	status, err := stringMember(res, "Status")
	if err != nil {
		return internal(fmt.Errorf("kit: ask_choice returned %T without an error: %w", res, err))
	}
	out := probe.Outcome{Acpconform: probe.Version}
	switch status {
	case StatusAccepted:
		value, ok := member(res, "Value")
		if !ok { // not nil, the null choice: nothing is filled in for you
			return internal(fmt.Errorf("kit: ask_choice returned %T, accepted without a Value (a method or an exported field)", res))
		}
		raw, err := jsonOf(value)
		if err != nil {
			return internal(fmt.Errorf("kit: the accepted value cannot be written as JSON: %w", err))
		}
		index := -1 // none of the offered values
		for i, ch := range c.Choices {
			if ch.Value == value { // by identity: a *Value, or nil for null
				index = i
				break
			}
		}
		out.Outcome, out.Index, out.Value = probe.OutcomeAccepted, &index, raw
	case StatusDeclined:
		out.Outcome = probe.OutcomeDeclined
	case StatusCancelled:
		out.Outcome = probe.OutcomeCancelled
	default: // the zero result, say: no outcome (RES-3)
		return internal(fmt.Errorf("kit: ask_choice returned status %q, none of accepted, declined, cancelled", status))
	}
	return out
}

// elicitationOutcome describes what a create_elicitation returned: your
// result, read as [Agent] says, exactly as returned. The content is
// reported whatever the action: a decline's, a cancel's or a URL accept's
// content is your function's defect for the catalogue to show (ELI-2,
// ELI-3), never dropped; the kit validates nothing for you.
func (e Errors) elicitationOutcome(res any, err error) probe.Outcome {
	if err != nil {
		return e.errorOutcome(err)
	}
	action, err := stringMember(res, "Action")
	name := "action"
	if err != nil || action == "" { // no Action that says anything: its Status, then
		why := "its Action is empty"
		if err != nil {
			why = err.Error()
		}
		if action, err = stringMember(res, "Status"); err == nil && action == "" {
			err = errors.New("its Status is empty") // the zero result, say, which no client answered
		}
		if err != nil {
			return internal(fmt.Errorf("kit: create_elicitation returned %T without an error: %s; %w", res, why, err))
		}
		name = "status"
	}
	content, _ := member(res, "Content")
	raw, err := contentJSON(content)
	if err != nil {
		return internal(fmt.Errorf("kit: create_elicitation returned content that cannot be written as JSON: %w", err))
	}
	out := probe.Outcome{Acpconform: probe.Version, Content: raw}
	switch action {
	case "accept", StatusAccepted:
		out.Outcome = probe.OutcomeAccepted
	case "decline", StatusDeclined:
		out.Outcome = probe.OutcomeDeclined
	case "cancel", StatusCancelled:
		out.Outcome = probe.OutcomeCancelled
	default: // the probe contract has no outcome for a custom action: never one of the three (ELI-2)
		out = probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeError, Error: probe.ErrorInvalidResponse,
			Message: fmt.Sprintf("kit: create_elicitation returned the %s %q, none of accept, decline and cancel: no outcome reports it as it is", name, action)}
	}
	return out
}

// contentJSON writes a create_elicitation's content as your function
// returned it; nil for none (or null). Raw JSON that is not JSON is an
// error naming it.
func contentJSON(content any) (json.RawMessage, error) {
	var raw json.RawMessage
	switch c := content.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = c
	case []byte:
		raw = c
	default:
		b, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if len(raw) == 0 || probe.SameValue(raw, json.RawMessage("null")) {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("%.80q is not JSON", raw)
	}
	return raw, nil
}

func internal(err error) probe.Outcome {
	return probe.Outcome{Acpconform: probe.Version, Outcome: probe.OutcomeError, Error: probe.ErrorInternal, Message: err.Error()}
}

// stringMember reads the member name of a result as a string: see member.
func stringMember(res any, name string) (string, error) {
	v, ok := member(res, name)
	if !ok {
		return "", fmt.Errorf("it has no %s (a method or an exported field)", name)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.String {
		return "", fmt.Errorf("its %s is a %T, not a string", name, v)
	}
	return rv.String(), nil
}

// member reads the member name of a result: a method of that name with no
// arguments and one result, or else an exported field, of the result or
// of what it points to.
func member(res any, name string) (any, bool) {
	v := reflect.ValueOf(res)
	for v.IsValid() {
		if m := v.MethodByName(name); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
			return m.Call(nil)[0].Interface(), true
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return nil, false
			}
			v = v.Elem()
			continue
		case reflect.Struct:
			if f, ok := v.Type().FieldByName(name); ok && f.IsExported() {
				if fv, err := v.FieldByIndexErr(f.Index); err == nil {
					return fv.Interface(), true
				}
			}
		}
		return nil, false
	}
	return nil, false
}
