package suite

import "testing"

// A diagnosis of a second connection is also the reason a WebSocket's
// close frame carries to the subject: at most 123 bytes, or the frame
// says "internal error" instead.
func TestConnectedAgainFitsACloseFrame(t *testing.T) {
	for _, role := range []Role{AgentRole, ClientRole, RelayRole} {
		for _, placeholder := range []string{URLPlaceholder, AgentPlaceholder} {
			if s := connectedAgain(role, placeholder); len(s) > 123 {
				t.Errorf("%q is %d bytes, above a close frame's 123", s, len(s))
			}
		}
	}
}
