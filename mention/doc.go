// Package mention finds the mentions that salience, gisting and the
// preservation analysis count in chat text: temporal expressions (tagged
// and resolved against the date of the session they were said in), named
// entities, numbers and events. It is hand-written over a small tokenizer
// and lookup tables (no regular expressions, no models), so that a LoCoMo
// turn is annotated in a few microseconds.
//
// # Temporal expressions
//
// Spans follow TIMEX3 practice: the governing preposition is outside the
// span ("in 2022" tags "2022", "for ten minutes" tags "ten minutes",
// "since I was 17" tags "I was 17"), the modifiers that change the value
// are inside ("last Saturday", "two weeks ago", "the week before 9 June
// 2023", "early August"), and so are approximators, as TIMEX3's MOD
// ("about four months", "just under a year", "more than three days",
// "at least two weeks"; the value is that of the bare duration). Kinds:
//
//   - date: 7 May, 8 May 2023, May 7th, the 15th of December, 2022 (after a
//     preposition), June 2021, summer 2022, ranges (November 5-6, 2022;
//     between 26 March and 20 April 2023), expressions anchored to a date
//     (the Sunday before 25 May 2023, the first week of May 2023), decades
//     and centuries (the 90s, the early 2010s, the 1900s, 1990s after a
//     preposition) and holidays (Christmas, Christmas Eve, New Year's Eve,
//     New Year's Day, Happy New Year, Halloween, Thanksgiving, Easter,
//     Valentine's Day, Mother's Day, Father's Day, Independence Day,
//     Thanksgiving 2022). A holiday that modifies a common noun
//     ("Thanksgiving dinner", "the Christmas magic") is not a time
//     reference and is not tagged.
//   - time: 9pm, 10:30 am, noon, this morning, tonight.
//   - relative: yesterday, today, tomorrow, last night, the day before
//     yesterday, last/this/next/past + weekday, week, weekend, month, year,
//     season or holiday, a weekday with a part of the day (Friday night,
//     last Sunday morning), bare weekdays (on Friday), the weekend, a bare
//     "weekend" after "any" or a possessive or starting a sentence (any
//     weekend plans?, how was your weekend?), a month in a year relative to
//     ref (August last year, May 5th this year, June of next year), N units
//     ago / back / from now, a few days ago, a few years back, "in" N units
//     (in a week, in two months: see below), and N units later, the next
//     morning, the following day (unresolved: relative to an untold event).
//     "back" after a unit is "ago" unless a place follows ("a week back
//     home").
//   - duration: ten minutes, three years, a few days, the past few months,
//     for years, 5-minute, a bare "a week/month/year/decade/hour" (a week
//     full of laughs), the last/past week, month, year, decade or hour (in
//     the last month, over the past year: one unit, P1M, as opposed to
//     "last month", the previous calendar month), and "in" N units in a
//     past-tense or negated sentence (finished it in a week, haven't talked
//     in a few days) or after "first time", "twice" … (the first time in a
//     year). Evaluative "what a week!", "quite a week" are not
//     durations.
//   - age: my 18th birthday, when I was 10, when she was 8, since I was 17,
//     8 years old, at 17 years old, 3-year-old, age 15, the age of 15. A
//     bare "at 17" is not tagged (it is as often a time or a count).
//   - set: every Sunday, every Friday night, every other day, every day,
//     daily, once a month, twice a year, three times / a few times a week,
//     on/at/during weekends, on the weekends, in the evenings / the
//     mornings (plural parts of the day), and the distributive "a"/"per" of
//     a quantity: two ginger snaps a day, 8 hours a day, $20 per hour (the
//     "a day" or "per hour" is the span; "a" counts as distributive after a
//     number, or after a plural noun that a count precedes in the same
//     clause).
//
// Vague expressions with no calendar value are not tagged: recently,
// lately, the other day, these days, when I was younger, one day. Nor is
// "the last month/week of ..." (the final one of something).
//
// # Values
//
// Values are TIMEX3/ISO 8601: a day 2023-05-20, a month 2023-05, a year
// 2022, a season 2022-SU (SP, SU, FA, WI), a range 2023-05-20/2023-05-21 (a
// weekend is the range Saturday/Sunday), a week 2023-W20 (ISO week), a time
// T21:00 or a part of a day 2023-05-20TMO (MO, AF, EV, NI), a decade 199
// or a century 19 (every YY00s is read as a century), a duration PT10M,
// P3Y, P2W (PXY for "a few years"), an age as the duration P18Y, a set as
// its period P1W, a weekday pattern XXXX-WXX-7 (XXXX-WXX-5TNI for every
// Friday night, XXXX-WXX-WE for weekends) or a part of the day
// XXXX-XX-XXTEV. An unknown year is XXXX. Phrase is the canonical
// LoCoMo-style wording of a resolved expression: "7 May 2023", "the
// Saturday before 25 May 2023", "the week before 9 June 2023", "May 2023",
// "2022", "summer 2022", "the night of 6 October 2023".
//
// # Resolution (against ref, the session start; never the wall clock)
//
//   - yesterday, last night: the day before ref (a day: "last night" keeps
//     the LoCoMo day value; "yesterday morning" is 2023-05-24TMO); the day
//     before yesterday: two days before; today, tonight, this morning:
//     ref's day, with the part of the day.
//   - last <weekday>: the most recent such weekday strictly before ref's
//     day; next <weekday>: the first one strictly after; this/coming
//     <weekday>: the first on or after; a bare weekday ("on Friday") is the
//     last one in a past-tense sentence, the next one in a future-tense
//     sentence, and unresolved otherwise. A weekday beside a date is part
//     of it, not a weekday of its own: "Tuesday 22 April", "Tue, April
//     22nd" is that date, in the year it falls on that weekday when no
//     year is given (the year by tense, or the one before or after). A
//     weekday with a part of the
//     day resolves to that day with the part: "Friday night" said on Friday
//     13 October 2023 in a past sentence is 2023-10-06TNI.
//   - last/this/next week: the ISO week of ref minus 7 days / of ref / plus
//     7 days. last weekend: the latest Saturday–Sunday whose Sunday is
//     before ref's day; this weekend: the weekend of ref's week, or the one
//     just past in a past-tense sentence said on a weekday; "the weekend"
//     and a bare "weekend" resolve like "this weekend" (plans for the
//     weekend? said on a Friday: the next day and the one after; anything
//     fun over the weekend? after a past-tense sentence, said on a Monday:
//     the weekend just past); next weekend: the first Saturday after ref
//     and its Sunday.
//   - last/this/next month and year: the previous, same, next calendar
//     month or year. Seasons are spring (March–May), summer (June–August),
//     autumn (September–November) and winter (December–February, named by
//     the year it starts in). last summer: the summer of ref's year when ref
//     is after August, else of the year before; this summer: ref's year;
//     next summer: ref's year until May, else the year after (likewise for
//     the other seasons). <Month> last/this/next year: that month (or day)
//     of the year before ref's, ref's, or the year after.
//   - N days/weeks/months/years ago: ref minus N units, at the unit's
//     precision (a day, an ISO week, a month, a year). a few days ago: the
//     range ref−4 … ref−2 days; a few weeks/months/years ago has no value.
//     N units back is N units ago. "in" N units (in a week, in two
//     months), unless the sentence is past-tense or negated: ref plus N
//     units, like N units from now (in a gold answer, which ParseGold
//     reads as "in " + answer, it stays a duration).
//   - Holidays take the date of the holiday in a year chosen like the year
//     of a date without one (below): Christmas 25 December, Christmas Eve
//     24 December, New Year 1 January, New Year's Eve 31 December,
//     Halloween 31 October, Valentine's Day 14 February, Independence Day 4
//     July, Thanksgiving the fourth Thursday of November, Easter by the
//     Gregorian computus, Mother's Day the second Sunday of May, Father's
//     Day the third Sunday of June. last/next <holiday>: the latest one
//     strictly before ref's day / the first strictly after; this
//     <holiday>: ref's year. With a zero ref a fixed holiday has the year
//     XXXX (XXXX-12-25) and a movable one has no value.
//   - "<weekday>/week/weekend/N days before|after|of <date>" resolve the
//     same way against the date in the text, so LoCoMo's gold answers and
//     the resolved mentions share values (see ParseGold).
//   - A date without a year takes ref's year. When that puts it after ref
//     in a past-tense sentence (was, did, -ed verbs, ago, …), the year
//     before is used; when it puts it before ref's month in a future-tense
//     sentence (will, going to, next, …), the year after. With a zero ref
//     the year stays XXXX and relative values are empty.
//   - The tense of a sentence is read from closed-class cues (past: was,
//     did, went, ago, -ed verbs …; future: will, 'll, going to, planning,
//     next …; future wins). A sentence without any cue takes the tense of
//     the nearest earlier sentence of the same text that has one.
//
// # Named entities
//
// An entity is a run of capitalised words (joined by "of", "the", "&",
// "de" or hyphens: "Lord of the Rings", "Rio de Janeiro"), minus: the
// pronoun I, interjections and chat words (Wow, Thanks, Hey, Omg, Lol, …)
// including those of other languages (Bon voyage, Bon appétit, Ciao,
// Voilà, Gracias, Merci, Olé, Hola, Namaste, Mazel tov, …), kinship words
// used as names (Mom, Dad), calendar words (months, weekdays) and holidays
// (Christmas, Thanksgiving, New Year's Eve: they are dates), nationality
// and religion adjectives and community descriptors (LGBTQ, as in "an
// LGBTQ support group": it qualifies a group, it names none), generic
// acronyms (TV, PC, RPG, MOBA, FPS, DIY, BBQ, GF, BF, ER, ICU, PTSD, ADHD,
// CEO, …: names of kinds of things, not of one thing) and, at the start of
// a sentence, common words; a lone capitalised word that starts a sentence
// counts only when it is a speaker's name or appears capitalised
// mid-sentence elsewhere in the text. A run of capitalised words that is
// exactly the content of a pair of quotes is a title and is kept whole,
// even at the start of a sentence and with a leading "The" ("Finding
// Home" is …, "The Santa Clause"), unless it is a single common word
// ("Home"). A trailing possessive 's is not part of the span. Kinds
// (person, place, …) are not distinguished: precision matters more than
// labels.
//
// # Numbers
//
// A number is a run of digits (with inner "," or "." between digits:
// 1,000, 3.5) or of cardinal number words (two, twenty-five, a dozen).
// "one" after a determiner or adjective ("this one", "the one") is a
// pronoun, not a number. Numbers inside dates count too.
//
// # Events
//
// Event mentions are counted per token, so each sentence contributes its
// main verbs and event nouns:
//
//   - a verb is a word whose lemma is in the package's verb lexicon (about
//     350 common English verbs with their irregular forms); past tense,
//     participle and -ing forms count by themselves, base and -s forms only
//     after a subject pronoun, a modal, an auxiliary, "to" or a frequency
//     adverb; -ing forms after a determiner ("the painting") and -ed forms
//     after "so", "very", "was", "feel" … (adjectival: "so excited") do not
//     count;
//   - excluded verbs: the light verbs be, have, do, get; go when auxiliary
//     ("going to VERB"); modals; and the stance/discourse verbs need, want,
//     like, love, hope, wish, think, know, guess, mean, feel, seem, sound,
//     look, bet, suppose, believe, wonder, say, tell, let, thank,
//     appreciate, miss, care;
//   - an event noun is a word from a closed list of about 90 happenings
//     (trip, party, race, concert, wedding, meeting, workshop, hike,
//     interview, accident, …); those that are also verbs (run, walk, hike,
//     race, …) count as nouns after a determiner, as verbs in a verbal
//     context, and not otherwise.
//
// Value holds the lemma ("ran" → run), so source and gist compare by lemma
// as well as by surface form.
package mention
