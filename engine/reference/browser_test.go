package reference_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/reference"
	"github.com/petctl/petctl/internal/race"
	"github.com/petctl/petctl/spec"
)

// screenshots writes the browser test's screenshots into docs/, where the
// README shows them: go test ./engine/reference -run TestBrowser -screenshots
var screenshots = flag.Bool("screenshots", false, "write the browser test's screenshots into docs/")

// chromium finds Debian's Chromium (or another build of it on PATH).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser test needs one; on Debian: apt-get install -y chromium")
	return ""
}

// browser starts a headless Chromium with a fresh profile. The flags keep
// it from reaching out to the network, which it would otherwise try (and
// stall on) on a machine without one. Its TMPDIR is the test's own:
// Chromium leaves a directory for its singleton socket there, and under
// /tmp each run left eight behind. That directory is made short, beside
// the system's, not with t.TempDir: a socket's path has at most 107 bytes,
// Chromium aborts on a longer one, and t.TempDir's holds the test's name.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Env("TMPDIR=" + shortTempDir(t)),
		chromedp.WindowSize(width, height),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	return ctx
}

// shortTempDir is a new directory under the system's temporary one, named
// in a few bytes, and removed when the test ends.
func shortTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "cr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// pageErrors collects what the page reports as wrong: uncaught exceptions,
// console errors and refusals by the Content-Security-Policy.
type pageErrors struct {
	mu   sync.Mutex
	list []string
	// allowed are reports a test expects (Chromium logs every answer of
	// 4xx or 5xx it loads as an error), each matched by its start.
	allowed []string
}

// watch collects what the page of ctx reports as wrong, and fails the
// test with it when the test ends; allowed are the reports it expects.
// The first call on a browser's context starts the browser, for the
// test's whole life: a step's shorter context would end it with the step.
func watch(t *testing.T, ctx context.Context, allowed ...string) *pageErrors {
	t.Helper()
	p := &pageErrors{allowed: allowed}
	p.listen(t, ctx)
	t.Cleanup(func() { p.check(t) })
	return p
}

func (p *pageErrors) listen(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			p.list = append(p.list, "exception: "+e.ExceptionDetails.Text+" "+exceptionText(e))
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				p.list = append(p.list, "log: "+e.Entry.Text)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				p.list = append(p.list, "console.error")
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exceptionText(e *runtime.EventExceptionThrown) string {
	if e.ExceptionDetails.Exception != nil {
		return e.ExceptionDetails.Exception.Description
	}
	return ""
}

func (p *pageErrors) check(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.list {
		if slices.ContainsFunc(p.allowed, func(a string) bool { return strings.HasPrefix(e, a) }) {
			continue
		}
		t.Errorf("the page reported: %s", e)
	}
}

// stepTime bounds each step, so that a failure names the step.
const stepTime = 20 * time.Second

func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTime)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepTime)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// tryResult sends an operation's try-it request and waits for its answer.
func tryResult(t *testing.T, ctx context.Context, op string) (status string, headers map[string]string, body string) {
	t.Helper()
	do(t, ctx, "send "+op, chromedp.Click(chromedp.CSS("#"+op+" .try-form button[type=submit]")))
	// The answer replaces "Sending …" with a status line, or a note saying
	// why there is none.
	note := run(t, ctx, "answer to "+op, chromedp.Poll[string](`(() => {
		const r = document.querySelector('#`+op+` .result');
		if (r.querySelector('.status-line')) return 'ok';
		const n = r.querySelector('.note');
		return n ? n.textContent : '';
	})()`, chromedp.WithPollingTimeout(stepTime-time.Second)))
	if note != "ok" {
		t.Fatalf("%s: %s", op, note)
	}
	status = run(t, ctx, "status of "+op, chromedp.Text(chromedp.CSS("#"+op+" .result .status-line .status")))
	raw := run(t, ctx, "headers of "+op, chromedp.Evaluate[string](`JSON.stringify(Object.fromEntries(
		Array.from(document.querySelectorAll('#`+op+` .result dl.headers > div')).map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])))`))
	if err := json.Unmarshal([]byte(raw), &headers); err != nil {
		t.Fatal(err)
	}
	body = run(t, ctx, "body of "+op, chromedp.Text(chromedp.CSS("#"+op+" .result pre.body")))
	return status, headers, body
}

// TestBrowser loads the Petstore's reference in headless Chromium beside a
// real engine: an operation opens from the keyboard, a schema expands,
// try-it runs listPets, createPet and the deprecated getPet against the
// engine with the key entered on the page, and GET /store/orders has no
// try-it.
func TestBrowser(t *testing.T) {
	srv := petstore(t)
	ctx := browser(t, 1280, 1000)
	errs := watch(t, ctx)

	do(t, ctx, "load /", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("op-listPets")))
	if loc := run(t, ctx, "location", chromedp.Location()); loc != srv.URL+"/docs" {
		t.Errorf("/ led to %s, want %s/docs", loc, srv.URL)
	}
	logLoad(t, ctx, "the Petstore")
	if *screenshots {
		saveScreenshot(t, "reference-petstore.png", run(t, ctx, "screenshot", chromedp.FullScreenshot(100)))
	}
	if got := run(t, ctx, "server", chromedp.Value(chromedp.ID("try-server"))); got != srv.URL+"/v1" {
		t.Errorf("try-it server %q, want this mock %s/v1", got, srv.URL)
	}

	// The deprecation of getPet is visible without opening anything.
	notice := run(t, ctx, "notice", chromedp.Text(chromedp.CSS("#op-getPet .notice")))
	for _, want := range []string{"Deprecated", "5 December 2030", "listPets"} {
		if !strings.Contains(notice, want) {
			t.Errorf("getPet's notice %q lacks %q", notice, want)
		}
	}

	do(t, ctx, "enter the key", chromedp.SendKeys(chromedp.ID("key-bearerAuth"), testKey))
	stored := run(t, ctx, "session storage", chromedp.Evaluate[string](`sessionStorage.getItem('petctl.key.bearerAuth')`))
	if stored != testKey {
		t.Errorf("sessionStorage holds %q, want the key", stored)
	}

	// listPets: opened with the keyboard, limit 3.
	do(t, ctx, "open listPets from the keyboard",
		chromedp.Focus(chromedp.CSS("#op-listPets details.op-body > summary")),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.CSS("#op-listPets .try-form")),
	)
	limit := run(t, ctx, "limit field", chromedp.Evaluate[string](`document.querySelector('label[for="op-listPets-p0"]').textContent`))
	if !strings.HasPrefix(limit, "limit") {
		t.Fatalf("the first field is labelled %q, want limit", limit)
	}
	do(t, ctx, "limit 3", chromedp.SetValue(chromedp.ID("op-listPets-p0"), "3"))
	status, _, body := tryResult(t, ctx, "op-listPets")
	var pets []map[string]any
	if err := json.Unmarshal([]byte(body), &pets); status != "200" || err != nil || len(pets) != 3 {
		t.Errorf("listPets: status %s, %d animals (%v), want 200 and 3:\n%s", status, len(pets), err, body)
	}
	curl := run(t, ctx, "curl", chromedp.Text(chromedp.CSS("#op-listPets pre.curl")))
	if !strings.Contains(curl, `"Authorization: Bearer $PETCTL_API_KEY"`) || !strings.Contains(curl, "limit=3") || strings.Contains(curl, testKey) {
		t.Errorf("listPets curl command:\n%s\nwant the key as $PETCTL_API_KEY and limit=3", curl)
	}

	// createPet: a schema expands; the example body is sent as it stands.
	do(t, ctx, "open createPet",
		chromedp.Click(chromedp.CSS("#op-createPet details.op-body > summary")),
		chromedp.Click(chromedp.CSS("#op-createPet h4 + p + details.schema > summary")),
		chromedp.WaitVisible(chromedp.CSS("#op-createPet details.schema .tree li")),
	)
	tree := run(t, ctx, "NewPet schema", chromedp.Text(chromedp.CSS("#op-createPet details.schema .tree")))
	for _, want := range []string{"name required", "categoryId required", "format int64", `one of "available", "pending", "sold"`} {
		if !strings.Contains(tree, want) {
			t.Errorf("the NewPet schema reads %q, lacks %q", tree, want)
		}
	}
	status, _, body = tryResult(t, ctx, "op-createPet")
	var created map[string]any
	if err := json.Unmarshal([]byte(body), &created); status != "201" || err != nil || created["id"] == nil {
		t.Fatalf("createPet: status %s (%v), want 201 with an id:\n%s", status, err, body)
	}
	if *screenshots {
		saveScreenshot(t, "reference-try-it.png", run(t, ctx, "screenshot of createPet", chromedp.Screenshot(chromedp.ID("op-createPet"))))
	}

	// getPet: the deprecation headers are shown.
	id, _ := json.Marshal(created["id"])
	do(t, ctx, "open getPet",
		chromedp.Click(chromedp.CSS("#op-getPet details.op-body > summary")),
		chromedp.WaitVisible(chromedp.ID("op-getPet-p0")),
		chromedp.SetValue(chromedp.ID("op-getPet-p0"), string(id)),
	)
	status, headers, _ := tryResult(t, ctx, "op-getPet")
	if status != "200" {
		t.Errorf("getPet: status %s, want 200", status)
	}
	for _, h := range []string{"deprecation", "sunset", "link"} {
		if headers[h] == "" {
			t.Errorf("getPet's answer shows no %s header; shown: %v", h, headers)
		}
	}

	// GET /store/orders: listed, with no try-it and the note why.
	do(t, ctx, "open store orders", chromedp.Click(chromedp.CSS("#op-listStoreOrders details.op-body > summary")))
	panels := run(t, ctx, "store orders panels", chromedp.Evaluate[int](`document.querySelectorAll('#op-listStoreOrders .tryit, #op-listStoreOrders form').length`))
	if panels != 0 {
		t.Errorf("GET /store/orders has %d try-it elements, want none", panels)
	}
	note := run(t, ctx, "store orders note", chromedp.Text(chromedp.CSS("#op-listStoreOrders .note")))
	if !strings.Contains(note, "not published") {
		t.Errorf("GET /store/orders note %q, want that its interface is not published", note)
	}

	// Every field has a label, and all text meets WCAG AA contrast.
	if unlabelled := run(t, ctx, "labels", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('input, select, textarea'))
		.filter(e => !e.labels || e.labels.length === 0).map(e => e.id || e.outerHTML)`)); len(unlabelled) > 0 {
		t.Errorf("fields without a label: %v", unlabelled)
	}
	if low := run(t, ctx, "contrast", chromedp.Evaluate[[]string](contrastScript)); len(low) > 0 {
		t.Errorf("text below WCAG AA contrast:\n%s", strings.Join(low, "\n"))
	}

	if loc := run(t, ctx, "location", chromedp.Location()); strings.Contains(loc, testKey) {
		t.Errorf("the key is in the page's address: %s", loc)
	}
	errs.check(t)
	saveScreenshot(t, "", run(t, ctx, "full screenshot", chromedp.FullScreenshot(100)))
}

// focused describes the element that has the focus: what it is, and the
// outline the page draws around it.
type focused struct {
	Tag, ID, Class, Text string
	In                   string // the id of the article it is in
	Outline              string // outline-style
	Width                float64
	Summary              string // for a summary: the class of its details
}

const focusedScript = `(() => {
	const e = document.activeElement, st = getComputedStyle(e), a = e.closest('article');
	return {Tag: e.tagName.toLowerCase(), ID: e.id, Class: e.className, Text: e.textContent.trim().slice(0, 40),
		In: a ? a.id : '', Outline: st.outlineStyle, Width: parseFloat(st.outlineWidth),
		Summary: e.tagName === 'SUMMARY' ? e.parentElement.className : ''};
})()`

// TestBrowserKeyboard: the page is used from the keyboard alone. Tab
// reaches the skip link first, then every control in order, each with a
// visible outline; an operation and a schema, both <details>, open with
// Enter and Space; nothing clickable is other than a link, a button, a
// field or a summary.
func TestBrowserKeyboard(t *testing.T) {
	srv := petstore(t)
	ctx := browser(t, 1280, 1000)
	watch(t, ctx)
	do(t, ctx, "load", chromedp.Navigate(srv.URL+"/docs"), chromedp.WaitVisible(chromedp.ID("op-listPets")))

	if odd := run(t, ctx, "clickable elements", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[onclick], [role=button], [tabindex]:not(pre)'))
		.map(e => e.outerHTML.slice(0, 80)).concat(Array.from(document.querySelectorAll('details')).filter(d => !d.firstElementChild || d.firstElementChild.tagName !== 'SUMMARY').map(d => 'details without a summary first: ' + d.className))`)); len(odd) > 0 {
		t.Errorf("controls that are not links, buttons, fields or summaries: %v", odd)
	}

	// tab presses Tab until want holds of the focused element, checking the
	// outline of each element on the way.
	var seen []focused
	tab := func(what string, want func(focused) bool) focused {
		t.Helper()
		for range 80 {
			do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
			f := run(t, ctx, "focused element", chromedp.Evaluate[focused](focusedScript))
			seen = append(seen, f)
			if f.Outline == "none" || f.Width < 2 {
				t.Errorf("%s %q (%s) has the focus with outline %s %vpx: not visible", f.Tag, f.Text, f.Class, f.Outline, f.Width)
			}
			if want(f) {
				return f
			}
		}
		t.Fatalf("80 Tabs did not reach %s; reached %+v", what, seen)
		return focused{}
	}

	if first := tab("the skip link", func(focused) bool { return true }); first.Class != "skip" {
		t.Errorf("the first Tab reaches %s %q, want the skip link", first.Tag, first.Text)
	}
	if left := run(t, ctx, "skip link place", chromedp.Evaluate[float64](`document.activeElement.getBoundingClientRect().left`)); left < 0 {
		t.Errorf("the focused skip link is off the screen (left %v)", left)
	}
	tab("the key field", func(f focused) bool { return f.ID == "key-bearerAuth" })
	do(t, ctx, "type the key", chromedp.KeyEvent(testKey))

	tab("createPet's details", func(f focused) bool { return f.In == "op-createPet" && f.Summary == "op-body" })
	do(t, ctx, "open createPet with Enter", chromedp.KeyEvent(kb.Enter))
	if !run(t, ctx, "createPet open", chromedp.Evaluate[bool](`document.querySelector('#op-createPet details.op-body').open`)) {
		t.Fatal("Enter on createPet's summary did not open it")
	}
	tab("the request body's schema", func(f focused) bool { return f.In == "op-createPet" && f.Summary == "schema" })
	do(t, ctx, "open the schema with Space", chromedp.KeyEvent(" "),
		chromedp.WaitVisible(chromedp.CSS("#op-createPet details.schema[open] .tree li")))
	tab("a nested schema or the try-it body", func(f focused) bool { return f.In == "op-createPet" && f.Tag == "textarea" })
	send := tab("the send button", func(f focused) bool { return f.In == "op-createPet" && f.Tag == "button" })
	if send.Text != "Send request" {
		t.Errorf("the first button of createPet's try-it is %q, want Send request", send.Text)
	}
	do(t, ctx, "send with Enter", chromedp.KeyEvent(kb.Enter))
	status := run(t, ctx, "createPet's answer", chromedp.Poll[string](`(() => {
		const s = document.querySelector('#op-createPet .result .status-line .status');
		return s ? s.textContent : '';
	})()`, chromedp.WithPollingTimeout(stepTime-time.Second)))
	if status != "201" {
		t.Errorf("createPet sent from the keyboard: status %s, want 201", status)
	}
	tab("the copy button", func(f focused) bool { return f.In == "op-createPet" && f.Text == "Copy curl" })
}

// TestBrowserPhone: on a phone-sized screen the page is one column, no
// wider than the screen.
func TestBrowserPhone(t *testing.T) {
	srv := petstore(t)
	ctx := browser(t, 390, 844)
	errs := watch(t, ctx)
	do(t, ctx, "load", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(srv.URL+"/docs#op-getPet"),
		chromedp.WaitVisible(chromedp.ID("op-getPet")))
	width := run(t, ctx, "width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if width > 390 {
		t.Errorf("the page is %d px wide on a 390 px screen", width)
	}
	open := run(t, ctx, "contents", chromedp.Evaluate[bool](`document.querySelector('.toc-box').open`))
	if open {
		t.Error("the contents are open on a phone, want them closed until asked for")
	}
	if *screenshots {
		saveScreenshot(t, "reference-phone.png", run(t, ctx, "screenshot", chromedp.CaptureScreenshot()))
	}
	errs.check(t)
}

// phoneOpened is how many operations of a corpus document
// TestBrowserPhoneCorpus opens, with their schemas: enough to show every
// part of the page, few enough to keep the test short on the largest.
const phoneOpened = 20

// overflowScript lists up to five elements whose own text reaches past the
// screen's right edge (inside a box that scrolls on its own, a table or an
// example, is allowed); none when the page is no wider than the screen.
const overflowScript = `(() => {
	const width = document.documentElement.clientWidth, scroll = document.documentElement.scrollWidth;
	if (scroll <= width) return [];
	const out = [], range = document.createRange();
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n && out.length < 5; n = walk.nextNode()) {
		const e = n.parentElement;
		if (!n.textContent.trim() || e.closest('.scroll, pre')) continue;
		range.selectNodeContents(n);
		const r = range.getBoundingClientRect();
		if (r.width > 0 && r.right > width + 1) out.push(e.tagName.toLowerCase() + '.' + e.className + ' to ' + Math.round(r.right) + ' px: ' + n.textContent.trim().slice(0, 60));
	}
	return out.length ? out : ['the page is ' + scroll + ' px wide'];
})()`

// TestBrowserPhoneCorpus: the reference of every corpus document reads on
// a phone as the Petstore's does: with its first operations and their
// schemas open, nothing is wider than a 390 px screen. Long operationIds,
// paths and property names wrap. Left to make test's run without -race,
// like TestBrowserLargestDocument.
func TestBrowserPhoneCorpus(t *testing.T) {
	if race.Enabled {
		t.Skip("under -race: make test runs it in its run without -race (NORACE_TESTS)")
	}
	paths := reference.CorpusDocuments(t)
	ctx := browser(t, 390, 844)
	watch(t, ctx)
	o := reference.Options{Reserved: engine.AdminPrefix}
	for _, path := range paths {
		t.Run(filepath.Base(strings.TrimSuffix(path, "/openapi.yaml")), func(t *testing.T) {
			s, err := spec.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(reference.Mount(s, http.NotFoundHandler(), o))
			defer srv.Close()
			do(t, ctx, "load", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(srv.URL+reference.Path(s, o)),
				chromedp.WaitVisible(chromedp.CSS("article.op")))
			run(t, ctx, "open operations", chromedp.Evaluate[int](fmt.Sprintf(`(() => {
				const ds = Array.from(document.querySelectorAll('details.op-body')).slice(0, %d);
				ds.forEach(d => d.open = true);
				return ds.length;
			})()`, phoneOpened)))
			run(t, ctx, "open schemas", chromedp.Evaluate[int](`(() => {
				const ds = document.querySelectorAll('details.op-body[open] details.schema');
				ds.forEach(d => d.open = true);
				return ds.length;
			})()`))
			if wide := run(t, ctx, "overflow", chromedp.Evaluate[[]string](overflowScript)); len(wide) > 0 {
				t.Errorf("wider than a 390 px screen:\n%s", strings.Join(wide, "\n"))
			}
		})
	}
}

