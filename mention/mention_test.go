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

// TestMay checks that capitalised "May" is the month after a preposition
// or modifier, or before a day or year, and that the modal verb is not.
func TestMay(t *testing.T) {
	tests := []struct {
		text, span string // span "" means no temporal mention
		value      string
	}{
		{"I went there in May.", "May", "2023-05"},
		{"We met in early May.", "early May", "2023-05"},
		{"It was mid May, I think.", "mid May", "2023-05"},
		{"It was late May.", "late May", "2023-05"},
		{"It was last May.", "last May", "2022-05"},
		{"I'll go next May.", "next May", "2024-05"},
		{"We'll see this May.", "this May", "2023-05"},
		{"Back in May 2023 we met.", "May 2023", "2023-05"},
		{"I've lived here since May.", "May", "2023-05"},
		{"Wait until May, then.", "May", "2023-05"},
		{"Finish it by May.", "May", "2023-05"},
		{"The first week of May was busy.", "The first week of May", "2023-05-01/2023-05-07"},
		{"I love the month of May.", "May", "2023-05"},
		{"I was away during May.", "May", "2023-05"},
		{"We toured from May to June.", "May", "2023-05"},
		{"It runs through May.", "May", "2023-05"},
		{"Stay till May!", "May", "2023-05"},
		{"May 2023 was great.", "May 2023", "2023-05"},
		{"May 7 was fun.", "May 7", "2023-05-07"},
		{"On May 5th we went.", "May 5th", "2023-05-05"},
		{"In May we moved.", "May", "2023-05"},
		{"I may go.", "", ""},
		{"May I ask what happened?", "", ""},
		{"Well, you may.", "", ""},
		{"May is my favourite month.", "", ""},
		{"It may rain.", "", ""},
		{"Thanks, may I ask you something?", "", ""},
		{"I hope so. May it go well!", "", ""},
		{"They may in fact win.", "", ""},
	}
	for _, tt := range tests {
		ms := Temporal(tt.text, ref)
		if tt.span == "" {
			if len(ms) > 0 {
				t.Errorf("%q: unexpected %+v", tt.text, ms)
			}
			continue
		}
		if len(ms) == 0 || ms[0].Text != tt.span || ms[0].Value != tt.value {
			t.Errorf("%q: got %+v, want %q = %q", tt.text, ms, tt.span, tt.value)
		}
	}
}

