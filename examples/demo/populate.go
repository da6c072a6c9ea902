package main

import (
	"context"
	"sync"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
)

// populate creates the ConfigMaps and the Widgets at the same time, each
// with half of the workers, under one progress bar.
func (d *demo) populate(ctx context.Context) error {
	cs := d.srv.Client()
	if err := fixture.CreateNamespace(ctx, cs, d.o.namespace); err != nil {
		return err
	}
	widgets, err := fixture.NewWidgets(d.srv.Config(), d.o.namespace)
	if err != nil {
		return err
	}
	started := time.Now()
	total := d.o.configMaps + d.o.widgets
	bar := progress.New(d.ui.out, "    creating", total)
	workers := max(1, d.o.workers/2)
	var wg sync.WaitGroup
	var cmErr, wErr error
	wg.Go(func() {
		cmErr = fixture.CreateConfigMaps(ctx, cs, d.o.namespace, d.o.configMaps, workers, func() { bar.Add(1) })
	})
	wg.Go(func() {
		wErr = fixture.CreateWidgets(ctx, widgets, d.o.namespace, d.o.widgets, workers, func() { bar.Add(1) })
	})
	wg.Wait()
	bar.Finish()
	if cmErr != nil {
		return cmErr
	}
	if wErr != nil {
		return wErr
	}
	took := time.Since(started)
	d.ui.ok("%d objects in %.1fs (%.0f/s)", total, took.Seconds(), float64(total)/took.Seconds())
	return nil
}