// saveScreenshot keeps a screenshot in the test's artifact directory, and
// in docs/ under name with -screenshots.
func saveScreenshot(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := t.ArtifactDir()
	file := name
	if file == "" {
		file = "page.png"
	}
	if err := os.WriteFile(filepath.Join(dir, file), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if *screenshots && name != "" {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote docs/%s", name)
	}
}

// TestBrowserStaticBuild: the files Write makes, published on one origin,
// send try-it requests to the server they were built for, on another: the
// engine's CORS lets the page read the answer and its deprecation headers.
func TestBrowserStaticBuild(t *testing.T) {
	api := petstore(t)
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := reference.Write(dir, s, reference.Options{Server: api.URL + "/v1"}); err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(site.Close)

	ctx := browser(t, 1280, 1000)
	watch(t, ctx)
	do(t, ctx, "load the published page", chromedp.Navigate(site.URL+"/"), chromedp.WaitVisible(chromedp.ID("op-getPet")))
	if got := run(t, ctx, "server", chromedp.Value(chromedp.ID("try-server"))); got != api.URL+"/v1" {
		t.Errorf("try-it server %q, want %s/v1", got, api.URL)
	}
	do(t, ctx, "open getPet",
		chromedp.SendKeys(chromedp.ID("key-bearerAuth"), testKey),
		chromedp.Click(chromedp.CSS("#op-getPet details.op-body > summary")),
		chromedp.WaitVisible(chromedp.ID("op-getPet-p0")),
		chromedp.SetValue(chromedp.ID("op-getPet-p0"), "1"),
	)
	status, headers, body := tryResult(t, ctx, "op-getPet")
	if status != "200" || !strings.Contains(body, `"id": 1`) {
		t.Errorf("getPet from another origin: %s %s", status, body)
	}
	for _, h := range []string{"deprecation", "sunset", "link"} {
		if headers[h] == "" {
			t.Errorf("the page cannot read %s across origins; it read %v", h, headers)
		}
	}
}

// TestBrowserEveryScheme: try-it works on a document that is not the
// Petstore and whose operations take every kind of credential: http basic
// (entered as user:password), an apiKey in the query with one in a cookie
// (both required), an oauth2 token with a scope, and none. Each answer is
// the engine's own 200, so the page sent each credential where its scheme
// says; a scheme petctl cannot serve (digest) is answered 501, and the
// page says it sent no credential for it. No key reaches the page's
// address or a curl command.
func TestBrowserEveryScheme(t *testing.T) {
	s, err := spec.Load(filepath.Join("..", "..", "fixtures", "styles", "security.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	api, err := engine.New(engine.Options{Spec: s, Keys: []string{testKey}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(reference.Mount(s, api, reference.Options{Reserved: engine.AdminPrefix}))
	t.Cleanup(srv.Close)
	ctx := browser(t, 1280, 1000)
	// The 501 of needsDigest is the answer the test asks for.
	watch(t, ctx, "log: Failed to load resource: the server responded with a status of 501")
	do(t, ctx, "load /docs", chromedp.Navigate(srv.URL+"/docs"), chromedp.WaitVisible(chromedp.ID("op-keyOrBasic")))
	if got := run(t, ctx, "server", chromedp.Value(chromedp.ID("try-server"))); got != srv.URL+"/sec" {
		t.Errorf("try-it server %q, want this mock %s/sec", got, srv.URL)
	}
	do(t, ctx, "enter the credentials",
		chromedp.SendKeys(chromedp.ID("key-basic"), "someone:"+testKey),
		chromedp.SendKeys(chromedp.ID("key-queryKey"), testKey),
		chromedp.SendKeys(chromedp.ID("key-cookieKey"), testKey),
		chromedp.SendKeys(chromedp.ID("key-oauth"), testKey),
	)
	for _, c := range []struct {
		op, status string
		curl       []string // what the curl command must hold
	}{
		// headerKey has no key entered, so the basic alternative is sent.
		{"op-keyOrBasic", "200", []string{`-u "$PETCTL_KEY_BASIC"`}},
		{"op-queryAndCookie", "200", []string{`apikey=$PETCTL_KEY_QUERYKEY"`, `session=$PETCTL_KEY_COOKIEKEY"`}},
		{"op-oauthWrite", "200", []string{`"Authorization: Bearer $PETCTL_KEY_OAUTH"`}},
		{"op-noAuth", "200", nil},
		{"op-needsDigest", "501", nil},
	} {
		do(t, ctx, "open "+c.op,
			chromedp.Click(chromedp.CSS("#"+c.op+" details.op-body > summary")),
			chromedp.WaitVisible(chromedp.CSS("#"+c.op+" .try-form")),
		)
		status, _, body := tryResult(t, ctx, c.op)
		if status != c.status {
			t.Errorf("%s: status %s, want %s:\n%s", c.op, status, c.status, body)
		}
		curl := run(t, ctx, "curl of "+c.op, chromedp.Text(chromedp.CSS("#"+c.op+" pre.curl")))
		for _, want := range c.curl {
			if !strings.Contains(curl, want) {
				t.Errorf("%s: curl command\n%s\nlacks %s", c.op, curl, want)
			}
		}
		if strings.Contains(curl, testKey) {
			t.Errorf("%s: the curl command shows the key:\n%s", c.op, curl)
		}
	}
	note := run(t, ctx, "digest note", chromedp.Text(chromedp.CSS("#op-needsDigest .result .note")))
	if !strings.Contains(note, "without a credential for digest") {
		t.Errorf("needsDigest's note %q, want that no credential for digest was sent", note)
	}
	if loc := run(t, ctx, "location", chromedp.Location()); strings.Contains(loc, testKey) {
		t.Errorf("the key is in the page's address: %s", loc)
	}
}

// TestBrowserLargestDocument: the reference of the corpus's largest
// document loads in Chromium without an error, and an operation and a
// schema of it open; the time the page took to load is logged. Like the
// other tests of the whole corpus, it is left to make test's run without
// -race (NORACE_TESTS): loading and rendering the document is most of it.
func TestBrowserLargestDocument(t *testing.T) {
	if race.Enabled {
		t.Skip("under -race: make test runs it in its run without -race (NORACE_TESTS)")
	}
	path := reference.LargestCorpusDocument(t)
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(reference.Mount(s, http.NotFoundHandler(), reference.Options{Reserved: engine.AdminPrefix}))
	t.Cleanup(srv.Close)
	ctx := browser(t, 1280, 1000)
	watch(t, ctx)
	do(t, ctx, "load", chromedp.Navigate(srv.URL+"/docs"))
	logLoad(t, ctx, fmt.Sprintf("%s (%d operations)", path, len(s.Operations)))
	first := s.Operations[0]
	id := run(t, ctx, "first operation", chromedp.Evaluate[string](`document.querySelector('article.op').id`))
	start := time.Now()
	do(t, ctx, "open "+first.ID,
		chromedp.Click(chromedp.CSS("#"+id+" details.op-body > summary")),
		chromedp.WaitVisible(chromedp.CSS("#"+id+" .try-form")),
		chromedp.Click(chromedp.CSS("#"+id+" details.schema > summary")),
		chromedp.WaitVisible(chromedp.CSS("#"+id+" details.schema .tree p")),
	)
	t.Logf("%s and a schema of it opened in %v, the driver's round trips included", first.ID, time.Since(start).Round(time.Millisecond))
}

// pageLoad is what the browser measured of the page it loaded.
type pageLoad struct {
	Bytes, Gzipped, Ready, Load float64
	Elements                    int
}

// logLoad logs the page's size and how long Chromium took to load it, by
// the page's own navigation timing (from the request to the end of the
// load event), with the machine's load average: the figures are only worth
// what the machine was doing meanwhile.
func logLoad(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	l := run(t, ctx, "navigation timing", chromedp.Evaluate[pageLoad](`(() => {
		const n = performance.getEntriesByType('navigation')[0];
		return {Bytes: n.decodedBodySize, Gzipped: n.encodedBodySize, Ready: n.domContentLoadedEventEnd, Load: n.loadEventEnd,
			Elements: document.getElementsByTagName('*').length};
	})()`))
	avg, _ := os.ReadFile("/proc/loadavg")
	load, _, _ := strings.Cut(string(avg), " ")
	t.Logf("%s: page %.0f bytes (%.0f sent), %d elements; DOMContentLoaded at %.0f ms, loaded at %.0f ms (load average %s)",
		name, l.Bytes, l.Gzipped, l.Elements, l.Ready, l.Load, load)
}

// contrastScript lists the visible text whose contrast with its background
// is below WCAG 2 AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold).
const contrastScript = `(() => {
	const rgb = c => (c.match(/[\d.]+/g) || []).map(Number);
	const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
		.reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
	const background = el => {
		for (; el; el = el.parentElement) {
			const c = rgb(getComputedStyle(el).backgroundColor);
			if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
		}
		return [255, 255, 255];
	};
	const low = [];
	for (const el of document.querySelectorAll('body *')) {
		const text = Array.from(el.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent.trim()).join('');
		if (!text || !el.getClientRects().length) continue;
		const st = getComputedStyle(el);
		if (st.visibility === 'hidden') continue;
		const a = lum(rgb(st.color)), b = lum(background(el));
		const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
		const size = parseFloat(st.fontSize), bold = Number(st.fontWeight) >= 700;
		const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
		if (ratio < need) low.push(ratio.toFixed(2) + ' for ' + el.tagName.toLowerCase() + '.' + el.className + ': ' + text.slice(0, 40));
	}
	return low;
})()`
