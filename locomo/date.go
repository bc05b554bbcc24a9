package locomo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

var months = map[string]time.Month{
	"january": time.January, "jan": time.January,
	"february": time.February, "feb": time.February,
	"march": time.March, "mar": time.March,
	"april": time.April, "apr": time.April,
	"may":  time.May,
	"june": time.June, "jun": time.June,
	"july": time.July, "jul": time.July,
	"august": time.August, "aug": time.August,
	"september": time.September, "sep": time.September, "sept": time.September,
	"october": time.October, "oct": time.October,
	"november": time.November, "nov": time.November,
	"december": time.December, "dec": time.December,
}

// ParseDate reads a LoCoMo session date such as "1:56 pm on 8 May, 2023".
// It tolerates upper-case PM/AM, "p.m.", a missing comma, extra spaces, an
// abbreviated month, "May 8, 2023" order and a missing time of day. Times
// carry no zone in LoCoMo; they are returned in UTC. It returns an error
// naming the text when it cannot read a day, month and year.
func ParseDate(s string) (time.Time, error) {
	orig := s
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(",", " ", "a.m.", "am", "p.m.", "pm").Replace(s)
	hour, min := 0, 0
	if clock, rest, ok := strings.Cut(s, " on "); ok {
		var err error
		hour, min, err = parseClock(strings.TrimSpace(clock))
		if err != nil {
			return time.Time{}, fmt.Errorf("cannot parse date %q: %v", orig, err)
		}
		s = rest
	}
	f := strings.Fields(s)
	if len(f) != 3 {
		return time.Time{}, fmt.Errorf("cannot parse date %q: want \"H:MM am on D Month, YYYY\"", orig)
	}
	dayField, monField := f[0], f[1]
	if _, isMonth := months[f[0]]; isMonth { // "May 8 2023"
		dayField, monField = f[1], f[0]
	}
	dayField = strings.TrimRight(dayField, "stndrh") // 8th, 1st, 2nd, 3rd
	day, err1 := strconv.Atoi(dayField)
	mon, okMon := months[strings.TrimSuffix(monField, ".")]
	year, err2 := strconv.Atoi(f[2])
	if err1 != nil || !okMon || err2 != nil || year < 1000 || year > 9999 {
		return time.Time{}, fmt.Errorf("cannot parse date %q: want \"H:MM am on D Month, YYYY\"", orig)
	}
	t := time.Date(year, mon, day, hour, min, 0, 0, time.UTC)
	if t.Day() != day || t.Month() != mon {
		return time.Time{}, fmt.Errorf("cannot parse date %q: %d %s %d does not exist", orig, day, mon, year)
	}
	return t, nil
}

// parseClock reads "1:56 pm", "1:56pm", "13:56" or "1 pm".
func parseClock(s string) (hour, min int, err error) {
	s = strings.ReplaceAll(s, " ", "")
	ampm := ""
	if strings.HasSuffix(s, "am") || strings.HasSuffix(s, "pm") {
		ampm, s = s[len(s)-2:], s[:len(s)-2]
	}
	hs, ms, hasMin := strings.Cut(s, ":")
	if hour, err = strconv.Atoi(hs); err != nil {
		return 0, 0, fmt.Errorf("bad hour in %q", s)
	}
	if hasMin {
		if min, err = strconv.Atoi(ms); err != nil || len(ms) != 2 || min > 59 {
			return 0, 0, fmt.Errorf("bad minutes in %q", s)
		}
	}
	switch ampm {
	case "":
		if hour > 23 {
			return 0, 0, fmt.Errorf("bad hour in %q", s)
		}
	default:
		if hour < 1 || hour > 12 {
			return 0, 0, fmt.Errorf("bad hour in %q", s)
		}
		if hour == 12 {
			hour = 0
		}
		if ampm == "pm" {
			hour += 12
		}
	}
	return hour, min, nil
}
