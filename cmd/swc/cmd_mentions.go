package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/swcmem/swc/mention"
)

func init() {
	register("mentions", "print temporal expressions, entities, numbers and events", runMentions)
}

// mentionsTurn is one annotated turn in --data mode.
type mentionsTurn struct {
	Conversation string            `json:"conversation"`
	Turn         string            `json:"turn"`
	SessionDate  string            `json:"session_date"`
	Speaker      string            `json:"speaker"`
	Mentions     []mention.Mention `json:"mentions"`
}

func runMentions(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "mentions", "[--ref YYYY-MM-DD] [--speakers A,B] [--json] [TEXT | -]\n       swc mentions [--data FILE | --input FILE [--format F]] [--conversation ID] [--json]")
	refText := fs.String("ref", "", "reference date (the session's date) that relative expressions resolve against")
	speakers := fs.String("speakers", "", "comma-separated speaker names, always recognised as entities")
	asJSON := fs.Bool("json", false, `print {"mentions": [...]} (with --data: {"turns": [...]})`)
	data := addDataFlags(fs)
	fs.Lookup("data").Usage = "LoCoMo-format JSON file to annotate turn by turn, - for stdin (default without TEXT: the built-in sample)"
	conv := fs.String("conversation", "", "with --data: sample ids or 0-based positions, comma-separated (default: all)")
	in := addInputFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := in.check(data.path); err != nil {
		return err
	}
	var ref time.Time
	if *refText != "" {
		t, err := time.Parse("2006-01-02", *refText)
		if err != nil {
			return usagef("mentions: --ref %q is not a YYYY-MM-DD date", *refText)
		}
		ref = t
	}
	if fs.NArg() == 0 {
		if *refText != "" {
			return usagef("mentions: --ref needs TEXT (with --data each session's date is the reference)")
		}
		return mentionsData(ctx, env, data, in, *conv, *asJSON)
	}
	if data.path != "" || *conv != "" || in.path != "" {
		return usagef("mentions: give TEXT or --data, not both")
	}
	text := strings.Join(fs.Args(), " ")
	if fs.NArg() == 1 && fs.Arg(0) == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return fmt.Errorf("mentions: read stdin: %w", err)
		}
		text = string(b)
	}
	var spk []string
	for _, s := range strings.Split(*speakers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			spk = append(spk, s)
		}
	}
	ms := mention.All(text, ref, spk)
	if ms == nil {
		ms = []mention.Mention{}
	}
	if *asJSON {
		return writeJSON(env.Stdout, map[string]any{"mentions": ms})
	}
	for _, m := range ms {
		if err := printMention(env.Stdout, fmt.Sprintf("%d-%d", m.Start, m.End), m); err != nil {
			return err
		}
	}
	return nil
}

// mentionsData annotates every turn of the picked conversations, each
// against its session's start.
func mentionsData(ctx context.Context, env *Env, data *dataFlags, in *inputFlags, ids string, asJSON bool) error {
	_, picked, err := loadPicked(env, data, in, ids)
	if err != nil {
		return err
	}
	var turns []mentionsTurn
	for _, c := range picked {
		speakers := []string{c.SpeakerA, c.SpeakerB}
		for _, s := range c.Sessions {
			if err := ctx.Err(); err != nil {
				return err
			}
			for _, t := range s.Turns {
				ms := mention.All(t.Text, s.Start, speakers)
				if ms == nil {
					ms = []mention.Mention{}
				}
				if asJSON {
					turns = append(turns, mentionsTurn{c.ID, t.ID, s.Start.Format("2006-01-02"), t.Speaker, ms})
					continue
				}
				for _, m := range ms {
					if err := printMention(env.Stdout, c.ID+" "+t.ID, m); err != nil {
						return err
					}
				}
			}
		}
	}
	if asJSON {
		if turns == nil {
			turns = []mentionsTurn{}
		}
		return writeJSON(env.Stdout, map[string]any{"turns": turns})
	}
	return nil
}

func printMention(w io.Writer, where string, m mention.Mention) error {
	_, err := fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", where, m.Kind, m.Text, m.Value, m.Phrase)
	return err
}
