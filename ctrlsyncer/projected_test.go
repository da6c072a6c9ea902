package ctrlsyncer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// A reconciler whose Pods are served by a projection (NodePod keeps a
// pod's node, containers' names and images, phase and IPs): an IndexField
// of corev1.Pod, as the tutorial writes it, indexes the projection; a read
// of corev1.Pod is an error naming the projection, never the Manager's
// cache; Create and Update of a NodePod are refused; a Patch computed
// between two NodePods reaches the Pod and keeps what NodePod does not
// hold, unless it would replace a list of objects; Delete deletes the Pod.
func TestProjectedTypesInAController(t *testing.T) {
	srv, direct, ns := server(t)
	mgr := newManager(t, srv.Config(), logr.Discard())
	r := &struct{ client.Client }{mgr.GetClient()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ctrlsyncer.FieldIndexer(mgr).IndexField(ctx, &corev1.Pod{}, "image", func(o client.Object) []string {
		var out []string
		for _, c := range o.(*corev1.Pod).Spec.Containers {
			out = append(out, c.Image)
		}
		return out
	}); err != nil {
		t.Fatal(err)
	}
	rec := &requests{}
	if err := ctrl.NewControllerManagedBy(mgr).Named("projected").
		WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, coresyncers.NodePodSyncerIn, &shopv1alpha1.Widget{}, ctrlsyncer.WithOptions(runtime.WithNamespace(ns)))).
		Complete(rec); err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	owner := &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "owner"}}
	if err := direct.Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	controller := true
	for name, image := range map[string]string{"a": "image-a", "b": "image-b"} {
		if err := direct.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "shop.example.com/v1alpha1", Kind: "Widget", Name: "owner", UID: owner.UID, Controller: &controller}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image, Command: []string{"run"}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	var a coresyncers.NodePod
	eventually(t, 30*time.Second, func() string {
		var l coresyncers.NodePodList
		if err := r.List(ctx, &l, client.InNamespace(ns), client.MatchingFields{"image": "image-a"}); err != nil {
			return err.Error()
		}
		if len(l.Items) != 1 || l.Items[0].Name != "a" {
			return fmt.Sprintf("the index of an IndexField of corev1.Pod gave %d NodePods for image-a, want a", len(l.Items))
		}
		a = l.Items[0]
		if !rec.has("owner") {
			return "the pods' owner was not reconciled (Owns of the projection)"
		}
		return ""
	})

	for what, err := range map[string]error{
		"Get of a Pod":      r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, &corev1.Pod{}),
		"List of Pods":      r.List(ctx, &corev1.PodList{}, client.InNamespace(ns)),
		"Create of NodePod": r.Create(ctx, &coresyncers.NodePod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c"}}),
		"Update of NodePod": r.Update(ctx, a.DeepCopy()),
	} {
		if err == nil || !strings.Contains(err.Error(), "projection") {
			t.Errorf("%s: %v; want an error that names the projection", what, err)
		}
	}

	old := a.DeepCopy()
	a.Labels["patched"] = "yes"
	if err := r.Patch(ctx, &a, client.MergeFrom(old)); err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, &pod); err != nil {
		t.Fatal(err)
	}
	if pod.Labels["patched"] != "yes" || len(pod.Spec.Containers) != 1 || len(pod.Spec.Containers[0].Command) != 1 || a.ResourceVersion != pod.ResourceVersion {
		t.Errorf("after a Patch of the NodePod: the Pod's labels %v, containers %+v, the NodePod at %s and the Pod at %s", pod.Labels, pod.Spec.Containers, a.ResourceVersion, pod.ResourceVersion)
	}
	old = a.DeepCopy()
	a.Spec.Containers[0].Image = "other"
	if err := r.Patch(ctx, &a, client.MergeFrom(old)); err == nil || !strings.Contains(err.Error(), ".spec.containers") {
		t.Errorf("a Patch that replaces the containers: %v; want it refused, naming .spec.containers", err)
	}

	if err := r.Delete(ctx, &a, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() string {
		if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, &pod); !apierrors.IsNotFound(err) {
			return fmt.Sprintf("the Pod after the NodePod's Delete: %v", err)
		}
		return ""
	})
}

// Reads of PartialObjectMetadata and Unstructured, and the sources of
// For and Owns, come from syncers of any resource (Metadata, Unstructured)
// as they come from the Manager's cache: by their apiVersion and kind,
// with their GroupVersionKind set. A ConfigMap a widget controls, seen as
// metadata, enqueues the widget, seen as Unstructured.
func TestMetadataAndUnstructuredSyncers(t *testing.T) {
	srv, direct, ns := server(t)
	mgr := newManager(t, srv.Config(), logr.Discard())
	r := &struct{ client.Client }{mgr.GetClient()}
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(shopv1alpha1.SchemeGroupVersion.WithKind("Widget"))
	rec := &requests{}
	if err := ctrl.NewControllerManagedBy(mgr).Named("dynamic").
		WatchesRawSource(ctrlsyncer.For(mgr, &r.Client, ctrlsyncer.Unstructured(mgr, widget), ctrlsyncer.WithOptions(runtime.WithNamespace(ns)))).
		WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, ctrlsyncer.Metadata(mgr, &corev1.ConfigMap{}), &shopv1alpha1.Widget{},
			ctrlsyncer.WithOptions(runtime.WithNamespace(ns)))).
		Complete(rec); err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "w"}, Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 3}}
	if err := direct.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	controller := true
	if err := direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "owned", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "shop.example.com/v1alpha1", Kind: "Widget", Name: "w", UID: w.UID, Controller: &controller}}}, Data: map[string]string{"big": "data"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() string {
		m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
		if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "owned"}, m); err != nil {
			return "Get of PartialObjectMetadata: " + err.Error()
		}
		if m.Kind != "ConfigMap" || m.APIVersion != "v1" || len(m.OwnerReferences) != 1 {
			return fmt.Sprintf("PartialObjectMetadata read as %s %s, owners %v", m.APIVersion, m.Kind, m.OwnerReferences)
		}
		ml := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
		if err := r.List(ctx, ml, client.InNamespace(ns)); err != nil || len(ml.Items) != 1 || ml.Items[0].Kind != "ConfigMap" {
			return fmt.Sprintf("List of PartialObjectMetadata: %v, %d items", err, len(ml.Items))
		}
		u := widget.DeepCopy()
		if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w"}, u); err != nil {
			return "Get of Unstructured: " + err.Error()
		}
		if size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size"); size != 3 || u.GetKind() != "Widget" {
			return fmt.Sprintf("Unstructured read as %s, size %d", u.GetKind(), size)
		}
		ul := &unstructured.UnstructuredList{}
		ul.SetGroupVersionKind(shopv1alpha1.SchemeGroupVersion.WithKind("WidgetList"))
		if err := r.List(ctx, ul, client.InNamespace(ns)); err != nil || len(ul.Items) != 1 {
			return fmt.Sprintf("List of Unstructured: %v, %d items", err, len(ul.Items))
		}
		if !rec.has("w") {
			return "the widget was not reconciled"
		}
		return ""
	})
	// A kind no syncer serves goes to the Manager's cache, which watches
	// nothing (ReaderFailOnMissingInformer): an error, not the syncers'.
	other := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}}
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "x"}, other); err == nil || strings.Contains(err.Error(), "syncer") {
		t.Errorf("Get of the metadata of a Secret: %v; want the Manager's cache's error", err)
	}
}
