package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/rawjson"
	"github.com/swcmem/swc/tokens"
)

// Gemini is a Gemini API request body: generateContent's and
// streamGenerateContent's ({"contents":[…],"systemInstruction":…,"tools":…,
// "generationConfig":…,…}), or countTokens' (the same, or
// {"generateContentRequest":{…}} holding one).
//
// Its contents become messages:
//
//   - "systemInstruction" (or "system_instruction": the API reads either
//     spelling of every field) is the first system message, Origin -1;
//   - a content of role "user" (or no role, or the older "function") is a
//     user message of its text parts; its functionResponse parts are tool
//     messages answering the calls of the model content before it (by id,
//     else the first unanswered call of that name), placed before the
//     content's other parts, as Anthropic's tool_result blocks are;
//   - a content of role "model" is an assistant message of its text parts,
//     its functionCall parts its ToolCalls (the part's id, or
//     "gemini:<content>:<part>" when it has none; arguments the args JSON);
//   - thought parts, inlineData, fileData and parts of a type swc does not
//     know stand as placeholders ("[thought]", "[inlineData image/png]"),
//     an image or a PDF counted as Gemini counts it (geminiMediaTokens;
//     swc.Message.MediaTokens); executableCode and codeExecutionResult as
//     their code and output;
//   - a functionResponse's own parts (the media a tool returned, as Gemini
//     CLI sends an image read_file read to a Gemini 3 model) stand as
//     placeholders after its response's text, counted in its tool message.
//
// Raw holds each content byte for byte (thought signatures included), Body
// the top-level fields, so that kept contents go back unchanged.
const Gemini Format = "gemini"

// geminiSyntheticID returns the id swc gives the functionCall at part j of
// content i when the part has none.
func geminiSyntheticID(i, j int) string { return fmt.Sprintf("gemini:%d:%d", i, j) }

// GeminiField returns the value of field name (camelCase) in obj, or of its
// snake_case spelling, which the API accepts as well, and the key found ("" when
// neither is there).
func GeminiField(obj map[string]json.RawMessage, name string) (json.RawMessage, string) {
	if v, ok := obj[name]; ok {
		return v, name
	}
	snake := snakeCase(name)
	if v, ok := obj[snake]; ok {
		return v, snake
	}
	return nil, ""
}

func snakeCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// GeminiRequest returns the fields of the generateContent request a body
// holds: the body's own, or those of its "generateContentRequest" (a
// countTokens body), with nested true. It returns an EINVALID error when
// the body is not a JSON object or holds no contents.
func GeminiRequest(body map[string]json.RawMessage) (req map[string]json.RawMessage, nested bool, err error) {
	if c, _ := GeminiField(body, "contents"); c != nil {
		return body, false, nil
	}
	g, _ := GeminiField(body, "generateContentRequest")
	if g == nil {
		return nil, false, swc.Errorf(swc.EINVALID, "request body has no \"contents\" (nor a \"generateContentRequest\" holding them)")
	}
	if err := decodeMap(g, &req); err != nil || req == nil {
		return nil, false, swc.Errorf(swc.EINVALID, "generateContentRequest: want an object, got %s", kind(g))
	}
	if c, _ := GeminiField(req, "contents"); c == nil {
		return nil, false, swc.Errorf(swc.EINVALID, "generateContentRequest has no \"contents\"")
	}
	return req, true, nil
}

// geminiCall is a functionCall of the last model content, until answered.
type geminiCall struct {
	id, name string
	answered bool
}

