package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
)

// frame encodes a watch event as the server does: the object wrapped in a
// runtime.Unknown behind the protobuf magic, inside a length-prefixed
// metav1.WatchEvent.
func frame(t *testing.T, typ string, obj interface{ Marshal() ([]byte, error) }, kind string) []byte {
	t.Helper()
	raw, err := obj.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	unk := kruntime.Unknown{TypeMeta: kruntime.TypeMeta{APIVersion: "v1", Kind: kind}, Raw: raw,
		ContentType: kruntime.ContentTypeProtobuf}
	u, err := unk.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ev := metav1.WatchEvent{Type: typ, Object: kruntime.RawExtension{Raw: append(append([]byte{}, protobufMagic...), u...)}}
	b, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: "7"},
		Data: map[string]string{"payload": strings.Repeat("x", 100)}}
}

func bookmark(end bool) *corev1.ConfigMap {
	b := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9"}}
	if end {
		b.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return b
}

func stream(t *testing.T, frames ...[]byte) *frameReader {
	return &frameReader{r: bytes.NewReader(bytes.Join(frames, nil))}
}

func TestReadInitialEventsDecodes(t *testing.T) {
	r := stream(t,
		frame(t, "ADDED", cm("a"), "ConfigMap"),
		frame(t, "BOOKMARK", bookmark(false), "ConfigMap"), // a periodic bookmark does not end
		frame(t, "ADDED", cm("b"), "ConfigMap"),
		frame(t, "BOOKMARK", bookmark(true), "ConfigMap"),
		frame(t, "ADDED", cm("after"), "ConfigMap"), // live events are not read
	)
	var names []string
	n, err := readInitialEvents(r, func(b []byte) error {
		var obj corev1.ConfigMap
		if err := obj.Unmarshal(b); err != nil {
			return err
		}
		if obj.Data["payload"] != strings.Repeat("x", 100) {
			t.Errorf("payload of %s lost", obj.Name)
		}
		names = append(names, obj.Namespace+"/"+obj.Name)
		return nil
	})
	if err != nil || n != 2 || strings.Join(names, ",") != "ns/a,ns/b" {
		t.Errorf("readInitialEvents = %d, %v, names %v", n, err, names)
	}
}

func TestReadInitialEventsCountsWithoutDecoding(t *testing.T) {
	r := stream(t, frame(t, "ADDED", cm("a"), "ConfigMap"), frame(t, "BOOKMARK", bookmark(true), "ConfigMap"))
	if n, err := readInitialEvents(r, nil); err != nil || n != 1 {
		t.Errorf("readInitialEvents(nil decode) = %d, %v", n, err)
	}
}

func TestReadInitialEventsErrors(t *testing.T) {
	st := &metav1.Status{Status: "Failure", Message: "too old resource version", Reason: metav1.StatusReasonExpired, Code: 410}
	_, err := readInitialEvents(stream(t, frame(t, "ERROR", st, "Status")), nil)
	if err == nil || !strings.Contains(err.Error(), "too old resource version") {
		t.Errorf("ERROR event: %v", err)
	}
	_, err = readInitialEvents(stream(t, frame(t, "ADDED", cm("a"), "ConfigMap")), nil)
	if !errors.Is(err, io.EOF) {
		t.Errorf("stream ending before the bookmark: %v, want EOF", err)
	}
	_, err = readInitialEvents(stream(t, frame(t, "MODIFIED", cm("a"), "ConfigMap")), nil)
	if err == nil || !strings.Contains(err.Error(), "MODIFIED") {
		t.Errorf("MODIFIED before the bookmark: %v", err)
	}
	whole := frame(t, "ADDED", cm("a"), "ConfigMap")
	_, err = readInitialEvents(&frameReader{r: bytes.NewReader(whole[:len(whole)-3])}, nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut frame: %v, want unexpected EOF", err)
	}
	decodeErr := errors.New("boom")
	_, err = readInitialEvents(stream(t, frame(t, "ADDED", cm("a"), "ConfigMap")), func([]byte) error { return decodeErr })
	if !errors.Is(err, decodeErr) {
		t.Errorf("decode error: %v", err)
	}
}

func TestFieldRejectsBadInput(t *testing.T) {
	for name, msg := range map[string][]byte{
		"missing":       {0x08, 0x01},      // only a varint field 1
		"length":        {0x0a, 0x05, 'a'}, // field 1 claims 5 bytes, has 1
		"wire type":     {0x0b},            // wire type 3 (groups)
		"truncated tag": {0x80},
	} {
		if _, err := field(msg, 1); err == nil && name != "missing" {
			t.Errorf("%s: no error", name)
		}
		if _, err := field(msg, 2); err == nil {
			t.Errorf("%s: field 2 found", name)
		}
	}
	// Fields of every wire type before the one looked for are skipped.
	msg := []byte{0x08, 0x96, 0x01, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x1d, 1, 2, 3, 4, 0x22, 0x02, 'h', 'i'}
	if b, err := field(msg, 4); err != nil || string(b) != "hi" {
		t.Errorf("field 4 = %q, %v", b, err)
	}
}

func TestEventObjectNeedsProtobuf(t *testing.T) {
	ev := metav1.WatchEvent{Type: "ADDED", Object: kruntime.RawExtension{Raw: []byte(`{"kind":"ConfigMap"}`)}}
	b, err := ev.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventObject(b); err == nil {
		t.Error("JSON object accepted")
	}
}

func TestReadLive(t *testing.T) {
	fr := stream(t,
		frame(t, "MODIFIED", cm("a"), "ConfigMap"),
		frame(t, "BOOKMARK", bookmark(false), "ConfigMap"),
		frame(t, "DELETED", cm("a"), "ConfigMap"),
		frame(t, "ADDED", cm("b"), "ConfigMap"),
	)
	var names []string
	err := readLive(fr, func(b []byte) error {
		var obj corev1.ConfigMap
		if err := obj.Unmarshal(b); err != nil {
			return err
		}
		names = append(names, obj.Name)
		return nil
	})
	if !errors.Is(err, io.EOF) || strings.Join(names, ",") != "a,b" {
		t.Errorf("readLive = %v, names %v", err, names)
	}
}
