package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/longmemeval"
	"github.com/swcmem/swc/realtalk"
)

// dataFlags are --data and -v, shared by every command that reads
// conversations.
type dataFlags struct {
	path    string
	verbose bool
}

func addDataFlags(fs *flag.FlagSet) *dataFlags {
	d := &dataFlags{}
	fs.StringVar(&d.path, "data", "", "LoCoMo, LongMemEval or REALTALK JSON file (told apart by shape), a directory of REALTALK files, - for stdin (default: the built-in sample)")
	fs.BoolVar(&d.verbose, "v", false, "list every data warning (default: one line with their count)")
	return d
}

// readInput returns the bytes of path, or of stdin for "-" (read once, so
// that two readers of "-" in one command see the same data), and the name
// messages use for it.
func readInput(env *Env, path string) ([]byte, string, error) {
	if path != "-" {
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, path, swc.Errorf(swc.ENOTFOUND, "%s: no such file", path)
		} else if err != nil {
			return nil, path, swc.Errorf(swc.EINVALID, "%s: %v", path, err)
		}
		return b, path, nil
	}
	if env.stdin == nil {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return nil, "stdin", swc.Errorf(swc.EINVALID, "stdin: %v", err)
		}
		env.stdin = b
	}
	return env.stdin, "stdin", nil
}

// loadConversations reads a LoCoMo, LongMemEval or REALTALK file ("-"
// for stdin; see isLongMemEval), a directory of REALTALK files, or the
// built-in sample when path is empty, with the
// warnings about usable oddities in the data (LoCoMo's).
func loadConversations(env *Env, path string) ([]*swc.Conversation, []locomo.Warning, error) {
	if path == "" {
		convs, err := locomo.Sample()
		return convs, nil, err
	}
	if path != "-" {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return loadRealTalkDir(path)
		}
		if longmemeval.DetectFile(path) {
			convs, err := longmemeval.LoadFile(path)
			return convs, nil, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return locomo.LoadFile(path) // its error names the problem
		}
		if realtalk.Detect(b) {
			return loadRealTalk(path, [][]byte{b}, []string{realTalkID(path)})
		}
		return locomo.Parse(b, filepath.Base(path))
	}
	b, name, err := readInput(env, path)
	if err != nil {
		return nil, nil, err
	}
	if longmemeval.Detect(bytes.NewReader(b)) {
		convs, err := longmemeval.Read(bytes.NewReader(b), name)
		return convs, nil, err
	}
	if realtalk.Detect(b) {
		return loadRealTalk(name, [][]byte{b}, []string{"stdin"})
	}
	return locomo.Read(bytes.NewReader(b), name)
}

// loadRealTalkDir reads a directory of REALTALK conversations, its *.json
// files in name order, each one conversation named after its file.
func loadRealTalkDir(dir string) ([]*swc.Conversation, []locomo.Warning, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, swc.Errorf(swc.EINVALID, "%s: %v", dir, err)
	}
	if len(paths) == 0 {
		return nil, nil, swc.Errorf(swc.ENOTFOUND, "%s: a directory without *.json files (--data takes a LoCoMo, LongMemEval or REALTALK file, or a directory of REALTALK files)", dir)
	}
	sort.Strings(paths)
	var files [][]byte
	var ids []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, swc.Errorf(swc.EINVALID, "%s: %v", p, err)
		}
		if !realtalk.Detect(b) {
			return nil, nil, swc.Errorf(swc.EINVALID, "%s: not a REALTALK conversation (a directory given to --data holds REALTALK files, one conversation each)", p)
		}
		files, ids = append(files, b), append(ids, realTalkID(p))
	}
	return loadRealTalk(dir, files, ids)
}