// parseGemini reads a Gemini request body to model ("" when unknown:
// counted as Gemini 3 counts).
func parseGemini(data []byte, rd reading) (*Input, error) {
	in := &Input{}
	if len(data) == 0 || data[0] != '{' {
		return nil, swc.Errorf(swc.EINVALID, "gemini input is a generateContent request body (a JSON object with \"contents\"), got %s", kind(data))
	}
	if err := decodeMap(data, &in.Body); err != nil || in.Body == nil {
		return nil, swc.Errorf(swc.EINVALID, "not one JSON object (%s): gemini input is a generateContent request body", errText(err))
	}
	req, nested, err := GeminiRequest(in.Body)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if nested {
		prefix = "generateContentRequest."
	}
	if sys, key := GeminiField(req, "systemInstruction"); sys != nil && string(sys) != "null" {
		text, err := geminiSystem(sys, prefix+key)
		if err != nil {
			return nil, err
		}
		if text != "" {
			in.Messages = append(in.Messages, swc.Message{Role: swc.RoleSystem, Content: text})
			in.Where = append(in.Where, prefix+key)
			in.Origin = append(in.Origin, -1)
		}
	}
	contents, _ := GeminiField(req, "contents")
	contents = bytes.TrimSpace(contents)
	if len(contents) == 0 || contents[0] != '[' {
		return nil, swc.Errorf(swc.EINVALID, "%scontents: want an array, got %s", prefix, kind(contents))
	}
	elems, where, _, err := splitTop(contents, prefix+"contents")
	if err != nil {
		return nil, err
	}
	in.Raw = elems
	var open []geminiCall
	res := geminiMedia{level: geminiResolution(req), legacy: geminiLegacy(rd.model), files: rd.files}
	for i, raw := range elems {
		if err := parseGeminiContent(in, raw, i, where[i], res, &open); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func errText(err error) string {
	if err == nil {
		return "null"
	}
	return jsonErr(err)
}

// geminiContent returns a content's role ("user" for none or "function") and
// its parts, or an EINVALID error naming where.
func geminiContent(raw json.RawMessage, where string) (role string, parts []map[string]json.RawMessage, err error) {
	var c map[string]json.RawMessage
	if err := decodeMap(raw, &c); err != nil || c == nil {
		return "", nil, swc.Errorf(swc.EINVALID, "%s: want a content object, got %s", where, kind(raw))
	}
	if r, ok := c["role"]; ok && string(r) != "null" {
		if err := rawjson.Unquote(r, &role); err != nil {
			return "", nil, swc.Errorf(swc.EINVALID, "%s.role: want a string, got %s", where, kind(r))
		}
	}
	switch role {
	case "", "user", "function":
		role = "user"
	case "model":
	default:
		return "", nil, swc.Errorf(swc.EINVALID, "%s.role: %q is not a Gemini content role (want user or model; the system prompt goes in \"systemInstruction\")", where, role)
	}
	parts, err = geminiParts(c, where)
	return role, parts, err
}

// geminiParts returns the parts of content c.
func geminiParts(c map[string]json.RawMessage, where string) ([]map[string]json.RawMessage, error) {
	p, ok := c["parts"]
	if !ok || string(p) == "null" {
		return nil, nil
	}
	rawParts, err := rawjson.Array(p)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "%s.parts: want an array of parts, got %s", where, kind(p))
	}
	parts := make([]map[string]json.RawMessage, len(rawParts))
	for j, rp := range rawParts {
		if err := decodeMap(rp, &parts[j]); err != nil || parts[j] == nil {
			return nil, swc.Errorf(swc.EINVALID, "%s.parts[%d]: want a part object, got %s", where, j, kind(rp))
		}
	}
	return parts, nil
}

type geminiFunction struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Args     json.RawMessage   `json:"args"`
	Response json.RawMessage   `json:"response"`
	Parts    []json.RawMessage `json:"parts"`
}

// parseGeminiContent reads content i; res is how the request's media
// count. The content is decoded (decodeGeminiContentMemo: the same
// content resent by the next request is read once), then its calls and
// responses are paired with the open calls of the model's content before
// (open).
func parseGeminiContent(in *Input, raw json.RawMessage, i int, where string, res geminiMedia, open *[]geminiCall) error {
	dc, err := decodeGeminiContentMemo(raw, where, res)
	if err != nil {
		return err
	}
	add := func(m swc.Message, w string) {
		in.Messages = append(in.Messages, m)
		in.Where = append(in.Where, w)
		in.Origin = append(in.Origin, i)
	}
	main := swc.Message{Role: swc.RoleUser}
	if dc.model {
		main.Role = swc.RoleAssistant
		*open = (*open)[:0]
	}
	var texts []string
	hasMain := false
	for j := range dc.parts {
		p := &dc.parts[j]
		switch {
		case p.call != nil:
			id := p.call.ID
			if id == "" {
				id = geminiSyntheticID(i, j)
			}
			main.ToolCalls = append(main.ToolCalls, swc.ToolCall{ID: id, Name: p.call.Name, Arguments: p.call.args})
			*open = append(*open, geminiCall{id: id, name: p.call.Name})
			hasMain = true
		case p.resp != nil:
			pw := where + ".parts[" + strconv.Itoa(j) + "]"
			id, ok := answer(*open, p.resp.ID, p.resp.Name)
			if !ok {
				return swc.Errorf(swc.EINVALID, "%s.%s: answers no functionCall of the model content before it (name %q, id %q)", pw, p.key, p.resp.Name, p.resp.ID)
			}
			add(swc.Message{Role: swc.RoleTool, Content: p.resp.text, ToolCallID: id, Name: p.resp.Name, MediaTokens: p.resp.media}, pw)
		default:
			texts = append(texts, p.text)
			main.MediaTokens += p.media
			hasMain = true
		}
	}
	main.Content = strings.Join(texts, "\n")
	if hasMain || len(dc.parts) == 0 {
		add(main, where)
	}
	return nil
}

