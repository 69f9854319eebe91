package peer_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPeer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Peer")
}

// within bounds every spec against a hang: a hang fails the spec instead
// of the run. It is no speed limit: a spec that loops hundreds of times
// takes many times longer on a loaded 2-core machine.
var within = SpecTimeout(2 * time.Minute)