// loadRealTalk reads REALTALK conversations as LoCoMo samples
// (realtalk.LoCoMo) named ids.
func loadRealTalk(name string, files [][]byte, ids []string) ([]*swc.Conversation, []locomo.Warning, error) {
	samples := make([]json.RawMessage, len(files))
	for i, b := range files {
		s, err := realtalk.LoCoMo(b, ids[i])
		if err != nil {
			return nil, nil, swc.Errorf(swc.EINVALID, "%v", err)
		}
		samples[i] = s
	}
	data, err := json.Marshal(samples)
	if err != nil {
		return nil, nil, err
	}
	return locomo.Parse(data, name)
}

// realTalkID names a REALTALK conversation after its file
// ("Chat_1_Emi_Elise").
func realTalkID(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// isLongMemEval reports whether --data names LongMemEval data: a JSON
// array whose first element has "haystack_sessions" (LoCoMo's samples
// have "conversation").
func isLongMemEval(env *Env, path string) bool {
	switch path {
	case "":
		return false
	case "-":
		b, _, err := readInput(env, path)
		return err == nil && longmemeval.Detect(bytes.NewReader(b))
	}
	return longmemeval.DetectFile(path)
}

// loadPicked loads the conversations of --input when in names a file,
// else of d's --data (or the built-in sample), and picks those named in ids
// (see pickConversations; "" = all). Warnings about the picked
// conversations go to stderr: one line with their count, or each with
// d.verbose.
func loadPicked(env *Env, d *dataFlags, in *inputFlags, ids string) (all, picked []*swc.Conversation, err error) {
	if in != nil && in.path != "" {
		r, err := in.read(env)
		if err != nil {
			return nil, nil, err
		}
		all = r.convs
		if all == nil {
			all = []*swc.Conversation{in.conversation(env, r)}
		}
		picked, err = pickConversations(all, ids)
		return all, picked, err
	}
	all, warns, err := loadConversations(env, d.path)
	if err != nil {
		return nil, nil, err
	}
	if picked, err = pickConversations(all, ids); err != nil {
		return nil, nil, err
	}
	inUse := map[string]bool{}
	for _, c := range picked {
		inUse[c.ID] = true
	}
	var mine []locomo.Warning
	for _, w := range warns {
		if inUse[w.Sample] {
			mine = append(mine, w)
		}
	}
	printWarnings(env, mine, d.verbose)
	return all, picked, nil
}

// printWarnings writes data warnings to stderr: each one when verbose,
// else one line with their count and the samples they concern.
func printWarnings(env *Env, warns []locomo.Warning, verbose bool) {
	if len(warns) == 0 {
		return
	}
	if verbose {
		for _, w := range warns {
			fmt.Fprintf(env.Stderr, "swc: warning: %s\n", w)
		}
		return
	}
	var samples []string
	seen := map[string]bool{}
	for _, w := range warns {
		if !seen[w.Sample] {
			seen[w.Sample] = true
			samples = append(samples, w.Sample)
		}
	}
	fmt.Fprintf(env.Stderr, "swc: warning: %s about %s (the data is used anyway; -v lists %s)\n",
		count(len(warns), "data warning", "data warnings"), strings.Join(samples, ", "), either(len(warns) == 1, "it", "them"))
}

// count returns "1 condition", "2 conditions".
func count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func either(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// pickConversations returns the conversations named in ids, a
// comma-separated list of sample ids or 0-based positions ("conv-26,3");
// all of them when ids is empty. An unknown name is an error listing the
// known ones.
func pickConversations(convs []*swc.Conversation, ids string) ([]*swc.Conversation, error) {
	if strings.TrimSpace(ids) == "" {
		return convs, nil
	}
	var out []*swc.Conversation
	seen := map[*swc.Conversation]bool{}
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		c := swc.FindConversation(convs, id)
		if c == nil {
			known := make([]string, len(convs))
			for i, c := range convs {
				known[i] = c.ID
			}
			return nil, swc.Errorf(swc.ENOTFOUND, "no conversation %q (have: %s)", id, strings.Join(known, ", "))
		}
		if !seen[c] { // "conv-26,0" names one conversation twice
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}
