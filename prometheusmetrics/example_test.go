package prometheusmetrics_test

import (
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/syncer-gen/syncer-gen/prometheusmetrics"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// One set of collectors for the program, bound to each syncer by its
// resource. A real program passes the same option to runtime.New (or the
// generated NewXSyncer) and serves the registry with promhttp.HandlerFor.
func Example() {
	reg := prometheus.NewRegistry()
	m := prometheusmetrics.MustNew(reg)

	res := runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	_, d := runtime.NewDriver[*corev1.ConfigMap](res, runtime.WithMetrics(m.For(res.String())))
	d.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", ResourceVersion: "1"}})
	d.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b", ResourceVersion: "2"}})

	err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP syncer_objects Objects in the syncer's store.
# TYPE syncer_objects gauge
syncer_objects{resource="configmaps/v1"} 2
`), "syncer_objects")
	fmt.Println("syncer_objects{resource=\"configmaps/v1\"} is 2:", err == nil)
	// Output:
	// syncer_objects{resource="configmaps/v1"} is 2: true
}
