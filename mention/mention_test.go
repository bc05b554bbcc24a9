package mention

import (
	"strings"
	"testing"
	"time"
)

var ref = time.Date(2023, 5, 25, 13, 14, 0, 0, time.UTC) // a Thursday

func TestTemporalResolution(t *testing.T) {
	tests := []struct {
		text, span string
		kind       Kind
		value      string
		phrase     string
	}{
		{"I ran a race last Saturday.", "last Saturday", Relative, "2023-05-20", "the Saturday before 25 May 2023"},
		{"I ran a race last Thursday.", "last Thursday", Relative, "2023-05-18", ""},
		{"We met yesterday.", "yesterday", Relative, "2023-05-24", "24 May 2023"},
		{"It rained last night.", "last night", Relative, "2023-05-24", ""},
		{"It was the day before yesterday.", "the day before yesterday", Relative, "2023-05-23", ""},
		{"I moved two weeks ago.", "two weeks ago", Relative, "2023-W19", "two weeks before 25 May 2023"},
		{"I moved 3 days ago.", "3 days ago", Relative, "2023-05-22", ""},
		{"I quit five months ago.", "five months ago", Relative, "2022-12", ""},
		{"My 18th birthday was ten years ago.", "ten years ago", Relative, "2013", ""},
		{"We went to Paris last year.", "last year", Relative, "2022", "2022"},
		{"Let's meet next Saturday!", "next Saturday", Relative, "2023-05-27", "the Saturday after 25 May 2023"},
		{"I'm moving next month.", "next month", Relative, "2023-06", "June 2023"},
		{"We went camping last weekend.", "last weekend", Relative, "2023-05-20/2023-05-21", "the weekend before 25 May 2023"},
		{"I saw him a few days ago.", "a few days ago", Relative, "2023-05-21/2023-05-23", "a few days before 25 May 2023"},
		{"We hiked last summer.", "last summer", Relative, "2022-SU", "summer 2022"},
		{"I joined last week.", "last week", Relative, "2023-W20", "the week before 25 May 2023"},
		{"I went on 7 May.", "7 May", Date, "2023-05-07", "7 May 2023"},
		{"It was 8 May 2023.", "8 May 2023", Date, "2023-05-08", ""},
		{"It happened May 7th.", "May 7th", Date, "2023-05-07", ""},
		{"We met on the 15th of December.", "the 15th of December", Date, "2022-12-15", ""},
		{"I'll be there on the 15th of December.", "the 15th of December", Date, "2023-12-15", ""},
		{"I painted it in 2022.", "2022", Date, "2022", "2022"},
		{"Since June 2021 I paint.", "June 2021", Date, "2021-06", ""},
		{"Call me at 9pm.", "9pm", Time, "T21:00", ""},
		{"I ran this morning.", "this morning", Time, "2023-05-25TMO", ""},
		{"I walked for ten minutes.", "ten minutes", Duration, "PT10M", ""},
		{"I've had them three years.", "three years", Duration, "P3Y", ""},
		{"A gift for my 18th birthday.", "my 18th birthday", Age, "P18Y", ""},
		{"I started when I was 10.", "when I was 10", Age, "P10Y", ""},
		{"We swim every Sunday.", "every Sunday", Set, "XXXX-WXX-7", ""},
		{"The Sunday before 25 May 2023.", "The Sunday before 25 May 2023", Date, "2023-05-21", ""},
		{"I'll be there on Friday.", "Friday", Relative, "2023-05-26", ""},
		{"I was there on Friday.", "Friday", Relative, "2023-05-19", ""},
	}
	for _, tt := range tests {
		ms := Temporal(tt.text, ref)
		var got *Mention
		for i := range ms {
			if ms[i].Text == tt.span {
				got = &ms[i]
			}
		}
		if got == nil {
			t.Errorf("%q: no span %q in %+v", tt.text, tt.span, ms)
			continue
		}
		if got.Kind != tt.kind || got.Value != tt.value || tt.phrase != "" && got.Phrase != tt.phrase {
			t.Errorf("%q: got %s %q %q, want %s %q %q", tt.text, got.Kind, got.Value, got.Phrase, tt.kind, tt.value, tt.phrase)
		}
		if tt.text[got.Start:got.End] != got.Text {
			t.Errorf("%q: offsets %d..%d do not give %q", tt.text, got.Start, got.End, got.Text)
		}
	}
}

func TestLastWeekdayIsStrictlyBefore(t *testing.T) {
	sat := time.Date(2023, 5, 20, 9, 0, 0, 0, time.UTC)
	if v := Temporal("last Saturday", sat)[0].Value; v != "2023-05-13" {
		t.Errorf("last Saturday said on a Saturday = %s, want 2023-05-13", v)
	}
	if v := Temporal("next Saturday", sat)[0].Value; v != "2023-05-27" {
		t.Errorf("next Saturday said on a Saturday = %s, want 2023-05-27", v)
	}
}

func TestZeroRefLeavesRelativeEmpty(t *testing.T) {
	ms := Temporal("I ran last Saturday, on 7 May and on 8 May 2023.", time.Time{})
	want := []string{"", "XXXX-05-07", "2023-05-08"}
	if len(ms) != len(want) {
		t.Fatalf("got %+v", ms)
	}
	for i, m := range ms {
		if m.Value != want[i] {
			t.Errorf("%q: value %q, want %q", m.Text, m.Value, want[i])
		}
	}
}

