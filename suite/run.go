package suite

import (
	"io"
	"time"

	ginkgo "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/acpconform/acpconform/reports"
)

// Default bounds of a run.
const (
	DefaultResponse = 5 * time.Second  // each wait for the subject
	DefaultScenario = 30 * time.Second // each scenario in all, its subject's start aside
	DefaultStartup  = 30 * time.Second // each process's start and its first initialize
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
	// Timeout bounds the whole run; zero means no bound. When it passes, the
	// check at hand is interrupted and the rest are not run.
	Timeout time.Duration
	// Progress, when set, gets the run's progress (see [reports.Progress]):
	// a line for each contract area as its last check finishes, and a line
	// when nothing was said for Heartbeat. Ginkgo's own output is never
	// shown: the caller prints the run's summary.
	Progress io.Writer
	// Verbose adds to Progress a line for each check as it ends.
	Verbose bool
	// Began is when the run began, which progress counts its time from;
	// zero means when the checks begin.
	Began time.Time
	// Heartbeat is how long Progress may stay silent while a check runs;
	// zero means reports.DefaultHeartbeat.
	Heartbeat time.Duration
	// DryRun walks the catalogue without running a check, to list it.
	DryRun bool
	// Shard, when set, keeps the run to one shard's share of the checks
	// LabelFilter selects (see [Deal]): the report's SuiteConfig holds the
	// label filter that results.
	Shard reports.Shard
	// OnDeal, when set with Shard, is called with the IDs of the checks
	// dealt to the shard, before any runs: its report records them.
	OnDeal func(dealt []string)
	// OnStart is called once the run has begun and Ginkgo handles
	// interrupts: from then on, Ctrl-C ends the check at hand and skips the
	// rest, and Run still returns the report.
	OnStart func()
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
// this process and returns Ginkgo's report, also when the run was
// interrupted. Ginkgo allows one run per process.
func Run(cfg Config, define func()) types.Report {
	var report types.Report
	gomega.RegisterFailHandler(ginkgo.Fail)
	// One container around it all, in the order define declares: Ginkgo
	// shuffles only the top level. Each catalogue is an ordered container
	// of its own (scenarios.Catalogue).
	ginkgo.Describe("", define)
	// Ginkgo's default reporter writes to this writer, and its output is
	// the test framework's, not a report for acpconform's users (spec
	// locations, retries, hints for ginkgo's CLI): the run's progress and
	// summary say what happened. It is Ginkgo's own setting, so no file
	// descriptor needs redirecting.
	formatter.ColorableStdOut = io.Discard
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = cfg.LabelFilter
	suiteConfig.RandomSeed = 1 // the catalogue's own order, run after run
	suiteConfig.Timeout = 24 * time.Hour
	if cfg.Timeout > 0 {
		suiteConfig.Timeout = cfg.Timeout
	}
	suiteConfig.DryRun = cfg.DryRun
	reporterConfig.Succinct = true
	reporterConfig.NoColor = true
	description := "acpconform: " + cfg.Subject.Name()
	if cfg.Shard.Count > 0 {
		// A preview walks the tree without running it: the checks it
		// would run are what the shards share.
		preview := ginkgo.PreviewSpecs(description, suiteConfig, reporterConfig)
		dealt := Deal(Selectable(preview.SpecReports, nil), cfg.Shard)
		suiteConfig.LabelFilter = shareFilter(suiteConfig.LabelFilter, dealt)
		if cfg.OnDeal != nil {
			cfg.OnDeal(dealt)
		}
	}
	if cfg.Progress != nil {
		p := reports.NewProgress(cfg.Progress, cfg.Began, cfg.Heartbeat, cfg.Verbose)
		// A preview walks the same tree without running it, so progress
		// knows how many checks of each area the run will execute. The
		// nodes below come after it: the preview must not run them.
		p.Expect(ginkgo.PreviewSpecs(description, suiteConfig, reporterConfig))
		ginkgo.ReportBeforeSuite(p.Begin)
		ginkgo.ReportBeforeEach(p.Started)
		ginkgo.ReportAfterEach(p.Finished)
		ginkgo.ReportAfterSuite("acpconform progress", p.End)
	}
	ginkgo.ReportAfterSuite("acpconform report", func(r types.Report) { report = r })
	if cfg.OnStart != nil {
		ginkgo.ReportBeforeSuite(func(types.Report) { cfg.OnStart() })
	}
	ginkgo.RunSpecs(&failRecorder{}, description, suiteConfig, reporterConfig)
	return report
}

// Preview declares the catalogue with define and walks it without
// running a check, in the order Run would run it: every check's labels,
// for a caller to select and deal on its own (acpconform merge). Ginkgo
// keeps what is declared for the life of the process, so a process
// previews once, and runs nothing after.
func Preview(define func()) types.Report {
	ginkgo.Describe("", define)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = ""
	suiteConfig.RandomSeed = 1
	return ginkgo.PreviewSpecs("acpconform: preview", suiteConfig, reporterConfig)
}

// Selected returns what the run's label filter selects; nil when it
// selects every check.
func (c Config) Selected() (func(labels []string) bool, error) {
	if c.LabelFilter == "" {
		return nil, nil
	}
	f, err := types.ParseLabelFilter(c.LabelFilter)
	if err != nil {
		return nil, err
	}
	return func(labels []string) bool { return f(labels) }, nil
}

// failRecorder is the GinkgoTestingT of a run outside go test.
type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }
