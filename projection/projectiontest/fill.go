package projectiontest

import (
	"math/rand"

	"sigs.k8s.io/randfill"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// Filler returns a filler of random API objects, seeded: apimachinery's
// fuzzer for API objects (nil pointers a third of the time, lists of up
// to three elements), with an apiVersion and kind in each TypeMeta so that
// decoders read them too, and untyped values (any) of what JSON decodes
// into one.
func Filler(seed int64) *randfill.Filler {
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypes(metav1.SchemeGroupVersion, &metav1.Status{}, &metav1.APIGroup{})
	funcs := fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, func(serializer.CodecFactory) []any {
		return []any{
			func(tm *metav1.TypeMeta, c randfill.Continue) {
				tm.APIVersion, tm.Kind = c.String(8), c.String(8)
			},
			func(v *any, c randfill.Continue) {
				switch c.Intn(5) {
				case 0:
					*v = nil
				case 1:
					*v = c.String(8)
				case 2:
					*v = c.Int63()
				case 3:
					*v = []any{c.Bool(), c.Float64()}
				default:
					*v = map[string]any{c.String(4): c.String(4)}
				}
			},
		}
	})
	return fuzzer.FuzzerFor(funcs, rand.NewSource(seed), serializer.NewCodecFactory(scheme)).NilChance(.3).NumElements(0, 3)
}
