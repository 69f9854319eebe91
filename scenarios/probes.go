package scenarios

import (
	"encoding/json"

	"github.com/acpconform/acpconform/probe"
)

// ask builds a probe request; no choices are sent as [], never null.
func ask(question string, choices ...probe.Choice) probe.Request {
	return probe.Request{Acpconform: probe.Version, Op: probe.OpAskChoice, Question: question, Choices: append([]probe.Choice{}, choices...)}
}

// choice is an offered choice with a value of any JSON type.
func choice(value any, label string) probe.Choice {
	return probe.Choice{Value: json.RawMessage(mustJSON(value)), Label: label}
}

// withDefault marks a choice as the default.
func withDefault(c probe.Choice) probe.Choice { c.Default = true; return c }

// described gives a choice a description.
func described(c probe.Choice, d string) probe.Choice { c.Description = d; return c }

// deploy is the seed's example: preview, and production as the described
// default.
func deploy() probe.Request {
	return ask("Choose a deployment target",
		choice("preview", "Preview"),
		withDefault(described(choice("production", "Production"), "Deploy to the production environment.")),
	)
}

// withFallback gives a request a fallback, optionally late.
func withFallback(r probe.Request, f probe.Fallback, delayMs int) probe.Request {
	r.Fallback, r.FallbackDelayMs = &f, delayMs
	return r
}

// Fallbacks of each kind.
func acceptedFallback(v any) probe.Fallback {
	return probe.Fallback{Kind: probe.FallbackAccepted, Value: json.RawMessage(mustJSON(v))}
}
func plainFallback(v any) probe.Fallback {
	return probe.Fallback{Kind: probe.FallbackPlain, Value: json.RawMessage(mustJSON(v))}
}

var (
	declinedFallback  = probe.Fallback{Kind: probe.FallbackDeclined}
	cancelledFallback = probe.Fallback{Kind: probe.FallbackCancelled}
	errorFallback     = probe.Fallback{Kind: probe.FallbackError, Message: "the policy says no"}
)
