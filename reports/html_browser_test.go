package reports_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/acpconform/acpconform/internal/needtool"
	"github.com/acpconform/acpconform/reports"
)

// The hostile text the browser test puts in a check's name and a frame:
// markup that would run a script or end the page's blocks, and control
// characters. None of it may run, and all of it must show as text.
const (
	hostileName  = `<script>window.pwned=1</script></details></td></tr><img src=x onerror="window.pwned=2">` + "\x1b[2J\x07"
	hostileFrame = `{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"</pre></details><script>window.pwned=3</script>\u0000"}}`
)

// browser is a headless Chromium tab, fresh for the test and closed when it
// ends: Debian's chromium, without the network (the flags keep Chromium
// from calling home, which this machine's closed network refuses).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := needtool.Path(t, "chromium", "chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	// Every browser wait is bounded by this: a page of the size of these
	// takes well under a second, and Chromium's start a few on a loaded
	// machine.
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	return tab
}

// eval is the value of a JavaScript expression in the page; it fails the
// test when the browser cannot say.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// text is the text of the first element the CSS selector sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return v
}

// do runs steps in the page, failing the test on an error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// visible is the data-id of each element sel matches that shows.
func visible(t *testing.T, ctx context.Context, sel string) []string {
	t.Helper()
	return eval[[]string](t, ctx, `[...document.querySelectorAll('`+sel+`')].filter(e => e.offsetParent !== null).map(e => e.dataset.id)`)
}

