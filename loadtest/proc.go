package loadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// procStat returns a process's parent, its user+system CPU time and its
// waited-for children's, from /proc/PID/stat; an error when there is no
// such process here.
func procStat(pid int) (ppid int, self, children time.Duration, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("loadtest: /proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 15 {
		return 0, 0, 0, fmt.Errorf("loadtest: /proc/%d/stat: unexpected format", pid)
	}
	num := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
	return int(num(4)), time.Duration(num(14)+num(15)) * clockTick, time.Duration(num(16)+num(17)) * clockTick, nil
}

// ProcessCPU returns the CPU time (user and system) the process pid has
// used so far, or an error when it is not a process of this machine.
func ProcessCPU(pid int) (time.Duration, error) {
	_, self, _, err := procStat(pid)
	return self, err
}

// ParentOf returns the parent of process pid, or an error when it is not
// a process of this machine.
func ParentOf(pid int) (int, error) {
	ppid, _, _, err := procStat(pid)
	return ppid, err
}

// TreeCPU returns the CPU time used so far by the process root and its
// children (those alive, and those that ended: root's waited-for
// children's time): a Postgres server's postmaster and its backends. It
// returns an error when root is not a process of this machine.
func TreeCPU(root int) (time.Duration, error) {
	_, self, done, err := procStat(root)
	if err != nil {
		return 0, err
	}
	total := self + done
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == root {
			continue
		}
		if ppid, self, _, err := procStat(pid); err == nil && ppid == root {
			total += self
		}
	}
	return total, nil
}
