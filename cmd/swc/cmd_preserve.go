package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/preserve"
)

func init() {
	register("preserve", "audit gists: how many temporal expressions, entities and events they keep", runPreserve)
}

const preserveUsage = "[--data FILE | --input FILE [--format F]] [--conversations LIST] [--conditions LIST] [--gister extractive|PROVIDER:MODEL] [--gists FILE] [--json] [--out DIR] [engine flags]"

func runPreserve(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "preserve", preserveUsage)
	data := addDataFlags(fs)
	convList := fs.String("conversations", "", "sample ids or 0-based positions, comma-separated (default: all)")
	conds := fs.String("conditions", strings.Join(preserve.Conditions, ","), "conditions whose gists are audited")
	gistsFile := fs.String("gists", "", "JSONL of {conversation, session, variant, gist} made elsewhere, - for stdin: audit them instead of compressing")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	outDir := fs.String("out", "", "also write preservation.json and preservation.md into DIR")
	examples := fs.Int("examples", preserve.DefaultExamples, "lost mentions quoted per type and variant (0 = none)")
	eng := addEngineFlags(fs)
	in := addInputFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := in.check(data.path); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("preserve: unexpected argument %q", fs.Arg(0))
	}
	if *examples < 0 {
		return usagef("--examples must not be negative")
	}
	if *gistsFile == "-" && data.path == "-" {
		return usagef("preserve: --data and --gists cannot both read stdin")
	}
	if *gistsFile != "" {
		var clash []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "conditions" || f.Name == "gister" || f.Name == "embedder" || f.Name == "budget" || f.Name == "schedule" {
				clash = append(clash, "--"+f.Name)
			}
		})
		if len(clash) > 0 {
			return usagef("preserve: %s does not apply with --gists (the gists are already made)", strings.Join(clash, ", "))
		}
	}
	opts := preserve.Options{Examples: *examples}
	if *examples == 0 {
		opts.Examples = -1
	}
	start := time.Now()
	convs, picked, err := loadPicked(env, data, in, *convList)
	if err != nil {
		return err
	}
	var rep *preserve.Report
	if *gistsFile != "" {
		rep, err = preserveExternal(env, *gistsFile, convs, picked, opts)
	} else {
		rep, err = preserveCompressed(ctx, env, eng, *conds, picked, opts)
	}
	if err != nil {
		return err
	}
	if *outDir != "" {
		if err := writePreservation(*outDir, rep); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "swc: wrote %s and %s\n", filepath.Join(*outDir, "preservation.json"), filepath.Join(*outDir, "preservation.md"))
	}
	gists := 0
	for _, c := range rep.Coverage {
		gists += c.Gists
	}
	nc := len(rep.PerConversation)
	fmt.Fprintf(env.Stderr, "swc: preserve: %d gists of %d conversation%s audited in %.2fs\n", gists, nc, plural(nc), time.Since(start).Seconds())
	if *asJSON {
		return writeJSON(env.Stdout, rep)
	}
	return rep.WriteText(env.Stdout)
}

// preserveCompressed compresses each conversation under each condition and
// audits the gists made.
func preserveCompressed(ctx context.Context, env *Env, f *engineFlags, list string, convs []*swc.Conversation, opts preserve.Options) (*preserve.Report, error) {
	eng, err := openEngines(ctx, env, f)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	strats, err := eng.strategies(list)
	if err != nil {
		return nil, err
	}
	contexts := make(map[string]map[string]*swc.Context, len(strats))
	for _, s := range strats {
		byConv := make(map[string]*swc.Context, len(convs))
		for _, c := range convs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			out, err := s.Compress(ctx, c, swc.CompressOptions{Budget: f.budget})
			if err != nil {
				return nil, fmt.Errorf("preserve: %s on %s: %w", s.Name(), c.ID, err)
			}
			byConv[c.ID] = out
		}
		contexts[s.Name()] = byConv
	}
	return preserve.AnalyzeWith(convs, contexts, opts), nil
}

// preserveExternal audits the gists of a --gists file. Records of
// conversations outside picked are skipped.
func preserveExternal(env *Env, path string, all, picked []*swc.Conversation, opts preserve.Options) (*preserve.Report, error) {
	b, name, err := readInput(env, path) // "-" is stdin
	if err != nil {
		return nil, fmt.Errorf("--gists: %w", err)
	}
	recs, err := preserve.ReadExternal(bytes.NewReader(b), name)
	if err != nil {
		return nil, err
	}
	if len(picked) != len(all) {
		keep := map[string]bool{}
		for _, c := range picked {
			keep[c.ID] = true
		}
		var out []preserve.ExternalGist
		for _, r := range recs {
			if c := swc.FindConversation(all, r.Conversation); c == nil || keep[c.ID] {
				out = append(out, r) // unknown ones still get their error
			}
		}
		recs = out
	}
	rep, err := preserve.FromExternalWith(all, recs, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// writePreservation writes preservation.json and preservation.md into dir.
func writePreservation(dir string, rep *preserve.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("preserve: %w", err)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("preserve: encode: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "preservation.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("preserve: %w", err)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		return fmt.Errorf("preserve: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "preservation.md"), md.Bytes(), 0o644); err != nil {
		return fmt.Errorf("preserve: %w", err)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
