package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecode checks decode against encoding/json, which reads the same
// frames slowly and carefully: whatever decode accepts, encoding/json
// reads as the same members, and it re-encodes into a frame decode reads
// back as the same message; whatever decode calls not JSON, encoding/json
// refuses too (or it is not UTF-8). And decode never panics.
//
//	go test -run '^$' -fuzz FuzzDecode -fuzztime 60s ./mocks/peer
//
// It lowers the nesting limit to fuzzDepth, so that nesting past it takes
// a few bytes: the fuzzer spends a minute minimizing each interesting
// input of some kilobytes.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`))
	f.Add([]byte(`{"\u0069d":-1.5e+3,"me\u0074hod":"s\u00e9ssion/\n","x":[true,false,null,{}]}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"é €","data":{"method":"x"}},"id":2}`))
	f.Add([]byte(" [ {\"id\":0}, 1 ,\"\\\"\" ]\r\n"))
	f.Add([]byte("{\"id\":1,\"result\":\"\xed\xa0\x80\"}"))
	f.Add([]byte(`{"id":1,"i\u0064":2}`)) // a member twice, once escaped
	f.Add([]byte(`{"id":1,"error":{"Code":-32602,"code":-32601,"Message":"x","message":"y","data":null}}`))
	for _, bad := range []string{`{"id":01}`, `{"id":1.}`, `{"id":-}`, `{"id":1e}`, `{"id":"\x"}`, "{\"id\":\"\t\"}", ` `, `{"id":1}x`, `{"id":1,}`, `{"id":tru}`, `{"id":"\u12"}`} {
		f.Add([]byte(bad))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := decodeNested(frame, fuzzDepth)
		if err != nil {
			checkRefusal(t, frame, err)
			return
		}
		checkMembers(t, frame, m)
		checkRoundTrip(t, m)
	})
}

// checkRefusal: a frame decode calls not JSON is not JSON to encoding/json
// either, or not UTF-8, and one it refuses for another reason is JSON;
// every refusal is a frameError.
func checkRefusal(t *testing.T, frame []byte, err error) {
	var fe *frameError
	if !errors.As(err, &fe) {
		t.Fatalf("decode(%q): %v is no frameError", frame, err)
	}
	switch fe.kind {
	case notJSON:
		if json.Valid(frame) && utf8.Valid(frame) {
			t.Fatalf("decode(%q) calls valid JSON not JSON: %v", frame, err)
		}
	case tooDeep:
		if nested(frame, fuzzDepth) <= fuzzDepth {
			t.Fatalf("decode(%q) calls a frame nested %d deep too deep", frame, nested(frame, fuzzDepth))
		}
	case batch:
		if !json.Valid(frame) || frame[firstNonSpace(frame)] != '[' {
			t.Fatalf("decode(%q) calls what is no JSON array a batch", frame)
		}
	default: // JSON, though no JSON-RPC message
		if !json.Valid(frame) || !utf8.Valid(frame) {
			t.Fatalf("decode(%q) calls what is not JSON %v", frame, err)
		}
	}
}

// checkMembers: encoding/json reads the members decode picked out, byte
// for byte.
func checkMembers(t *testing.T, frame []byte, m Message) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(frame, &obj); err != nil {
		t.Fatalf("decode accepted %q, which encoding/json refuses: %v", frame, err)
	}
	if !utf8.Valid(frame) {
		t.Fatalf("decode accepted %q, which is not UTF-8", frame)
	}
	for name, got := range map[string]json.RawMessage{"id": m.ID, "params": m.Params, "result": m.Result} {
		if want, ok := obj[name]; !bytes.Equal(got, want) || (got == nil) == ok {
			t.Fatalf("decode(%q): %s is %q, encoding/json reads %q (present: %v)", frame, name, got, want, ok)
		}
	}
	var method string
	if raw, ok := obj["method"]; ok {
		if err := json.Unmarshal(raw, &method); err != nil {
			t.Fatalf("decode(%q) accepted a method encoding/json cannot read: %v", frame, err)
		}
	}
	if m.Method != method {
		t.Fatalf("decode(%q): method %q, encoding/json reads %q", frame, m.Method, method)
	}
	wantErr := exactError(t, frame, obj["error"])
	if !reflect.DeepEqual(m.Error, wantErr) {
		t.Fatalf("decode(%q): error %+v, encoding/json reads %+v", frame, m.Error, wantErr)
	}
	if !bytes.Equal(m.Raw, frame) {
		t.Fatalf("decode(%q): Raw is %q", frame, m.Raw)
	}
}

