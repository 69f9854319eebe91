package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/format"

	"github.com/acpconform/acpconform/internal/exactjson"
	"github.com/acpconform/acpconform/probe"
)

// The catalogue's assertion vocabulary. A failure starts with one plain
// sentence that says what the subject did wrong, naming the step; where
// values are compared, a -want +got diff of the members that differ
// follows. Strings are quoted, so that an empty one shows as "". The cores
// return an error, so that a test can read their sentences; the wrappers
// fail the spec with it.

// The safety net: a Gomega matcher left in the catalogue shows an error as
// its text, not as a dump of its fields.
func init() {
	format.RegisterCustomFormatter(func(v any) (string, bool) {
		if err, ok := v.(error); ok && err != nil {
			return err.Error(), true
		}
		return "", false
	})
}

// check fails the spec with err's sentence; a nil err passes.
func check(err error) {
	GinkgoHelper()
	if err != nil {
		Fail(err.Error())
	}
}

// must fails the spec when step failed.
func must(step string, err error) {
	GinkgoHelper()
	check(failed(step, err))
}

// assert fails the spec with the sentence unless ok.
func assert(ok bool, format string, args ...any) {
	GinkgoHelper()
	if !ok {
		Fail(fmt.Sprintf(format, args...))
	}
}

// expectEqual fails the spec unless got equals want; see equal.
func expectEqual(sentence string, got, want any) {
	GinkgoHelper()
	check(equal(sentence, got, want))
}

// expectSame fails the spec unless got equals want; see same.
func expectSame(sentence string, got, want any) {
	GinkgoHelper()
	check(same(sentence, got, want))
}

// expectJSON fails the spec unless got is want as JSON; see sameJSON.
func expectJSON(sentence string, got, want json.RawMessage) {
	GinkgoHelper()
	check(sameJSON(sentence, got, want))
}

// expectNone fails the spec when there are problems; see none.
func expectNone(lead string, problems []string) {
	GinkgoHelper()
	check(none(lead, problems))
}

// expectError fails the spec unless got is want; see isError.
func expectError(sentence string, got, want error) {
	GinkgoHelper()
	check(isError(sentence, got, want))
}

// failed says that step failed, and why: "session/new failed: the
// connection ended before the answer: ...". An error that already names
// the step is not made to name it twice.
func failed(step string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s failed: %s", step, strings.TrimPrefix(err.Error(), step+": "))
}

// equal returns nil when got equals want. Otherwise its error is sentence
// with got and then want put in its two %s, each as show writes it, and,
// when the values are not plain strings, numbers or booleans, a -want
// +got diff.
func equal(sentence string, got, want any) error {
	if cmp.Equal(want, got, numbers) {
		return nil
	}
	msg := fmt.Sprintf(sentence, show(got), show(want))
	if !plain(got) || !plain(want) {
		msg += "\n" + diff(want, got)
	}
	return errors.New(msg)
}

// same returns nil when got equals want; otherwise its error is the
// sentence, then a -want +got diff of the members that differ. It is
// equal for values too long to write in a sentence.
func same(sentence string, got, want any) error {
	if cmp.Equal(want, got, numbers) {
		return nil
	}
	return fmt.Errorf("%s\n%s", sentence, diff(want, got))
}

// sameJSON returns nil when got is want as JSON: objects in any key
// order, member names exact, numbers of equal value however spelt, and
// each reading of a member named twice (probe.SameValue). Otherwise its
// error is the sentence, then a -want +got diff of the members that
// differ; of got that names a member twice, in the reading that differs,
// saying so.
func sameJSON(sentence string, got, want json.RawMessage) error {
	if probe.SameValue(got, want) {
		return nil
	}
	if got == nil {
		return fmt.Errorf("%s: there is none", sentence)
	}
	if readings, dups := exactjson.Readings(got); len(dups) > 0 {
		for i, r := range readings {
			if !probe.SameValue(r, want) {
				sentence = fmt.Sprintf("%s (what came names %s twice; read with the %s of each)", sentence, exactjson.Say(dups), []string{"first", "last"}[i])
				got = r
				break
			}
		}
	}
	g, err := decodeJSON(got)
	if err != nil {
		return fmt.Errorf("%s: what came is not JSON (%v): %q", sentence, err, got)
	}
	w, err := decodeJSON(want)
	if err != nil {
		panic(fmt.Sprintf("scenarios: the JSON a check wants is not JSON: %v", err))
	}
	return fmt.Errorf("%s\n%s", sentence, diff(w, g))
}

// none returns nil when there are no problems; otherwise its error is
// lead and the problems, one a line when there are several.
func none(lead string, problems []string) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s: %s", lead, problems[0])
	}
	return fmt.Errorf("%s:\n- %s", lead, strings.Join(problems, "\n- "))
}

