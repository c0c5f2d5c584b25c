package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tablegate/tablegate/internal/testenv"
)

// chromium drives a headless Chromium over the DevTools protocol on a pipe
// (--remote-debugging-pipe: NUL-terminated JSON messages on file descriptors 3 and 4), so that
// the test needs nothing beyond the standard library and the browser.
type chromium struct {
	t       *testing.T
	cmd     *osexec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	events  []cdpMessage
	stderr  bytes.Buffer
	done    chan struct{}
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := osexec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium on PATH: install Debian's chromium package (apt-get install -y chromium), as .ci/run does")
	return ""
}

func startChromium(t *testing.T) *chromium {
	t.Helper()
	toChrome, chromeIn, err := os.Pipe()
	require.NoError(t, err)
	chromeOut, fromChrome, err := os.Pipe()
	require.NoError(t, err)
	c := &chromium{t: t, in: chromeIn, waiting: map[int]chan cdpMessage{}, done: make(chan struct{})}
	c.cmd = osexec.Command(chromiumPath(t), "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--user-data-dir="+t.TempDir(), "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--hide-scrollbars", "about:blank")
	c.cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fd 3: what it reads, fd 4: what it writes
	c.cmd.Stderr = &c.stderr
	require.NoError(t, c.cmd.Start())
	toChrome.Close()
	fromChrome.Close()
	go c.read(chromeOut)
	t.Cleanup(func() {
		_, _ = c.call("", "Browser.close", nil)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
		}
		_ = c.cmd.Wait()
	})
	return c
}

func (c *chromium) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		c.mu.Lock()
		if ch, ok := c.waiting[m.ID]; ok && m.ID != 0 {
			delete(c.waiting, m.ID)
			ch <- m
		} else if m.Method != "" {
			c.events = append(c.events, m)
		}
		c.mu.Unlock()
	}
}

// call sends one command (to the page's session when session is not "") and waits for its result.
func (c *chromium) call(session, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan cdpMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := c.in.Write(append(data, 0)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-c.done:
		return nil, fmt.Errorf("%s: Chromium exited: %s", method, c.stderr.String())
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer from Chromium in 60 s", method)
	}
}

func (c *chromium) must(session, method string, params any) json.RawMessage {
	c.t.Helper()
	res, err := c.call(session, method, params)
	require.NoError(c.t, err)
	return res
}

