package testbed_test

import (
	"context"
	"testing"
	"os"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

func TestStart(t *testing.T) {
	srv := testbed.Shared(t)
	ns, err := srv.Client().CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
	if err != nil { t.Fatal(err) }
	if len(ns.Items) == 0 { t.Fatal("no namespaces") }
	t.Log(len(ns.Items), srv.Compact(t))
}
