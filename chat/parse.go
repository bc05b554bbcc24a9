package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/rawjson"
)

// Input is a parsed message list and what is needed to send it back
// unchanged.
type Input struct {
	Format   Format
	Messages []swc.Message
	// Where[i] names where Messages[i] came from ("messages[3]", "line 4",
	// "messages[2].content[1]"); errors quote it.
	Where []string
	// Origin[i] is the index, in Raw, of the source message Messages[i]
	// came from. An Anthropic message with tool_result blocks becomes
	// several messages with one origin.
	Origin []int
	// Raw holds the source messages (openai and anthropic) byte for byte,
	// so that messages kept by compression can be passed on unchanged.
	Raw []json.RawMessage
	// Body is the request body's top-level fields when the input was a
	// request body ("model", "tools", "system", …; "messages" included).
	// Raw elements and Body values are copies of the input, though they
	// may share one array (see ParseOwned): read them, never write into
	// them. The texts of Messages are strings of their own.
	Body map[string]json.RawMessage
	// Request is the whole request body and Span the offsets of its
	// message list in it ("input"), so that a compressed list can be
	// written back with every other byte as it came (responses only).
	Request []byte
	Span    [2]int
	// Warnings are usable oddities, for stderr.
	Warnings []string
}

// Parse reads data in format f (Auto detects it) into an Input whose
// messages passed Validate. It returns an EINVALID error naming the
// message index and field for bad input, and for the locomo format (which
// holds conversations, not messages: use the locomo package).
func Parse(data []byte, f Format) (*Input, error) {
	return parse(data, f, true, false, reading{})
}

// ParseOwned is Parse for data the caller hands over, such as a request
// body read for this call alone, and returns what Parse returns. Raw
// elements and Body values are slices of data itself rather than of a
// copy, so data must not be written to while the Input is in use. The
// messages' texts are copies of their own either way: a message kept
// after the request (in a memo, a store's state) keeps its texts in
// memory, not the whole body.
func ParseOwned(data []byte, f Format) (*Input, error) {
	return parse(data, f, true, true, reading{})
}

// ParseOwnedModel is ParseOwned for a request to model, the one its URL
// names (a Gemini request's …/models/MODEL:generateContent; URLModel
// reads it): a Gemini request's media count as that model counts them
// (Gemini before 3: an image by 768-pixel tiles). The other formats read
// the same as with ParseOwned; an Interactions body names its own model.
func ParseOwnedModel(data []byte, f Format, model string) (*Input, error) {
	return parse(data, f, true, true, reading{model: model})
}

// FileLengths tells what is known of an audio or video file a request
// names by URI (a Gemini fileData part's fileUri, an Interactions media
// object's uri), ok false when nothing is: the request holds only the
// URI, and the Files API that answered its upload or a read of it said
// how long it is.
type FileLengths func(uri string) (f MediaFile, ok bool)

// MediaFile is an audio or video file as the Gemini Files API describes
// it: its length and its MIME type (which tells how a part naming it
// without one of its own counts).
type MediaFile struct {
	Seconds  float64
	MIMEType string
}

// ParseOwnedFiles is ParseOwnedModel with files telling the lengths of
// the audio and video a Gemini or Interactions request names by URI, so
// that they count as Gemini counts them (nil, or a URI it does not know:
// they count nothing).
func ParseOwnedFiles(data []byte, f Format, model string, files FileLengths) (*Input, error) {
	return parse(data, f, true, true, reading{model: model, files: files})
}

// reading is what a request is read with beside its body: the model its
// URL names ("" when unknown) and the lengths of the files it names.
type reading struct {
	model string
	files FileLengths
}

// URLModel returns the model a request path names as Gemini's do
// (".../models/gemini-2.5-flash:generateContent" → "gemini-2.5-flash"),
// "" for a path that names none.
func URLModel(path string) string {
	_, rest, ok := strings.Cut(path, "/models/")
	if !ok {
		return ""
	}
	model, _, ok := strings.Cut(rest, ":")
	if !ok || strings.Contains(model, "/") {
		return ""
	}
	return model
}

