package agents

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Tool is a tool a request declares: its name and its parameters' JSON
// schema.
type Tool struct {
	Name   string
	Schema json.RawMessage
}

// shellTools and readTools are the tools the script calls, best first:
// a shell that can print a file, else a file reader.
var (
	shellTools = []string{"Bash", "bash", "shell", "shell_command", "exec_command", "run_shell_command", "run_commands"}
	readTools  = []string{"Read", "read", "read_file", "view"}
)

// pickTool returns the tool of tools the script calls, or false when the
// request declares none it can use.
func pickTool(tools []Tool) (Tool, bool) {
	for _, names := range [][]string{shellTools, readTools} {
		for _, n := range names {
			if i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == n }); i >= 0 {
				return tools[i], true
			}
		}
	}
	return Tool{}, false
}

// pickReader returns the file reader of tools (readTools, or Codex's
// view_image, which reads pictures alone), or false.
func pickReader(tools []Tool) (Tool, bool) {
	for _, n := range append(readTools[:len(readTools):len(readTools)], "view_image") {
		if i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == n }); i >= 0 {
			return tools[i], true
		}
	}
	return Tool{}, false
}

// callArguments returns the JSON arguments of a call of t that prints
// file: each required parameter (and command, cmd and a path, wherever
// declared) filled by its name and type.
func callArguments(t Tool, file string, step int) (string, error) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(t.Schema) > 0 {
		if err := json.Unmarshal(t.Schema, &s); err != nil {
			return "", fmt.Errorf("agents: tool %s: schema: %w", t.Name, err)
		}
	}
	args := map[string]any{}
	cmd := "cat " + file
	for name, p := range s.Properties {
		typ, _ := p.Type.(string)
		typ = strings.ToLower(typ) // Gemini's schemas say STRING
		switch name {
		case "command":
			if typ == "array" {
				args[name] = []string{"bash", "-lc", cmd}
			} else {
				args[name] = cmd
			}
		case "cmd":
			args[name] = cmd
		case "commands": // Cline's run_commands: a list of command lines
			args[name] = []string{cmd}
		case "file_path", "absolute_path", "filePath", "path", "filename":
			args[name] = file
		case "description":
			args[name] = Description(step, file)
		default:
			if !slices.Contains(s.Required, name) {
				continue
			}
			switch typ {
			case "string":
				args[name] = ""
			case "integer", "number":
				args[name] = 0
			case "boolean":
				args[name] = false
			case "array":
				args[name] = []any{}
			default:
				args[name] = map[string]any{}
			}
		}
	}
	if len(args) == 0 {
		return "", fmt.Errorf("agents: tool %s: no parameter to put the command or path in", t.Name)
	}
	b, err := json.Marshal(args)
	return string(b), err
}

// Prose is the reasoning the script's answer carries beside its call of
// step's file with tool, in every protocol (a text block, the message's
// content, a message item, a text part): a paragraph of about a hundred
// tokens, each step's its own, that the agent sends back in its history,
// so that swc clips it once the step's output is stubbed.
func Prose(step int, tool, file string) string {
	name := filepath.Base(file)
	return fmt.Sprintf("Reading step %d. The file %s should hold thirty-six log lines of service orders%02d, each naming its handler "+
		"handleOrder%dxN in pkg/orders%02d and ending with a trace id. I will print it whole with %s, note every entry that "+
		"returned a 5xx status and how many milliseconds it took, and check that the entry numbers run from 01 to 36 without a gap. "+
		"Then comes step-%02d.txt, unless this file says the run should stop, in which case I will say what the %d files held so far.",
		step, name, step, step, step, tool, step+1, step)
}

// Description is what the script's call of step's file says it does,
// where its tool takes a description (Claude Code's Bash, Gemini CLI's
// run_shell_command, opencode's bash): four lines, about a hundred
// tokens, each step's its own, that the agent sends back in its history,
// so that swc clips the call's argument once the step's output is
// stubbed.
func Description(step int, file string) string {
	return fmt.Sprintf("Print the file of step %d, %s, whole.\n"+
		"It should hold thirty-six log lines of service orders%02d, each naming its handler handleOrder%dxN in pkg/orders%02d and a trace id.\n"+
		"Every entry that returned a 5xx status is to be noted with how many milliseconds it took.\n"+
		"The entry numbers should run from 01 to 36 without a gap; step-%02d.txt comes next.",
		step, filepath.Base(file), step, step, step, step+1)
}

// StepFile returns the path of step n's file in dir.
func StepFile(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("step-%02d.txt", n))
}

