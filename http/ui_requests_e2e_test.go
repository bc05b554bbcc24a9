package http_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/chromiumtest"
	"github.com/swcmem/swc/observe"
)

// TestUIRequestsInChromium drives a coding agent's tool loop through the
// proxy in stored mode against a scripted upstream, then, in a real
// headless Chromium, logs in, opens the conversation's compressed
// requests, finds a masked observation with its handle, follows the link
// and sees the original bytes — markup in them shown as text, no script
// on either page. Screenshots of both pages are saved.
func TestUIRequestsInChromium(t *testing.T) {
	ctx := chromiumtest.New(t, 1280, 1000)
	e := newProxyEnv(t)
	c := recallCase{"anthropic", false}
	script(e, c, []recallReply{{}}, nil)
	msgs, _ := recallLoop("ui", 14)
	originals := map[string]string{}
	for i, m := range msgs {
		if m.Role == swc.RoleTool {
			msgs[i].Content = "<script>document.title='pwned'</script> & <b>bold</b>\n" + m.Content
			originals[observe.Handle(m.ToolCallID, msgs[i].Content)] = msgs[i].Content
		}
	}
	resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Conversation: conv-ui", "X-SWC-Budget: 4000", "anthropic-version: 2023-06-01")
	readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get(swchttp.HeaderCompression), "masked=") {
		t.Fatalf("proxy: %d, %s %q", resp.StatusCode, swchttp.HeaderCompression, resp.Header.Get(swchttp.HeaderCompression))
	}
	newRecord(t, e.env, mustTenant(t, e.env, "acme"), "conv-ui", 0)

	err := chromedp.Do(ctx,
		chromedp.Navigate(e.ts.URL+"/ui"),
		chromedp.WaitVisible("#key"),
		chromedp.SendKeys("#key", e.key),
		chromedp.Click("#login"),
		chromedp.WaitVisible("#conversations"),
		chromedp.Click(`a[href="/ui/conversations/conv-ui"]`),
		chromedp.WaitVisible("#requests"),
		chromedp.Click("#requests"),
		chromedp.WaitVisible("tr.item.masked td.handle a"),
	)
	if err != nil {
		t.Fatal(err)
	}
	handle, err := chromedp.Run(ctx, chromedp.Text("tr.item.masked td.handle a"))
	if err != nil {
		t.Fatal(err)
	}
	kind, err := chromedp.Run(ctx, chromedp.Text("tr.item.masked td.kind"))
	if err != nil {
		t.Fatal(err)
	}
	requestsShot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	want, ok := originals[handle]
	if !ok || kind != "masked" {
		t.Fatalf("the masked row shows handle %q (%q), not one of the loop's observations", handle, kind)
	}
	if err := chromedp.Do(ctx, chromedp.Click("tr.item.masked td.handle a"), chromedp.WaitVisible("#original")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.TextContent("#original"))
	if err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text("#handle"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script, b").length`))
	if err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	originalShot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the original page shows %d bytes %.120q; want the original's %d bytes %.120q", len(got), got, len(want), want)
	}
	if shown != handle {
		t.Errorf("the original page names handle %q; want %q", shown, handle)
	}
	if scripts != 0 || strings.Contains(title, "pwned") {
		t.Errorf("the original's markup became elements: %d script or b elements, title %q", scripts, title)
	}
	dir := os.Getenv("SWC_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	for name, shot := range map[string][]byte{"ui-requests.png": requestsShot, "ui-original.png": originalShot} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", path, len(shot))
	}
}