// ParseBatch is Parse for a batch appended to a stored conversation: its
// messages pass ValidateBatch instead of Validate (a tool call may end
// the batch; its result may come in the next one).
func ParseBatch(data []byte, f Format) (*Input, error) {
	return parse(data, f, false, false, reading{})
}

func parse(data []byte, f Format, strict, owned bool, rd reading) (*Input, error) {
	if f == "" || f == Auto {
		var err error
		if f, err = Detect(data); err != nil {
			return nil, err
		}
	}
	data = bytes.TrimSpace(trimBOM(data))
	if in := parseFast(data, f, owned); in != nil {
		in.Format = f
		if err := validate(in.Messages, in.Where, strict, true); err != nil {
			return nil, err
		}
		return in, nil
	}
	in, err := parseGeneral(data, f, rd)
	if err != nil {
		return nil, err
	}
	if err := validate(in.Messages, in.Where, strict, false); err != nil {
		return nil, err
	}
	return in, nil
}

// parseGeneral is Parse for trimmed data in a known format (not yet
// validated), without the fast path: the parsers for every shape each format accepts, and the
// error messages for bad input.
func parseGeneral(data []byte, f Format, rd reading) (*Input, error) {
	var in *Input
	var err error
	if c, ok := CodecOf(f); ok {
		in, err = c.parse(data, rd)
	} else {
		switch f {
		case JSONL:
			in, err = parseJSONL(data)
		case LoCoMo:
			return nil, swc.Errorf(swc.EINVALID, "locomo input holds conversations, not messages: load it with the locomo package")
		default:
			return nil, swc.Errorf(swc.EINVALID, "unknown format %q", f)
		}
	}
	if err != nil {
		return nil, err
	}
	in.Format = f
	return in, nil
}

// splitTop returns the elements of a JSON array, or the lines of JSONL
// (with their names "line N"), checking each is valid UTF-8. jsonlOK says
// whether JSONL is accepted.
func splitTop(data []byte, what string) (elems []json.RawMessage, where []string, isLines bool, err error) {
	if len(data) == 0 {
		return nil, nil, false, swc.Errorf(swc.EINVALID, "empty input: no messages")
	}
	if data[0] == '[' {
		var err error
		if elems, err = rawjson.Array(data); err != nil {
			return nil, nil, false, swc.Errorf(swc.EINVALID, "%s: not a JSON array: %s", what, jsonErr(err))
		}
		where = make([]string, len(elems))
		for i, e := range elems {
			where[i] = fmt.Sprintf("%s[%d]", what, i)
			if !utf8.Valid(e) {
				return nil, nil, false, swc.Errorf(swc.EINVALID, "%s: not valid UTF-8", where[i])
			}
		}
		return elems, where, false, nil
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		w := fmt.Sprintf("line %d", n+1)
		if !utf8.Valid(line) {
			return nil, nil, true, swc.Errorf(swc.EINVALID, "%s: not valid UTF-8", w)
		}
		if line[0] != '{' || !json.Valid(line) {
			return nil, nil, true, swc.Errorf(swc.EINVALID, "%s: not a JSON object", w)
		}
		elems = append(elems, json.RawMessage(line))
		where = append(where, w)
	}
	return elems, where, true, nil
}

// meta is what every message format may carry besides its content.
type meta struct {
	ID        json.RawMessage `json:"id"`
	Timestamp json.RawMessage `json:"timestamp"`
	CreatedAt json.RawMessage `json:"created_at"`
	Session   json.RawMessage `json:"session"`
}

// apply sets m's ID, Time and Session from the metadata, or returns an
// error naming the field.
func (md meta) apply(m *swc.Message, where string) error {
	var err error
	if m.ID, err = scalar(md.ID); err != nil {
		return swc.Errorf(swc.EINVALID, "%s.id: %v", where, err)
	}
	if m.Session, err = scalar(md.Session); err != nil {
		return swc.Errorf(swc.EINVALID, "%s.session: %v", where, err)
	}
	if len(md.Timestamp) > 0 && string(md.Timestamp) != "null" {
		if m.Time, err = parseTime(md.Timestamp, false); err != nil {
			return swc.Errorf(swc.EINVALID, "%s.timestamp: %v", where, err)
		}
	} else if len(md.CreatedAt) > 0 && string(md.CreatedAt) != "null" {
		if m.Time, err = parseTime(md.CreatedAt, true); err != nil {
			return swc.Errorf(swc.EINVALID, "%s.created_at: %v", where, err)
		}
	}
	return nil
}