// writeHTML writes report.html of the report.json at fixture, changed by
// edit, and returns its file:// URL.
func writeHTML(t *testing.T, fixture string, edit func(*reports.Run)) string {
	t.Helper()
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", fixture, err)
	}
	if edit != nil {
		edit(&run)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if _, err := reports.Write(run, nil, reports.Paths{HTML: path}); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// screenshot saves what shot captures of the page (chromedp.FullScreenshot
// for all of it, chromedp.CaptureScreenshot for what the viewport shows)
// as NAME.png in $ACPCONFORM_ARTIFACTS, or the test's temporary folder.
func screenshot(t *testing.T, ctx context.Context, name string, shot chromedp.Action[[]byte]) {
	t.Helper()
	dir := os.Getenv("ACPCONFORM_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, shot)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// inView says whether the element sel matches lies whole within the
// viewport as the page is now, and where it is.
func inView(t *testing.T, ctx context.Context, sel string) (bool, string) {
	t.Helper()
	where := eval[string](t, ctx, `(() => { const e = document.querySelector('`+sel+`'); if (!e) return "none";
		const r = e.getBoundingClientRect(); return r.top + " " + r.bottom + " " + r.left + " " + r.right + " of " + innerWidth + "x" + innerHeight })()`)
	var top, bottom, left, right float64
	var w, h int
	if _, err := fmt.Sscanf(where, "%g %g %g %g of %dx%d", &top, &bottom, &left, &right, &w, &h); err != nil {
		return false, where
	}
	return top >= 0 && left >= 0 && bottom <= float64(h) && right <= float64(w) && bottom > top, where
}

// TestHTMLReportInABrowser loads report.html of a real failing run (the
// relay @thinkwell/conductor 0.5.7, recorded in testdata) in headless
// Chromium from a file, and reads from its DOM the failed checks, the
// arrows of a failure's sequence diagram, and what the filters hide.
func TestHTMLReportInABrowser(t *testing.T) {
	ctx := browser(t)
	url := writeHTML(t, "testdata/html/conductor-relay.json", nil)
	do(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#checks")))
	first := `article.failure[data-id="REL-2/cancel-request-translated"]`
	failed := eval[[]string](t, ctx, `[...document.querySelectorAll("tr.check[data-state=failed]")].map(r => r.dataset.id)`)
	want := []string{"REL-2/cancel-request-translated", "REL-2/client-cancel-request-translated", "REL-1/numbers-exact-both-ways"}
	if !slices.Equal(failed, want) {
		t.Errorf("failed checks in the table: %q, want %q", failed, want)
	}
	lanes := eval[[]string](t, ctx, `[...document.querySelectorAll('`+first+` .lane')].map(e => e.textContent)`)
	if want := []string{"harness: mock client", "subject: relay", "harness: mock agent"}; !slices.Equal(lanes, want) {
		t.Errorf("lanes: %q, want %q", lanes, want)
	}
	// The transcript: 7 frames on the client side, 7 on the agent side,
	// each with its method (a response's through its request) and id.
	methods := eval[[]string](t, ctx, `[...document.querySelectorAll('`+first+` details.msg')].map(e => e.querySelector(".method").textContent)`)
	ids := eval[[]string](t, ctx, `[...document.querySelectorAll('`+first+` details.msg')].map(e => (e.querySelector(".mid")||{}).textContent||"")`)
	wantMethods := []string{
		"initialize", "result of initialize", "session/new", "result of session/new", "session/prompt", "elicitation/create", "$/cancel_request",
		"initialize", "result of initialize", "session/new", "result of session/new", "session/prompt", "elicitation/create", "$/cancel_request",
	}
	wantIDs := []string{"#0", "#0", "#1", "#1", "#2", "#4", "", "#1", "#1", "#2", "#2", "#3", "#2", ""}
	if !slices.Equal(methods, wantMethods) || !slices.Equal(ids, wantIDs) {
		t.Errorf("%d arrows: methods %q, ids %q; want %d: %q, %q", len(methods), methods, ids, len(wantMethods), wantMethods, wantIDs)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('`+first+` details.msg.blame').length`); n != 1 {
		t.Fatalf("%d arrows marked as the failure, want 1", n)
	}
	if again := text(t, ctx, first+` code.again`); again != "acpconform relay --check REL-2/cancel-request-translated -v -- node interop/conductor/host.mjs '{agent}'" {
		t.Errorf("run it again: %q", again)
	}
	if explain := text(t, ctx, first+` code.explain`); explain != "acpconform explain REL-2" {
		t.Errorf("explain: %q", explain)
	}
	if reason := text(t, ctx, first+` pre.reason`); !strings.HasPrefix(reason, "relay defect: the agent cancelled its elicitation/create") {
		t.Errorf("the failure's reason: %q", reason)
	}

	// The blamed arrow is the $/cancel_request the client received; a
	// click shows its frame.
	do(t, ctx, chromedp.Click(chromedp.CSS(first+` details.blame summary`)))
	blame := text(t, ctx, first+` details.blame .method`)
	open := eval[bool](t, ctx, `document.querySelector('`+first+` details.blame').open`)
	frame := eval[string](t, ctx, `document.querySelector('`+first+` details.blame pre.frame').innerText`)
	if blame != "$/cancel_request" || !open || frame != `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}` {
		t.Errorf("the blamed arrow: %q, open %v, frame %q", blame, open, frame)
	}

	screenshot(t, ctx, "report-relay", chromedp.FullScreenshot(100))

	// The filters: passed hides every failed check and failure.
	do(t, ctx, chromedp.Click(chromedp.CSS(`button.state-filter[data-state=passed]`)))
	if rows, failures := visible(t, ctx, "tr.check"), visible(t, ctx, "article.failure"); len(rows) != 3 || len(failures) != 0 || slices.ContainsFunc(rows, func(id string) bool { return slices.Contains(want, id) }) {
		t.Errorf("state passed shows checks %q and failures %q; want the 3 passed checks, no failure", rows, failures)
	}
}

// TestHTMLReportHostileSubject loads report.html of a real failing run of
// a hostile agent (mocks/hostile's forge mode, recorded in testdata),
// with a check's name and a frame made worse still: no script of theirs
// runs, and every character of their text shows as text.
func TestHTMLReportHostileSubject(t *testing.T) {
	ctx := browser(t)
	url := writeHTML(t, "testdata/html/forged-agent.json", func(r *reports.Run) {
		for i := range r.Checks {
			if r.Checks[i].ID == "TOK-2/leading-zero" {
				r.Checks[i].Name = hostileName
				r.Checks[i].Transcript += "+0.0200s <- " + hostileFrame + "\n+0.0300s <- not a frame </details> <script>window.pwned=4</script>\n" + hostileName + "\n"
			}
		}
	})
	do(t, ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#checks")))
	sel := `article.failure[data-id="TOK-2/leading-zero"]`
	if eval[bool](t, ctx, `"pwned" in window || document.querySelectorAll("script").length !== 1 || document.querySelectorAll("img").length !== 0`) {
		t.Error("the subject's markup became part of the page: a script ran, or an element of theirs is there")
	}
	// Should a subject's markup ever reach the page, its Content-Security-
	// Policy runs no script but the page's own, and loads nothing.
	if eval[bool](t, ctx, `(() => { const s = document.createElement("script"); s.textContent = "window.cspRan = 1"; document.body.appendChild(s); return "cspRan" in window })()`) {
		t.Error("a script inserted into the page ran: the Content-Security-Policy lets it")
	}
	want := strings.NewReplacer("\x1b", `\x1b`, "\x07", `\x07`).Replace(hostileName)
	if name := text(t, ctx, `tr.check[data-id="TOK-2/leading-zero"] td:last-child`); name != want {
		t.Errorf("the check's name shows as %q, want %q", name, want)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("article.failure").length`); n != 5 {
		t.Errorf("%d failures drawn, want the run's 5", n)
	}
	// 6 frames of the run, the one added and the line that is no frame
	// (its "<-" followed by text that is not JSON).
	if n := eval[int](t, ctx, `document.querySelectorAll('`+sel+` details.msg').length`); n != 8 {
		t.Errorf("%d arrows in the hostile failure, want 8", n)
	}
	frames := eval[string](t, ctx, `[...document.querySelectorAll('`+sel+` pre.frame, `+sel+` pre.text')].map(e => e.textContent).join("\n")`)
	for _, w := range []string{`</pre></details><script>window.pwned=3</script>`, "not a frame </details> <script>window.pwned=4</script>", `\u001b]0;acpconform`, want} {
		if !strings.Contains(frames, w) {
			t.Errorf("the failure's frames do not show %q:\n%s", w, frames)
		}
	}
	if strings.ContainsAny(frames, "\x00\x1b\x07") {
		t.Errorf("the frames show a raw control character")
	}
	if title := eval[string](t, ctx, `document.title`); !strings.Contains(title, "hostile forge error is NOT conformant") {
		t.Errorf("title %q", title)
	}

	// The area filters: a click on an area in the table, or the select,
	// shows that area's checks and failures alone.
	for _, pick := range []struct {
		area   string
		action chromedp.Action[chromedp.Void]
	}{
		{"CAP", chromedp.Click(chromedp.CSS(`button.area-link[data-area="CAP"]`))},
		{"SCH", chromedp.Steps(chromedp.SetValue(chromedp.CSS("#area-filter"), "SCH"),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("area-filter").dispatchEvent(new Event("change"))`))},
	} {
		do(t, ctx, pick.action)
		rows, failures := visible(t, ctx, "tr.check"), visible(t, ctx, "article.failure")
		if len(rows) != 2 || !slices.Equal(rows, failures) || !strings.HasPrefix(rows[0], pick.area+"-") || !strings.HasPrefix(rows[1], pick.area+"-") {
			t.Errorf("area %s shows checks %q and failures %q; want its 2 checks and their failures", pick.area, rows, failures)
		}
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`button.area-link[data-area="TOK"]`)))
	screenshot(t, ctx, "report-hostile", chromedp.FullScreenshot(100))
}

// TestHTMLReportOpensOnTheFailure loads, in a viewport of a laptop's size,
// report.html of a real failing run: the reference agent with two mutants
// of mutants.All at once (extra-property, which adds a property to every
// form, and broken-after-ten-prompts, which declines every prompt of a
// process past its tenth), run as
//
//	acpconform agent --check 'SCH-*,VAL-*,FB-2/*' --baseline baseline.yaml -- ./mutant reference-agent
//
// with a baseline that knows the failures of SCH-2 and SCH-6. Without a
// scroll, the page shows the first new failure's heading and its marked
// frame; new failures come before the known ones, which come first in
// the run; the attempt on the shared connection and the fresh one are
// labelled apart, the failure marked on the shared one's frame that
// carried the outcome; the skipped check shows why.
func TestHTMLReportOpensOnTheFailure(t *testing.T) {
	ctx := browser(t)
	url := writeHTML(t, "testdata/html/mutant-agent-rerun.json", nil)
	do(t, ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#failures")))
	screenshot(t, ctx, "report-first-failure", chromedp.CaptureScreenshot())

	// The page's style applies: its Content-Security-Policy lets it.
	if border := eval[string](t, ctx, `getComputedStyle(document.querySelector("header")).borderLeftWidth`); border != "8px" {
		t.Errorf("the header's border is %q, want 8px: the page's own style did not apply", border)
	}
	first := `article.failure[data-id="VAL-3/label-of-all-white-space"]`
	if id := eval[string](t, ctx, `document.querySelector("article.failure").dataset.id`); id != "VAL-3/label-of-all-white-space" {
		t.Fatalf("the first failure is %q, want VAL-3/label-of-all-white-space, the run's first new one", id)
	}
	if y := eval[float64](t, ctx, `scrollY`); y != 0 {
		t.Errorf("the page opened scrolled to %g", y)
	}
	for _, sel := range []string{first + " h3", first + " details.blame > summary"} {
		if ok, where := inView(t, ctx, sel); !ok {
			t.Errorf("%s is not in the viewport at load: %s", sel, where)
		}
	}
	if blamed := eval[string](t, ctx, `document.querySelector('`+first+` details.blame .detail').textContent`); blamed != `{"acpconform":1,"outcome":"declined"}` {
		t.Errorf("the marked frame carries %q, want the outcome the reason quotes", blamed)
	}

	// New failures first, in the run's order, then the known ones.
	order := eval[[]string](t, ctx, `[...document.querySelectorAll("#failures > h2, article.failure")].map(e => e.tagName === "H2" ? "# " + e.firstChild.textContent.trim() : (e.classList.contains("known") ? "known " : "new ") + e.dataset.id)`)
	want := []string{"# Failures", "new VAL-3/label-of-all-white-space", "new SCH-1/wire-well-formed-form",
		"# Known failures", "known SCH-2/exact-schema", "known SCH-6/invents-nothing"}
	if !slices.Equal(order, want) {
		t.Errorf("the failures in order: %q, want %q", order, want)
	}
	if rows := eval[[]string](t, ctx, `[...document.querySelectorAll("tr.check[data-state=failed]")].map(r => r.dataset.id)`); rows[0] != "SCH-2/exact-schema" {
		t.Errorf("the checks table is not in the run's order: %q", rows)
	}

	// Each attempt of a check that ran again is a part of its own,
	// labelled; the failure is marked where the check failed.
	type attempt struct {
		Class, Label, Verdict string
		Marked                int
	}
	attempts := func(article string) []attempt {
		return eval[[]attempt](t, ctx, `[...document.querySelectorAll('`+article+` .part.attempt')].map(p => ({
			Class: [...p.classList].filter(c => c === "shared" || c === "fresh").join(" "),
			Label: p.querySelector(".attempt-name").textContent,
			Verdict: p.querySelector(".verdict-badge").textContent,
			Marked: p.querySelectorAll("details.blame").length}))`)
	}
	if got, want := attempts(first), []attempt{
		{"shared", "attempt 1, on a connection shared with earlier checks", "failed", 1},
		{"fresh", "attempt 2, on a fresh connection", "passed", 0},
	}; !slices.Equal(got, want) {
		t.Errorf("the attempts of a SES-1 failure: %+v, want %+v", got, want)
	}
	if got, want := attempts(`article.failure[data-id="SCH-1/wire-well-formed-form"]`), []attempt{
		{"shared", "attempt 1, on a connection shared with earlier checks", "failed", 1},
		{"fresh", "attempt 2, on a fresh connection", "failed again", 1},
	}; !slices.Equal(got, want) {
		t.Errorf("the attempts of a check that failed again: %+v, want %+v", got, want)
	}
	if marked := eval[[]string](t, ctx, `[...document.querySelectorAll('article.failure[data-id="SCH-1/wire-well-formed-form"] details.blame .method')].map(e => e.textContent)`); !slices.Equal(marked, []string{"elicitation/create", "elicitation/create"}) {
		t.Errorf("a failure about the form sent is marked on %q, want each attempt's elicitation/create", marked)
	}
	// The earlier checks' frames on the shared connection are folded,
	// and open on a click.
	fold := first + ` .part.shared details.fold`
	if n := eval[int](t, ctx, `document.querySelector('`+fold+`').querySelectorAll("details.msg").length`); n == 0 {
		t.Errorf("the fold of the earlier checks holds no frame")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(fold+` > summary`)))
	if !eval[bool](t, ctx, `document.querySelector('`+fold+`').open`) {
		t.Errorf("a click does not open the fold")
	}

	// The skipped check says why.
	if why := text(t, ctx, `tr.check[data-id="FB-2/blocking-honours-context"] .why`); why != "skipped: needs the reference's Go API; runs only against the reference in-process" {
		t.Errorf("the skipped check shows %q", why)
	}
}
