package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
)

// metadataScheme knows PartialObjectMetadataList, as the server's does.
func metadataSerializer() *protobuf.Serializer {
	scheme := kruntime.NewScheme()
	gv := schema.GroupVersion{Group: "meta.k8s.io", Version: "v1"}
	scheme.AddKnownTypes(gv, &metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadataList{})
	return protobuf.NewSerializer(scheme, scheme)
}

// metadataPage encodes a PartialObjectMetadataList of n items, each with
// the labels, annotations, owners and managedFields that the lean reader
// skips, as the server does.
func metadataPage(t testing.TB, n int, cont string, remaining *int64) []byte {
	l := &metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "900", Continue: cont, RemainingItemCount: remaining},
	}
	for i := range n {
		l.Items = append(l.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("cm-%d", i), Namespace: "ns", UID: types.UID(fmt.Sprintf("uid-%d", i)),
			ResourceVersion: fmt.Sprint(100 + i), Labels: map[string]string{"app": "x"},
			Annotations:     map[string]string{"note": "a long annotation that is not needed"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "o"}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply,
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:data":{}}`)}},
		}})
	}
	var b bytes.Buffer
	if err := metadataSerializer().Encode(l, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// plainMetadataPage decodes data with apimachinery's protobuf serializer.
func plainMetadataPage(data []byte) ([]listed, listPage, error) {
	obj, _, err := metadataSerializer().Decode(data, nil, &metav1.PartialObjectMetadataList{})
	if err != nil {
		return nil, listPage{}, err
	}
	l := obj.(*metav1.PartialObjectMetadataList)
	var items []listed
	for _, m := range l.Items {
		items = append(items, listed{Key{m.Namespace, m.Name}, m.UID, m.ResourceVersion})
	}
	page, err := newListPage(l.ResourceVersion, l.Continue, len(l.Items), l.RemainingItemCount, l.ShardInfo)
	return items, page, err
}

func leanMetadataPage(data []byte) ([]listed, listPage, error) {
	msg, ok := bytes.CutPrefix(data, protobufMagic)
	if !ok {
		return nil, listPage{}, fmt.Errorf("no magic")
	}
	var items []listed
	page, err := readMetadataList(msg, func(l listed) { items = append(items, l) })
	return items, page, err
}

func TestReadMetadataListMatchesThePlainDecoder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		cont      string
		remaining *int64
	}{
		{"OnePage", 3, "", nil},
		{"MorePages", 5, "token", new(int64(42))},
		{"Empty", 0, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := metadataPage(t, tc.n, tc.cont, tc.remaining)
			want, wantPage, err := plainMetadataPage(data)
			if err != nil {
				t.Fatal(err)
			}
			got, page, err := leanMetadataPage(data)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || page != wantPage {
				t.Errorf("lean: %v %+v\nplain: %v %+v", got, page, want, wantPage)
			}
		})
	}
}

// Every prefix of a page is refused or read exactly as the whole page:
// nothing is half read, and nothing panics.
func TestReadMetadataListRefusesPrefixes(t *testing.T) {
	data := metadataPage(t, 4, "token", new(int64(7)))
	want, wantPage, err := leanMetadataPage(data)
	if err != nil {
		t.Fatal(err)
	}
	for n := len(protobufMagic); n < len(data); n++ {
		got, page, err := leanMetadataPage(data[:n])
		if err == nil && (!slices.Equal(got, want) || page != wantPage) {
			t.Fatalf("prefix of %d of %d bytes read as %v %+v", n, len(data), got, page)
		}
	}
}

// Whatever the bytes, the lean reader does not panic, and where both it and
// apimachinery's decoder read a page, they read the same.
func FuzzReadMetadataList(f *testing.F) {
	f.Add(metadataPage(f, 2, "token", new(int64(3))))
	f.Add(metadataPage(f, 0, "", nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, page, err := leanMetadataPage(data)
		if err != nil {
			return
		}
		want, wantPage, err := plainMetadataPage(data)
		if err != nil {
			return
		}
		if !slices.Equal(got, want) || page != wantPage {
			t.Errorf("lean: %v %+v\nplain: %v %+v", got, page, want, wantPage)
		}
	})
}

// TestMetadataPageIsBounded serves a metadata-only LIST page larger than
// the bound the reader is given: it must stop reading and say so, not
// hold the whole page.
func TestMetadataPageIsBounded(t *testing.T) {
	page := metadataPage(t, 50, "", nil)
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
	if _, err := s.src.metadataList(context.Background(), "", 50, int64(len(page)-1), &buf, func(listed) { n++ }); !errors.Is(err, errPageTooLarge) || n > 0 {
		t.Fatalf("a page of %d bytes read under a bound of %d: %v, %d items; want errPageTooLarge and none", len(page), len(page)-1, err, n)
	}
	if buf.Cap() > 2*len(page) {
		t.Errorf("buffer grew to %d bytes for a bound of %d", buf.Cap(), len(page)-1)
	}
	if _, err := s.src.metadataList(context.Background(), "", 50, int64(len(page)), &buf, func(listed) { n++ }); err != nil || n != 50 {
		t.Fatalf("a page of %d bytes read under a bound of as many: %v, %d items; want 50", len(page), err, n)
	}
}