// exactError reads an error object by its members' exact names, as
// encoding/json reads a map (its struct decoding would take "Code" for
// "code"): code and message of their types, data as written.
func exactError(t *testing.T, frame []byte, raw json.RawMessage) *Error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatalf("decode(%q) accepted an error that is no object: %v", frame, err)
	}
	e := &Error{Data: members["data"]}
	for name, to := range map[string]any{"code": &e.Code, "message": &e.Message} {
		if v, ok := members[name]; ok {
			if err := json.Unmarshal(v, to); err != nil {
				t.Fatalf("decode(%q) accepted an error whose %s encoding/json cannot read: %v", frame, name, err)
			}
		}
	}
	return e
}

// checkRoundTrip: m marshalled is a frame decode reads as the same
// message, member values compared as JSON values.
func checkRoundTrip(t *testing.T, m Message) {
	again, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("marshal %+v: %v", m, err)
	}
	m2, err := decodeNested(again, fuzzDepth)
	if errors.As(err, new(*frameError)) && err.(*frameError).kind == notAMessage && m.Method == "" && m.ID == nil && m.Result == nil && m.Error == nil {
		return // nothing to carry
	}
	if err != nil {
		t.Fatalf("decode(%q), from %q: %v", again, m.Raw, err)
	}
	same := func(a, b json.RawMessage) bool {
		if (a == nil) != (b == nil) {
			return false
		}
		return a == nil || reflect.DeepEqual(value(t, a), value(t, b))
	}
	if !same(m.ID, m2.ID) || !same(m.Params, m2.Params) || !same(m.Result, m2.Result) || m.Method != m2.Method {
		t.Fatalf("%q re-encoded as %q reads back differently: %+v, then %+v", m.Raw, again, m, m2)
	}
	if (m.Error == nil) != (m2.Error == nil) || (m.Error != nil && (m.Error.Code != m2.Error.Code || m.Error.Message != m2.Error.Message || !same(m.Error.Data, m2.Error.Data))) {
		t.Fatalf("%q re-encoded as %q: error %+v, then %+v", m.Raw, again, m.Error, m2.Error)
	}
	if m.IsRequest() != m2.IsRequest() || m.IsNotification() != m2.IsNotification() || m.IsResponse() != m2.IsResponse() {
		t.Fatalf("%q re-encoded as %q changes kind", m.Raw, again)
	}
}

// value decodes raw JSON for comparison, numbers as written.
func value(t *testing.T, raw json.RawMessage) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	return v
}

// fuzzDepth is the nesting limit FuzzDecode checks.
const fuzzDepth = 8

func firstNonSpace(b []byte) int {
	return len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
}

// TestDecodeErrorByExactNames: the error object's members are read by
// their exact names, as ACP's SDKs read them: "Code" and "Message" are
// unknown members, ignored, never taken for code and message; and a
// member named twice makes the frame no JSON-RPC message, as a duplicate
// envelope member does.
func TestDecodeErrorByExactNames(t *testing.T) {
	for _, tc := range []struct {
		frame string
		want  Error
	}{
		{`{"jsonrpc":"2.0","id":1,"error":{"Code":-32602,"Message":"Invalid params"}}`, Error{}},
		{`{"jsonrpc":"2.0","id":1,"error":{"Code":-32602,"code":-32601,"message":"Method not found","MESSAGE":"x"}}`, Error{Code: -32601, Message: "Method not found"}},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","Data":{"method":"x"}}}`, Error{Code: -32601, Message: "Method not found"}},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m","data":{"a":1,"a":2}}}`, Error{Code: -32601, Message: "m", Data: json.RawMessage(`{"a":1,"a":2}`)}}, // carried as written
	} {
		m, err := decode([]byte(tc.frame))
		if err != nil {
			t.Errorf("decode(%s): %v", tc.frame, err)
			continue
		}
		if m.Error == nil || m.Error.Code != tc.want.Code || m.Error.Message != tc.want.Message || string(m.Error.Data) != string(tc.want.Data) {
			t.Errorf("decode(%s): error %+v, want %+v", tc.frame, m.Error, tc.want)
		}
	}
	for frame, why := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"code":-32602,"message":"m"}}`: `"error" is not an error object: "code" appears twice`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`:                  `"error" is not an error object: "code" is a number, not an integer`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":["m"]}}`:                  `"error" is not an error object: "message" is an array, not a string`,
		`{"jsonrpc":"2.0","id":1,"error":"m"}`:                                         `"error" is not an error object: it is a string`,
	} {
		if _, err := decode([]byte(frame)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("decode(%s): %v, want an error saying %s", frame, err, why)
		}
	}
}