func TestNotTemporal(t *testing.T) {
	for _, s := range []string{
		"We went to the park.", "One day I'll do it.", "I may go.", "Let's march on.", "This one is mine.",
		"ten people came", "We talked recently.", "Cyberpunk 2077 is fun.", "Have a great day!", "every step of the way",
	} {
		if ms := Temporal(s, ref); len(ms) > 0 {
			t.Errorf("%q: unexpected %+v", s, ms)
		}
		if HasTemporal(s) {
			t.Errorf("HasTemporal(%q) = true", s)
		}
	}
	if !HasTemporal("See you tomorrow!") {
		t.Error("HasTemporal(tomorrow) = false")
	}
}

func TestParseGold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"7 May 2023", "2023-05-07"},
		{"The sunday before 25 May 2023", "2023-05-21"},
		{"June 2023", "2023-06"},
		{"2022", "2022"},
		{"The week before 9 June 2023", "2023-W22"},
		{"two weekends before 17 July 2023", "2023-07-08/2023-07-09"},
		{"the week before 21Janury, 2022", "2022-W02"},
		{"4 years", "P4Y"},
		{"13 August", "XXXX-08-13"},
	}
	for _, tt := range tests {
		if got, ok := ParseGold(tt.in); !ok || got != tt.want {
			t.Errorf("ParseGold(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, s := range []string{"Boston", "10 years ago", "one", "A few years ago"} {
		if v, ok := ParseGold(s); ok {
			t.Errorf("ParseGold(%q) = %q, want no value", s, v)
		}
	}
	// a resolved mention and its gold answer compare by value
	m := Temporal("I ran a charity race last Sunday.", ref)[0]
	if g, _ := ParseGold("The sunday before 25 May 2023"); g != m.Value {
		t.Errorf("gold %q != mention %q", g, m.Value)
	}
}

func TestAnchor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"I ran a race last Saturday and it was fun.", "I ran a race last Saturday [20 May 2023] and it was fun."},
		{"We joined last week, on 7 May.", "We joined last week [the week before 25 May 2023], on 7 May."},
		{"Nothing temporal here.", "Nothing temporal here."},
		{"I walked for ten minutes yesterday", "I walked for ten minutes yesterday [24 May 2023]"},
	}
	for _, tt := range tests {
		if got := Anchor(tt.in, ref); got != tt.want {
			t.Errorf("Anchor(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	if got := Anchor("last Saturday", time.Time{}); got != "last Saturday" {
		t.Errorf("zero ref: %q", got)
	}
}

func texts(ms []Mention) string {
	var s []string
	for _, m := range ms {
		s = append(s, m.Text)
	}
	return strings.Join(s, "|")
}

func TestEntities(t *testing.T) {
	speakers := []string{"Caroline", "Melanie"}
	tests := []struct{ in, want string }{
		{"Wow, thanks Caroline! Omg. Hey Mel!", "Caroline|Mel"},
		{"Caroline, I went to Rio de Janeiro with Anna.", "Caroline|Rio de Janeiro|Anna"},
		{"Thanks! Hey, I read The Lord of the Rings last May.", "Lord of the Rings"},
		{"I love Caroline's painting. LOL", "Caroline"},
		{"Yesterday I went to Boston. It was great.", "Boston"},
		{"I'm so happy. Thanks, Melanie!", "Melanie"},
	}
	for _, tt := range tests {
		if got := texts(Entities(tt.in, speakers)); got != tt.want {
			t.Errorf("Entities(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"I have 3 kids, two dogs and 1,000 books.", "3|two|1,000"},
		{"This one is the one I like, one of 12.", "one|12"},
		{"twenty-five people came", "twenty-five"},
	}
	for _, tt := range tests {
		if got := texts(Numbers(tt.in)); got != tt.want {
			t.Errorf("Numbers(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEvents(t *testing.T) {
	ms := Events("I ran a charity race and I'm going to paint tomorrow. We have been to the museum and had fun. I was so excited!")
	var lemmas []string
	for _, m := range ms {
		lemmas = append(lemmas, m.Value)
	}
	if got, want := strings.Join(lemmas, "|"), "run|race|paint"; got != want {
		t.Errorf("events = %q, want %q", got, want)
	}
}

func TestAllSorted(t *testing.T) {
	text := "Caroline ran 5 miles last Saturday in Boston."
	ms := All(text, ref, []string{"Caroline"})
	kinds := map[Kind]bool{}
	for i, m := range ms {
		kinds[m.Kind] = true
		if i > 0 && ms[i-1].Start > m.Start {
			t.Fatalf("not sorted: %+v", ms)
		}
		if text[m.Start:m.End] != m.Text {
			t.Errorf("bad offsets %+v", m)
		}
	}
	for _, k := range []Kind{Entity, Number, Event, Relative} {
		if !kinds[k] {
			t.Errorf("no %s in %+v", k, ms)
		}
	}
	if !Relative.Temporal() || Entity.Temporal() {
		t.Error("Kind.Temporal")
	}
}
