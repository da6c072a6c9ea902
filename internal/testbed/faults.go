package testbed

import "syscall"

// KillAPIServer kills kube-apiserver with SIGKILL (kill -9), as a crash or
// an OOM kill does: no graceful drain, open watches and requests end with a
// reset connection. etcd keeps running; StartAPIServer starts it again.
func (s *Server) KillAPIServer() {
	s.apiserver.kill()
}

// kill ends the process and its group at once with SIGKILL and waits for it.
func (p *process) kill() {
	if p == nil || p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}
