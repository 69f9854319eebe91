package suite_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpconform/acpconform/mocks/wire"
	"github.com/acpconform/acpconform/suite"
)

// The bridge is the client's descendant, not ours: stopping the client
// stops it too, even when it cannot end by itself (stopped here, so the end
// of the connection does not end it).
func TestBridgeIsNotLeftBehind(t *testing.T) {
	ctx := testContext(t, time.Minute)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The inner shell writes its pid, then becomes the bridge: a grandchild.
	link, err := suite.Command([]string{"sh", "-c", `sh -c 'echo $$ >"$0"; exec '"$1" "$0"; sleep 100`, pidFile, "{agent}"}, suite.ClientRole, wire.Options{}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pidFile) // written before the bridge connected
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	link.Close()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		// "pid (comm) S ...": a zombie is dead; anything else is left behind.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 0 && fields[0] != "Z" {
			t.Errorf("the bridge %d is left behind in state %s", pid, fields[0])
		}
	}
}
