package wire

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

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
func plainMetadataPage(data []byte) ([]Listed, Page, error) {
	obj, _, err := metadataSerializer().Decode(data, nil, &metav1.PartialObjectMetadataList{})
	if err != nil {
		return nil, Page{}, err
	}
	l := obj.(*metav1.PartialObjectMetadataList)
	var items []Listed
	for _, m := range l.Items {
		items = append(items, Listed{m.Namespace, m.Name, m.UID, m.ResourceVersion})
	}
	return items, Page{l.ResourceVersion, l.Continue, len(l.Items), l.RemainingItemCount, l.ShardInfo}, nil
}

func leanMetadataPage(data []byte) ([]Listed, Page, error) {
	if !bytes.HasPrefix(data, protobufMagic) {
		return nil, Page{}, fmt.Errorf("no magic")
	}
	var items []Listed
	page, err := ReadMetadataPage(data, func(l Listed) { items = append(items, l) })
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
			if !slices.Equal(got, want) || !reflect.DeepEqual(page, wantPage) {
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
		if err == nil && (!slices.Equal(got, want) || !reflect.DeepEqual(page, wantPage)) {
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
		if !slices.Equal(got, want) || !reflect.DeepEqual(page, wantPage) {
			t.Errorf("lean: %v %+v\nplain: %v %+v", got, page, want, wantPage)
		}
	})
}
