package agents

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/swcmem/swc/internal/wiretest"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// HeaderSeq carries, from the agent's side of swc to the upstream, the
// number of the agent's request swc forwards: the upstream compares what
// swc forwarded with what the agent sent (Upstream.Original).
const HeaderSeq = "X-Agents-Seq"

// Upstream is the scripted provider on loopback. Build it with
// StartUpstream; set Original before the agent runs.
type Upstream struct {
	URL   string // http://127.0.0.1:PORT, without /v1
	Steps int    // tool-call steps before the final answer
	Dir   string // where the step files are (WriteStepFiles)
	// Images, when set, makes every Images-th step read step-NN.png
	// (ImageFile, WriteImageFiles), or with Ext ".pdf" step-NN.pdf
	// (WritePDFFiles), ".wav" step-NN.wav (WriteAudioFiles), with the agent's file reader (readTools) where the
	// request declares one: the agent sends the file back as its own tool
	// result holds one.
	Images int
	Ext    string // ".png" (""), ".pdf", ".wav"
	// Dump, when set, is a directory that receives every request body
	// (NNN.json, by request number) and the agent's own (NNN.agent.json).
	Dump string
	// ProseUpTo is, by protocol ("anthropic", "openai", "responses",
	// "gemini"), the last step whose call carries the script's reasoning
	// (Prose; 0: none); a protocol it does not list: every step's.
	ProseUpTo map[string]int
	// Original returns the body the agent sent for a request swc
	// forwarded (by its HeaderSeq value), or nil when unknown (the
	// agent called the upstream directly).
	Original func(seq string) []byte
	// RecallTools is swc_recall's definition swc appends to the tools of
	// a compressed request, by format ("anthropic", "openai",
	// "responses"; "gemini": to the functionDeclarations of the first
	// tools entry that has them); a format without one gets no
	// swc_recall.
	RecallTools map[string]string
	// Task, when set, is the agent's task as the person wrote it: a
	// forwarded request whose agent's own holds it must hold it too
	// (rule "task-kept": a tool loop sends its task verbatim, never
	// folded into a memory).
	Task string

	srv *httptest.Server
	mu  sync.Mutex
	n   int               // requests received
	st  Stats             // guarded by mu
	out map[string]call   // call id → what was sent with it
	sig map[string]string // thought signature → the call id it was sent with
	rs  map[string]string
	// items holds the Responses output items sent, by id: an agent may
	// send them back as item_reference (resolveRefs).
	items map[string]json.RawMessage
	// clipped holds the handles of the clipped turns seen (Stats.Clipped).
	clipped map[string]bool
	// clippedCalls holds the handles of the turns whose calls came with
	// long arguments clipped (Stats.ClippedCalls).
	clippedCalls map[string]bool
	seq          map[int]string     // request number → HeaderSeq
	got          []Received         // every request, in order
	uploads      map[string]*upload // the Files API's uploads, by id (files.go)
	files        []UploadedFile     // those received whole
}

// Received is one request the upstream got.
type Received struct {
	Seq  string // its HeaderSeq ("" when it came without one)
	Path string // method and path
	Body []byte
}

// call is what the upstream sent with one tool call.
type call struct {
	step      int
	thinking  []thinking // Anthropic: the thinking blocks before it
	item      string     // Responses: the function_call item's id
	reasoning string     // Responses: the reasoning item sent before it
	rec       *recallAsk // a call of swc_recall: what swc must answer
}

type thinking struct{ Thinking, Signature string }

// Stats is what the upstream saw.
type Stats struct {
	Requests int      // requests received
	Loop     int      // requests of the agent's loop (declaring a tool the script calls)
	Step     int      // the highest step whose tool result came back
	Finished bool     // the final answer went out after Steps steps
	Bytes    int      // body bytes of the last loop request
	Seq      string   // its HeaderSeq: which of the agent's requests it was
	Paths    []string // each request's method and path, in order
	Breaches []Breach
	Recall   RecallStats
	// Clipped counts the agent's turns the upstream received clipped
	// (their prose cut to a head and a handle, sameTurns), each once.
	Clipped int
	// ClippedCalls counts the agent's turns the upstream received with
	// their calls' long arguments clipped (a head and a handle, sameTurns),
	// each once; LongArgs says the script's calls had one to clip (a
	// description: Description).
	ClippedCalls int
	LongArgs     bool
	// Unreasoned is the most old Anthropic turns one request held whole
	// but without their thinking blocks (sameTurns); a clipped turn that
	// went without them counts in Clipped alone.
	Unreasoned int
	// Searches counts the replies that ran the API's own tool search
	// before calling a deferred tool (searchBlocks).
	Searches int
}

// Done is what the final answer says; the tests look for it in the
// agent's output.
const Done = "SWC-AGENTS-DONE"

// StartUpstream starts an upstream on 127.0.0.1 that runs steps steps over
// the step files of dir. Close it when done.
func StartUpstream(dir string, steps int) *Upstream {
	u := &Upstream{Steps: steps, Dir: dir, out: map[string]call{}, sig: map[string]string{}, rs: map[string]string{}, clipped: map[string]bool{}, seq: map[int]string{}}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	u.URL = u.srv.URL
	return u
}

// Close stops the server.
func (u *Upstream) Close() { u.srv.Close() }

// Stats returns what the upstream saw so far.
func (u *Upstream) Stats() Stats {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.st
	s.Paths = append([]string(nil), s.Paths...)
	s.Breaches = append([]Breach(nil), s.Breaches...)
	return s
}

// Received returns every request the upstream got so far, in order.
func (u *Upstream) Received() []Received {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Received(nil), u.got...)
}

// turn is what a request asks of the script, in any protocol.
type turn struct {
	format string // the protocol, as ProseUpTo names it
	n      int    // the request's number
	tools  []Tool // declared
	stream bool
	// answered is the call id of the last tool result when the request
	// ends with tool results, "" when it ends with the user's words.
	answered string
	thinking bool            // Anthropic: thinking enabled
	loaded   map[string]bool // Anthropic: the deferred tools the request loads (loadedTools)
	// ask, when set, is a call of swc_recall to make instead of the
	// script's next step (once a run).
	ask *recallAsk
}

// reply is the script's answer to a turn.
type reply struct {
	text  string // set for a text answer
	tool  Tool   // else the call: tool, id, JSON arguments, step
	id    string
	args  string
	step  int
	prose string     // the reasoning sent beside a step's call (Prose)
	rec   *recallAsk // a call of swc_recall
}

func (u *Upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	u.mu.Lock()
	u.n++
	n := u.n
	u.st.Requests = n
	u.st.Paths = append(u.st.Paths, r.Method+" "+r.URL.Path)
	u.seq[n] = r.Header.Get(HeaderSeq)
	u.got = append(u.got, Received{Seq: u.seq[n], Path: r.Method + " " + r.URL.Path, Body: body})
	u.mu.Unlock()
	var orig []byte
	if seq := r.Header.Get(HeaderSeq); seq != "" && u.Original != nil {
		orig = u.Original(seq)
	}
	if u.Dump != "" {
		os.WriteFile(filepath.Join(u.Dump, fmt.Sprintf("%03d.json", n)), body, 0o644)
		if orig != nil {
			os.WriteFile(filepath.Join(u.Dump, fmt.Sprintf("%03d.agent.json", n)), orig, 0o644)
		}
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodHead && p == "/": // a connectivity check
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, `{"object":"list","data":[{"type":"model","id":"claude-sonnet-4-6","display_name":"Claude Sonnet 4.6","created_at":"2026-02-17T00:00:00Z","object":"model","created":1771286400,"owned_by":"swc-agents"},{"type":"model","id":"gpt-5","display_name":"GPT-5","created_at":"2025-08-07T00:00:00Z","object":"model","created":1754524800,"owned_by":"swc-agents"}],"has_more":false,"first_id":"claude-sonnet-4-6","last_id":"gpt-5"}`)
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, `{"input_tokens":`+strconv.Itoa(len(body)/4)+`}`)
	case strings.HasSuffix(p, "/messages"):
		u.anthropic(w, r, n, body, orig)
	case strings.HasSuffix(p, "/responses"):
		u.responses(w, n, body, orig)
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, `{"totalTokens":`+strconv.Itoa(len(body)/4)+`}`)
	case strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent"):
		u.gemini(w, r, n, body, orig)
	case strings.HasSuffix(p, "/chat/completions"):
		u.chat(w, n, body, orig)
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/upload/") && strings.HasSuffix(p, "/files"):
		u.geminiUpload(w, r, n, body)
	case r.Method == http.MethodGet && strings.Contains(p, "/files/"):
		u.geminiFile(w, r, n, p[strings.LastIndex(p, "/")+1:])
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/interactions"):
		u.interactions(w, n, body, orig)
	default:
		u.breach(n, breaches{{Rule: "route", Detail: "no such route: " + r.Method + " " + p}})
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
	}
}

