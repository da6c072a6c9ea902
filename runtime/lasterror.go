package runtime

// report records err as the Syncer's last error, counts it in Metrics.Error
// and hands it to the handlers' OnError: every failure goes through here.
func (s *Syncer[T]) report(err *SyncError) {
	if s.parent != nil { // the loop of one of its namespaces
		err.Resource += " in namespace " + s.cfg.namespace
		s.parent.lastErr.Store(err)
	}
	s.lastErr.Store(err)
	s.cfg.metrics.Error(err.Kind)
	s.cache.fail(err)
}

// LastError returns the last failure the Syncer reported to OnError, or nil
// if there was none. It stays after the Syncer recovers: read it with
// HasSynced to tell why a Syncer has not synced (a set of syncers names it
// in its timeout error). It may be called from any goroutine.
func (s *Syncer[T]) LastError() *SyncError { return s.lastErr.Load() }
