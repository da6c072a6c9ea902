// Command crcache is the bench's cr-cache contender (see bench/doc.go): a
// controller-runtime Manager whose controller watches For(&Widget{}) and
// whose reconciler reads each widget through the Manager's cache. It links
// controller-runtime and nothing of syncer-gen's runtime. The parent runs
// it as bench/internal/child says.
package main

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/crmanager"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

func main() {
	crmanager.Main(func(mgr manager.Manager, b *builder.Builder, _ *child.Env) (*builder.Builder, client.Reader, func(context.Context) error, error) {
		// The informer For starts, which GetInformer waits for.
		synced := func(ctx context.Context) error {
			_, err := mgr.GetCache().GetInformer(ctx, &shopv1alpha1.Widget{})
			return err
		}
		return b.For(&shopv1alpha1.Widget{}), mgr.GetClient(), synced, nil
	})
}