// waitEvent waits for an event of the session.
func (c *chromium) waitEvent(session, method string) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		for _, e := range c.events {
			if e.Method == method && e.SessionID == session {
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("no %s event in 60 s", method)
}

// page is one page loaded in the browser, with every request it made.
type page struct {
	c        *chromium
	session  string
	requests []string
}

// open loads the URL in a new page, with the network watched from before the first request.
func (c *chromium) open(url string, width int) *page {
	c.t.Helper()
	var target struct{ TargetID string }
	require.NoError(c.t, json.Unmarshal(c.must("", "Target.createTarget", map[string]any{"url": "about:blank"}), &target))
	var attached struct{ SessionID string }
	require.NoError(c.t, json.Unmarshal(c.must("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &attached))
	p := &page{c: c, session: attached.SessionID}
	for _, m := range []string{"Network.enable", "Page.enable", "Runtime.enable"} {
		c.must(p.session, m, nil)
	}
	c.must(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false})
	c.must(p.session, "Page.navigate", map[string]any{"url": url})
	c.waitEvent(p.session, "Page.loadEventFired")
	time.Sleep(500 * time.Millisecond) // a late request (a lazy image, a timer) would show by now
	c.mu.Lock()
	for _, e := range c.events {
		if e.SessionID != p.session || e.Method != "Network.requestWillBeSent" {
			continue
		}
		var ev struct{ Request struct{ URL string } }
		if json.Unmarshal(e.Params, &ev) == nil {
			p.requests = append(p.requests, ev.Request.URL)
		}
	}
	c.mu.Unlock()
	return p
}

// eval evaluates a JavaScript expression in the page and decodes its JSON value into v.
func (p *page) eval(expr string, v any) {
	p.c.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails json.RawMessage
	}
	require.NoError(p.c.t, json.Unmarshal(p.c.must(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &res))
	require.Nil(p.c.t, res.ExceptionDetails, expr)
	require.NoError(p.c.t, json.Unmarshal(res.Result.Value, v), expr)
}

// screenshot is the whole page as PNG.
func (p *page) screenshot() []byte {
	p.c.t.Helper()
	var res struct{ Data string }
	require.NoError(p.c.t, json.Unmarshal(p.c.must(p.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}), &res))
	data, err := base64.StdEncoding.DecodeString(res.Data)
	require.NoError(p.c.t, err)
	return data
}

// offPage are the requests that left the file: anything but the page itself and data: URLs.
func (p *page) offPage(self string) []string {
	var out []string
	for _, u := range p.requests {
		if u != self && !strings.HasPrefix(u, "data:") {
			out = append(out, u)
		}
	}
	return out
}

// TestSlowHTMLReportInChromium opens validate's page in a real headless Chromium: the banner, a
// check row and a hostile value as the DOM has them, a screenshot, and no request off the page.
func TestSlowHTMLReportInChromium(t *testing.T) {
	testenv.Slow(t)
	f := newFixture(t)
	const hostile = `<script>document.title='owned'</script><img src=x onerror="document.title='owned'">`
	schemaFile := f.write("hostile.yaml", strings.Replace(ordersYAML, "    type: String\n    primary_key: true\n",
		"    type: String\n    primary_key: true\n    description: "+quoteYAML(hostile)+"\n", 1))
	in := f.parquet("raw.parquet", "SELECT *, 'gust' AS wind FROM ("+ordersSelect(mixedRows+", ("+quoteLit(hostile)+", -3.0, NULL)")+")")
	html := f.path("report.html")
	code, _, stderr := cli(t, "validate", "--schema", schemaFile, "--input", in, "--out", f.path("orders.parquet"), "--quarantine",
		"--history", f.path("history.duckdb"), "--html", html)
	require.Equal(t, 0, code, stderr)

	c := startChromium(t)
	url := "file://" + html
	p := c.open(url, 1200)
	var dom struct {
		Title, Outcome, Health, BannerText string
		Scripts, Images                    int
		Row                                struct{ Passed, Cells string }
		HostileCells, HostileDescriptions  int
	}
	p.eval(`(() => {
		const b = document.querySelector('#banner');
		const row = document.querySelector('tr.check[data-check="dy_rule__amount__min"]');
		const text = `+"`"+hostile+"`"+`;
		return {
			title: document.title, outcome: b.dataset.outcome, health: b.dataset.health, bannerText: b.innerText,
			scripts: document.scripts.length, images: document.images.length,
			row: {passed: row.dataset.passed, cells: [...row.cells].map(c => c.innerText.trim()).join(' | ')},
			hostileCells: [...document.querySelectorAll('.samples td')].filter(td => td.textContent === text).length,
			hostileDescriptions: [...document.querySelectorAll('#schema td')].filter(td => td.textContent === text).length,
		};
	})()`, &dom)
	assert.Equal(t, "orders: quarantined · tablegate", dom.Title, "no hostile script ran")
	assert.Equal(t, "quarantined", dom.Outcome)
	assert.Equal(t, "Degraded", dom.Health, "a quarantined run whose error rule failed")
	assert.Contains(t, dom.BannerText, "quarantined")
	assert.Equal(t, 0, dom.Scripts, "the page has no script, the hostile one included")
	assert.Equal(t, 0, dom.Images, "the hostile <img> is text")
	assert.Equal(t, "false", dom.Row.Passed)
	assert.Contains(t, dom.Row.Cells, "dy_rule__amount__min")
	assert.Contains(t, dom.Row.Cells, "ERROR", "the min rule's declared severity")
	assert.Contains(t, dom.Row.Cells, "| 4\n44.44% |", "4 of the 9 rows failed amount >= 0: the count, and its share under it")
	assert.GreaterOrEqual(t, dom.HostileCells, 1, "the hostile id shows as text in the failing rows")
	assert.Equal(t, 1, dom.HostileDescriptions, "the hostile description shows as text in the schema")
	assert.Contains(t, dom.BannerText, "WARN", "the verdict the text output prints")

	// The failing checks lead; a passing check's chip is grey; the filter hides the passing ones
	// (CSS only: a click on its label); the input's column not written is listed.
	var view struct {
		FirstFailing, PassingChip, Dropped string
		Shown, ShownFailing, Failing       int
	}
	p.eval(`(() => {
		const rows = [...document.querySelectorAll('tr.check')];
		const visible = () => rows.filter(r => r.offsetParent !== null).length;
		const shown = visible();
		const passing = rows.find(r => r.dataset.passed === 'true');
		const chip = getComputedStyle(passing.querySelector('.sev')).color;
		document.querySelector('label[for="show-failing"]').click();
		return {firstFailing: rows[0].dataset.passed, passingChip: chip, dropped: document.querySelector('#dropped').innerText,
			shown: shown, shownFailing: visible(), failing: rows.filter(r => r.dataset.passed === 'false').length};
	})()`, &view)
	assert.Equal(t, "false", view.FirstFailing)
	assert.Equal(t, "rgb(87, 96, 106)", view.PassingChip, "the muted grey, not ERROR's red")
	assert.Greater(t, view.Shown, view.Failing)
	assert.Equal(t, view.Failing, view.ShownFailing, "the filter shows the failing checks only")
	assert.Equal(t, "1 input column not in the schema, not written: wind", view.Dropped)
	p.eval(`(() => { document.querySelector('label[for="show-all"]').click(); document.activeElement.blur(); return true })()`, new(bool))
	assert.Empty(t, p.offPage(url), "the page requested nothing beyond itself")
	assert.Contains(t, p.requests, url, "the watch saw the page's own request")

	shot := p.screenshot()
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	assert.Equal(t, 1200, img.Bounds().Dx())
	r, g, b, _ := img.At(40, 30).RGBA() // inside the banner: the warning colour #9a6700
	assert.Equal(t, [3]uint32{0x9a, 0x67, 0x00}, [3]uint32{r >> 8, g >> 8, b >> 8}, "the banner is drawn in the quarantined outcome's colour")
	require.NoError(t, os.WriteFile(f.path("report.png"), shot, 0o644))
	if out := os.Getenv("TABLEGATE_SCREENSHOT"); out != "" {
		require.NoError(t, os.WriteFile(out, shot, 0o644))
	}

	// The watch sees a page that does make a request.
	leaky := f.write("leaky.html", `<!DOCTYPE html><title>leaky</title><img src="http://127.0.0.1:9/pixel.png">`)
	lp := c.open("file://"+leaky, 800)
	assert.Equal(t, []string{"http://127.0.0.1:9/pixel.png"}, lp.offPage("file://"+leaky))
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestSlowCollectionHTMLInChromium opens a collection's page in a real headless Chromium: the
// collection's banner, members and filters, a section per member whose checks filter works on
// its own section only, a screenshot, and no request off the page.
func TestSlowCollectionHTMLInChromium(t *testing.T) {
	testenv.Slow(t)
	dir := copyShop(t)
	html := filepath.Join(dir, "shop.html")
	code, _, stderr := cli(t, "validate", "--collection", filepath.Join(dir, "shop.yaml"), "--input-dir", dir, "--out-dir", filepath.Join(dir, "out"),
		"--quarantine", "--html", html)
	require.Equal(t, exitOK, code, stderr)

	c := startChromium(t)
	url := "file://" + html
	p := c.open(url, 1200)
	var dom struct {
		Title, Verdict, BannerText string
		Members, Filters           []string
		Sections                   []string
		Scripts                    int
		ItemsShown, ItemsFailing   int
		OrdersShown, OrdersAll     int
	}
	p.eval(`(() => {
		const rows = s => [...document.querySelectorAll('#member-' + s + ' tr.check')];
		const visible = rs => rs.filter(r => r.offsetParent !== null).length;
		const out = {
			title: document.title, verdict: document.querySelector('#banner').dataset.verdict, bannerText: document.querySelector('#banner').innerText,
			members: [...document.querySelectorAll('#members tr.member')].map(r => r.dataset.member + ' ' + r.cells[0].innerText),
			filters: [...document.querySelectorAll('#filters tr.filter-row')].map(r => r.dataset.filter + ': ' + r.cells[4].innerText),
			sections: [...document.querySelectorAll('section.member')].map(s => s.dataset.member),
			scripts: document.scripts.length,
		};
		document.querySelector('label[for="member-items-show-failing"]').click();
		out.itemsShown = visible(rows('items'));
		out.itemsFailing = rows('items').filter(r => r.dataset.passed === 'false').length;
		out.ordersShown = visible(rows('orders'));
		out.ordersAll = rows('orders').length;
		document.querySelector('label[for="member-items-show-all"]').click();
		document.activeElement.blur();
		return out;
	})()`, &dom)
	assert.Equal(t, "Shop: passed · tablegate", dom.Title)
	assert.Equal(t, "WARN", dom.Verdict, "passed, with quarantined members")
	assert.Contains(t, dom.BannerText, "every member written")
	assert.Equal(t, []string{"orders WARN", "items WARN", "invoices WARN", "refunds WARN", "products PASS"}, dom.Members)
	assert.Contains(t, dom.Filters, "items_have_quantity: orders 2, items 1, invoices 1, refunds 0")
	assert.Contains(t, dom.Filters, "item_product: items 1")
	assert.Equal(t, []string{"orders", "items", "invoices", "refunds", "products"}, dom.Sections)
	assert.Equal(t, 0, dom.Scripts)
	assert.Positive(t, dom.ItemsFailing)
	assert.Equal(t, dom.ItemsFailing, dom.ItemsShown, "items' filter shows its failing checks only")
	assert.Equal(t, dom.OrdersAll, dom.OrdersShown, "and leaves the orders section alone")
	assert.Empty(t, p.offPage(url), "the page requested nothing beyond itself")

	shot := p.screenshot()
	img, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	r, g, b, _ := img.At(40, 30).RGBA() // inside the banner: the warning colour #9a6700
	assert.Equal(t, [3]uint32{0x9a, 0x67, 0x00}, [3]uint32{r >> 8, g >> 8, b >> 8})
	if out := os.Getenv("TABLEGATE_COLLECTION_SCREENSHOT"); out != "" {
		require.NoError(t, os.WriteFile(out, shot, 0o644))
	}
}
