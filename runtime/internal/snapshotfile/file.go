package snapshotfile

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"time"
)

const (
	magic = "syncer-gen/snapshot\n"
	// Format 2: the header has the resourceVersion; 3: and the type's
	// fingerprint; 4: a protobuf object has its apiVersion and kind
	// before it (see runtime's codecFor).
	Format          = 4
	maxHeaderLength = 64 << 10
	MaxObjectLength = 256 << 20 // far above what an API server stores (etcd's limit is 1.5 MiB)
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Codec turns objects of one type into bytes and back.
type Codec[T any] struct {
	Name   string                          // recorded in the header: a file is read with the codec it was written with
	Encode func(T, []byte) ([]byte, error) // may reuse the buffer given
	Decode func([]byte) (T, error)
}

// Header names what a snapshot belongs to. Two headers that differ in any
// field but ResourceVersion, Objects and Saved belong to different
// Syncers.
type Header struct {
	Server        string `json:"server"`
	Group         string `json:"group"`
	Version       string `json:"version"`
	Resource      string `json:"resource"`
	Namespace     string `json:"namespace"`
	LabelSelector string `json:"labelSelector"`
	FieldSelector string `json:"fieldSelector"`
	ShardSelector string `json:"shardSelector"` // another shard's snapshot is never used
	Type          string `json:"type"`          // Go type of the objects
	TypeHash      string `json:"typeHash"`      // its structure (valuecodec.Fingerprint): a rebuilt program with a changed type starts cold
	Transforms    int    `json:"transforms"`    // objects are stored transformed
	Encoding      string `json:"encoding"`      // "protobuf" or "json"
	// ResourceVersion is the one the objects are the server's state at
	// (or, if not known, ""); a watch from it brings them up to date.
	ResourceVersion string    `json:"resourceVersion"`
	Objects         int       `json:"objects"`
	Saved           time.Time `json:"saved"`
}

// Mismatch names the first field in which h differs from want, or "".
func (h Header) Mismatch(want Header) string {
	h.ResourceVersion, h.Objects, h.Saved = want.ResourceVersion, want.Objects, want.Saved
	if h == want {
		return ""
	}
	a, b := reflect.ValueOf(h), reflect.ValueOf(want)
	for i := range a.NumField() {
		if a.Field(i).Interface() != b.Field(i).Interface() {
			return fmt.Sprintf("%s %v, not %v", a.Type().Field(i).Tag.Get("json"), a.Field(i).Interface(), b.Field(i).Interface())
		}
	}
	return ""
}

// Skipped is an object that Write left out of the file: its codec could
// not encode it.
type Skipped struct {
	Index int // in the objects given to Write
	Err   error
}

// Write writes objs to path under hdr: into a new file in the same
// folder (mode 0600: objects may be Secrets), object by object, synced,
// then renamed over path, so that path holds either the old snapshot or the
// whole new one.
//
// An object the codec cannot encode is left out, and the others written:
// Write returns those it left out, each with the codec's error, and the
// header counts the objects written. Finding one costs a second pass (the
// count is in the header, before the objects): the first stops writing at
// it and only encodes the rest, to find any other, and the file is then
// written without them.
func Write[T any](path string, hdr Header, codec Codec[T], objs []T) ([]Skipped, error) {
	skipped, err := write(path, hdr, codec, objs, nil)
	if err != nil || len(skipped) == 0 {
		return nil, err
	}
	if _, err := write(path, hdr, codec, objs, skipped); err != nil {
		return skipped, err
	}
	return skipped, nil
}

// write writes the file without the objects of skip (in the order of their
// indexes). With skip nil, an object the codec cannot encode ends the
// writing: the others are only encoded, and those that fail returned, with
// no file written. With skip given, one is an error.
func write[T any](path string, hdr Header, codec Codec[T], objs []T, skip []Skipped) (failed []Skipped, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil || len(failed) > 0 {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return nil, err
	}
	crc := crc32.New(crcTable)
	w := bufio.NewWriterSize(io.MultiWriter(f, crc), 256<<10)
	hdr.Objects, hdr.Encoding = len(objs)-len(skip), codec.Name
	head, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	w.WriteString(magic)
	writeUvarint(w, Format)
	writeFrame(w, head)
	var buf []byte
	for i, o := range objs {
		if len(skip) > 0 && skip[0].Index == i {
			skip = skip[1:]
			continue
		}
		buf, err = codec.Encode(o, buf)
		switch {
		case err != nil && skip != nil:
			return nil, fmt.Errorf("encoding object %d of %d: %w", i+1, len(objs), err)
		case err != nil:
			failed = append(failed, Skipped{Index: i, Err: err})
		case len(failed) == 0:
			writeFrame(w, buf)
		}
	}
	if len(failed) > 0 {
		return failed, nil
	}
	writeUvarint(w, 0)
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if err := binary.Write(f, binary.BigEndian, crc.Sum32()); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return nil, err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil, nil
}

func writeUvarint(w *bufio.Writer, n uint64) {
	w.Write(binary.AppendUvarint(w.AvailableBuffer(), n))
}

func writeFrame(w *bufio.Writer, b []byte) {
	writeUvarint(w, uint64(len(b)))
	w.Write(b)
}

// ErrMissing: there is no snapshot file (a first run).
var ErrMissing = errors.New("no snapshot file")

// Read reads the snapshot at path, checking that it belongs to
// want, and returns its objects and header. Any error means that nothing
// in the file may be used.
//
// The file is read twice: first to check its checksum, so that nothing in
// a damaged or crafted file is decoded, then to decode it. What it
// allocates is bounded by its size: no frame may claim more bytes than the
// file has left, and the objects reserved are at most one per two bytes
// left (an object frame takes at least two).
func Read[T any](path string, want Header, codec Codec[T]) ([]T, Header, error) {
	var hdr Header
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, hdr, ErrMissing
	}
	if err != nil {
		return nil, hdr, err
	}
	defer f.Close()
	size, err := checkSum(f)
	if err != nil {
		return nil, hdr, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, hdr, err
	}
	r := &frameReader{r: bufio.NewReaderSize(io.LimitReader(f, size), int(min(size, 256<<10))), left: size}
	head := make([]byte, len(magic))
	if err := r.full(head); err != nil || string(head) != magic {
		return nil, hdr, errors.New("not a syncer-gen snapshot")
	}
	if v, err := r.uvarint(); err != nil || v != Format {
		return nil, hdr, fmt.Errorf("snapshot format %d (another syncer-gen version's), this runtime reads format %d only", v, Format)
	}
	head, err = r.frame(maxHeaderLength, head)
	if err != nil {
		return nil, hdr, fmt.Errorf("header: %w", err)
	}
	if err := json.Unmarshal(head, &hdr); err != nil {
		return nil, hdr, fmt.Errorf("header: %w", err)
	}
	want.Encoding = codec.Name
	if m := hdr.Mismatch(want); m != "" {
		return nil, hdr, fmt.Errorf("saved for another syncer: %s", m)
	}
	if hdr.Objects < 0 || int64(hdr.Objects) > r.left/2 {
		return nil, hdr, fmt.Errorf("header counts %d objects in %d bytes", hdr.Objects, r.left)
	}
	objs, err := decodeObjects(r, hdr.Objects, codec.Decode)
	if err != nil {
		return nil, hdr, err
	}
	if r.left != 0 {
		return nil, hdr, errors.New("bytes after the objects")
	}
	return objs, hdr, nil
}

// checkSum checks the CRC-32C that ends f against every byte before it and
// returns how many bytes that is.
func checkSum(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size() - 4
	if size < int64(len(magic)) {
		return 0, errors.New("not a syncer-gen snapshot")
	}
	crc := crc32.New(crcTable)
	if _, err := io.CopyN(crc, f, size); err != nil {
		return 0, fmt.Errorf("checksum: %w", unexpectedEOF(err))
	}
	var stored uint32
	if err := binary.Read(f, binary.BigEndian, &stored); err != nil {
		return 0, fmt.Errorf("checksum: %w", unexpectedEOF(err))
	}
	if sum := crc.Sum32(); stored != sum {
		return 0, fmt.Errorf("checksum %08x, the content sums to %08x", stored, sum)
	}
	var one [1]byte
	if n, _ := f.Read(one[:]); n != 0 { // the file grew while being read
		return 0, errors.New("bytes after the checksum")
	}
	return size, nil
}

// frameReader reads the checked part of a snapshot, knowing how many bytes
// of it are left.
type frameReader struct {
	r    *bufio.Reader
	left int64
}

func (r *frameReader) ReadByte() (byte, error) {
	b, err := r.r.ReadByte()
	if err == nil {
		r.left--
	}
	return b, err
}

func (r *frameReader) uvarint() (uint64, error) {
	n, err := binary.ReadUvarint(r)
	return n, unexpectedEOF(err)
}

func (r *frameReader) full(b []byte) error {
	n, err := io.ReadFull(r.r, b)
	r.left -= int64(n)
	return unexpectedEOF(err)
}

// frame reads one length-prefixed frame into buf (grown as needed), of at
// most limit bytes and never more than the file has left.
func (r *frameReader) frame(limit uint64, buf []byte) ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("length %d over the limit of %d", n, limit)
	}
	if n > uint64(r.left) {
		return nil, fmt.Errorf("length %d, %d bytes left", n, r.left)
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if err := r.full(buf); err != nil {
		return nil, err
	}
	return buf, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
