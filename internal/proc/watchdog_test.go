//go:build unix

package proc

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// watchdogPid is the pid of the running watchdog; it fails t when none runs.
func watchdogPid(t *testing.T) int {
	t.Helper()
	dog.Lock()
	defer dog.Unlock()
	if dog.w == nil {
		t.Fatal("no watchdog runs")
	}
	return dog.pid
}

func TestReadGroupsKeepsTheGroupsStillListed(t *testing.T) {
	in := "+12\n+13\n-12\n+14\n\n+1\n+0\n+-7\n-\n+\nx99\n+abc\n-14\n+15"
	got := slices.Sorted(maps.Keys(readGroups(strings.NewReader(in))))
	if want := []int{13, 15}; !slices.Equal(got, want) {
		t.Errorf("readGroups = %v, want %v: no group under 2 (kill(-1) is every process of ours)", got, want)
	}
}

func TestWatchdogEnvironmentNamesTheRunAndKeepsOuterMarkers(t *testing.T) {
	got := watchdogEnviron([]string{"HOME=/h", MarkerEnv + "=outer-1", "HOSTILE_PIDFILE=/p"})
	want := []string{watchdogEnv + "=" + runID(), MarkerEnv + "=outer-1"}
	if !slices.Equal(got, want) {
		t.Errorf("watchdogEnviron = %q, want %q", got, want)
	}
}
