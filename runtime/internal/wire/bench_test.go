package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	goruntime "runtime"
	"syscall"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/deploypod"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
)

// cpuTime is the user and system CPU time of the process, in nanoseconds:
// on a busy machine it moves less than ns/op, which counts waiting too.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// What a Syncer's stream does for each event of a watch of full objects:
// read the WatchEvent frame, then decode its object, through the decoders
// newSource builds. A Deployment-shaped pod in protobuf and in JSON.
func BenchmarkDecodeEvent(b *testing.B) {
	gv := schema.GroupVersion{Version: "v1"}
	pod := deploypod.Full("ns", "pod", 7)
	pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	fast, _, _ := jsonCodecs(gv, "Pod", &corev1.Pod{}, &corev1.PodList{})
	for _, media := range []string{kruntime.ContentTypeProtobuf, kruntime.ContentTypeJSON} {
		b.Run(map[string]string{kruntime.ContentTypeProtobuf: "protobuf", kruntime.ContentTypeJSON: "json"}[media], func(b *testing.B) {
			frame := eventFrame(b, media, pod)
			objects, events, framer, err := fast.StreamDecoder(media, nil)
			if err != nil {
				b.Fatal(err)
			}
			r := bytes.NewReader(nil)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			cpu0 := cpuTime()
			for b.Loop() {
				r.Reset(frame)
				frames := streaming.NewDecoder(framer.NewFrameReader(io.NopCloser(r)), events)
				var ev metav1.WatchEvent
				if _, _, err := frames.Decode(nil, &ev); err != nil {
					b.Fatal(err)
				}
				obj, err := kruntime.Decode(objects, ev.Object.Raw)
				if err != nil {
					b.Fatal(err)
				}
				if obj.(*corev1.Pod).Name != "pod" {
					b.Fatal("not decoded")
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// eventFrame returns a MODIFIED WatchEvent of obj as the server frames it
// in media.
func eventFrame(b *testing.B, media string, obj kruntime.Object) []byte {
	b.Helper()
	if media == kruntime.ContentTypeJSON {
		raw, err := json.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		frame, err := json.Marshal(metav1.WatchEvent{Type: "MODIFIED", Object: kruntime.RawExtension{Raw: raw}})
		if err != nil {
			b.Fatal(err)
		}
		return append(frame, '\n')
	}
	var plain kruntime.SerializerInfo
	for _, info := range serializer.NewCodecFactory(kruntime.NewScheme()).SupportedMediaTypes() {
		if info.MediaType == media {
			plain = info
		}
	}
	raw := encode(b, plain.Serializer, obj)
	ev := encode(b, plain.StreamSerializer.Serializer, &metav1.WatchEvent{Type: "MODIFIED", Object: kruntime.RawExtension{Raw: raw}})
	var buf bytes.Buffer
	w := plain.StreamSerializer.Framer.NewFrameWriter(&buf)
	if _, err := w.Write(ev); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// An unstructured ConfigMap of 2 KB of data, as the server writes it in
// JSON, decoded by apimachinery (Unstructured.UnmarshalJSON, what the
// dynamic client calls) and by the runtime's decoder of unstructured
// objects (the Syncer's fast path: the kind checked, then decodeObject);
// B/op is what each allocates, kept-B/op what one object holds once
// decoded (its keys and repeating values shared by the runtime's).
func BenchmarkDecodeUnstructured(b *testing.B) {
	gv := schema.GroupVersion{Version: "v1"}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &unstructured.Unstructured{})
	fast := NewDecoding(serializer.NewCodecFactory(scheme).WithoutConversion(), gv.WithKind("ConfigMap"), reflect.TypeFor[unstructured.Unstructured]())
	var objects kruntime.Decoder
	for _, info := range fast.SupportedMediaTypes() {
		if info.MediaType == kruntime.ContentTypeJSON {
			objects = info.Serializer
		}
	}
	const n = 512
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i] = configMapJSON(i, 2048)
	}
	for _, d := range []struct {
		name   string
		decode func([]byte) *unstructured.Unstructured
	}{
		{"apimachinery", func(data []byte) *unstructured.Unstructured {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
			return u
		}},
		{"runtime", func(data []byte) *unstructured.Unstructured {
			obj, _, err := objects.Decode(data, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			return obj.(*unstructured.Unstructured)
		}},
	} {
		b.Run(d.name, func(b *testing.B) {
			kept := make([]*unstructured.Unstructured, n)
			b.ReportAllocs()
			b.SetBytes(int64(len(inputs[0])))
			cpu0, i := cpuTime(), 0
			for b.Loop() {
				kept[i%n] = d.decode(inputs[i%n])
				i++
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			clear(kept)
			before := heapInUse()
			for i := range kept {
				kept[i] = d.decode(inputs[i])
			}
			b.ReportMetric(float64(heapInUse()-before)/n, "kept-B/op")
			goruntime.KeepAlive(kept)
		})
	}
}