// scalar reads a string or number as text ("" for absent or null).
func scalar(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("want a string or number, got %s", kind(raw))
}

// parseTime reads an RFC 3339 string or, when unix is true, Unix seconds
// (a number or a numeric string).
func parseTime(raw json.RawMessage, unix bool) (time.Time, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
		if unix {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				return unixTime(f)
			}
			return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor Unix seconds", s)
		}
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time (such as 2024-05-07T14:30:00Z)", s)
	}
	var f float64
	if unix && json.Unmarshal(raw, &f) == nil {
		return unixTime(f)
	}
	if unix {
		return time.Time{}, fmt.Errorf("want an RFC 3339 string or Unix seconds, got %s", kind(raw))
	}
	return time.Time{}, fmt.Errorf("want an RFC 3339 string, got %s", kind(raw))
}

func unixTime(f float64) (time.Time, error) {
	// Years 1970–9999; milliseconds would land past 9999.
	if f < 0 || f > 253402300799 {
		return time.Time{}, fmt.Errorf("%v is out of range for Unix seconds", f)
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), nil
}

// kind names the JSON type of raw for errors.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// placeholder stands for a content part that is not text.
func placeholder(typ string) string {
	if typ == "" {
		typ = "untyped part"
	}
	return "[" + typ + "]"
}

// reasoningPlaceholders are the placeholders of a turn's reasoning
// parts, which an old turn of a tool loop may go without
// (StripReasoning): Anthropic's thinking blocks, Gemini's thought parts.
var reasoningPlaceholders = [...]string{"[thinking]", "[redacted_thinking]", "[thought]"}

// StripReasoning returns text, a message's Content, without the lines
// that are placeholders of reasoning parts (Anthropic's "[thinking]",
// "[redacted_thinking]", Gemini's "[thought]"), and whether it held any.
// The providers want reasoning back only in the turn whose tool calls
// the request answers; a rewrite of an older turn whose new text holds no
// such line goes without it: the Anthropic writer drops its thinking
// blocks, the Gemini writer its thought parts that carry no signature.
func StripReasoning(text string) (rest string, had bool) {
	if !strings.Contains(text, "thinking]") && !strings.Contains(text, "[thought]") {
		return text, false
	}
	var kept []string
	for line := range strings.SplitSeq(text, "\n") {
		if isReasoningLine(line) {
			had = true
			continue
		}
		kept = append(kept, line)
	}
	if !had {
		return text, false
	}
	return strings.Join(kept, "\n"), true
}

func isReasoningLine(line string) bool {
	for _, p := range reasoningPlaceholders {
		if line == p {
			return true
		}
	}
	return false
}

// holdsReasoning reports whether text holds a reasoning placeholder line.
func holdsReasoning(text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if isReasoningLine(line) {
			return true
		}
	}
	return false
}

// HasPlaceholder reports whether text, a message's Content, holds a line
// that is a placeholder for a part that is not text ("[thinking]",
// "[image]"): its text is then not all of the message, and a rewrite of
// it (Output.Rewritten) cannot say where each part goes.
func HasPlaceholder(text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if IsPlaceholder(line) {
			return true
		}
	}
	return false
}

// IsPlaceholder reports whether line is a placeholder of a part that is
// not text, as the readers write one: a type in brackets ("[image]",
// "[untyped part]"), or a Gemini media part with its MIME type
// ("[inlineData image/png]").
func IsPlaceholder(line string) bool {
	if len(line) < 3 || line[0] != '[' || line[len(line)-1] != ']' {
		return false
	}
	if strings.HasPrefix(line, "[inlineData ") || strings.HasPrefix(line, "[fileData ") {
		return true // a Gemini media part with its MIME type (geminiPartText)
	}
	inner := line[1 : len(line)-1]
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_' || c == ' ' || c == '-') {
			return false
		}
	}
	return true
}
