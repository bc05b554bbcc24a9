package mention

var monthNames = [...]string{"", "January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

var weekdayNames = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// months maps full month names and unambiguous abbreviations to 1–12.
var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
	"july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// weekdays maps weekday names (and, after last/next/this, abbreviations)
// to time.Weekday numbers.
var weekdays = map[string]int{
	"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6,
}

var weekdayAbbr = map[string]int{
	"sun": 0, "mon": 1, "tue": 2, "tues": 2, "wed": 3, "thu": 4, "thur": 4, "thurs": 4, "fri": 5, "sat": 6,
}

var weekdayPlural = map[string]int{
	"sundays": 0, "mondays": 1, "tuesdays": 2, "wednesdays": 3, "thursdays": 4, "fridays": 5, "saturdays": 6,
}

// Units (unit codes used in values).
const (
	uDay     = 'D'
	uWeek    = 'W'
	uWeekend = 'E'
	uMonth   = 'M'
	uYear    = 'Y'
	uDecade  = 'X'
	uHour    = 'h'
	uMinute  = 'm'
	uSecond  = 's'
	uNight   = 'N'
)

var units = map[string]byte{
	"day": uDay, "days": uDay, "week": uWeek, "weeks": uWeek, "weekend": uWeekend, "weekends": uWeekend,
	"month": uMonth, "months": uMonth, "year": uYear, "years": uYear, "yr": uYear, "yrs": uYear,
	"decade": uDecade, "decades": uDecade, "hour": uHour, "hours": uHour, "hr": uHour, "hrs": uHour,
	"minute": uMinute, "minutes": uMinute, "min": uMinute, "mins": uMinute,
	"second": uSecond, "seconds": uSecond, "secs": uSecond, "night": uNight, "nights": uNight,
}

var seasons = map[string]string{"summer": "SU", "winter": "WI", "spring": "SP", "fall": "FA", "autumn": "FA"}

var seasonNames = map[string]string{"SU": "summer", "WI": "winter", "SP": "spring", "FA": "autumn"}

var timesOfDay = map[string]string{"morning": "MO", "afternoon": "AF", "evening": "EV", "night": "NI"}

var ordinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
	"eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
	"fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
	"nineteenth": 19, "twentieth": 20, "twenty-first": 21, "thirtieth": 30, "fortieth": 40,
	"fiftieth": 50, "sixtieth": 60,
}

var ordSuffix = map[string]bool{"st": true, "nd": true, "rd": true, "th": true}

// mayPreps are the words after which a bare capitalised "May" is the month
// ("in May", "last May"): the modal verb does not follow them.
var mayPreps = map[string]bool{
	"in": true, "early": true, "mid": true, "late": true, "last": true, "next": true, "this": true,
	"since": true, "until": true, "by": true, "of": true, "during": true, "from": true,
	"through": true, "till": true,
}

// datePreps are words after which a bare month name or year is a date.
var datePreps = map[string]bool{
	"in": true, "since": true, "of": true, "from": true, "until": true, "till": true, "by": true,
	"during": true, "around": true, "before": true, "after": true, "early": true, "late": true,
	"mid": true, "through": true, "to": true, "on": true, "last": true, "next": true, "this": true,
	"back": true, "circa": true, "about": true, "throughout": true, "end": true, "beginning": true,
}
