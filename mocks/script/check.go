package script

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/probe"
)

// Check compares an elicitation/create's params with the expectation and
// returns every mismatch. Params that name a member twice are compared on
// each reading (exactjson.OnEveryReading).
func (e *Expect) Check(params json.RawMessage) []string {
	if e == nil {
		return nil
	}
	return exactjson.OnEveryReading(params, func(reading []byte) []string { return e.check(reading) })
}

// check is Check of params in which no member is named twice.
func (e *Expect) check(params json.RawMessage) []string {
	var problems []string
	if e.Params != nil && !probe.SameValue(json.RawMessage(e.Params), params) {
		problems = append(problems, fmt.Sprintf("params are %s, want %s", params, e.Params))
	}
	form, err := ReadForm(params)
	if err != nil {
		return append(problems, err.Error())
	}
	if e.Message != nil && (form.Message == nil || *form.Message != *e.Message) {
		problems = append(problems, fmt.Sprintf("message is %s, want %q", quoted(form.Message), *e.Message))
	}
	if e.Mode != "" && form.Mode != e.Mode {
		problems = append(problems, fmt.Sprintf("mode is %q, want %q", form.Mode, e.Mode))
	}
	if e.SessionID != nil && (form.SessionID == nil || *form.SessionID != *e.SessionID) {
		problems = append(problems, fmt.Sprintf("sessionId is %s, want %q", quoted(form.SessionID), *e.SessionID))
	}
	if e.Tokens != nil && !slices.Equal(form.Tokens(), e.Tokens) {
		problems = append(problems, fmt.Sprintf("tokens are %q, want %q", form.Tokens(), e.Tokens))
	}
	if e.Labels != nil && !slices.Equal(form.Labels(), e.Labels) {
		problems = append(problems, fmt.Sprintf("labels are %q, want %q", form.Labels(), e.Labels))
	}
	if e.Default != nil {
		switch {
		case *e.Default == "" && form.Default != nil:
			problems = append(problems, fmt.Sprintf("default is %s, want none", form.Default))
		case *e.Default != "" && !probe.SameValue(form.Default, mustJSON(*e.Default)):
			problems = append(problems, fmt.Sprintf("default is %s, want %q", orAbsent(form.Default), *e.Default))
		}
	}
	return problems
}

// Check compares a reported outcome with the expectation and returns every
// mismatch. Only the fields the expectation sets are compared; messages
// are compared only when given.
func (o *Outcome) Check(got probe.Outcome) []string {
	var problems []string
	mismatch := func(field string, got, want any) {
		problems = append(problems, fmt.Sprintf("%s is %v, want %v", field, got, want))
	}
	if o.Outcome != "" && got.Outcome != o.Outcome {
		mismatch("outcome", strconv.Quote(got.Outcome), strconv.Quote(o.Outcome))
	}
	if o.Index != nil && (got.Index == nil || *got.Index != *o.Index) {
		mismatch("index", intOrAbsent(got.Index), *o.Index)
	}
	if o.Value != nil && !probe.SameValue(got.Value, o.Value) {
		mismatch("value", orAbsent(got.Value), string(o.Value))
	}
	if o.Content != nil && !probe.SameValue(got.Content, o.Content) {
		mismatch("content", orAbsent(got.Content), string(o.Content))
	}
	if o.Error != "" && got.Error != o.Error {
		mismatch("error", strconv.Quote(got.Error), strconv.Quote(o.Error))
	}
	if o.Code != nil && (got.Code == nil || *got.Code != *o.Code) {
		mismatch("code", intOrAbsent(got.Code), *o.Code)
	}
	if o.Message != "" && got.Message != o.Message {
		mismatch("message", fmt.Sprintf("%q", got.Message), fmt.Sprintf("%q", o.Message))
	}
	if o.Data != nil && !probe.SameValue(got.Data, o.Data) {
		mismatch("data", orAbsent(got.Data), string(o.Data))
	}
	if o.Warnings != nil && !slices.Equal(got.Warnings, o.Warnings) && !(len(got.Warnings) == 0 && len(o.Warnings) == 0) {
		mismatch("warnings", fmt.Sprintf("%q", got.Warnings), fmt.Sprintf("%q", o.Warnings))
	}
	return problems
}

func quoted(s *string) string {
	if s == nil {
		return "absent"
	}
	return fmt.Sprintf("%q", *s)
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}

func intOrAbsent(i *int) any {
	if i == nil {
		return "absent"
	}
	return *i
}