// answer marks the open call a functionResponse answers, by id, else the
// first unanswered call of its name, and returns the call's id.
func answer(open []geminiCall, id, name string) (string, bool) {
	if id != "" {
		for k := range open {
			if !open[k].answered && open[k].id == id {
				open[k].answered = true
				return id, true
			}
		}
	}
	for k := range open {
		if !open[k].answered && open[k].name == name {
			open[k].answered = true
			return open[k].id, true
		}
	}
	return "", false
}

// geminiResponseText returns a functionResponse's response as text: the
// string of {"output": text} (the shape Gemini CLI and swc's rewrite write),
// "[error] " and the string of {"error": text}, or the object's JSON.
func geminiResponseText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var obj map[string]json.RawMessage
	if decodeMap(raw, &obj) == nil && len(obj) == 1 {
		var s string
		if v, ok := obj["output"]; ok && rawjson.Unquote(v, &s) == nil {
			return s
		}
		if v, ok := obj["error"]; ok && rawjson.Unquote(v, &s) == nil {
			return "[error] " + s
		}
	}
	return string(raw)
}

// geminiPartText returns the text a part stands for in a message: its
// text, a placeholder for a thought, media or an unknown part, and the
// code or output of code execution.
func geminiPartText(p map[string]json.RawMessage) string {
	var thought bool
	if v, _ := GeminiField(p, "thought"); v != nil {
		json.Unmarshal(v, &thought)
	}
	if v, _ := GeminiField(p, "text"); v != nil {
		if thought {
			return placeholder("thought")
		}
		var s string
		rawjson.Unquote(v, &s)
		return s
	}
	for _, media := range []string{"inlineData", "fileData"} {
		if v, _ := GeminiField(p, media); v != nil {
			var d struct {
				MIMEType  string `json:"mimeType"`
				MIMEType2 string `json:"mime_type"`
			}
			json.Unmarshal(v, &d)
			mt := d.MIMEType + d.MIMEType2
			if mt == "" {
				return placeholder(media)
			}
			return "[" + media + " " + mt + "]"
		}
	}
	if v, _ := GeminiField(p, "executableCode"); v != nil {
		var c struct {
			Language string `json:"language"`
			Code     string `json:"code"`
		}
		json.Unmarshal(v, &c)
		return "[executableCode " + c.Language + "]\n" + c.Code
	}
	if v, _ := GeminiField(p, "codeExecutionResult"); v != nil {
		var c struct {
			Outcome string `json:"outcome"`
			Output  string `json:"output"`
		}
		json.Unmarshal(v, &c)
		return "[codeExecutionResult " + c.Outcome + "]\n" + c.Output
	}
	if thought {
		return placeholder("thought")
	}
	return placeholder(geminiPartType(p))
}

// geminiMedia is how a request's media count: its
// generationConfig.mediaResolution (upper-cased, "" for none) and whether
// its model counts as Gemini models before 3 did.
type geminiMedia struct {
	level  string
	legacy bool
	files  FileLengths // the lengths of audio and video named by URI (nil: unknown)
}

// geminiLegacy reports whether model (a request's, "" when unknown)
// counts media as Gemini models before 3 did: gemini-1.x and gemini-2.x.
func geminiLegacy(model string) bool {
	m := strings.ToLower(strings.TrimPrefix(model, "models/"))
	return strings.HasPrefix(m, "gemini-1") || strings.HasPrefix(m, "gemini-2")
}

