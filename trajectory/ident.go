package trajectory

import (
	"regexp"
	"strings"
)

// The identifier shapes Identifiers extracts. Go's regexp is RE2: \b is the
// ASCII word boundary.
var (
	// a path: at least one slash between path characters (a/b.py, ./x,
	// /usr/lib/x, src/foo/bar.c).
	pathRE = regexp.MustCompile(`(?:\.{1,2}/|/)?[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+/?`)
	// a dotted name: two or more name segments (os.path.join, models.py).
	dottedRE = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b`)
	// a snake_case name: an underscore between name characters, or a
	// leading one (get_latest_lastmod, MAX_SIZE, __init__, _private); the
	// pattern matches any word, Identifiers keeps those with an underscore.
	snakeRE = regexp.MustCompile(`\b_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)*_*`)
	// a camelCase or PascalCase name with an inner capital (getValue,
	// QuerySet, ValueError).
	camelRE = regexp.MustCompile(`\b[A-Za-z][a-z0-9]+[A-Z][A-Za-z0-9]*\b`)
	// a number of three or more digits (line numbers, ids, sizes).
	numberRE = regexp.MustCompile(`\b[0-9]{3,}\b`)
)

// Identifiers returns the distinct code identifiers of text in order of
// first appearance: paths, dotted names, snake_case and camelCase names and
// numbers of three or more digits. A path's trailing slash and a name's
// trailing dot (the end of a sentence) are dropped; a path must hold a
// letter and either start with "./", "../" or "/", hold two slashes, or end
// in a name with an extension, so that "and/or" is not one; a dotted name
// must be at least 5 characters long ("e.g", "i.e" are not).
func Identifiers(text string) []string {
	type hit struct {
		at int
		id string
	}
	var hits []hit
	add := func(re *regexp.Regexp, keep func(string) bool) {
		for _, loc := range re.FindAllStringIndex(text, -1) {
			id := strings.TrimRight(text[loc[0]:loc[1]], "./")
			if id != "" && keep(id) {
				hits = append(hits, hit{loc[0], id})
			}
		}
	}
	add(pathRE, isPath)
	add(dottedRE, func(s string) bool { return len(s) >= 5 && strings.Contains(s, ".") })
	add(snakeRE, func(s string) bool { return strings.Contains(strings.Trim(s, "_"), "_") || strings.HasPrefix(s, "_") })
	add(camelRE, func(string) bool { return true })
	add(numberRE, func(string) bool { return true })
	// order by position, the longer first at one position
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && (hits[j].at < hits[j-1].at || hits[j].at == hits[j-1].at && len(hits[j].id) > len(hits[j-1].id)); j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, h := range hits {
		if !seen[h.id] {
			seen[h.id] = true
			out = append(out, h.id)
		}
	}
	return out
}

// isPath reports whether a slash-joined run is a file path rather than
// words joined by a slash.
func isPath(s string) bool {
	if !strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return false // 1/2, 10/20/30
	}
	if strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/") || strings.Count(s, "/") >= 2 {
		return true
	}
	last := s[strings.LastIndexByte(s, '/')+1:]
	dot := strings.LastIndexByte(last, '.')
	return dot > 0 && dot < len(last)-1
}
