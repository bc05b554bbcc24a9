package loadtest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcessRSS returns this process's resident set size in bytes (VmRSS of
// /proc/self/status); it returns an error where there is no such file
// (not Linux).
func ProcessRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("loadtest: rss: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("loadtest: rss: %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("loadtest: rss: no VmRSS in /proc/self/status")
}