func TestFixMonthTypos(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Janury 2023", "January 2023"},
		{"21Janury, 2022", "21January, 2022"},
		{"15 Septmber, 2022", "15 September, 2022"},
		{"5th Agust", "5th August"},
		{"Febuary 3", "February 3"},
		{"the week before 9 Decmber 2023", "the week before 9 December 2023"},
		{"Marco", "Marco"},
		{"Marco and Julie", "Marco and Julie"},
		{"Marco went in 2023", "Marco went in 2023"},
		{"Marco's party, 2023", "Marco's party, 2023"}, // "'s" sits between
		{"Marco 2023", "March 2023"},                   // next to a year: read as the typo
		{"the Junes", "the Junes"},
		{"Augusts 4", "August 4"},
		{"January 2023", "January 2023"},
	}
	for _, tt := range tests {
		if got := fixMonthTypos(tt.in); got != tt.want {
			t.Errorf("fixMonthTypos(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if v, ok := ParseGold("Marco"); ok {
		t.Errorf("ParseGold(Marco) = %q, want no value", v)
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

func day0(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestTemporalRules covers one rule per group of rows: month + last/this/
// next year, parts of day after weekdays, the weekend, approximate
// durations, ages, sets, bare "a week", "back", "the last month" and
// holidays. An empty span means the text has no temporal mention.
func TestTemporalRules(t *testing.T) {
	tests := []struct {
		ref        string
		text, span string
		kind       Kind
		value      string
	}{
		// <Month> last/this/next year
		{"2023-10-19", "It all started August last year when we met.", "August last year", Relative, "2022-08"},
		{"2023-10-19", "We married in June this year.", "June this year", Relative, "2023-06"},
		{"2023-10-19", "We'll go in March next year.", "March next year", Relative, "2024-03"},
		{"2023-10-19", "It was May 5th last year.", "May 5th last year", Relative, "2022-05-05"},
		{"2023-10-19", "We move in June of next year.", "June of next year", Relative, "2024-06"},
		{"2023-10-19", "I went there last August.", "last August", Relative, "2023-08"},
		// weekday + part of day
		{"2023-10-13", "Friday night's board game session was a nice break.", "Friday night", Relative, "2023-10-06TNI"},
		{"2023-05-25", "I'll see you Saturday morning.", "Saturday morning", Relative, "2023-05-27TMO"},
		{"2023-05-25", "We ate out last Sunday evening.", "last Sunday evening", Relative, "2023-05-21TEV"},
		{"2023-05-25", "We play every Friday night.", "every Friday night", Set, "XXXX-WXX-5TNI"},
		{"2023-05-25", "It rained last night.", "last night", Relative, "2023-05-24"},
		{"2023-05-25", "I ran this morning.", "this morning", Time, "2023-05-25TMO"},
		// the weekend, by tense like "this weekend"
		{"2022-06-03", "Do you have any plans for the weekend?", "the weekend", Relative, "2022-06-04/2022-06-05"},
		{"2023-07-17", "We went camping. What've you been up to? Anything fun over the weekend?", "the weekend", Relative, "2023-07-15/2023-07-16"},
		{"2023-08-19", "Any weekend plans for you?", "weekend", Relative, "2023-08-19/2023-08-20"},
		{"2023-07-17", "How was your weekend?", "weekend", Relative, "2023-07-15/2023-07-16"},
		{"2023-05-25", "We went hiking the weekend before 9 June 2023.", "the weekend before 9 June 2023", Date, "2023-06-03/2023-06-04"},
		// approximate durations: the approximator is inside the span
		{"2023-12-06", "I've been playing for just under a year now.", "just under a year", Duration, "P1Y"},
		{"2023-12-06", "I've been playing for about four months.", "about four months", Duration, "P4M"},
		{"2023-12-06", "It took almost two weeks.", "almost two weeks", Duration, "P2W"},
		{"2023-12-06", "We dated for over a year.", "over a year", Duration, "P1Y"},
		{"2023-12-06", "It lasted more than three days.", "more than three days", Duration, "P3D"},
		{"2023-12-06", "I taught for nearly a decade.", "nearly a decade", Duration, "P10Y"},
		{"2023-12-06", "We drove around 3 hours.", "around 3 hours", Duration, "PT3H"},
		{"2023-12-06", "I started about five years ago.", "five years ago", Relative, "2018"},
		// ages
		{"2023-09-13", "Since I was 17 or so.", "I was 17", Age, "P17Y"},
		{"2023-09-13", "She started when she was 8.", "when she was 8", Age, "P8Y"},
		{"2023-09-13", "I learned to swim at age 17.", "age 17", Age, "P17Y"},
		{"2023-09-13", "I moved out at 17 years old.", "17 years old", Age, "P17Y"},
		{"2023-09-13", "That was when I was 5 minutes late.", "5 minutes", Duration, "PT5M"},
		// sets
		{"2023-03-06", "Yeah, we go a few times a week.", "a few times a week", Set, "P1W"},
		{"2024-01-06", "I limit myself to two ginger snaps a day.", "a day", Set, "P1D"},
		{"2024-01-06", "She practices 8 hours a day.", "a day", Set, "P1D"},
		{"2024-01-06", "It costs $20 per hour.", "per hour", Set, "PT1H"},
		{"2024-01-06", "I volunteer once a month.", "once a month", Set, "P1M"},
		{"2024-01-06", "We visit twice a year.", "twice a year", Set, "P1Y"},
		{"2024-01-06", "I water them every other day.", "every other day", Set, "P2D"},
		{"2023-06-09", "I love taking walks on the weekends.", "the weekends", Set, "XXXX-WXX-WE"},
		{"2023-06-09", "I hike on weekends.", "weekends", Set, "XXXX-WXX-WE"},
		{"2023-02-25", "And in the evenings, I read.", "the evenings", Set, "XXXX-XX-XXTEV"},
		// "a week" alone is a duration; ago/in make it relative
		{"2023-12-26", "It was a week full of laughs.", "a week", Duration, "P1W"},
		{"2023-12-26", "She takes a year off.", "a year", Duration, "P1Y"},
		{"2023-05-25", "I saw him a week ago.", "a week ago", Relative, "2023-W20"},
		{"2023-05-25", "See you in a week!", "a week", Relative, "2023-W22"},
		{"2023-05-25", "I'll be back in two months.", "two months", Relative, "2023-07"},
		{"2023-05-25", "I finished it in a week.", "a week", Duration, "P1W"},
		{"2023-05-25", "It's my first time in a year!", "a year", Duration, "P1Y"},
		{"2023-05-25", "We haven't talked in a few days.", "a few days", Duration, "PXD"},
		{"2023-05-25", "Quite a week since we last talked!", "", "", ""},
		// back = ago
		{"2023-05-25", "So a few years back we went on a hike.", "a few years back", Relative, ""},
		{"2023-05-25", "I moved two weeks back.", "two weeks back", Relative, "2023-W19"},
		{"2023-05-25", "I quit three years back, and loved it.", "three years back", Relative, "2020"},
		{"2023-05-25", "I spent a week back home.", "a week", Duration, "P1W"},
		// the last/past <unit> is a duration; last <unit> is the calendar unit
		{"2023-07-16", "So much has happened in the last month.", "the last month", Duration, "P1M"},
		{"2023-07-16", "I grew a lot over the past year.", "the past year", Duration, "P1Y"},
		{"2023-07-16", "I ran in the past three weeks.", "the past three weeks", Duration, "P3W"},
		{"2023-07-16", "I ran a lot last month.", "last month", Relative, "2023-06"},
		{"2023-07-16", "It was the last month of school.", "", "", ""},
		// "the next morning": relative to an untold event
		{"2024-01-10", "I saw what happened the next morning.", "the next morning", Relative, ""},
		// decades and centuries
		{"2022-07-10", "It was built in the 1900s.", "the 1900s", Date, "19"},
		{"2022-07-10", "I love music from the 90s.", "the 90s", Date, "199"},
		{"2022-07-10", "It started in the early 2010s.", "the early 2010s", Date, "201"},
		// holidays are dates in the year a year-less date takes
		{"2023-05-25", "We had Christmas with my family.", "Christmas", Date, "2022-12-25"},
		{"2023-05-25", "I'll host Thanksgiving at my place.", "Thanksgiving", Date, "2023-11-23"},
		{"2023-05-25", "We'll party on New Year's Eve!", "New Year's Eve", Date, "2023-12-31"},
		{"2023-05-25", "We went away for Easter 2024.", "Easter 2024", Date, "2024-03-31"},
		{"2023-05-25", "We met on Valentine's Day.", "Valentine's Day", Date, "2023-02-14"},
		{"2023-05-25", "I saw her last Christmas.", "last Christmas", Relative, "2022-12-25"},
		{"2023-05-25", "See you next Halloween!", "next Halloween", Relative, "2023-10-31"},
		{"2023-05-25", "Thanksgiving dinner was great.", "", "", ""},
		{"2023-05-25", "It captures the Christmas magic.", "", "", ""},
	}
	for _, tt := range tests {
		ms := Temporal(tt.text, day0(tt.ref))
		if tt.span == "" {
			if len(ms) > 0 {
				t.Errorf("%q: unexpected %+v", tt.text, ms)
			}
			continue
		}
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
		if got.Kind != tt.kind || got.Value != tt.value {
			t.Errorf("%q [%s]: got %s %q, want %s %q", tt.text, tt.ref, got.Kind, got.Value, tt.kind, tt.value)
		}
		if tt.text[got.Start:got.End] != got.Text {
			t.Errorf("%q: offsets %d..%d do not give %q", tt.text, got.Start, got.End, got.Text)
		}
	}
}

func TestHolidayDates(t *testing.T) {
	for _, tt := range []struct {
		key  string
		y    int
		m, d int
	}{
		{"easter", 2023, 4, 9}, {"easter", 2024, 3, 31}, {"easter", 2025, 4, 20}, {"easter", 2019, 4, 21},
		{"thanksgiving", 2022, 11, 24}, {"thanksgiving", 2023, 11, 23}, {"mother", 2023, 5, 14}, {"father", 2023, 6, 18},
	} {
		if m, d := holidayDate(tt.key, tt.y); m != tt.m || d != tt.d {
			t.Errorf("%s %d = %d-%d, want %d-%d", tt.key, tt.y, m, d, tt.m, tt.d)
		}
	}
	if v := Temporal("Christmas", time.Time{})[0].Value; v != "XXXX-12-25" {
		t.Errorf("Christmas with a zero ref = %q", v)
	}
}

// TestEntityRules: interjections in other languages, generic acronyms,
// holidays and quoted titles.
func TestEntityRules(t *testing.T) {
	speakers := []string{"Caroline", "Melanie"}
	tests := []struct{ in, want string }{
		{"Bon Voyage! Have fun, Caroline.", "Caroline"},
		{"Ciao, Melanie! Merci! Gracias! Voila!", "Melanie"},
		{"Mazel Tov, Anna!", "Anna"},
		{"My GF and I ended up in the ER.", ""},
		{"I play MOBAs and RPGs on my PC, and some FPS too.", ""},
		{"I had PTSD and ADHD, then a BBQ with my BF.", ""},
		{"I joined an LGBTQ support group in Boston.", "Boston"},
		{"We love Christmas and Thanksgiving with Anna.", "Anna"},
		{"Happy New Year, Caroline!", "Caroline"},
		{`"Finding Home" is my favorite book.`, "Finding Home"},
		{`We watched "The Santa Clause" at Christmas.`, "The Santa Clause"},
		{`"Brave" by Sara Bareilles moves me.`, "Brave|Sara Bareilles"},
		{`"Home" is where the heart is.`, ""},
	}
	for _, tt := range tests {
		if got := texts(Entities(tt.in, speakers)); got != tt.want {
			t.Errorf("Entities(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWeekdayOfADate: a weekday beside an explicit date names that date;
// it is not a weekday of its own, resolved apart ("Tuesday 22 April"
// said on 6 March 2025 is 22 April, not the Tuesday after 6 March).
func TestWeekdayOfADate(t *testing.T) {
	ref := time.Date(2025, 3, 6, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ text, span, value string }{
		{"Tuesday 22 April should be calmer.", "Tuesday 22 April", "2025-04-22"},
		{"We fly on Tuesday, 22 April 2025.", "Tuesday, 22 April 2025", "2025-04-22"},
		{"See you Tue, April 22nd.", "Tue, April 22nd", "2025-04-22"},
		{"I was there on Friday the 7th of March.", "Friday the 7th of March", "2025-03-07"},
	} {
		ms := Temporal(tc.text, ref)
		if len(ms) == 0 || ms[0].Text != tc.span || ms[0].Value != tc.value || ms[0].Kind != Date {
			t.Errorf("%q: mentions %+v, want first the date %q = %s", tc.text, ms, tc.span, tc.value)
		}
		for _, m := range ms {
			if m.Kind == Relative {
				t.Errorf("%q: a weekday resolved apart: %+v", tc.text, m)
			}
		}
	}
	// The anchored text shows the date once, never a weekday's own date.
	if got := Anchor("Tuesday 22 April should be calmer.", ref); strings.Contains(got, "March") {
		t.Errorf("anchored: %q", got)
	}
}
