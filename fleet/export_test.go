package fleet

// Kill is a test hook that models SIGKILL: the replica stops at once. Its
// API requests in flight are cancelled and it sends no more (no renewal,
// no release, no goodbye), its shards' work is cancelled as the process's
// death would end it, and Run returns once that work has returned.
func (f *Fleet) Kill() { f.kill() }
