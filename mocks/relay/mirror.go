package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/acpconform/acpconform/mocks/wire"
)

// MirrorOptions configure a Mirror. The zero value passes the client's
// capabilities through and has not opted into the unstable elicitation
// route, as ACP Kit's mirror without --unstable-protocol.
type MirrorOptions struct {
	// UnstableProtocol opts the client-facing connection into receiving
	// unstable routes (REM-3): elicitation/create from the agent is relayed
	// to the client. Without it the mirror answers -32601 itself, as a
	// client that registered no route (RTE-5).
	UnstableProtocol bool
	// RebuildCapabilities rebuilds the client's capabilities on the way to
	// the agent, keeping only _meta, auth, a read/write-disabled fs and no
	// terminal, as ACP Kit's mirror with host_ownership "remote" does: the
	// elicitation capability is dropped, and every ask_choice behind it
	// takes the unsupported path. It exists to show that defect.
	RebuildCapabilities bool
	// Header is sent with the WebSocket handshake (Authorization, say).
	Header http.Header
	// MaxFrame bounds frames from either side; 0 means the default.
	MaxFrame int
	// Tamper, when set, makes the mirror wrong on purpose (package mutants).
	Tamper *Tamper
}

// Mirror connects to the agent at url and serves ACP to the client on
// local, relaying frames both ways unchanged, but for what opts say. It
// returns when either side ends, and closes both.
func Mirror(ctx context.Context, url string, local wire.Conn, opts MirrorOptions) error {
	remote, err := wire.Dial(ctx, url, wire.DialOptions{Options: wire.Options{MaxFrame: opts.MaxFrame}, Header: opts.Header})
	if err != nil {
		local.Close()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 2)
	go func() { // client -> agent
		ended <- local.Serve(func(frame []byte) {
			if opts.RebuildCapabilities && gjson.GetBytes(frame, "method").Str == "initialize" {
				frame = rebuildCapabilities(frame)
			}
			for _, f := range opts.Tamper.frames(ToAgent, frame) {
				if err := remote.WriteRaw(ctx, f); err != nil {
					cancel()
				}
			}
		})
	}()
	go func() { // agent -> client
		ended <- remote.Serve(func(frame []byte) {
			if !opts.UnstableProtocol && isRequest(frame, "elicitation/create") {
				// Not opted in: no route, as the SDKs answer.
				id := gjson.GetBytes(frame, "id").Raw
				answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found","data":{"method":"elicitation/create"}}}`, id)
				_ = remote.WriteRaw(ctx, []byte(answer))
				return
			}
			for _, f := range opts.Tamper.frames(ToClient, frame) {
				if err := local.WriteRaw(ctx, append(f, '\n')); err != nil {
					cancel()
				}
			}
		})
	}()
	err = <-ended
	if opts.Tamper.keepOpen() {
		<-ctx.Done()
	}
	local.Close()
	remote.Close()
	<-ended
	return err
}

// isRequest reports a request (an id and this method).
func isRequest(frame []byte, method string) bool {
	r := gjson.ParseBytes(frame)
	id := r.Get("id")
	return r.Get("method").Str == method && id.Exists() && id.Type != gjson.Null
}

// rebuildCapabilities replaces an initialize's clientCapabilities by what
// ACP Kit's mirror keeps of them.
func rebuildCapabilities(frame []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(frame, &msg) != nil {
		return frame
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return frame
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(params["clientCapabilities"], &caps)
	rebuilt := map[string]any{
		"fs":       map[string]bool{"readTextFile": false, "writeTextFile": false},
		"terminal": false,
	}
	for _, keep := range []string{"_meta", "auth"} {
		if v, ok := caps[keep]; ok {
			rebuilt[keep] = v
		}
	}
	params["clientCapabilities"], _ = json.Marshal(rebuilt)
	msg["params"], _ = json.Marshal(params)
	out, err := json.Marshal(msg)
	if err != nil {
		return frame
	}
	return out
}
