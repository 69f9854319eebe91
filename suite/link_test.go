//go:build unix

package suite_test

import (
	"context"
	"testing"
	"time"

	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/suite"
)

// A check sees how a subject's process ends by itself, before the link's
// Close stops it.
func TestLinkSaysHowItsProcessExited(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		script, want string
		clean        bool
	}{
		{"exit 0", "exited with status 0", true},
		{"exit 3", "exited with status 3", false},
		{"kill -TERM $$", "was killed by signal SIGTERM (terminated)", false},
	} {
		link, err := suite.Command([]string{"sh", "-c", tc.script}, suite.ClientRole, wire.Options{}).Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-link.Exited():
		case <-ctx.Done():
			t.Fatalf("sh -c %q: Exited was not closed", tc.script)
		}
		if got := link.ExitDescription(); got != tc.want {
			t.Errorf("sh -c %q: ExitDescription %q, want %q", tc.script, got, tc.want)
		}
		if got := link.ExitedCleanly(); got != tc.clean {
			t.Errorf("sh -c %q: ExitedCleanly %v, want %v", tc.script, got, tc.clean)
		}
		link.Close()
	}
}

func TestLinkOfARunningProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	link, err := suite.Command([]string{"sh", "-c", "read x"}, suite.ClientRole, wire.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-link.Exited():
		t.Fatalf("Exited is closed while the process waits for its stdin: %s", link.ExitDescription())
	default:
	}
	if got := link.ExitDescription(); got != "still running" {
		t.Errorf("ExitDescription %q, want still running", got)
	}
	if link.ExitedCleanly() {
		t.Error("ExitedCleanly holds for a process still running")
	}
	link.Close() // closes its stdin: it exits by itself
	select {
	case <-link.Exited():
	default:
		t.Error("Exited is not closed once Close has returned")
	}
}

func TestLinkOfNoProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	link, err := suite.ReferenceClient(probeclient.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	if link.Exited() != nil || link.ExitDescription() != "" || link.ExitedCleanly() {
		t.Errorf("an in-process subject: Exited %v, ExitDescription %q, ExitedCleanly %v; want nil, \"\", false",
			link.Exited(), link.ExitDescription(), link.ExitedCleanly())
	}
}