// geminiMediaTokens returns what a media part (inlineData or fileData)
// counts under res: an image/* one as Gemini 3 counts an image, by the
// part's mediaResolution (its numTokens when it gives some, else its
// level when swc knows it), else by the request's level, else high
// (geminiLevelTokens); an application/pdf one that a page, else medium
// (geminiPDFPageTokens; one page when swc cannot read the file); 0 for
// other parts (audio, video: their placeholders). Gemini 3 gives an image
// the level's tokens whatever its size. For a model before Gemini 3
// (res.legacy) an image or a page counts 64 at level low, 256 at medium
// or high, else an image 258 a 768-pixel tile (geminiTileTokens) and a
// page 258.
func geminiMediaTokens(p map[string]json.RawMessage, res geminiMedia) int {
	for _, media := range []string{"inlineData", "fileData"} {
		v, _ := GeminiField(p, media)
		if v == nil {
			continue
		}
		var d struct {
			MIMEType  string `json:"mimeType"`
			MIMEType2 string `json:"mime_type"`
			Data      string `json:"data"`
			URI       string `json:"fileUri"`
			URI2      string `json:"file_uri"`
		}
		json.Unmarshal(v, &d)
		level, n := geminiPartResolution(p)
		if _, ok := geminiLevelTokens[level]; !ok {
			level = res.level
		}
		levels := geminiLevelTokens
		if res.legacy {
			levels = geminiLegacyLevelTokens
		}
		t, leveled := levels[level]
		switch mt := strings.ToLower(d.MIMEType + d.MIMEType2); { // MIME types are case-insensitive
		case mt == "application/pdf":
			page := geminiPDFPageTokens
			if res.legacy {
				page = geminiTile
			}
			if leveled {
				page = t
			}
			if n > 0 {
				page = n
			}
			return pdfTokens(d.Data, page)
		case strings.HasPrefix(mt, "image/"):
			switch {
			case n > 0:
				return n
			case leveled:
				return t
			case res.legacy:
				return geminiTileTokens(d.Data)
			}
			return geminiImageDefault
		case d.Data == "": // a file's URI: its length is not in the request, but may be known
			var f MediaFile
			ok := false
			if res.files != nil && d.URI+d.URI2 != "" && (mt == "" || strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/")) {
				f, ok = res.files(d.URI + d.URI2) // only audio and video have a length to tell
			}
			if mt == "" {
				mt = strings.ToLower(f.MIMEType) // a part may leave its MIME type out; the file has one
			}
			switch {
			case !ok:
			case strings.HasPrefix(mt, "audio/"):
				return int(math.Ceil(f.Seconds * geminiAudioRate))
			case strings.HasPrefix(mt, "video/"):
				return geminiVideoTokens(p, f.Seconds, level, n, res.legacy)
			}
		case strings.HasPrefix(mt, "audio/"):
			if bps, ok := pcmBytesPerSecond(mt); ok {
				return int(math.Ceil(pcmSeconds(d.Data, bps) * geminiAudioRate))
			}
			return int(math.Ceil(mediaLength(d.Data, false) * geminiAudioRate))
		case strings.HasPrefix(mt, "video/"):
			return geminiVideoTokens(p, mediaLength(d.Data, true), level, n, res.legacy)
		}
		return 0
	}
	return 0
}

// geminiVideoTokens returns what a video of secs seconds counts: a frame
// a second (the part's videoMetadata fps), cut to its startOffset and
// endOffset, each frame n tokens when the part gives n, else 70 (Gemini
// 3 at low, medium or no level) or 280 (high), 258 (before Gemini 3;
// 66 at low), and its sound 32 tokens a second.
func geminiVideoTokens(p map[string]json.RawMessage, secs float64, level string, n int, legacy bool) int {
	var fps float64
	var start, end string
	if v, _ := GeminiField(p, "videoMetadata"); v != nil {
		var vm map[string]json.RawMessage
		json.Unmarshal(v, &vm)
		for name, to := range map[string]any{"fps": &fps, "startOffset": &start, "endOffset": &end} {
			if f, _ := GeminiField(vm, name); f != nil {
				json.Unmarshal(f, to)
			}
		}
	}
	if e, ok := offsetSeconds(end); ok && e < secs {
		secs = e
	}
	if s, ok := offsetSeconds(start); ok {
		secs = max(0, secs-s)
	}
	if fps <= 0 {
		fps = 1
	}
	fps = min(fps, 60)
	frame := n
	if frame <= 0 {
		switch {
		case legacy && level == "MEDIA_RESOLUTION_LOW":
			frame = 66
		case legacy:
			frame = geminiTile
		case level == "MEDIA_RESOLUTION_HIGH" || level == "MEDIA_RESOLUTION_ULTRA_HIGH":
			frame = 280
		default:
			frame = 70
		}
	}
	return int(math.Ceil(secs*fps))*frame + int(math.Ceil(secs*geminiAudioRate))
}

// offsetSeconds reads a protobuf Duration's JSON ("12.5s").
func offsetSeconds(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	return v, err == nil && strings.HasSuffix(s, "s") && v >= 0
}