// isError returns nil when got is want, as Gomega's MatchError has it
// (errors.Is, or equal values); otherwise its error is sentence with got
// and want put in its two %s. No error shows as "no error".
func isError(sentence string, got, want error) error {
	if err := wantsError(); err != nil && want != nil {
		return err
	}
	if errors.Is(got, want) || (got != nil && reflect.DeepEqual(got, want)) {
		return nil
	}
	return fmt.Errorf(sentence, showError(got), show(want))
}

// showError writes an error for a sentence: its text quoted, or "no error".
func showError(err error) string {
	if err == nil {
		return "no error"
	}
	return show(err)
}

// receive waits, at most d, for a value on ch; it reports whether one came.
func receive[T any](ctx context.Context, d time.Duration, ch <-chan T) (T, bool) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	select {
	case v := <-ch:
		return v, true
	case <-ctx.Done():
		var zero T
		return zero, false
	}
}

// retryUntil calls try at once, and again after 1 ms, 2 ms, 4 ms and so on
// up to every 50 ms, until done closes, for at most d; it reports whether
// done closed. It is for a message that may come too early to count, such
// as a session/cancel sent before the agent has begun the turn: nothing
// on the wire says when it has, so the message is repeated, soon at first,
// and the wait itself ends the moment done closes.
func retryUntil(ctx context.Context, d time.Duration, done <-chan struct{}, try func()) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	interval := time.Millisecond
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-done:
			return true
		case <-ctx.Done():
			select {
			case <-done:
				return true
			default:
				return false
			}
		case <-t.C:
			try()
			t.Reset(interval)
			interval = min(2*interval, 50*time.Millisecond)
		}
	}
}

// show writes a value for a sentence: a string quoted, an error as its
// quoted text, raw JSON compact, anything else as JSON.
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		if len(v) == 0 {
			return "none"
		}
		return fmt.Sprintf("%q", v)
	case error:
		return fmt.Sprintf("%q", v.Error())
	case json.RawMessage:
		if v == nil {
			return "absent"
		}
		var b bytes.Buffer
		if json.Compact(&b, v) != nil {
			return fmt.Sprintf("%q (not JSON)", v)
		}
		return b.String()
	case fmt.Stringer:
		return v.String()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// plain reports whether v is a string, number or boolean: a value the
// sentence shows whole, so that a diff would only repeat it.
func plain(v any) bool {
	switch reflect.ValueOf(v).Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// numbers compares JSON numbers by value: 2 is 2.0.
var numbers = cmp.Comparer(func(a, b json.Number) bool {
	return probe.SameValue(json.RawMessage(a), json.RawMessage(b))
})

// decodeJSON decodes raw JSON to any, keeping numbers as they are spelt.
func decodeJSON(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value")
	}
	return v, nil
}

// diff is a -want +got diff of the members of two values that differ, a
// line each, named by their path: "- oneOf[0].title: " Preview "".
func diff(want, got any) string {
	var r diffReporter
	cmp.Equal(want, got, numbers, cmp.Reporter(&r))
	if len(r.lines) == 0 { // equal to cmp, unequal to the caller: say both
		r.lines = []string{"- " + show(want), "+ " + show(got)}
	}
	return "-want +got:\n" + strings.Join(r.lines, "\n")
}

// diffReporter collects, as cmp walks two values, a line for each side of
// each member that differs.
type diffReporter struct {
	path  cmp.Path
	lines []string
}

func (r *diffReporter) PushStep(s cmp.PathStep) { r.path = append(r.path, s) }
func (r *diffReporter) PopStep()                { r.path = r.path[:len(r.path)-1] }

func (r *diffReporter) Report(res cmp.Result) {
	if res.Equal() {
		return
	}
	w, g := r.path.Last().Values()
	if w.IsValid() {
		r.lines = append(r.lines, "- "+pathOf(r.path, 0)+showValue(w))
	}
	if g.IsValid() {
		r.lines = append(r.lines, "+ "+pathOf(r.path, 1)+showValue(g))
	}
}

// pathOf names a member on one side (0 want, 1 got) as a path such as
// properties.choice.oneOf[0].title, followed by ": "; the whole value has
// no name.
func pathOf(p cmp.Path, side int) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cmp.MapIndex:
			key := fmt.Sprint(s.Key().Interface())
			if identifier(key) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(key)
			} else {
				fmt.Fprintf(&b, "[%q]", key)
			}
		case cmp.SliceIndex:
			i, j := s.SplitKeys()
			if side == 1 {
				i = j
			}
			fmt.Fprintf(&b, "[%d]", i)
		case cmp.StructField:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name())
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + ": "
}

// identifier reports whether a map key can be written as .key in a path.
func identifier(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// showValue writes one member of a diff.
func showValue(v reflect.Value) string {
	if !v.CanInterface() {
		return v.String()
	}
	switch x := v.Interface().(type) {
	case nil:
		return "null"
	case json.Number:
		return string(x)
	}
	return show(v.Interface())
}
