package projection

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/syncer-gen/syncer-gen/projection/projectiontest"
	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"
)

// The decoders below are written as syncer-gen generates them, but keep
// every field of their type: so they must agree with the type's own
// Unmarshal on any input, in value and in error, once they fall back to it
// for what they refuse.

func decodePSC(m *corev1.PodSecurityContext, b []byte) error {
	r := NewProtoReader(b)
	for r.Next() {
		switch r.Num() {
		case 1:
			if m.SELinuxOptions == nil {
				m.SELinuxOptions = &corev1.SELinuxOptions{}
			}
			r.Check(m.SELinuxOptions.Unmarshal(r.Bytes()))
		case 2:
			v := int64(r.Varint())
			m.RunAsUser = &v
		case 3:
			v := r.Varint() != 0
			m.RunAsNonRoot = &v
		case 4:
			m.SupplementalGroups = AppendVarints(&r, m.SupplementalGroups)
		case 5:
			v := int64(r.Varint())
			m.FSGroup = &v
		case 6:
			v := int64(r.Varint())
			m.RunAsGroup = &v
		case 7:
			m.Sysctls = append(m.Sysctls, corev1.Sysctl{})
			r.Check(m.Sysctls[len(m.Sysctls)-1].Unmarshal(r.Bytes()))
		case 8:
			if m.WindowsOptions == nil {
				m.WindowsOptions = &corev1.WindowsSecurityContextOptions{}
			}
			r.Check(m.WindowsOptions.Unmarshal(r.Bytes()))
		case 9:
			v := corev1.PodFSGroupChangePolicy(r.String())
			m.FSGroupChangePolicy = &v
		case 10:
			if m.SeccompProfile == nil {
				m.SeccompProfile = &corev1.SeccompProfile{}
			}
			r.Check(m.SeccompProfile.Unmarshal(r.Bytes()))
		case 11:
			if m.AppArmorProfile == nil {
				m.AppArmorProfile = &corev1.AppArmorProfile{}
			}
			r.Check(m.AppArmorProfile.Unmarshal(r.Bytes()))
		case 12:
			v := corev1.SupplementalGroupsPolicy(r.String())
			m.SupplementalGroupsPolicy = &v
		case 13:
			v := corev1.PodSELinuxChangePolicy(r.String())
			m.SELinuxChangePolicy = &v
		default:
			r.Skip()
		}
	}
	return r.Err()
}

func decodeRR(m *corev1.ResourceRequirements, b []byte) error {
	r := NewProtoReader(b)
	for r.Next() {
		switch r.Num() {
		case 1:
			MessageEntry(&r, &m.Limits)
		case 2:
			MessageEntry(&r, &m.Requests)
		case 3:
			m.Claims = append(m.Claims, corev1.ResourceClaim{})
			r.Check(m.Claims[len(m.Claims)-1].Unmarshal(r.Bytes()))
		default:
			r.Skip()
		}
	}
	return r.Err()
}

func decodeLS(m *metav1.LabelSelector, b []byte) error {
	r := NewProtoReader(b)
	for r.Next() {
		switch r.Num() {
		case 1:
			StringEntry(&r, &m.MatchLabels)
		case 2:
			m.MatchExpressions = append(m.MatchExpressions, metav1.LabelSelectorRequirement{})
			r.Check(m.MatchExpressions[len(m.MatchExpressions)-1].Unmarshal(r.Bytes()))
		default:
			r.Skip()
		}
	}
	return r.Err()
}

func decodeRawExtension(m *kruntime.RawExtension, b []byte) error {
	r := NewProtoReader(b)
	for r.Next() {
		switch r.Num() {
		case 1:
			m.Raw = r.CopyBytes(m.Raw)
		default:
			r.Skip()
		}
	}
	return r.Err()
}

// protoCase is a type with a hand-written decoder above.
type protoCase struct {
	name   string
	new    func() protoMessage
	decode func(b []byte) (any, error) // the hand decoder, falling back to the full one
}

type protoMessage interface {
	Unmarshal([]byte) error
	Marshal() ([]byte, error)
}

// withFallback is what a generated Unmarshal does: its own decoder, then,
// on an error, the full one.
func withFallback[T any, PT interface {
	*T
	Unmarshal([]byte) error
}](decode func(PT, []byte) error) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		m := PT(new(T))
		if err := decode(m, b); err == nil {
			return m, nil
		}
		full, err := FullProtobuf(b, func(p PT) *T { return p })
		if err != nil {
			return nil, err
		}
		return full, nil
	}
}

var protoCases = []protoCase{
	{"PodSecurityContext", func() protoMessage { return new(corev1.PodSecurityContext) }, withFallback(decodePSC)},
	{"ResourceRequirements", func() protoMessage { return new(corev1.ResourceRequirements) }, withFallback(decodeRR)},
	{"LabelSelector", func() protoMessage { return new(metav1.LabelSelector) }, withFallback(decodeLS)},
	{"RawExtension", func() protoMessage { return new(kruntime.RawExtension) }, withFallback(decodeRawExtension)},
}

// checkProto decodes b with the hand decoder of c and with the type's own
// Unmarshal: both must give the same value, or the same error.
func checkProto(t *testing.T, c protoCase, b []byte) {
	t.Helper()
	want := c.new()
	werr := want.Unmarshal(b)
	got, gerr := c.decode(b)
	switch {
	case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
		t.Fatalf("%s of %x: error %v, want %v", c.name, b, gerr, werr)
	case werr == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("%s of %x:\n got %#v\nwant %#v", c.name, b, got, want)
	}
}

// protoSeeds are messages of each case: random ones, and the same with
// fields reordered, repeated, split and packed otherwise.
func protoSeeds(t testing.TB) map[string][][]byte {
	t.Helper()
	f := randfill.New().NilChance(.3).NumElements(0, 3).RandSource(rand.NewSource(1)).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		})
	out := map[string][][]byte{}
	for _, c := range protoCases {
		for range 20 {
			m := c.new()
			if raw, ok := m.(*kruntime.RawExtension); ok {
				f.Fill(&raw.Raw) // its Object is an interface, which randfill cannot fill
			} else {
				f.Fill(m)
			}
			b, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			out[c.name] = append(out[c.name], b)
			out[c.name] = append(out[c.name], projectiontest.ProtobufVariants(b, rand.New(rand.NewSource(int64(len(b)))))...)
		}
	}
	return out
}

func TestHandDecodersAgreeWithUnmarshal(t *testing.T) {
	for name, seeds := range protoSeeds(t) {
		for _, c := range protoCases {
			if c.name == name {
				for _, b := range seeds {
					checkProto(t, c, b)
				}
			}
		}
	}
}

// Unpacked and packed repeated varints read the same; an empty packed field
// leaves the slice nil, as the generated code of the built-in APIs does.
func TestRepeatedVarints(t *testing.T) {
	unpacked := protowire.AppendVarint(protowire.AppendTag(nil, 4, protowire.VarintType), 7)
	unpacked = protowire.AppendVarint(protowire.AppendTag(unpacked, 4, protowire.VarintType), 1<<40)
	var packedBody []byte
	packedBody = protowire.AppendVarint(protowire.AppendVarint(packedBody, 7), 1<<40)
	packed := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), packedBody)
	empty := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), nil)
	for name, b := range map[string][]byte{"unpacked": unpacked, "packed": packed, "empty": empty} {
		var m corev1.PodSecurityContext
		if err := decodePSC(&m, b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want corev1.PodSecurityContext
		if err := want.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s: got %v, want %v", name, m.SupplementalGroups, want.SupplementalGroups)
		}
	}
}

// What the reader refuses, each an error, never a panic nor a guess.
func TestProtoReaderRefuses(t *testing.T) {
	tag := func(n protowire.Number, typ protowire.Type) []byte { return protowire.AppendTag(nil, n, typ) }
	cases := map[string][]byte{
		"truncated tag":         {0x80},
		"field number 0":        {0x02, 0x00},
		"end group":             tag(5, protowire.EndGroupType),
		"reserved wire type":    {0x0e},
		"varint as bytes":       append(tag(9, protowire.VarintType), 1),
		"bytes as varint":       append(tag(2, protowire.BytesType), 1, 1),
		"length past the end":   append(tag(9, protowire.BytesType), 5, 'a'),
		"varint too long":       append(tag(2, protowire.VarintType), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02),
		"unclosed group":        append(tag(99, protowire.StartGroupType), 0x08, 1),
		"fixed64 truncated":     append(tag(99, protowire.Fixed64Type), 1, 2, 3),
		"bad message in field":  append(tag(1, protowire.BytesType), 1, 0x80),
		"packed varint cut off": append(tag(4, protowire.BytesType), 1, 0x80),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			var m corev1.PodSecurityContext
			if err := decodePSC(&m, b); err == nil {
				t.Errorf("%x: no error", b)
			}
			checkProto(t, protoCases[0], b) // and the fallback gives the full decoder's answer
		})
	}
}

// Unknown fields of every wire type are skipped, groups included.
func TestProtoReaderSkips(t *testing.T) {
	var b []byte
	b = protowire.AppendVarint(protowire.AppendTag(b, 90, protowire.VarintType), 300)
	b = protowire.AppendFixed32(protowire.AppendTag(b, 91, protowire.Fixed32Type), 1)
	b = protowire.AppendFixed64(protowire.AppendTag(b, 92, protowire.Fixed64Type), 1)
	b = protowire.AppendBytes(protowire.AppendTag(b, 93, protowire.BytesType), []byte("x"))
	b = protowire.AppendTag(b, 94, protowire.StartGroupType)
	b = protowire.AppendVarint(protowire.AppendTag(b, 1, protowire.VarintType), 1)
	b = protowire.AppendTag(b, 94, protowire.EndGroupType)
	b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), 42)
	var m corev1.PodSecurityContext
	if err := decodePSC(&m, b); err != nil || m.RunAsUser == nil || *m.RunAsUser != 42 {
		t.Fatalf("got %v, %v; want runAsUser 42", m.RunAsUser, err)
	}
	checkProto(t, protoCases[0], b)
}

func FuzzProtoDecoders(f *testing.F) {
	for name, seeds := range protoSeeds(f) {
		for i, c := range protoCases {
			if c.name == name {
				for _, b := range seeds {
					f.Add(uint8(i), b)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		checkProto(t, protoCases[int(which)%len(protoCases)], b)
	})
}

func ExampleProtoReader() {
	var b []byte
	b = protowire.AppendBytes(protowire.AppendTag(b, 9, protowire.BytesType), []byte("OnRootMismatch"))
	b = protowire.AppendVarint(protowire.AppendTag(b, 2, protowire.VarintType), 1000)
	var m corev1.PodSecurityContext
	fmt.Println(decodePSC(&m, b), *m.RunAsUser, *m.FSGroupChangePolicy)
	// Output: <nil> 1000 OnRootMismatch
}

// A repeated varint cut off after its tag is an error, not an empty read.
func TestRepeatedVarintCutOff(t *testing.T) {
	r := NewProtoReader(protowire.AppendTag(nil, 4, protowire.VarintType))
	r.Next()
	if s := AppendVarints(&r, []int64(nil)); s != nil || r.Err() == nil {
		t.Errorf("got %v, %v; want nothing and an error", s, r.Err())
	}
}
