package child

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

func TestLagObserver(t *testing.T) {
	o := NewLagObserver()
	obj := func(written int64) metav1.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{WrittenAtAnnotation: FormatNanos(written)}}}
	}
	o.Observe(obj(time.Now().UnixNano())) // before start: ignored
	o.start()
	o.Observe(obj(0))              // the creation value: ignored
	o.Observe(&corev1.ConfigMap{}) // no annotation: ignored
	o.Observe(obj(time.Now().Add(-time.Second).UnixNano()))
	done := make(chan []time.Duration)
	go func() {
		lags, err := o.wait(context.Background(), 2, 10*time.Second)
		if err != nil {
			t.Error(err)
		}
		done <- lags
	}()
	o.Observe(obj(time.Now().UnixNano()))
	lags := <-done
	if len(lags) != 2 || lags[0] < time.Second || lags[1] >= time.Second {
		t.Errorf("lags = %v", lags)
	}
	if _, err := o.wait(context.Background(), 5, time.Millisecond); err == nil || !strings.Contains(err.Error(), "2 of 5") {
		t.Errorf("wait for more than came: %v", err)
	}
}

func TestFormatNanosKeepsWidth(t *testing.T) {
	if a, b := FormatNanos(0), FormatNanos(time.Now().UnixNano()); len(a) != len(b) || len(a) != 19 {
		t.Errorf("widths %d and %d", len(a), len(b))
	}
}

func TestParseArgs(t *testing.T) {
	a, err := ParseArgs([]string{"-contender=ours", "-resource=configmaps", "-namespace=ns", "-kubeconfig=k", "-want=0", "-slow"})
	if err != nil || a.Want != 0 || !a.Slow || a.Contender != Ours {
		t.Errorf("an idle run's args = %+v, %v", a, err)
	}
	for _, args := range [][]string{
		{"-contender=ours"},
		{"-contender=ours", "-resource=configmaps", "-namespace=ns", "-kubeconfig=k"}, // no -want
		{"-contender=ours", "-resource=configmaps", "-namespace=ns", "-kubeconfig=k", "-want=-2"},
	} {
		if _, err := ParseArgs(args); err == nil {
			t.Errorf("ParseArgs(%q): no error", args)
		}
	}
	if _, err := Plural("nope"); err == nil {
		t.Error("Plural of an unknown resource: no error")
	}
	if p, err := Plural(ProjPods); p != "pods" || err != nil {
		t.Errorf("Plural(%s) = %s, %v", ProjPods, p, err)
	}
}

// A -nogzip contender runs its client-go contender with compression off.
func TestRunAs(t *testing.T) {
	cfg := &rest.Config{}
	if got := RunAs(ClientGoWatch+NoGzip, cfg); got != ClientGoWatch || !cfg.DisableCompression {
		t.Errorf("RunAs(%s) = %s, DisableCompression %v", ClientGoWatch+NoGzip, got, cfg.DisableCompression)
	}
	cfg = &rest.Config{}
	if got := RunAs(Ours, cfg); got != Ours || cfg.DisableCompression {
		t.Errorf("RunAs(ours) = %s, DisableCompression %v", got, cfg.DisableCompression)
	}
}

// The named part's contenders carry their number of names in their name
// (ours-named-1000); the program runs the contender without it, and no
// other contender loses a part of its name.
func TestNamedAsCutsTheNumberOfNames(t *testing.T) {
	for name, want := range map[string]string{
		"ours-named-20":           OursNamed,
		"ours-named-list-20":      OursNamedList,
		"ours-metadata-gets-1000": OursMetadataGets,
		"cr-cache-named-20":       CRCacheNamed,
		OursWarmNewServer:         OursWarmNewServer,
		Ours:                      Ours,
		ClientGoWatch:             ClientGoWatch,
	} {
		if got := NamedAs(name); got != want {
			t.Errorf("NamedAs(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestNamesFlag(t *testing.T) {
	base := []string{"-contender=ours-named-20", "-resource=secrets", "-namespace=ns", "-kubeconfig=k", "-want=20"}
	a, err := ParseArgs(append(base, "-names=20"))
	if err != nil || a.Names != 20 {
		t.Fatalf("ParseArgs -names=20: %+v, %v", a, err)
	}
	if _, err := ParseArgs(append(base, "-names=-1")); err == nil {
		t.Error("-names=-1 accepted")
	}
	if ObjectName(7) != "obj-000007" {
		t.Errorf("ObjectName(7) = %q", ObjectName(7))
	}
}
