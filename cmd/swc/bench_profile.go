package main

import (
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/swcmem/swc"
)

// startProfiles starts a CPU profile into cpu (when set) and returns the
// function that stops it. A heap profile goes into mem (when set) when
// writeHeap is called (the bench calls it when its runner is done, while
// everything the run holds is live).
func startProfiles(cpu, mem string) (stop func(), err error) {
	heapFile = mem
	var cf *os.File
	if cpu != "" {
		if cf, err = os.Create(cpu); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(cf); err != nil {
			cf.Close()
			return nil, swc.Errorf(swc.EINVALID, "--cpuprofile: %v", err)
		}
	}
	return func() {
		if cf != nil {
			pprof.StopCPUProfile()
			cf.Close()
		}
	}, nil
}

// heapFile is --memprofile; "" when not asked for.
var heapFile string

// writeHeap writes a heap profile into --memprofile, if set.
func writeHeap() {
	if heapFile == "" {
		return
	}
	if mf, err := os.Create(heapFile); err == nil {
		runtime.GC()
		pprof.Lookup("heap").WriteTo(mf, 0)
		mf.Close()
	}
}
