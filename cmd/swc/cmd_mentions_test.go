package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestMentionsJSON(t *testing.T) {
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(""), &out, &errb, nil)
	err := Run(context.Background(), env, []string{"mentions", "--ref", "2023-05-25", "--json", "I ran a charity race last Sunday"})
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, errb.String())
	}
	var got struct {
		Mentions []struct {
			Kind, Text, Value, Phrase string
			Start, End                int
		} `json:"mentions"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	found := false
	for _, m := range got.Mentions {
		if m.Kind == "relative" && m.Text == "last Sunday" {
			found = true
			if m.Value != "2023-05-21" || m.Start != 21 || m.End != 32 {
				t.Errorf("last Sunday: %+v, want value 2023-05-21 at 21-32", m)
			}
		}
	}
	if !found {
		t.Errorf("no relative mention in %s", out.String())
	}
}

func TestMentionsStdinAndErrors(t *testing.T) {
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader("See you tomorrow, Caroline!"), &out, &errb, nil)
	if err := Run(context.Background(), env, []string{"mentions", "--ref", "2023-05-25", "--speakers", "Caroline", "-"}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "relative\ttomorrow\t2023-05-26") || !strings.Contains(s, "entity\tCaroline") {
		t.Errorf("output:\n%s", s)
	}
	err := Run(context.Background(), env, []string{"mentions", "--ref", "25/05/2023", "x"})
	if exitCode(err) != 2 {
		t.Errorf("bad --ref: %v, want a usage error", err)
	}
}

func TestMentionsSample(t *testing.T) {
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(""), &out, &errb, nil)
	if err := Run(context.Background(), env, []string{"mentions", "--json"}); err != nil {
		t.Fatalf("%v (stderr %s)", err, errb.String())
	}
	var got struct {
		Turns []struct {
			Conversation, Turn, SessionDate string
			Mentions                        []json.RawMessage
		} `json:"turns"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) == 0 {
		t.Fatal("no turns annotated for the built-in sample")
	}
}
