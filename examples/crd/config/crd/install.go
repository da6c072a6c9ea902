package crd

import (
	"context"
	_ "embed"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"k8s.io/client-go/rest"
)

// Manifest is the widgets CRD, as in shop.example.com_widgets.yaml.
//
//go:embed shop.example.com_widgets.yaml
var Manifest []byte

// Install applies the widgets CRD with server-side apply (so it may be
// called again) and waits until it is Established, that is until the
// server serves widgets, or until timeout.
func Install(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	return testbed.ApplyCRD(ctx, cfg, Manifest, timeout)
}
