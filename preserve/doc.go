// Package preserve measures what gist abstraction keeps (the
// paper's Table 3): for every gist a condition made, it extracts the
// temporal expressions, named entities and event mentions of the gist's
// source turns with package mention and checks each against the gist.
//
// # Definitions
//
//   - Source of a gist: the original text of the turns it stands for
//     (swc.GistRecord.Turns looked up in the conversation), never the
//     anchored text swc-anchored gave its gister. Each turn's mentions are
//     resolved against the start of its own session.
//   - Gists audited: every record in Context.Gists, whether or not the
//     budget kept it in the context (InContext is only reported, in
//     Coverage). A turn that is the source of two gists of one condition
//     counts twice.
//   - Types: temporal = mention kinds date, time, relative, duration, age
//     and set; entity = entity; event = event. Numbers are not counted.
//   - Verbatim preservation: the mention's surface form occurs in the gist
//     after both are lower-cased, their whitespace runs collapsed to one
//     space and curly quotes straightened, at word boundaries (so the
//     event "ran" is not found inside "grand"; a boundary is checked only
//     where the mention starts or ends with a letter or digit).
//   - Value preservation (temporal only): a mention is value-preserved when
//     it is verbatim-preserved, or it has a resolved Value and either the
//     gist, resolved against the mention's own session start, contains a
//     temporal mention with the same Value (exact string equality), or the
//     mention's resolved Phrase or, for a single day, its "D Month YYYY"
//     date occurs in the gist (the way swc-anchored gists carry resolved
//     dates: "last Saturday [20 May 2023]"). The gist is resolved against
//     each source mention's own session start. A gist of several sessions
//     (the sliding window's running summary) cannot tell which session its
//     own relative expressions belong to ("last night" from session 4
//     would otherwise match a "yesterday" of session 9), so there only the
//     gist's reference-free mentions count: those that keep a value with a
//     zero reference (dates, with the source session's year filled in,
//     durations, clock times, ages, sets).
//   - value_rate = value-preserved ÷ found: the denominator is every
//     temporal mention, the same as the verbatim rate's, so value_rate ≥
//     rate always; mentions without a Value (unresolvable ones such as
//     "two days later") can only be preserved verbatim. Resolved reports
//     how many had a Value.
//   - rate = preserved ÷ found, 0 when nothing was found. Ratios divide a
//     variant's rate by a baseline variant's (swc-temporal ÷ swc-full is the
//     paper's ×); a ratio is null when the baseline rate is 0.
//
// Analyze audits the contexts strategies made; FromExternal audits gists
// made elsewhere (a JSONL file of {conversation, session, variant, gist}).
// Mention extraction is cached per turn, so a turn that is a source under
// several conditions is annotated once.
package preserve
