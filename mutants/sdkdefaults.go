package mutants

import (
	"bytes"
	"encoding/json"

	"github.com/acpconform/acpconform/mocks/relay"
)

// The capabilities a relay that decodes every message into an ACP SDK's
// types and encodes it again may write differently (REL-1, revision 4):
// the fields the schema (v1, 1.21.0) gives a default, in the object that
// holds them; an object among them defaults to its own fields' defaults.
// ACP Kit's mirror, on the Python SDK, leaves out fs.writeTextFile: false;
// another SDK writes every default out.
var sdkDefaults = map[string]any{
	"clientCapabilities": map[string]any{
		"fs":       map[string]any{"readTextFile": false, "writeTextFile": false},
		"terminal": false,
		"auth":     map[string]any{"terminal": false},
	},
	"agentCapabilities": map[string]any{
		"loadSession":         false,
		"promptCapabilities":  map[string]any{"image": false, "audio": false, "embeddedContext": false},
		"mcpCapabilities":     map[string]any{"http": false, "sse": false},
		"sessionCapabilities": map[string]any{},
		"auth":                map[string]any{},
	},
}

// sdkDecoded is a filter that rewrites the capabilities in initialize and
// its answer as such an SDK does: with omit, every field at its default
// left out (and an object left empty by that); otherwise every default
// written out. Every other message crosses as it came.
func sdkDecoded(omit bool) filter {
	return func(_ relay.Direction, frame []byte) [][]byte {
		var msg map[string]any
		dec := json.NewDecoder(bytes.NewReader(frame))
		dec.UseNumber()
		if dec.Decode(&msg) != nil || msg == nil {
			return [][]byte{frame}
		}
		changed := false
		for _, member := range []string{"params", "result"} {
			body, ok := msg[member].(map[string]any)
			if !ok {
				continue
			}
			for _, caps := range []string{"clientCapabilities", "agentCapabilities"} {
				if c, ok := body[caps].(map[string]any); ok {
					withDefaults(c, sdkDefaults[caps].(map[string]any), omit)
					changed = true
				}
			}
		}
		if !changed {
			return [][]byte{frame}
		}
		return [][]byte{encode(msg)}
	}
}

// withDefaults leaves out of obj, or writes into it, each field of
// defaults (an object's own defaults first).
func withDefaults(obj map[string]any, defaults map[string]any, omit bool) {
	for k, d := range defaults {
		v, present := obj[k]
		if fields, isObject := d.(map[string]any); isObject {
			if !present && !omit {
				v, present = map[string]any{}, true
				obj[k] = v
			}
			if o, ok := v.(map[string]any); ok {
				withDefaults(o, fields, omit)
				if omit && len(o) == 0 {
					delete(obj, k)
				}
			}
			continue
		}
		switch {
		case omit && present && v == d:
			delete(obj, k)
		case !omit && !present:
			obj[k] = d
		}
	}
}

// emptyObjectsDropped leaves out every empty object in the client's
// capabilities, as if each were a default: elicitation.form: {} means
// the client renders forms, and is none (REL-5).
func emptyObjectsDropped(dir relay.Direction, frame []byte) [][]byte {
	var msg map[string]any
	if dir != relay.ToAgent || methodOf(frame) != "initialize" || json.Unmarshal(frame, &msg) != nil {
		return [][]byte{frame}
	}
	params, _ := msg["params"].(map[string]any)
	if caps, ok := params["clientCapabilities"].(map[string]any); ok {
		dropEmpty(caps)
	}
	return [][]byte{encode(msg)}
}

func dropEmpty(obj map[string]any) {
	for k, v := range obj {
		if o, ok := v.(map[string]any); ok {
			dropEmpty(o)
			if len(o) == 0 {
				delete(obj, k)
			}
		}
	}
}

// readsDecodedApart is a relay that decodes each 64 KiB it reads as text
// on its own, as one that turns every read into a string does: a
// character whose bytes two reads share becomes U+FFFD on each side.
// Each direction is one stream, its frames one after the other, each
// with its newline.
func readsDecodedApart() filter {
	var offset [2]int // bytes of each direction's stream before this frame
	const read = 64 << 10
	return func(dir relay.Direction, frame []byte) [][]byte {
		var out []byte
		start := 0
		for cut := read - offset[dir]%read; cut < len(frame); cut += read {
			out = append(out, bytes.ToValidUTF8(frame[start:cut], []byte("\uFFFD"))...)
			start = cut
		}
		out = append(out, bytes.ToValidUTF8(frame[start:], []byte("\uFFFD"))...)
		offset[dir] += len(frame) + 1
		return [][]byte{out}
	}
}

// astralReplaced is a relay that holds text as UCS-2, as some UTF-16
// code without surrogate pairs does: every character beyond U+FFFF
// becomes U+FFFD.
func astralReplaced(_ relay.Direction, frame []byte) [][]byte {
	return [][]byte{bytes.Map(func(r rune) rune {
		if r > 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, frame)}
}
