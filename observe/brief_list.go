package observe

import "strings"

// maxEntries bounds the entries a listing's brief gathers: a line shows
// about ten.
const maxEntries = 64

// entries returns the entries of a listing or the files of search hits,
// their common directory cut, or nil when body is neither: at least two
// non-empty lines, nine in ten of them an entry (a path or a file name
// alone, a tree's "- " before it; or a bare name, as ls lists a
// directory, so long as half are paths or named files) or all of them
// hits ("path:12:…"). A numbered file view's line numbers are not part
// of its lines. lines is body's line count; the scan stops as soon as
// body cannot be either, and at most maxEntries are gathered.
func entries(body string, lines int) []string {
	if lines < 2 {
		return nil
	}
	n, named, notEntry, notHit := 0, 0, 0, 0
	for rest := body; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		t := listLine(line)
		if t == "" || t == "--" { // grep -C's separator between groups
			continue
		}
		n++
		if _, ok := hitPath(t); ok {
			notEntry++
		} else {
			notHit++
			switch e := strings.TrimPrefix(t, "- "); {
			case entry(e):
				named++
			case !bareName(e):
				notEntry++
			}
		}
		if notHit > 0 && notEntry*10 > lines {
			return nil
		}
	}
	hits := notHit == 0
	if n < 2 || !hits && (notEntry*10 > n || named*2 < n) {
		return nil
	}
	var list []string
	var seen map[string]bool
	for rest := body; rest != "" && len(list) < maxEntries; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		t := listLine(line)
		if t == "" || t == "--" {
			continue
		}
		if hits {
			if p, _ := hitPath(t); !seen[p] {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[p] = true
				list = append(list, p)
			}
		} else if t = strings.TrimPrefix(t, "- "); entry(t) || bareName(t) {
			list = append(list, t)
		}
	}
	if len(list) < 2 {
		return list
	}
	cut := commonDir(list)
	for i, e := range list {
		if len(e) > cut {
			list[i] = e[cut:]
		}
	}
	return list
}

// listLine returns a line of a listing trimmed, without a file view's
// line number.
func listLine(line string) string {
	code, _ := codeOf(line)
	return strings.TrimSpace(code)
}

// entry reports whether t is a path or a file name alone: a path (a '/'
// in it, at most three spaces inside its names after the first '/') or
// a name with an extension ("app.ts", ".gitignore", no spaces), nothing
// a sentence, a version ("lazy_html 0.1.8") or a line of code holds.
func entry(t string) bool {
	if t == "" || len(t) > 200 || strings.ContainsAny(t, "\t(){}[]<>=;,:\"'`") || strings.Count(t, " ") > 3 {
		return false
	}
	if strings.HasSuffix(t, "/") {
		return true
	}
	if !isWord(t[len(t)-1]) {
		return false
	}
	if slash := strings.IndexByte(t, '/'); slash >= 0 {
		// Spaces only inside its names after the first '/': not a
		// commit's "abc1234 fix src/a.go".
		sp := strings.IndexByte(t, ' ')
		return sp < 0 || sp > slash
	}
	dot := strings.LastIndexByte(t, '.')
	return dot >= 0 && dot < len(t)-1 && isAlpha(t[dot+1]) && strings.IndexByte(t, ' ') < 0
}

// bareName reports whether t is one name alone (a directory ls lists
// without a '/': "dsl", "node_modules"): letters, digits, '_', '-', '.'.
func bareName(t string) bool {
	if t == "" || len(t) > 80 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isWord(t[i]) && t[i] != '-' && t[i] != '.' {
			return false
		}
	}
	return true
}

// hitPath returns the path of a search hit's line ("src/a.py:12:…",
// "src/a.py-13-…"): a path (a '/' or a '.' in it, no space or tab), a
// ':' or '-', a line number and the same separator again. One pass
// over the line: a space or tab before a hit's separator ends it.
func hitPath(t string) (string, bool) {
	pathy := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case ' ', '\t':
			return "", false
		case '/', '.':
			pathy = true
		case ':', '-':
			if !pathy || i == 0 {
				continue
			}
			j := i + 1
			for j < len(t) && isDigitB(t[j]) {
				j++
			}
			if j > i+1 && j < len(t) && t[j] == c {
				return t[:i], true
			}
		}
	}
	return "", false
}

// commonDir returns the length of the directory (up to and with its last
// '/') that every one of list opens with.
func commonDir(list []string) int {
	p := list[0]
	for _, e := range list[1:] {
		i := 0
		for i < len(p) && i < len(e) && p[i] == e[i] {
			i++
		}
		p = p[:i]
	}
	return strings.LastIndexByte(p, '/') + 1
}
