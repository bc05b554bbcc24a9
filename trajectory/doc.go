// Package trajectory replays real coding-agent runs request by request and
// measures what a compressor does to each request: whether the code
// identifiers the agent's next turn uses, seen before only in tool
// outputs, survive (forward-reference retention), the tokens sent, refusals,
// provider-rule breaches of the compressed body, prompt-cache prefix
// stability and compression time. It holds the loader (a directory of
// trajectory files or plain request bodies), the replay (every prefix cut
// just before an assistant turn), the field's simple baselines
// (truncation, observation masking, trimming) and swc's own compressor as
// conditions, and the summary the report is drawn from.
//
// The identifier extraction and the observation shape check are written
// here on purpose, apart from the compressor's own: a benchmark must not
// grade a compressor with its own notion of what matters.
package trajectory
