package ctrlsyncer_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
)

// A Runnable runs its syncers before leader election and returns when the
// Manager stops.
func TestRunnableRunsBeforeLeaderElection(t *testing.T) {
	ws, _ := shopsyncers.NewWidgetDriver()
	r := ctrlsyncer.Runnable(ws)
	if got := fmt.Sprint(r); got != "syncers: widgets.shop.example.com/v1alpha1" {
		t.Errorf("the runnable says it is %q; want it to name its resources", got)
	}
	if le, ok := r.(interface{ NeedLeaderElection() bool }); !ok || le.NeedLeaderElection() {
		t.Fatal("the syncers' runnable waits for leader election")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
