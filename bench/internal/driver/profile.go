package driver

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
)

// Profiler writes a child's CPU and heap profiles when a folder is given,
// and does nothing otherwise.
type Profiler struct {
	dir, tag string
	cpu      *os.File
}

func NewProfiler(dir, tag string) *Profiler { return &Profiler{dir: dir, tag: tag} }

func (p *Profiler) path(phase, what string) string {
	return filepath.Join(p.dir, fmt.Sprintf("%s.%s.%s.pprof", p.tag, phase, what))
}

// StartCPU starts a CPU profile of phase.
func (p *Profiler) StartCPU(phase string) error {
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

// StopCPU ends the running CPU profile, if any.
func (p *Profiler) StopCPU() {
	if p.cpu == nil {
		return
	}
	pprof.StopCPUProfile()
	p.cpu.Close()
	p.cpu = nil
}

// WriteHeap writes a heap profile (in use after a GC, and allocations).
func (p *Profiler) WriteHeap(phase string) error {
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