// WriteStepFiles writes the files of steps 1..n into dir: each about
// 1,500 tokens (cl100k_base) of log lines full of identifiers, every
// step's its own.
func WriteStepFiles(dir string, n int) error { return WriteTaggedStepFiles(dir, n, "") }

// WriteTaggedStepFiles writes the step files as WriteStepFiles does, each
// line starting with tag and a space when tag is set: the outputs of two
// runs sharing one swc then differ, line by line.
func WriteTaggedStepFiles(dir string, n int, tag string) error {
	if tag != "" {
		tag += " "
	}
	for s := 1; s <= n; s++ {
		var b strings.Builder
		for l := 1; l <= 36; l++ {
			b.WriteString(tag)
			fmt.Fprintf(&b, "step %02d entry %02d: service orders%02d handler handleOrder%dx%d in pkg/orders%02d/handler_%02d.go:%d returned status %d after %d ms (trace t%02d-%02d-%x)\n",
				s, l, s, s, l, s, l, 100*s+l, 500+l%4, 1000*s+37*l, s, l, (s*7919+l*104729)%0xfffff)
		}
		if err := os.WriteFile(StepFile(dir, s), []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("agents: step files: %w", err)
		}
	}
	return nil
}

// ImageFile returns the path of step n's picture in dir.
func ImageFile(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("step-%02d.png", n))
}

// WriteImageFiles writes the pictures of every every-th step of 1..n
// into dir: 1024×768 PNGs (a screenshot's size; 1,049 tokens by
// Anthropic's rule), each with its own pattern.
func WriteImageFiles(dir string, n, every int) error {
	for s := every; s <= n; s += every {
		img := image.NewGray(image.Rect(0, 0, 1024, 768))
		for y := range 768 {
			for x := range 1024 {
				img.Pix[y*img.Stride+x] = uint8((x/(8+s) + y/16) * 37 % 256)
			}
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return fmt.Errorf("agents: image files: %w", err)
		}
		if err := os.WriteFile(ImageFile(dir, s), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("agents: image files: %w", err)
		}
	}
	return nil
}

// WritePDFFiles writes a PDF of pages pages for every every-th step of
// 1..n into dir (step-NN.pdf): a page of text each, a well-formed file
// (cross-reference table and all), as a PDF reader wants one.
func WritePDFFiles(dir string, n, every, pages int) error {
	for s := every; s <= n; s += every {
		var b bytes.Buffer
		var offs []int
		obj := func(body string) {
			offs = append(offs, b.Len())
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), body)
		}
		b.WriteString("%PDF-1.4\n")
		kids := make([]string, pages)
		for p := range pages {
			kids[p] = fmt.Sprintf("%d 0 R", 4+2*p)
		}
		obj("<< /Type /Catalog /Pages 2 0 R >>")
		obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
		obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
		for p := range pages {
			obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*p))
			text := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (Step %02d, page %d: orders%02d handler handleOrder%dx%d) Tj ET", s, p+1, s, s, p+1)
			obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(text), text))
		}
		xref := b.Len()
		fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
		for _, o := range offs {
			fmt.Fprintf(&b, "%010d 00000 n \n", o)
		}
		fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
		path := strings.TrimSuffix(ImageFile(dir, s), ".png") + ".pdf"
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("agents: PDF files: %w", err)
		}
	}
	return nil
}

// WriteAudioFiles writes a WAV of seconds seconds (16 kHz, 16-bit mono,
// a tone of its own) for every every-th step of 1..n into dir
// (step-NN.wav): 32 tokens a second as Gemini counts audio.
func WriteAudioFiles(dir string, n, every, seconds int) error {
	const rate = 16000
	for s := every; s <= n; s += every {
		data := make([]byte, 2*rate*seconds)
		for i := 0; i < len(data); i += 2 {
			v := int16(8000 * math.Sin(float64(i/2)*float64(200+20*s)*2*math.Pi/rate))
			binary.LittleEndian.PutUint16(data[i:], uint16(v))
		}
		var b bytes.Buffer
		le := func(v uint32, size int) { b.Write(binary.LittleEndian.AppendUint32(nil, v)[:size]) }
		b.WriteString("RIFF")
		le(uint32(36+len(data)), 4)
		b.WriteString("WAVEfmt ")
		le(16, 4)
		le(1, 2) // PCM
		le(1, 2) // mono
		le(rate, 4)
		le(2*rate, 4) // bytes a second
		le(2, 2)
		le(16, 2)
		b.WriteString("data")
		le(uint32(len(data)), 4)
		b.Write(data)
		path := strings.TrimSuffix(ImageFile(dir, s), ".png") + ".wav"
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("agents: audio files: %w", err)
		}
	}
	return nil
}
