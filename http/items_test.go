package http_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// TestProxyResponsesItemReferences: an agent that sends the items of
// earlier answers back as item_reference (the Vercel AI SDK does, with
// store on) gets its request compressed once swc relayed those answers,
// streamed or not: the references are read as the items they name, and
// the kept ones go upstream as the items. A reference to an item another
// tenant's request got, or one swc never relayed, leaves the request as
// it came.
func TestProxyResponsesItemReferences(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			e := newProxyEnv(t)
			n := 0
			e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
				n++
				msg := fmt.Sprintf(`{"type":"message","id":"msg_%d","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Reading part %d of the log.","annotations":[],"logprobs":[]}]}`, n, n)
				call := fmt.Sprintf(`{"type":"function_call","id":"fc_%d","status":"completed","call_id":"call_%d","name":"read_file","arguments":"{\"part\":%d}"}`, n, n, n)
				if !stream {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"id":"resp_%d","object":"response","status":"completed","model":"gpt-4.1","output":[%s,%s],"usage":{"input_tokens":10,"output_tokens":3,"total_tokens":13}}`, n, msg, call)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_%d\",\"status\":\"in_progress\",\"output\":[]}}\n\n", n)
				fmt.Fprintf(w, "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":%s}\n\n", msg)
				fmt.Fprintf(w, "event: response.output_item.done\r\ndata: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":%s}\r\n\r\n", call)
				fmt.Fprintf(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_%d\",\"status\":\"completed\",\"output\":[%s,%s]}}\n\n", n, msg, call)
			}
			log := strings.Repeat("2026-12-04 INFO worker-7 processed batch 4411 in 38 ms; queue depth 12\n", 60)
			input := []string{`{"role":"user","content":"Read the log, part by part."}`}
			var body string
			for k := 1; k <= 12; k++ {
				body = fmt.Sprintf(`{"model":"gpt-4.1","stream":%v,"tools":[{"type":"function","name":"read_file","parameters":{"type":"object"}}],"input":[%s]}`, stream, strings.Join(input, ","))
				resp := e.post(t, "/v1/responses", body, swchttp.HeaderBudget+": 4000")
				readAll(t, resp)
				if resp.StatusCode != 200 {
					t.Fatalf("request %d: status %d", k, resp.StatusCode)
				}
				mode := resp.Header.Get(swchttp.HeaderMode)
				if k > 1 && mode == "passthrough" {
					t.Fatalf("request %d went as it came: %s", k, resp.Header.Get(swchttp.HeaderPassthrough))
				}
				// As the AI SDK sends an answer back with store on: the
				// message and the call as references, then the output.
				input = append(input, fmt.Sprintf(`{"type":"item_reference","id":"msg_%d"}`, k), fmt.Sprintf(`{"type":"item_reference","id":"fc_%d"}`, k),
					fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":%q}`, k, log))
			}
			got, _ := e.up.last(t)
			if bytes.Contains(got, []byte("item_reference")) {
				t.Errorf("a compressed request went upstream with item references:\n%.300s", got)
			}
			if !bytes.Contains(got, []byte(`"id":"fc_11","status":"completed","call_id":"call_11"`)) {
				t.Errorf("the kept call went upstream without its item:\n%.2000s", got)
			}
			withinBudget(t, got, chat.Responses, 4000)

			// Another tenant naming the same items: as it came.
			other := e.newKey("other")
			resp := e.post(t, "/v1/responses", body, "Authorization: Bearer "+other, swchttp.HeaderBudget+": 4000")
			readAll(t, resp)
			if resp.Header.Get(swchttp.HeaderMode) != "passthrough" || !strings.Contains(resp.Header.Get(swchttp.HeaderPassthrough), "22 of 22 items not seen by swc") {
				t.Errorf("another tenant's request: mode %q, %q", resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough))
			}
			if got, _ := e.up.last(t); string(got) != body {
				t.Errorf("another tenant's request was not sent as it came")
			}
		})
	}
}

// TestProxyResponsesItemReferencesBounded: references cannot make a small
// request a huge one: an item named twice, or items that would take the
// request past --max-proxy-body, leave it as it came.
func TestProxyResponsesItemReferencesBounded(t *testing.T) {
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) { s.Proxy.MaxBody = 64 << 10 })
	big := strings.Repeat("a long answer line, ", 2000) // 40 KB
	e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_big","status":"completed","role":"assistant","content":[{"type":"output_text","text":%q,"annotations":[]}]}]}`, big)
	}
	readAll(t, e.post(t, "/v1/responses", `{"model":"gpt-4.1","input":"write"}`))
	ref := `{"type":"item_reference","id":"msg_big"}`
	for name, input := range map[string]string{
		"named twice":         `{"role":"user","content":"write"},` + ref + `,{"role":"user","content":"again"},` + ref,
		"over max-proxy-body": `{"role":"user","content":"` + strings.Repeat("x", 30<<10) + `"},` + ref,
		"one, in bounds":      `{"role":"user","content":"write"},` + ref + `,{"role":"user","content":"again"}`,
	} {
		t.Run(name, func(t *testing.T) {
			body := `{"model":"gpt-4.1","input":[` + input + `]}`
			resp := e.post(t, "/v1/responses", body, swchttp.HeaderBudget+": 100000")
			readAll(t, resp)
			mode, why := resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough)
			if name == "one, in bounds" {
				if mode == "passthrough" {
					t.Errorf("passed through: %s", why)
				}
				return
			}
			if mode != "passthrough" || why != "provider history: item_reference (an item named twice, or the items over --max-proxy-body)" {
				t.Errorf("mode %q, %q", mode, why)
			}
			if got, _ := e.up.last(t); string(got) != body {
				t.Errorf("not sent as it came")
			}
		})
	}
}