// geminiTile is what a 768-pixel tile of an image, or a PDF's page,
// counts for a Gemini model before 3; geminiLegacyLevelTokens what an
// image or a page counts there at a media resolution level.
const geminiTile = 258

var geminiLegacyLevelTokens = map[string]int{
	"MEDIA_RESOLUTION_LOW": 64, "MEDIA_RESOLUTION_MEDIUM": 256, "MEDIA_RESOLUTION_HIGH": 256,
}

// geminiTileTokens returns what an image (base64 data) counts for a
// Gemini model before 3: 258 when neither side is over 384 pixels, else
// 258 a 768-pixel tile; four tiles (a 1,536-pixel square) when swc cannot
// read its size (a fileData URI, a format other than PNG, JPEG or GIF).
func geminiTileTokens(data string) int {
	w, h, ok := imageSize(data)
	switch {
	case !ok || w <= 0 || h <= 0:
		return 4 * geminiTile
	case w <= 384 && h <= 384:
		return geminiTile
	}
	return ((w + 767) / 768) * ((h + 767) / 768) * geminiTile
}

// geminiLevelTokens is what an image (or a PDF's page) counts at each
// media resolution level under Gemini 3; geminiImageDefault an image's
// count at none (high, Gemini 3's default for images).
var geminiLevelTokens = map[string]int{
	"MEDIA_RESOLUTION_LOW": 280, "MEDIA_RESOLUTION_MEDIUM": 560,
	"MEDIA_RESOLUTION_HIGH": 1120, "MEDIA_RESOLUTION_ULTRA_HIGH": 2240,
}

const geminiImageDefault = 1120

// geminiResolution returns a request's generationConfig.mediaResolution,
// upper-cased ("" for none).
func geminiResolution(req map[string]json.RawMessage) string {
	gc, _ := GeminiField(req, "generationConfig")
	var cfg map[string]json.RawMessage
	if gc == nil || json.Unmarshal(gc, &cfg) != nil {
		return ""
	}
	v, _ := GeminiField(cfg, "mediaResolution")
	var s string
	if v == nil || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return strings.ToUpper(s)
}

// geminiPartResolution returns a part's own mediaResolution (Gemini 3:
// {"level": "MEDIA_RESOLUTION_LOW"} or {"numTokens": 70}): its level,
// upper-cased, and its tokens (0 for none).
func geminiPartResolution(p map[string]json.RawMessage) (string, int) {
	v, _ := GeminiField(p, "mediaResolution")
	var r map[string]json.RawMessage
	if v == nil || json.Unmarshal(v, &r) != nil {
		return "", 0
	}
	var level string
	var n int
	if l, _ := GeminiField(r, "level"); l != nil {
		json.Unmarshal(l, &level)
	}
	if t, _ := GeminiField(r, "numTokens"); t != nil {
		json.Unmarshal(t, &n)
	}
	return strings.ToUpper(level), min(max(n, 0), 1<<20)
}

// geminiThoughtTokens returns the tokens (cl100k_base) of a thought
// part's text, which its message holds as "[thought]"; 0 for other parts.
func geminiThoughtTokens(p map[string]json.RawMessage) int {
	var thought bool
	if v, _ := GeminiField(p, "thought"); v == nil || json.Unmarshal(v, &thought) != nil || !thought {
		return 0
	}
	v, _ := GeminiField(p, "text")
	var s string
	if v == nil || json.Unmarshal(v, &s) != nil {
		return 0
	}
	return tokens.CountCached(s)
}

// geminiMeta are the fields a part may carry besides its data.
var geminiMeta = map[string]bool{
	"thought": true, "thoughtSignature": true, "thought_signature": true, "partMetadata": true, "part_metadata": true,
	"videoMetadata": true, "video_metadata": true, "mediaResolution": true, "media_resolution": true,
}

// geminiPartType names a part by its data field (the first in name order
// that is not metadata), "" when it has none.
func geminiPartType(p map[string]json.RawMessage) string {
	typ := ""
	for k := range p {
		if !geminiMeta[k] && (typ == "" || k < typ) {
			typ = k
		}
	}
	return typ
}

// geminiSystem reads systemInstruction: a content's text parts (a string
// is read as well).
func geminiSystem(raw json.RawMessage, where string) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(raw, &c); err != nil || c == nil {
		return "", swc.Errorf(swc.EINVALID, "%s: want a content object with text parts, got %s", where, kind(raw))
	}
	parts, err := geminiParts(c, where)
	if err != nil {
		return "", err
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, geminiPartText(p))
	}
	return strings.Join(texts, "\n"), nil
}
