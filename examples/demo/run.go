package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// demo is the state the steps share.
type demo struct {
	o          options
	ui         *ui
	dir        string // temporary; removed at the end
	srv        *testbed.Server
	kubeconfig string
	bins       map[string]string // example name -> built binary
	children   []*child
}

// run runs the steps in order and always stops what they started.
func run(ctx context.Context, o options, u *ui) (err error) {
	dir, err := os.MkdirTemp("", "syncer-gen-demo-")
	if err != nil {
		return err
	}
	d := &demo{o: o, ui: u, dir: dir}
	defer func() {
		u.step("Stopping everything")
		d.cleanup()
		if err == nil {
			u.ok("demo done in %s", u.elapsed())
		}
	}()

	steps := []struct {
		title string
		do    func(context.Context) error
	}{
		{"Starting etcd and kube-apiserver", d.startServer},
		{"Installing the Widget CustomResourceDefinition", d.installCRD},
		{fmt.Sprintf("Creating %d ConfigMaps and %d Widgets in namespace %q", o.configMaps, o.widgets, o.namespace), d.populate},
		{"Building examples/builtin and examples/crd", d.build},
		{"examples/builtin: sync every ConfigMap once, keeping a snapshot", d.runBuiltin},
		{"examples/builtin again, after 1% churn: a warm restart from the snapshot", d.runBuiltinWarm},
		{fmt.Sprintf("examples/builtin: %d pods whole, projected to a node agent's fields (NodePod), and one node's agent", o.pods), d.runProjection},
		{"examples/crd: sync the widgets, then follow them live", d.runCRD},
		{"examples/crd --reconcile: a controller writes each widget's status; /metrics", d.runController},
		{fmt.Sprintf("examples/crd --reconcile --shards %d: three replicas share the widgets; one is killed, then comes back", fleetShards), d.runFleet},
	}
	for i, s := range steps {
		u.step("%s", s.title)
		if err := s.do(ctx); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("%w (interrupted)", err)
			}
			return fmt.Errorf("step %d, %s: %w", i+1, s.title, err)
		}
	}
	return nil
}

// cleanup stops the children, the server, and removes the temporary folder.
func (d *demo) cleanup() {
	for _, c := range d.children {
		c.kill()
	}
	if d.srv != nil {
		d.srv.Stop()
		d.ui.ok("kube-apiserver and etcd stopped")
	}
	if err := os.RemoveAll(d.dir); err != nil {
		d.ui.info("could not remove %s: %v", d.dir, err)
		return
	}
	d.ui.ok("removed %s", d.dir)
}

func (d *demo) startServer(ctx context.Context) error {
	started := time.Now()
	srv, err := testbed.Launch(d.dir)
	if err != nil {
		return err
	}
	d.srv = srv
	d.kubeconfig = filepath.Join(d.dir, "kubeconfig")
	if err := srv.WriteKubeconfig(d.kubeconfig); err != nil {
		return err
	}
	v, err := srv.Client().Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("server version: %w", err)
	}
	d.ui.ok("kube-apiserver %s at %s, ready in %s", v.GitVersion, srv.URL(), time.Since(started).Round(100*time.Millisecond))
	d.ui.info("kubeconfig: %s", d.kubeconfig)
	return nil
}

func (d *demo) installCRD(ctx context.Context) error {
	if err := crd.Install(ctx, d.srv.Config(), time.Minute); err != nil {
		return err
	}
	d.ui.ok("widgets.shop.example.com is Established")
	return nil
}