// next decides the script's answer to t and notes what it saw.
func (u *Upstream) next(t turn, size int) reply {
	tool, ok := pickTool(t.tools)
	if !ok {
		return reply{text: "ok"}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.st.Loop++
	u.st.Bytes, u.st.Seq = size, u.seq[t.n]
	step := 1
	if t.answered != "" {
		c, known := u.out[t.answered]
		if !known {
			u.st.Breaches = append(u.st.Breaches, Breach{Request: t.n, Rule: "tool-result-unknown", Detail: "the last tool result answers " + t.answered + ", a call the upstream never made"})
			return reply{text: "error"}
		}
		u.st.Step = max(u.st.Step, c.step)
		step = c.step + 1
	}
	if t.ask != nil && u.st.Recall.Handle == "" && step <= u.Steps {
		u.st.Recall.Handle, u.st.Recall.Request = t.ask.handle, t.n
		return recallReply(t.ask, t.n, step-1)
	}
	if step > u.Steps {
		u.st.Finished = true
		return reply{text: fmt.Sprintf("All %d step files are read. %s", u.Steps, Done)}
	}
	file := StepFile(u.Dir, step)
	if u.Images > 0 && step%u.Images == 0 {
		if reader, ok := pickReader(t.tools); ok {
			tool, file = reader, strings.TrimSuffix(ImageFile(u.Dir, step), ".png")+cmp.Or(u.Ext, ".png")
		}
	}
	args, err := callArguments(tool, file, step)
	if err != nil {
		u.st.Breaches = append(u.st.Breaches, Breach{Request: t.n, Rule: "tool", Detail: err.Error()})
		return reply{text: "error"}
	}
	u.st.LongArgs = u.st.LongArgs || strings.Contains(args, `"description":`)
	rep := reply{tool: tool, id: fmt.Sprintf("call_%02d_%04d", step, t.n), args: args, step: step, prose: Prose(step, tool.Name, file)}
	if last, ok := u.ProseUpTo[t.format]; ok && step > last {
		rep.prose = ""
	}
	return rep
}

// searched counts a reply that ran the API's tool search.
func (u *Upstream) searched() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.st.Searches++
}

// remember notes what went out with call id.
func (u *Upstream) remember(id string, c call) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.out[id] = c
	u.sig[sign(id)] = id
}

// signed returns the call id the upstream sent thought signature s with,
// or "" for one it did not send.
func (u *Upstream) signed(s string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sig[s]
}

// sent returns what went out with call id, if the upstream made it.
func (u *Upstream) sent(id string) (call, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	c, ok := u.out[id]
	return c, ok
}

func (u *Upstream) breach(n int, bs breaches) {
	if len(bs) == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, b := range bs {
		b.Request = n
		u.st.Breaches = append(u.st.Breaches, b)
	}
}

// sign is the signature of a thinking text (a real provider's is opaque;
// this one lets the upstream tell a kept block from an edited one).
func sign(text string) string {
	m := hmac.New(sha256.New, []byte("swc-agents"))
	m.Write([]byte(text))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, body)
}

// sse writes Server-Sent Events.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	return &sse{w: w}
}

// event writes one event; name "" writes a data line alone.
func (s *sse) event(name string, data any) {
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	switch d := data.(type) {
	case string:
		fmt.Fprintf(&b, "data: %s\n\n", d)
	default:
		j, _ := json.Marshal(d)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	s.w.Write(b.Bytes())
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// sameFields reports the top-level fields of orig, other than those swc
// owns (content), that fwd does not carry byte for byte, and those fwd
// adds.
func sameFields(fwd, orig []byte, content ...string) breaches {
	var bs breaches
	if orig == nil {
		return nil
	}
	var a, b map[string]json.RawMessage
	if json.Unmarshal(fwd, &a) != nil || json.Unmarshal(orig, &b) != nil {
		return nil // the protocol checks say so
	}
	own := map[string]bool{}
	for _, c := range content {
		own[c] = true
	}
	for k, v := range b {
		if own[k] {
			continue
		}
		if fv, ok := a[k]; !ok {
			bs.add("field-dropped", "the agent's field %q is not forwarded", k)
		} else if !bytes.Equal(fv, v) && !(k == "thinking" && wiretest.DropBlockAdded(fv, v)) {
			bs.add("field-changed", "the agent's field %q is forwarded changed (%d bytes → %d)", k, len(v), len(fv))
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok && !own[k] {
			bs.add("field-added", "field %q is forwarded, the agent did not send it", k)
		}
	}
	return bs
}

// lastRaw returns the raw last element of the array field of body, or nil.
func lastRaw(body []byte, field string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(m[field], &arr) != nil || len(arr) == 0 {
		return nil
	}
	return arr[len(arr)-1]
}

// sameLast reports when the last element of field differs between the
// forwarded body and the agent's: swc keeps the newest turn as it came.
func sameLast(fwd, orig []byte, field string) breaches {
	if orig == nil {
		return nil
	}
	a, b := lastRaw(fwd, field), lastRaw(orig, field)
	if b != nil && !bytes.Equal(a, b) {
		var bs breaches
		bs.add("last-changed", "the last element of %q is not forwarded byte for byte (%d bytes → %d)", field, len(b), len(a))
		return bs
	}
	return nil
}
