package suite

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/acpconform/acpconform/mocks/wire"
)

// stdioLink starts argv as a stdio subject and stops it when the test ends.
func stdioLink(t *testing.T, ctx context.Context, argv ...string) *Link {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("acpconform starts no processes on Windows")
	}
	subject := Command(argv, AgentRole, wire.Options{})
	t.Cleanup(subject.(*command).Release)
	link, err := subject.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { link.Close() })
	return link
}

func readLine(t *testing.T, ctx context.Context, link *Link, want string) {
	t.Helper()
	got, err := link.Conn.ReadFrame(ctx)
	if err != nil || string(got) != want {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

func TestCloseInputEndsStdinAndExitedSaysWhenItExits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	link := stdioLink(t, ctx, "cat")
	if !link.Stdio() {
		t.Fatal("a command on stdio is not Stdio")
	}
	if err := link.Conn.WriteFrame(ctx, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	readLine(t, ctx, link, `{"x":1}`)
	if err := link.CloseInput(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-link.Exited(): // cat exits at the end of its input
	case <-ctx.Done():
		t.Fatal("cat did not exit once its stdin was closed")
	}
	link.Close()
	if got := link.Died(); got != "exited with status 0" {
		t.Errorf("Died() = %q, want %q", got, "exited with status 0")
	}
}

func TestCloseInputLeavesTheProcessRunning(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// It says when its input ended, then stays until it is stopped.
	link := stdioLink(t, ctx, "sh", "-c", "cat >/dev/null; echo input-ended; exec sleep 60")
	if err := link.CloseInput(); err != nil {
		t.Fatal(err)
	}
	readLine(t, ctx, link, "input-ended")
	select {
	case <-link.Exited():
		t.Fatalf("the process exited (%s): CloseInput must not stop it", link.process.ExitDescription())
	default:
	}
	if err := link.Conn.WriteFrame(ctx, []byte(`{}`)); err == nil {
		t.Error("a write after CloseInput succeeded")
	}
	link.Close() // stops it: the stdin grace, then SIGTERM
	select {
	case <-link.Exited():
	default:
		t.Error("Close returned with the process still running")
	}
}

func TestCloseInputRefusesSubjectsNotOnStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	link, err := Reference().Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	if link.Stdio() {
		t.Error("the in-process reference is Stdio")
	}
	if err := link.CloseInput(); err == nil {
		t.Error("CloseInput of the in-process reference succeeded")
	}
	if link.Exited() != nil {
		t.Error("Exited of a subject that is no process is not nil")
	}
}
