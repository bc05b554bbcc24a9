package http

import (
	"fmt"
	"html"
	"io"
	"net/url"
	"strconv"

	"github.com/swcmem/swc"
)

// The /ui pages are written by hand rather than with html/template:
// text/template looks methods up by name at run time, which makes the
// linker keep every exported method of every type in the swc binary (tens
// of megabytes with the model SDKs). Every piece of text goes through
// esc, every path segment built from an id through url.PathEscape first.

var esc = html.EscapeString

func pct(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func uiHead(w io.Writer, title string) {
	fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>swc — %s</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%%}td,th{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
.high{color:#064}.mid{color:#850}.low{color:#a00}pre{white-space:pre-wrap;background:#f6f6f6;padding:1em}
header{display:flex;justify-content:space-between;align-items:center}
</style></head><body>`, esc(title))
}

func uiFoot(w io.Writer) { io.WriteString(w, "</body></html>") }

const uiLogoutForm = `<form method="post" action="/ui/logout"><button type="submit">Log out</button></form>`

func uiLoginPage(w io.Writer, p loginPage) {
	uiHead(w, "log in")
	io.WriteString(w, "\n<h1>swc</h1>\n<p>Enter an API key (<code>swc keys create --tenant NAME</code> makes one).</p>\n")
	if p.Error != "" {
		fmt.Fprintf(w, "<p class=\"low\" role=\"alert\">%s</p>\n", esc(p.Error))
	}
	io.WriteString(w, `<form method="post" action="/ui/login">
<label>API key <input type="password" name="key" id="key" autocomplete="off" required></label>
<button type="submit" id="login">Log in</button>
</form>
`)
	uiFoot(w)
}

func uiNotFoundPage(w io.Writer) {
	uiHead(w, "not found")
	io.WriteString(w, "\n<h1>Not found</h1><p>No such conversation. <a href=\"/ui\">All conversations</a></p>\n")
	uiFoot(w)
}

func uiListPage(w io.Writer, list []swc.ConversationInfo) {
	uiHead(w, "conversations")
	io.WriteString(w, "\n<header><h1>Conversations</h1>"+uiLogoutForm+"</header>\n")
	if len(list) == 0 {
		io.WriteString(w, "<p>No conversations yet.</p>\n")
		uiFoot(w)
		return
	}
	io.WriteString(w, "<table id=\"conversations\"><tr><th>Conversation</th><th>Messages</th><th>Sessions</th><th>Consolidated through</th><th>Last message</th></tr>\n")
	for _, c := range list {
		pending := ""
		if c.ConsolidatedMessages < c.Messages {
			pending = " (new messages pending)"
		}
		fmt.Fprintf(w, "<tr><td><a href=\"/ui/conversations/%s\">%s</a></td><td>%d</td><td>%d</td>\n<td>%d%s</td><td>%s</td></tr>\n",
			esc(url.PathEscape(c.ID)), esc(c.ID), c.Messages, c.Sessions, c.ConsolidatedThrough, pending, esc(c.LastMessage.Format("2006-01-02 15:04")))
	}
	io.WriteString(w, "</table>\n")
	uiFoot(w)
}

type conversationPage struct {
	Detail     *ConversationDetail
	Context    contextView
	Rows       []sessionRow
	Strategies []string
}

// contextView is what the page shows of a context.
type contextView struct {
	Strategy                             string
	Budget, Tokens                       int
	Text                                 string
	ConsolidatedThrough, PendingSessions int
}

func uiConversationPage(w io.Writer, p conversationPage) {
	d, c := p.Detail, p.Context
	uiHead(w, d.ID)
	fmt.Fprintf(w, "\n<header><h1>%s</h1>%s</header>\n", esc(d.ID), uiLogoutForm)
	fmt.Fprintf(w, "<p><a href=\"/ui\">All conversations</a> · %d messages in %d sessions ·\nconsolidated through session %d", d.Messages, len(d.SessionList), c.ConsolidatedThrough)
	if !d.ConsolidatedAt.IsZero() {
		fmt.Fprintf(w, " at %s", esc(d.ConsolidatedAt.Format("2006-01-02 15:04:05")))
	}
	fmt.Fprintf(w, " ·\n<span id=\"pending\">%d pending sessions</span></p>\n", c.PendingSessions)
	if len(d.PendingJobs) > 0 {
		io.WriteString(w, "<p>Jobs: ")
		for _, j := range d.PendingJobs {
			fmt.Fprintf(w, "%s (attempt %d, at %s)", esc(j.State), j.Attempt, esc(j.ScheduledAt.Format("15:04:05")))
			if j.LastError != "" {
				fmt.Fprintf(w, " — last error: %s", esc(j.LastError))
			}
			io.WriteString(w, "; ")
		}
		io.WriteString(w, "</p>\n")
	} else {
		io.WriteString(w, "<p>No job waiting.</p>\n")
	}
	fmt.Fprintf(w, "<form method=\"get\">\n<label>Budget <input name=\"budget\" value=\"%d\" size=\"6\"></label>\n<label>Strategy <select name=\"strategy\">", c.Budget)
	for _, s := range p.Strategies {
		sel := ""
		if s == c.Strategy {
			sel = " selected"
		}
		fmt.Fprintf(w, "<option%s>%s</option>", sel, esc(s))
	}
	io.WriteString(w, "</select></label>\n<button type=\"submit\">Show context</button>\n</form>\n<h2>Sessions</h2>\n")
	io.WriteString(w, "<table id=\"sessions\"><tr><th>#</th><th>Date</th><th>Messages</th><th>Score</th><th>Tier</th><th>Action</th><th>Gist</th></tr>\n")
	for _, r := range p.Rows {
		pinned := ""
		if r.Pinned {
			pinned = " (pinned)"
		}
		reason := ""
		if r.Reason != "" {
			reason = "<br><small>" + esc(r.Reason) + "</small>"
		}
		gist := r.Gist
		if gist == "" {
			gist = r.Stored
		}
		fmt.Fprintf(w, "<tr><td>%d</td><td>%s</td><td>%d</td><td>%s</td>\n<td class=\"tier %s\">%s%s</td><td>%s%s</td>\n<td>%s</td></tr>\n",
			r.Session+1, esc(r.Start), r.Messages, pct(r.Score), esc(string(r.Tier)), esc(string(r.Tier)), pinned, esc(string(r.Action)), reason, esc(gist))
	}
	io.WriteString(w, "</table>\n")
	fmt.Fprintf(w, "<h2>Context (%d tokens of %d)</h2>\n<pre id=\"context\">%s</pre>\n", c.Tokens, c.Budget, esc(c.Text))
	uiFoot(w)
}
