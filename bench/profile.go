package main

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
)

// profiler writes a child's CPU and heap profiles when a folder is given,
// and does nothing otherwise.
type profiler struct {
	dir, tag string
	cpu      *os.File
}

func newProfiler(dir, tag string) *profiler { return &profiler{dir: dir, tag: tag} }

func (p *profiler) path(phase, what string) string {
	return filepath.Join(p.dir, fmt.Sprintf("%s.%s.%s.pprof", p.tag, phase, what))
}

// startCPU starts a CPU profile of phase.
func (p *profiler) startCPU(phase string) error {
	if p.dir == "" {
		return nil
	}
	f, err := os.Create(p.path(phase, "cpu"))
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	p.cpu = f
	return nil
}

// stopCPU ends the running CPU profile, if any.
func (p *profiler) stopCPU() {
	if p.cpu == nil {
		return
	}
	pprof.StopCPUProfile()
	p.cpu.Close()
	p.cpu = nil
}

// writeHeap writes a heap profile (in use after a GC, and allocations).
func (p *profiler) writeHeap(phase string) error {
	if p.dir == "" {
		return nil
	}
	goruntime.GC()
	f, err := os.Create(p.path(phase, "heap"))
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}
