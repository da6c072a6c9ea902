package progress

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTotal(t *testing.T) {
	items := func(n int) []metav1.PartialObjectMetadata { return make([]metav1.PartialObjectMetadata, n) }
	for _, tc := range []struct {
		name string
		list metav1.PartialObjectMetadataList
		want int
	}{
		{"empty", metav1.PartialObjectMetadataList{}, 0},
		{"one, no more", metav1.PartialObjectMetadataList{Items: items(1)}, 1},
		{"one of many", metav1.PartialObjectMetadataList{
			ListMeta: metav1.ListMeta{Continue: "c", RemainingItemCount: new(int64(2999))}, Items: items(1)}, 3000},
		{"more, count not told", metav1.PartialObjectMetadataList{
			ListMeta: metav1.ListMeta{Continue: "c"}, Items: items(1)}, -1},
	} {
		if got := total(&tc.list); got != tc.want {
			t.Errorf("%s: total = %d, want %d", tc.name, got, tc.want)
		}
	}
}
