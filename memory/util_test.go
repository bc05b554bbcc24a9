package memory

import "regexp"

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }
