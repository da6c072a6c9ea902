package snapshotfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testCodec writes ConfigMaps in protobuf, as the runtime does.
var testCodec = Codec[*corev1.ConfigMap]{
	Name:   "protobuf",
	Encode: func(o *corev1.ConfigMap, _ []byte) ([]byte, error) { return o.Marshal() },
	Decode: func(b []byte) (*corev1.ConfigMap, error) {
		o := new(corev1.ConfigMap)
		return o, o.Unmarshal(b)
	},
}

func testHeader() Header {
	return Header{Server: "https://127.0.0.1:6443/api", Version: "v1", Resource: "configmaps", Namespace: "ns",
		Type: "k8s.io/api/core/v1.ConfigMap"}
}

func testObjects(n int) []*corev1.ConfigMap {
	var objs []*corev1.ConfigMap
	for i := range n {
		objs = append(objs, &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, // not in protobuf: the decoder sets it
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%d", i), UID: "u", ResourceVersion: fmt.Sprint(10 + i)},
			Data:       map[string]string{"k": fmt.Sprint(i)},
		})
	}
	return objs
}

// A snapshot reads back as written, and its file is readable by its owner
// only.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	objs := testObjects(50)
	saved := testHeader()
	saved.ResourceVersion = "59"
	if _, err := Write(path, saved, testCodec, objs); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stat: %v, mode %v; want 0600", err, fi.Mode())
	}
	got, hdr, err := Read(path, testHeader(), testCodec)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Objects != 50 || hdr.Encoding != "protobuf" || hdr.ResourceVersion != "59" {
		t.Errorf("header %+v", hdr)
	}
	if len(got) != len(objs) {
		t.Fatalf("%d objects, want %d", len(got), len(objs))
	}
	for i, o := range got {
		if o.Name != objs[i].Name || o.ResourceVersion != objs[i].ResourceVersion || o.Data["k"] != objs[i].Data["k"] {
			t.Errorf("object %d: %s@%s %v, want %s@%s %v", i, o.Name, o.ResourceVersion, o.Data, objs[i].Name, objs[i].ResourceVersion, objs[i].Data)
		}
	}
}

// Every prefix of a snapshot, every single-bit change, a byte appended, and
// a snapshot of another owner or format are refused.
func TestRefusesDamage(t *testing.T) {
	codec := testCodec
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	if _, err := Write(path, testHeader(), codec, testObjects(3)); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	refused := func(what string, b []byte) {
		t.Helper()
		if err := os.WriteFile(bad, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if objs, _, err := Read(bad, testHeader(), codec); err == nil {
			t.Fatalf("%s: read %d objects, want an error", what, len(objs))
		}
	}
	for n := range len(good) {
		refused(fmt.Sprintf("first %d of %d bytes", n, len(good)), good[:n])
	}
	for i := range len(good) {
		for bit := range 8 {
			b := slices.Clone(good)
			b[i] ^= 1 << bit
			refused(fmt.Sprintf("bit %d of byte %d flipped", bit, i), b)
		}
	}
	refused("a byte appended", append(slices.Clone(good), 0))

	other := testHeader()
	other.LabelSelector = "app=web"
	if _, _, err := Read(path, other, codec); err == nil {
		t.Error("a snapshot read for another label selector")
	}
	b := slices.Clone(good)
	b[len(magic)] = Format + 1 // the format version, one byte
	refused("another format version", b)
	// A file of the previous format, whole (its checksum right), is
	// refused by its format, not misread: format 3's protobuf objects have
	// no apiVersion and kind before them.
	old := snapshotBody(t, 3)
	old[len(magic)] = Format - 1
	if err := os.WriteFile(bad, sealed(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(bad, testHeader(), codec); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("snapshot format %d", Format-1)) {
		t.Errorf("a format-%d file: %v, want it refused by its format", Format-1, err)
	}

	if _, _, err := Read(filepath.Join(dir, "none"), testHeader(), codec); !errors.Is(err, ErrMissing) {
		t.Errorf("missing file: %v, want ErrMissing", err)
	}
}

// The header names each field that differs.
func TestHeaderMismatch(t *testing.T) {
	a, b := testHeader(), testHeader()
	b.Objects, b.Saved, b.ResourceVersion = 7, b.Saved.AddDate(1, 0, 0), "12"
	if m := a.Mismatch(b); m != "" {
		t.Errorf("count, time and resourceVersion differ only: %q, want none", m)
	}
	b.Namespace = "other"
	if m := a.Mismatch(b); m != "namespace ns, not other" {
		t.Errorf("mismatch %q", m)
	}
}

// A snapshot that fails midway leaves the previous one whole and no
// temporary file behind: here an encoder that fails an object on the
// first pass (left out) and another on the second, which is an error.
func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	codec := testCodec
	if _, err := Write(path, testHeader(), codec, testObjects(3)); err != nil {
		t.Fatal(err)
	}
	failing := codec
	n := 0
	failing.Encode = func(o *corev1.ConfigMap, buf []byte) ([]byte, error) {
		if n++; n == 5 || n == 12 {
			return nil, errors.New("no")
		}
		return codec.Encode(o, buf)
	}
	if _, err := Write(path, testHeader(), failing, testObjects(10)); err == nil {
		t.Fatal("no error from an encoder that fails on the second pass")
	}
	objs, _, err := Read(path, testHeader(), codec)
	if err != nil || len(objs) != 3 {
		t.Fatalf("after a failed write: %d objects, %v; want the previous 3", len(objs), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// An object the codec cannot encode (issue 42, defect 9: a value that
// truly cannot be saved) is left out and returned with its error; the
// others are saved, and the header counts them.
func TestUnencodableObjectsAreLeftOut(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	bad := errors.New("cannot be encoded")
	codec := testCodec
	codec.Encode = func(o *corev1.ConfigMap, buf []byte) ([]byte, error) {
		if o.Name == "cm-3" || o.Name == "cm-7" {
			return buf, bad
		}
		return testCodec.Encode(o, buf)
	}
	in := testObjects(10)
	skipped, err := Write(path, testHeader(), codec, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 2 || skipped[0].Index != 3 || skipped[1].Index != 7 || !errors.Is(skipped[0].Err, bad) || !errors.Is(skipped[1].Err, bad) {
		t.Fatalf("left out %+v, want objects 3 and 7", skipped)
	}
	objs, hdr, err := Read(path, testHeader(), testCodec)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.Name)
	}
	want := []string{"cm-0", "cm-1", "cm-2", "cm-4", "cm-5", "cm-6", "cm-8", "cm-9"}
	if !slices.Equal(names, want) || hdr.Objects != len(want) {
		t.Errorf("read %v (header: %d objects), want %v", names, hdr.Objects, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// snapshotBody is a snapshot file without its checksum; sealed adds it.
func snapshotBody(t testing.TB, n int) []byte {
	path := filepath.Join(t.TempDir(), "s")
	if _, err := Write(path, testHeader(), testCodec, testObjects(n)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[:len(b)-4]
}

func sealed(body []byte) []byte {
	return binary.BigEndian.AppendUint32(slices.Clone(body), crc32.Checksum(body, crcTable))
}

// crafted returns a snapshot whose checksum is right and whose header
// claims objects objects, followed by a frame claiming length bytes.
func crafted(t testing.TB, objects int, length uint64) []byte {
	h := testHeader()
	h.Objects, h.Encoding = objects, "protobuf"
	head, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	b := binary.AppendUvarint([]byte(magic), Format)
	b = append(binary.AppendUvarint(b, uint64(len(head))), head...)
	b = binary.AppendUvarint(b, length)
	return sealed(append(b, "0123456789"...))
}

// readAllocates reads a snapshot file holding b and returns the bytes the
// read allocated.
func readAllocates(t testing.TB, b []byte) (uint64, error) {
	path := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	codec := testCodec
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	_, _, err := Read(path, testHeader(), codec)
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// allocBound is what reading n bytes of snapshot may allocate: a small
// multiple of n, plus the reader's fixed costs.
func allocBound(n int) uint64 { return 32*uint64(n) + 64<<10 }

// A crafted file (a right checksum, a frame or an object count claiming
// more than the file holds) is refused without allocating what it claims.
func TestReadAllocatesWhatTheFileHolds(t *testing.T) {
	for name, b := range map[string][]byte{
		"frame of 256 MiB": crafted(t, 1, MaxObjectLength),
		"frame of 2^62":    crafted(t, 1, 1<<62),
		"2^30 objects":     crafted(t, 1<<30, 5),
	} {
		got, err := readAllocates(t, b)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if got > allocBound(len(b)) {
			t.Errorf("%s: %d bytes of file allocated %d bytes", name, len(b), got)
		}
	}
}

// Nothing of a file whose checksum is wrong is decoded.
func TestDecodesNothingBeforeTheChecksum(t *testing.T) {
	b := sealed(snapshotBody(t, 3))
	b[len(b)-1] ^= 1
	path := filepath.Join(t.TempDir(), "s")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	codec := testCodec
	decoded := 0
	decode := codec.Decode
	codec.Decode = func(b []byte) (*corev1.ConfigMap, error) { decoded++; return decode(b) }
	if _, _, err := Read(path, testHeader(), codec); err == nil || decoded != 0 {
		t.Fatalf("err %v, %d objects decoded; want an error and none", err, decoded)
	}
}

// No snapshot of n bytes, with a right checksum, makes the reader
// allocate more than a small multiple of n, nor panic.
func FuzzReadAllocation(f *testing.F) {
	f.Add(snapshotBody(f, 3))
	f.Add(snapshotBody(f, 0))
	f.Add(crafted(f, 1, MaxObjectLength))
	f.Fuzz(func(t *testing.T, body []byte) {
		b := sealed(body)
		if got, _ := readAllocates(t, b); got > allocBound(len(b)) {
			t.Fatalf("%d bytes of file allocated %d bytes", len(b), got)
		}
	})
}
