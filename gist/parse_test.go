package gist

import (
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hey Mel! Good to see you! How have you been?", []string{"Hey Mel!", "Good to see you!", "How have you been?"}},
		{"I met Dr. Smith at 5 p.m. today. It was fine.", []string{"I met Dr. Smith at 5 p.m. today.", "It was fine."}},
		{"She said \"wow!\" and left. Then J. K. Rowling arrived...", []string{"She said \"wow!\" and left.", "Then J. K. Rowling arrived..."}},
		{"Pi is 3.14 exactly. No split in 3.14", []string{"Pi is 3.14 exactly.", "No split in 3.14"}},
		{"no final punctuation", []string{"no final punctuation"}},
		{"Well… I don't know. Hmm… maybe not…", []string{"Well…", "I don't know.", "Hmm… maybe not…"}},
		{"Wait... What?! No way…", []string{"Wait...", "What?!", "No way…"}},
		// Chinese and Japanese: full-width terminators need no space.
		{"我今天很忙。你呢？真的吗！", []string{"我今天很忙。", "你呢？", "真的吗！"}},
		{"我不知道……你说呢？", []string{"我不知道……", "你说呢？"}},
		{"昨日、東京に行きました。とても楽しかったです！また行きたい？", []string{"昨日、東京に行きました。", "とても楽しかったです！", "また行きたい？"}},
		{"彼は「はい。」と言った。それだけ。", []string{"彼は「はい。」と言った。", "それだけ。"}},
		{"「本当？」「うん。」", []string{"「本当？」", "「うん。」"}},
		{"OK. 好的。Then we go! 走吧", []string{"OK.", "好的。", "Then we go!", "走吧"}},
		{"Zoë: 3.14 and 1。5", []string{"Zoë: 3.14 and 1。", "5"}},
	}
	for _, tt := range tests {
		if got := splitSentences(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	in := "Session 2 — 1:56 pm on 8 May, 2023\n" +
		"Caroline: Hi! I went to a support group yesterday.\n" +
		"\n" +
		"Melanie: That's great. How was it?\n" +
		"It was a long week.\n" +
		"[Session 3 — 9 May 2023]\n" +
		"Mary Ann Lee: Fine."
	sents, headers := parse(in)
	want := []sentence{
		{"Caroline", "Hi!", 1, 0},
		{"Caroline", "I went to a support group yesterday.", 1, 1},
		{"Melanie", "That's great.", 2, 2},
		{"Melanie", "How was it?", 2, 3},
		{"Melanie", "It was a long week.", 2, 4},
		{"Mary Ann Lee", "Fine.", 4, 5},
	}
	if headers != 2 {
		t.Errorf("headers = %d, want 2", headers)
	}
	if !reflect.DeepEqual(sents, want) {
		t.Errorf("parse =\n%+v\nwant\n%+v", sents, want)
	}
}

func TestSpeakerLine(t *testing.T) {
	tests := []struct {
		in, speaker, text string
		ok                bool
	}{
		{"Caroline: Hi there", "Caroline", "Hi there", true},
		{"Mary Ann O'Neil-Smith: ok", "Mary Ann O'Neil-Smith", "ok", true},
		{"Session 3 (1:56 pm on 8 May, 2023)", "", "", false},
		{"[Session 3]: x", "", "", false},
		{"user: hello", "user", "hello", true},
		{"assistant: Sure, here it is.", "assistant", "Sure, here it is.", true},
		{"caroline: lowercase", "caroline", "lowercase", true},
		{"User1: hi", "User1", "hi", true},
		{"Bot-2: beep: boop", "Bot-2", "beep: boop", true},
		{"agent_7: ok", "agent_7", "ok", true},
		{"Dr. J.K. Smith: hello", "Dr. J.K. Smith", "hello", true},
		{"王伟: 你好！", "王伟", "你好！", true},
		{"王伟：你好！", "王伟", "你好！", true},
		{"田中さん: こんにちは。", "田中さん", "こんにちは。", true},
		{"Zoë: bonjour", "Zoë", "bonjour", true},
		{"José María: hola", "José María", "hola", true},
		{"Сергей: привет", "Сергей", "привет", true},
		{"Melanie:", "Melanie", "", true},
		{"One two three four: four words", "One two three four", "four words", true},
		{"One Two Three Four Five: too long", "", "", false},
		{"No colon here", "", "", false},
		{"Session 3: 1:56 pm on 8 May, 2023", "", "", false},
		{"Session 4 — 2:10 pm on 14 March, 2024", "", "", false},
		{"[Session 3 — 1:56 pm on 8 May, 2023] (summary)", "", "", false},
		{"[Summary of sessions 1–5]: x", "", "", false},
		{"Summary of sessions: x", "", "", false},
		{"Meet at 10:30 today", "", "", false},
		{"See https://example.com", "", "", false},
		{"42: the answer", "", "", false},
		{"Caroline (laughing): hi", "", "", false},
		{": empty speaker", "", "", false},
	}
	for _, tt := range tests {
		sp, text, ok := speakerLine(tt.in)
		if sp != tt.speaker || text != tt.text || ok != tt.ok {
			t.Errorf("speakerLine(%q) = %q, %q, %v; want %q, %q, %v", tt.in, sp, text, ok, tt.speaker, tt.text, tt.ok)
		}
	}
}

func TestParseSpeakerForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sentence
	}{
		{"user/assistant", "user: I moved to Berlin last May.\nassistant: That is a big change! How is it?",
			[]sentence{{"user", "I moved to Berlin last May.", 0, 0}, {"assistant", "That is a big change!", 1, 1}, {"assistant", "How is it?", 1, 2}}},
		{"digits and hyphens", "User1: Hello there.\nBot-2: Hi. I am a bot.",
			[]sentence{{"User1", "Hello there.", 0, 0}, {"Bot-2", "Hi.", 1, 1}, {"Bot-2", "I am a bot.", 1, 2}}},
		{"chinese", "[Session 1 — 8 May, 2023]\n王伟: 我下个月去北京。你呢？\n李娜：我在上海工作\n已经三年了。",
			[]sentence{{"王伟", "我下个月去北京。", 1, 0}, {"王伟", "你呢？", 1, 1}, {"李娜", "我在上海工作", 2, 2}, {"李娜", "已经三年了。", 2, 3}}},
		{"japanese", "田中: 昨日、東京に行きました。楽しかった！\nZoë: C'est bien.",
			[]sentence{{"田中", "昨日、東京に行きました。", 0, 0}, {"田中", "楽しかった！", 0, 1}, {"Zoë", "C'est bien.", 1, 2}}},
		// No line is a turn: every non-header line is text of an unknown
		// speaker, short unpunctuated ones included.
		{"no turns", "[Session 2 — 9 May, 2023]\n> hi there\nI went to Paris. It was nice\nSession 3 — 10 May 2023\nok",
			[]sentence{{"", "> hi there", 1, 0}, {"", "I went to Paris.", 2, 1}, {"", "It was nice", 2, 2}, {"", "ok", 4, 3}}},
		{"headers only", "[Session 2 — 9 May, 2023]\n\nSession 3 — 10 May 2023\n# Notes", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := parse(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parse(%q) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	tests := []struct {
		in      string
		headers int
	}{
		{"[Session 1 — 8 May, 2023] (summary)\nA: x.\n[Session 2 — 9 May, 2023]\nB: y.", 2},
		{"[Summary of sessions 1–5]\nI went to Paris.\n[Session 6 — 9 May, 2023]\nB: y.", 2},
		{"[Summary of sessions 1–5]\nI went to Paris.\nSession 6 — 9 May, 2023\nsome prose line", 2},
	}
	for _, tt := range tests {
		if _, h := parse(tt.in); h != tt.headers {
			t.Errorf("parse(%q): %d headers, want %d", tt.in, h, tt.headers)
		}
	}
}
