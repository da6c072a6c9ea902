package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/rest"
)

// metadataPage encodes a PartialObjectMetadataList of n items in protobuf,
// as the server answers a metadata-only LIST.
func metadataPage(t testing.TB, n int) []byte {
	l := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "900"},
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}}
	for i := range n {
		l.Items = append(l.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("cm-%d", i), Namespace: "ns", ResourceVersion: fmt.Sprint(100 + i)}})
	}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypes(schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}, l)
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme, scheme).Encode(l, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMetadataPageIsBounded serves a metadata-only LIST page larger than
// the bound the reader is given: it must stop reading and say so, not
// hold the whole page.
func TestMetadataPageIsBounded(t *testing.T) {
	page := metadataPage(t, 50)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		_, _ = w.Write(page)
	}))
	defer srv.Close()
	s, err := New[*corev1.ConfigMap](&rest.Config{Host: srv.URL, QPS: -1},
		Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, NewList: func() kruntime.Object { return &corev1.ConfigMapList{} }})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n := 0
	if _, err := s.src.metadataList(context.Background(), "", "", 50, int64(len(page)-1), &buf, func(listed) { n++ }); !errors.Is(err, errPageTooLarge) || n > 0 {
		t.Fatalf("a page of %d bytes read under a bound of %d: %v, %d items; want errPageTooLarge and none", len(page), len(page)-1, err, n)
	}
	if buf.Cap() > 2*len(page) {
		t.Errorf("buffer grew to %d bytes for a bound of %d", buf.Cap(), len(page)-1)
	}
	if _, err := s.src.metadataList(context.Background(), "", "", 50, int64(len(page)), &buf, func(listed) { n++ }); err != nil || n != 50 {
		t.Fatalf("a page of %d bytes read under a bound of as many: %v, %d items; want 50", len(page), err, n)
	}
}
