package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/relay"
	"github.com/acpconform/acpconform/suite"
)

// RelayMutant is one deliberate defect of our relays (mocks/relay), made
// with a relay.Tamper: the relay catalogue, run against the tampered relay
// in-process, must fail the check Kills.
type RelayMutant struct {
	Name   string // kebab-case
	Rule   string // the CONTRACT ID it breaks
	Relay  string // "mirror" or "command relay"
	Kills  string // the ID of a check that must fail
	Tamper func() *relay.Tamper
}

// Subject is the tampered relay as the catalogue checks it.
func (m RelayMutant) Subject() suite.Subject {
	name := "mutant " + m.Name + " of the reference " + m.Relay
	if m.Relay == "mirror" {
		return suite.TamperedMirror(name, m.Tamper)
	}
	return suite.TamperedCommandRelay(name, m.Tamper)
}

// Relays lists the mutants of our relays, at least one per REL rule.
var Relays = []RelayMutant{
	{"cancel-not-renumbered", "REL-2", "mirror", "REL-2/cancel-request-translated", frames(func() filter { return (&renumbering{requests: relay.ToClient}).filter })},
	{"client-cancel-not-renumbered", "REL-2", "mirror", "REL-2/client-cancel-request-translated", frames(func() filter {
		// Both sides' requests renumbered, as @thinkwell/conductor 0.5.7
		// does, and only the agent's cancellation translated.
		return chain((&renumbering{requests: relay.ToClient, translateCancel: true}).filter, (&renumbering{requests: relay.ToAgent}).filter)
	})},
	{"answers-crossed", "REL-3", "command relay", "REL-3/concurrent-both-ways", frames(func() filter {
		return (&renumbering{requests: relay.ToClient, translateCancel: true, crossed: true}).filter
	})},
	{"session-cancel-swallowed", "REL-2", "command relay", "REL-2/session-cancel-passes", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			if dir == relay.ToAgent && methodOf(frame) == "session/cancel" {
				return nil
			}
			return [][]byte{frame}
		}
	})},
	// A relay that knows only the methods of ask_choice's flow.
	{"complete-swallowed", "REL-1", "command relay", "REL-1/answers-unchanged", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			if dir == relay.ToClient && methodOf(frame) == "elicitation/complete" {
				return nil
			}
			return [][]byte{frame}
		}
	})},
	{"error-answer-rewritten", "REL-1", "mirror", "REL-1/answers-unchanged", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			msg, ok := decode(frame)
			if dir == relay.ToAgent && ok && msg["method"] == nil && msg["error"] != nil {
				msg["error"] = json.RawMessage(`{"code":-32603,"message":"Internal error"}`)
				return [][]byte{encode(msg)}
			}
			return [][]byte{frame}
		}
	})},
	// A success where the client answered an error: the agent hears a
	// decline (openclaw/acpx#591 is this bug in a harness).
	{"error-answer-made-success", "REL-1", "command relay", "REL-1/answers-unchanged", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			msg, ok := decode(frame)
			if dir == relay.ToAgent && ok && msg["method"] == nil && msg["error"] != nil {
				delete(msg, "error")
				msg["result"] = json.RawMessage(`{"action":"decline"}`)
				return [][]byte{encode(msg)}
			}
			return [][]byte{frame}
		}
	})},
	{"updates-behind-response", "REL-4", "command relay", "REL-4/updates-in-order", frames(func() filter {
		var held [][]byte // session/update notifications, until the next response
		return func(dir relay.Direction, frame []byte) [][]byte {
			msg, ok := decode(frame)
			switch {
			case dir != relay.ToClient || !ok:
			case methodOf(frame) == "session/update":
				held = append(held, frame)
				return nil
			case msg["method"] == nil && msg["id"] != nil:
				out := append([][]byte{frame}, held...)
				held = nil
				return out
			}
			return [][]byte{frame}
		}
	})},
	{"capabilities-trimmed", "REL-5", "mirror", "REL-5/capabilities-unchanged", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			if dir == relay.ToAgent && methodOf(frame) == "initialize" {
				return [][]byte{trimCapabilities(frame)}
			}
			return [][]byte{frame}
		}
	})},
	{"other-side-kept-open", "REL-6", "mirror", "REL-6/client-gone-closes-agent", func() *relay.Tamper { return &relay.Tamper{KeepOpen: true} }},
	{"agent-gone-client-kept", "REL-6", "command relay", "REL-6/agent-gone-closes-client", func() *relay.Tamper { return &relay.Tamper{KeepOpen: true} }},
	{"large-frames-split", "REL-1", "command relay", "REL-7/over-1mib-to-client", frames(func() filter {
		return func(_ relay.Direction, frame []byte) [][]byte {
			if n := len(frame); n > 256<<10 {
				return [][]byte{frame[:n/2], frame[n/2:]}
			}
			return [][]byte{frame}
		}
	})},
	{"client-ids-not-mapped-back", "REL-1", "mirror", "REL-1/ids-mapped-back", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			// The client's requests get ids of the relay's own, and their
			// answers come back with those ids, not the client's.
			msg, ok := decode(frame)
			_, isCall := msg["method"]
			if id, hasID := msg["id"]; ok && dir == relay.ToAgent && isCall && hasID && string(id) != "null" {
				msg["id"] = encode(json.RawMessage(`"relay-` + string(bytes.Trim(id, `"`)) + `"`))
				return [][]byte{encode(msg)}
			}
			return [][]byte{frame}
		}
	})},
	{"large-frames-cut-to-agent", "REL-1", "mirror", "REL-7/over-1mib-to-agent", beyondMiB(relay.ToAgent, func(frame []byte) [][]byte {
		return [][]byte{frame[:1<<20]} // a relay that reads 4 MiB but passes on at most 1 MiB, silently
	})},
	{"large-frames-split-to-agent", "REL-1", "mirror", "REL-7/over-1mib-to-agent", beyondMiB(relay.ToAgent, func(frame []byte) [][]byte {
		return [][]byte{frame[:1<<20], frame[1<<20:]} // a relay that writes 1 MiB a line
	})},
	{"large-frames-cut-to-client", "REL-1", "command relay", "REL-7/over-1mib-to-client", frames(func() filter {
		return func(dir relay.Direction, frame []byte) [][]byte {
			if dir == relay.ToClient && len(frame) > 1<<20 {
				return [][]byte{frame[:1<<20]}
			}
			return [][]byte{frame}
		}
	})},
	// A relay that refuses what passes its limit, by closing, is within
	// REL-1; only REL-7 wants that limit no lower than 1 MiB.
	{"frame-limit-512kib", "REL-7", "mirror", "REL-7/near-1mib-both-ways", func() *relay.Tamper { return &relay.Tamper{MaxFrame: 512 << 10} }},
	{"updates-invented", "REL-1", "command relay", "REL-1/answers-unchanged", frames(func() filter {
		first := true
		return func(dir relay.Direction, frame []byte) [][]byte {
			if dir != relay.ToClient || !first {
				return [][]byte{frame}
			}
			// 50,000 notifications for a session that does not exist,
			// before the agent's first message.
			first = false
			out := make([][]byte, 0, 50001)
			for i := range 50000 {
				out = append(out, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"no-such-session",`+
					`"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"invented %d"}}}}`, i))
			}
			return append(out, frame)
		}
	})},
	{"update-invented-once", "REL-1", "mirror", "REL-1/answers-unchanged", frames(func() filter {
		done := false
		return func(dir relay.Direction, frame []byte) [][]byte {
			// One plausible notification, for the session just opened.
			session := gjson.GetBytes(frame, "result.sessionId")
			if dir != relay.ToClient || done || session.Type != gjson.String {
				return [][]byte{frame}
			}
			done = true
			invented := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%s,`+
				`"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Working on it."}}}}`, session.Raw)
			return [][]byte{frame, invented}
		}
	})},
	{"empty-objects-dropped", "REL-5", "mirror", "REL-5/capabilities-unchanged", frames(func() filter {
		return chain(sdkDecoded(true), emptyObjectsDropped)
	})},
	{"reads-decoded-apart", "REL-1", "command relay", "REL-1/text-survives-both-ways", frames(readsDecodedApart)},
	{"astral-replaced", "REL-1", "mirror", "REL-1/text-survives-both-ways", frames(func() filter { return astralReplaced })},
	// Python's json writes a number beyond a float64 as Infinity, which
	// is not JSON: the message is lost, and the wait for it runs out.
	{"numbers-as-infinity", "REL-1", "command relay", "REL-1/numbers-exact-both-ways", frames(func() filter {
		return func(_ relay.Direction, frame []byte) [][]byte {
			return [][]byte{bytes.ReplaceAll(frame, []byte("1e400"), []byte("Infinity"))}
		}
	})},
	{"numbers-through-float64", "REL-1", "mirror", "REL-1/numbers-exact-both-ways", frames(func() filter {
		return func(_ relay.Direction, frame []byte) [][]byte { return [][]byte{asFloat64(frame)} }
	})},
}

// CorrectRelays change what crosses them only as REL-1 allows: each is
// one of our relays, rewriting every message as another JSON library
// would. The relay catalogue must fail none of their checks.
var CorrectRelays = []RelayMutant{
	{"reserialised-mirror", "", "mirror", "", frames(func() filter { return (&reserialiser{}).filter })},
	{"reserialised-command-relay", "", "command relay", "", frames(func() filter { return (&reserialiser{}).filter })},
	// Decoded and encoded again through an SDK's types (REL-1, revision 4).
	{"sdk-defaults-left-out", "", "mirror", "", frames(func() filter { return chain(sdkDecoded(true), (&reserialiser{}).filter) })},
	{"sdk-defaults-written", "", "command relay", "", frames(func() filter { return sdkDecoded(false) })},
}

// beyondMiB is a tamper that lets the mirror read frames up to 4 MiB,
// and passes those over 1 MiB going dir on as cut does.
func beyondMiB(dir relay.Direction, cut func(frame []byte) [][]byte) func() *relay.Tamper {
	return func() *relay.Tamper {
		t := frames(func() filter {
			return func(d relay.Direction, frame []byte) [][]byte {
				if d == dir && len(frame) > 1<<20 {
					return cut(frame)
				}
				return [][]byte{frame}
			}
		})()
		t.MaxFrame = 4 << 20
		return t
	}
}

// filter is a relay.Tamper's Frame.
type filter = func(dir relay.Direction, frame []byte) [][]byte

// frames makes a tamper of a fresh filter, safe for both directions at once.
func frames(newFilter func() filter) func() *relay.Tamper {
	return func() *relay.Tamper {
		var mu sync.Mutex
		f := newFilter()
		return &relay.Tamper{Frame: func(dir relay.Direction, frame []byte) [][]byte {
			mu.Lock()
			defer mu.Unlock()
			return f(dir, frame)
		}}
	}
}

// chain passes each frame through first, then what comes of it through
// second.
func chain(first, second filter) filter {
	return func(dir relay.Direction, frame []byte) [][]byte {
		var out [][]byte
		for _, f := range first(dir, frame) {
			out = append(out, second(dir, f)...)
		}
		return out
	}
}

// renumbering renumbers the requests going one way (the agent's, toward
// the client, or the client's, toward the agent), as a proxy with an id
// space of its own toward their receiver does, and maps the answers coming
// back. It forgets the requestId of a $/cancel_request going that way
// unless translateCancel, and, when crossed, maps an answer to the newest
// request pending instead of its own.
type renumbering struct {
	requests                 relay.Direction
	translateCancel, crossed bool

	next    int
	pending []pendingID // oldest first
}

type pendingID struct {
	mine    int             // the id the receiver sees
	senders json.RawMessage // the sender's
}

func (r *renumbering) filter(dir relay.Direction, frame []byte) [][]byte {
	msg, ok := decode(frame)
	if !ok {
		return [][]byte{frame}
	}
	_, isCall := msg["method"]
	id, hasID := msg["id"]
	switch {
	case dir == r.requests && isCall && hasID && string(id) != "null":
		mine := 1000 + r.next
		r.next++
		r.pending = append(r.pending, pendingID{mine, id})
		msg["id"] = encode(mine)
	case dir == r.requests && r.translateCancel && methodOf(frame) == "$/cancel_request":
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(msg["params"], &params)
		for _, p := range r.pending {
			if string(p.senders) == string(params.RequestID) {
				msg["params"] = encode(map[string]int{"requestId": p.mine})
			}
		}
	case dir != r.requests && !isCall && hasID:
		var mine int
		if json.Unmarshal(id, &mine) != nil {
			return [][]byte{frame}
		}
		at := -1
		for i, p := range r.pending {
			if p.mine == mine {
				at = i
			}
		}
		if at < 0 {
			return [][]byte{frame}
		}
		if r.crossed {
			at = len(r.pending) - 1
		}
		msg["id"] = r.pending[at].senders
		r.pending = append(r.pending[:at], r.pending[at+1:]...)
	default:
		return [][]byte{frame}
	}
	return [][]byte{encode(msg)}
}

// trimCapabilities drops the client's _meta and elicitation.url from an
// initialize, as a relay that rebuilds what it knows of them does.
func trimCapabilities(frame []byte) []byte {
	msg, ok := decode(frame)
	if !ok {
		return frame
	}
	var params map[string]json.RawMessage
	var caps map[string]json.RawMessage
	var elicitation map[string]json.RawMessage
	_ = json.Unmarshal(msg["params"], &params)
	_ = json.Unmarshal(params["clientCapabilities"], &caps)
	_ = json.Unmarshal(caps["elicitation"], &elicitation)
	delete(caps, "_meta")
	if elicitation != nil {
		delete(elicitation, "url")
		caps["elicitation"] = encode(elicitation)
	}
	params["clientCapabilities"] = encode(caps)
	msg["params"] = encode(params)
	return encode(msg)
}

func decode(frame []byte) (map[string]json.RawMessage, bool) {
	var msg map[string]json.RawMessage
	return msg, json.Unmarshal(frame, &msg) == nil && msg != nil
}

func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mutants: " + err.Error())
	}
	return b
}

func methodOf(frame []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(frame, &m)
	return m.Method
}