// TestProxyResponsesUnstoredItems: the answer to a request with "store":
// false is not kept (the provider keeps nothing of it either), so it
// pushes out no one's items; the same answer to a stored request is.
func TestProxyResponsesUnstoredItems(t *testing.T) {
	for _, store := range []string{`"store":false,`, ``} {
		e := newProxyEnv(t)
		e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello.","annotations":[]}]}]}`)
		}
		readAll(t, e.post(t, "/v1/responses", `{"model":"gpt-4.1",`+store+`"input":[{"role":"user","content":"hi"}]}`))
		resp := e.post(t, "/v1/responses", `{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"msg_1"},{"role":"user","content":"and?"}]}`)
		readAll(t, resp)
		kept := resp.Header.Get(swchttp.HeaderMode) != "passthrough"
		if kept != (store == "") {
			t.Errorf("first request %q: the next one's reference resolved %v (mode %q, %q)", store, kept, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough))
		}
	}
}

// TestProxyResponsesDeletedItems: once a client deletes a response
// (DELETE /v1/responses/{id}, answered 200 or 404 upstream), swc forgets
// the items it came with, streamed or not, so a later reference to one
// goes to the provider as it came (which answers it as without swc); the
// items of other responses, and those of the same id for another tenant,
// stay. A DELETE the upstream refuses forgets nothing.
func TestProxyResponsesDeletedItems(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			e := newProxyEnv(t)
			other := e.newKey("other")
			n, deleteStatus := 0, 0
			e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
				if r.Method == http.MethodDelete {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(deleteStatus)
					fmt.Fprintf(w, `{"id":%q,"object":"response","deleted":true}`, strings.TrimPrefix(r.URL.Path, "/v1/responses/"))
					return
				}
				n++
				// Each tenant's answers are resp_1, resp_2, …, as two
				// accounts upstream would number them here.
				id := n
				if strings.Contains(string(body), "other") {
					id = n - 2
				}
				msg := fmt.Sprintf(`{"type":"message","id":"msg_%d%s","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Answer %d.","annotations":[]}]}`, id, map[bool]string{true: "o"}[id != n], id)
				if !stream {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"id":"resp_%d","object":"response","status":"completed","output":[%s]}`, id, msg)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_%d\",\"status\":\"in_progress\",\"output\":[]}}\n\n", id)
				fmt.Fprintf(w, "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":%s}\n\n", msg)
			}
			ask := func(key, text string) {
				t.Helper()
				resp := e.post(t, "/v1/responses", fmt.Sprintf(`{"model":"gpt-4.1","stream":%v,"input":%q}`, stream, text), "Authorization: Bearer "+key)
				if readAll(t, resp); resp.StatusCode != 200 {
					t.Fatalf("status %d", resp.StatusCode)
				}
			}
			ask(e.key, "first")   // resp_1, msg_1
			ask(e.key, "second")  // resp_2, msg_2
			ask(other, "other 1") // the other tenant's resp_1, msg_1o
			resolves := func(key, item string) bool {
				t.Helper()
				resp := e.post(t, "/v1/responses", `{"model":"gpt-4.1","input":[{"role":"user","content":"first"},{"type":"item_reference","id":"`+item+`"},{"role":"user","content":"and?"}]}`, "Authorization: Bearer "+key)
				readAll(t, resp)
				return resp.Header.Get(swchttp.HeaderMode) != "passthrough"
			}
			del := func(key, id string, status int) {
				t.Helper()
				deleteStatus = status
				resp := e.send(t, http.MethodDelete, "/v1/responses/"+id, "", "Authorization: Bearer "+key, "Content-Type:")
				if readAll(t, resp); resp.StatusCode != status {
					t.Fatalf("DELETE %s: status %d, want the upstream's %d", id, resp.StatusCode, status)
				}
			}
			if !resolves(e.key, "msg_1") || !resolves(e.key, "msg_2") || !resolves(other, "msg_1o") {
				t.Fatal("the items of the answers swc relayed do not resolve")
			}
			del(e.key, "resp_1", http.StatusInternalServerError)
			if !resolves(e.key, "msg_1") {
				t.Error("a DELETE the upstream refused forgot the response's items")
			}
			del(e.key, "resp_1", http.StatusOK)
			if resolves(e.key, "msg_1") {
				t.Error("the item of a deleted response still resolves")
			}
			if !resolves(e.key, "msg_2") {
				t.Error("deleting resp_1 forgot resp_2's item")
			}
			if !resolves(other, "msg_1o") {
				t.Error("one tenant's DELETE of resp_1 forgot another tenant's resp_1 items")
			}
			del(other, "resp_1", http.StatusNotFound)
			if resolves(other, "msg_1o") {
				t.Error("the item of a response the upstream no longer has (404) still resolves")
			}
		})
	}
}
