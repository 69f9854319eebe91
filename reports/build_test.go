package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"

	"github.com/acpconform/acpconform/reports"
)

// TestEveryReportNamesTheBuild: report.json, junit.xml and report.html
// say which acpconform made them (version, commit, modified), so that
// runs of different builds of the harness can be told apart, and a
// shard's report.json carries it to merge.
func TestEveryReportNamesTheBuild(t *testing.T) {
	const commit = "af678977f7cfd4d22724b2645075b77132cdc7bc"
	dir := t.TempDir()
	paths := reports.Paths{JUnit: filepath.Join(dir, "junit.xml"), JSON: filepath.Join(dir, "report.json"), HTML: filepath.Join(dir, "report.html")}
	r := run(sample())
	r.Version, r.Commit, r.Modified = "devel", commit, true
	reports.Decide(&r, nil, "", false)
	if _, err := reports.Write(r, []string{"TOK", "FB", "RTE", "CLI"}, paths); err != nil {
		t.Fatal(err)
	}

	suites, err := junit.IngestFile(paths.JUnit)
	if err != nil || len(suites) != 1 {
		t.Fatalf("junit.xml: %d suites, %v", len(suites), err)
	}
	if p := suites[0].Properties; p["acpconform.version"] != "devel" || p["acpconform.commit"] != commit || p["acpconform.modified"] != "true" {
		t.Errorf("junit.xml properties %v: want acpconform.version devel, acpconform.commit %s, acpconform.modified true", p, commit)
	}

	f, err := os.Open(paths.JSON)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if back.Version != "devel" || back.Commit != commit || !back.Modified {
		t.Errorf("report.json reads back as version %q, commit %q, modified %v", back.Version, back.Commit, back.Modified)
	}

	html, err := os.ReadFile(paths.HTML)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<dd>devel, commit <code>" + commit + "</code> (modified)</dd>"; !strings.Contains(string(html), want) {
		t.Errorf("report.html does not say %s", want)
	}
}

// TestJUnitLeavesOutWhatTheBuildDoesNotSay: a release installed with go
// install has no commit in its build information: junit.xml says no
// modified then, and the JSON report no commit.
func TestJUnitLeavesOutWhatTheBuildDoesNotSay(t *testing.T) {
	dir := t.TempDir()
	paths := reports.Paths{JUnit: filepath.Join(dir, "junit.xml"), JSON: filepath.Join(dir, "report.json")}
	r := run(sample())
	r.Version = "v1.2.0"
	reports.Decide(&r, nil, "", false)
	if _, err := reports.Write(r, nil, paths); err != nil {
		t.Fatal(err)
	}
	suites, err := junit.IngestFile(paths.JUnit)
	if err != nil || len(suites) != 1 {
		t.Fatalf("junit.xml: %d suites, %v", len(suites), err)
	}
	if p := suites[0].Properties; p["acpconform.version"] != "v1.2.0" || p["acpconform.commit"] != "" || p["acpconform.modified"] != "" {
		t.Errorf("junit.xml properties %v: want version v1.2.0, an empty commit and no modified", p)
	}
	data, err := os.ReadFile(paths.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"commit"`) || strings.Contains(string(data), `"modified"`) {
		t.Errorf("report.json names a commit or modified its build does not have:\n%s", data[:min(len(data), 400)])
	}
}

// TestMergeRefusesShardsOfOtherBuilds: two shards made by acpconform
// built from different commits, or one of them from changed files, are
// not one run.
func TestMergeRefusesShardsOfOtherBuilds(t *testing.T) {
	for _, tc := range []struct {
		commit   string
		modified bool
		want     string
	}{
		{"b", false, `acpconform commit "b", and shard-1/report.json has "a"`},
		{"a", true, `acpconform commit "a (modified)", and shard-1/report.json has "a"`},
	} {
		one, two := shardRun(1, 2, pass, desl), shardRun(2, 2, desl, pass)
		one.Run.Commit = "a"
		two.Run.Commit, two.Run.Modified = tc.commit, tc.modified
		if _, _, err := reports.Merge([]reports.ShardRun{one, two}, own(2, 0)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Merge of shards built from %q and %q (modified %v): %v, want %q", "a", tc.commit, tc.modified, err, tc.want)
		}
	}
}
