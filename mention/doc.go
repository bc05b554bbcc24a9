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
// span ("in 2022" tags "2022", "for ten minutes" tags "ten minutes"), the
// modifiers that change the value are inside ("last Saturday", "two weeks
// ago", "the week before 9 June 2023", "early August"). Kinds:
//
//   - date: 7 May, 8 May 2023, May 7th, the 15th of December, 2022 (after a
//     preposition), June 2021, summer 2022, ranges (November 5-6, 2022;
//     between 26 March and 20 April 2023), and expressions anchored to a
//     date (the Sunday before 25 May 2023, the first week of May 2023).
//   - time: 9pm, 10:30 am, noon, this morning, tonight.
//   - relative: yesterday, today, tomorrow, last night, the day before
//     yesterday, last/this/next/past + weekday, week, weekend, month, year
//     or season, bare weekdays (on Friday), N units ago / from now, a few
//     days ago, N units later (unresolved: relative to an untold event).
//   - duration: ten minutes, three years, a few days, the past few months,
//     for years, 5-minute.
//   - age: my 18th birthday, when I was 10, 8 years old, 3-year-old, age 15.
//   - set: every Sunday, every day, daily, on weekends, twice a week.
//
// Vague expressions with no calendar value are not tagged: recently,
// lately, the other day, these days, when I was younger, one day.
//
// # Values
//
// Values are TIMEX3/ISO 8601: a day 2023-05-20, a month 2023-05, a year
// 2022, a season 2022-SU (SP, SU, FA, WI), a range 2023-05-20/2023-05-21 (a
// weekend is the range Saturday/Sunday), a week 2023-W20 (ISO week), a time
// T21:00 or a part of a day 2023-05-20TMO (MO, AF, EV, NI), a duration
// PT10M, P3Y, P2W (PXY for "a few years"), an age as the duration P18Y, a
// set as its period P1W or a weekday pattern XXXX-WXX-7. An unknown year
// is XXXX. Phrase is the canonical LoCoMo-style wording of a resolved
// expression: "7 May 2023", "the Saturday before 25 May 2023", "the week
// before 9 June 2023", "May 2023", "2022", "summer 2022".
//
// # Resolution (against ref, the session start; never the wall clock)
//
//   - yesterday, last night: the day before ref; the day before yesterday:
//     two days before; today, tonight, this morning: ref's day.
//   - last <weekday>: the most recent such weekday strictly before ref's
//     day; next <weekday>: the first one strictly after; this/coming
//     <weekday>: the first on or after; a bare weekday ("on Friday") is the
//     last one in a past-tense sentence, the next one in a future-tense
//     sentence, and unresolved otherwise.
//   - last/this/next week: the ISO week of ref minus 7 days / of ref / plus
//     7 days. last weekend: the latest Saturday–Sunday whose Sunday is
//     before ref's day; this weekend: the weekend of ref's week, or the one
//     just past in a past-tense sentence said on a weekday; next weekend:
//     the first Saturday after ref and its Sunday.
//   - last/this/next month and year: the previous, same, next calendar
//     month or year. Seasons are spring (March–May), summer (June–August),
//     autumn (September–November) and winter (December–February, named by
//     the year it starts in). last summer: the summer of ref's year when ref
//     is after August, else of the year before; this summer: ref's year;
//     next summer: ref's year until May, else the year after (likewise for
//     the other seasons).
//   - N days/weeks/months/years ago: ref minus N units, at the unit's
//     precision (a day, an ISO week, a month, a year). a few days ago: the
//     range ref−4 … ref−2 days; a few weeks/months/years ago has no value.
//   - "<weekday>/week/weekend/N days before|after|of <date>" resolve the
//     same way against the date in the text, so LoCoMo's gold answers and
//     the resolved mentions share values (see ParseGold).
//   - A date without a year takes ref's year. When that puts it after ref
//     in a past-tense sentence (was, did, -ed verbs, ago, …), the year
//     before is used; when it puts it before ref's month in a future-tense
//     sentence (will, going to, next, …), the year after. With a zero ref
//     the year stays XXXX and relative values are empty.
//
// # Named entities
//
// An entity is a run of capitalised words (joined by "of", "the", "&",
// "de" or hyphens: "Lord of the Rings", "Rio de Janeiro"), minus: the
// pronoun I, interjections and chat words (Wow, Thanks, Hey, Omg, Lol, …),
// kinship words used as names (Mom, Dad), calendar words (months,
// weekdays), nationality and religion adjectives, generic acronyms (TV,
// PC, RPG) and, at the start of a sentence, common words; a lone
// capitalised word that starts a sentence counts only when it is a
// speaker's name or appears capitalised mid-sentence elsewhere in the
// text. A trailing possessive 's is not part of the span. Kinds (person,
// place, …) are not distinguished: precision matters more than labels.
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
