package suite

import (
	"fmt"
	"time"

	ginkgo "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reports"
)

// Default bounds of a run.
const (
	DefaultResponse = 5 * time.Second  // each wait for the subject
	DefaultScenario = 30 * time.Second // each scenario in all
)

// Config is one run of the catalogue. The zero value of each optional field
// is its default.
type Config struct {
	Subject Subject
	// Response bounds each wait for the subject; Scenario bounds each
	// scenario in all.
	Response, Scenario time.Duration
	// LabelFilter selects scenarios by Ginkgo label expression, such as
	// "rule: containsAny TOK-2".
	LabelFilter string
	Reports     reports.Paths
	// Verbose prints every spec and the transcripts of failures as they run.
	Verbose bool
	// NoColor turns off the colours of Ginkgo's output, which goes to stdout.
	NoColor bool
}

// ResponseTimeout returns the bound of each wait for the subject.
func (c Config) ResponseTimeout() time.Duration {
	if c.Response > 0 {
		return c.Response
	}
	return DefaultResponse
}

// ScenarioTimeout returns the bound of each scenario.
func (c Config) ScenarioTimeout() time.Duration {
	if c.Scenario > 0 {
		return c.Scenario
	}
	return DefaultScenario
}

// Run declares the catalogue with define, runs it against cfg.Subject in
// this process, writes the reports and returns Ginkgo's report. Ginkgo
// allows one run per process. The reports are written even when the run is
// interrupted.
func Run(cfg Config, define func()) (types.Report, error) {
	var report types.Report
	var writeErr error
	gomega.RegisterFailHandler(ginkgo.Fail)
	define()
	ginkgo.ReportAfterSuite("acpconform reports", func(r types.Report) {
		report = r
		writeErr = reports.Write(r, cfg.Subject.Name(), Areas(), cfg.Reports)
	})
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = cfg.LabelFilter
	suiteConfig.RandomSeed = 1 // the catalogue's own order, run after run
	suiteConfig.Timeout = 24 * time.Hour
	reporterConfig.Succinct = !cfg.Verbose
	reporterConfig.Verbose = cfg.Verbose
	reporterConfig.NoColor = cfg.NoColor
	ginkgo.RunSpecs(&failRecorder{}, "acpconform: "+cfg.Subject.Name(), suiteConfig, reporterConfig)
	if writeErr != nil {
		return report, fmt.Errorf("%w", writeErr)
	}
	return report, nil
}

// failRecorder is the GinkgoTestingT of a run outside go test.
type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }
