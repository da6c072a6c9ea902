package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// The floor of a warm start (floor-warm, floor-warm-file): the snapshot
// file that ours' warm start reads (runtime.WithSnapshot) read and each of
// its objects decoded into its typed struct and dropped, nothing else;
// floor-warm also sends, meanwhile, the consistent metadata-only LIST ours
// sends (the same request, pages of the same size) and reads its pages to
// the end, decoding only what the next page needs. Neither checks the
// file's checksum, compares the LIST with the objects or watches for the
// changes: what is left to a syncer once the bytes are in and decoded.

// snapshotMagic and snapshotFormat are runtime/internal/snapshotfile's:
// the floor reads that format, and refuses another.
const (
	snapshotMagic  = "syncer-gen/snapshot\n"
	snapshotFormat = 4
)

// metadataPage is the items of a page of ours' metadata-only LIST with
// its default options (WithPageSize 500, ten times that).
const metadataPage = 5000

// warmFloor reads and decodes the snapshot file of e, and with list, sends
// the metadata-only LIST at the same time.
func warmFloor(ctx context.Context, e *child.Env, decode func([]byte) error, list bool) (child.Outcome, error) {
	if e.Snapshot == "" {
		return child.Outcome{}, errors.New("a warm floor needs -snapshot")
	}
	var listErr error
	var wg sync.WaitGroup
	if list {
		wg.Go(func() { listErr = metadataList(ctx, e) })
	}
	n, err := decodeSnapshot(e.Snapshot, decode)
	wg.Wait()
	if err == nil && listErr != nil {
		err = fmt.Errorf("metadata-only LIST: %w", listErr)
	}
	return child.Outcome{Objects: n, Note: "snapshot objects decoded"}, err
}

// decodeSnapshot reads the snapshot file at path and calls decode with the
// protobuf bytes of each object; it returns how many there were.
func decodeSnapshot(path string, decode func([]byte) error) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	rest, ok := bytes.CutPrefix(b, []byte(snapshotMagic))
	if !ok {
		return 0, fmt.Errorf("%s: not a syncer-gen snapshot", path)
	}
	v, rest, err := uvarint(rest)
	if err != nil || v != snapshotFormat {
		return 0, fmt.Errorf("%s: snapshot format %d, the floor reads format %d (%v)", path, v, snapshotFormat, err)
	}
	if _, rest, err = prefixed(rest); err != nil { // the header
		return 0, fmt.Errorf("%s: header: %w", path, err)
	}
	for n := 0; ; n++ {
		obj, r, err := prefixed(rest)
		if err != nil {
			return n, fmt.Errorf("%s: object %d: %w", path, n+1, err)
		}
		if len(obj) == 0 {
			return n, nil
		}
		rest = r
		// Each object: its apiVersion, its kind, then its protobuf bytes.
		for range 2 {
			if _, obj, err = prefixed(obj); err != nil {
				return n, fmt.Errorf("%s: object %d: type: %w", path, n+1, err)
			}
		}
		if err := decode(obj); err != nil {
			return n, fmt.Errorf("%s: object %d: %w", path, n+1, err)
		}
	}
}

// uvarint reads an unsigned varint from b and returns it and the rest of b.
func uvarint(b []byte) (uint64, []byte, error) {
	v, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, nil, errors.New("malformed length")
	}
	return v, b[k:], nil
}

// prefixed reads a length, then as many bytes, from b.
func prefixed(b []byte) (field, rest []byte, err error) {
	n, b, err := uvarint(b)
	if err != nil {
		return nil, nil, err
	}
	if n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("length %d, %d bytes left", n, len(b))
	}
	return b[:n], b[n:], nil
}

// metadataAccept is what ours asks the metadata-only LIST in.
const metadataAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// metadataList reads every page of a consistent metadata-only LIST of e's
// objects, each into the same buffer, decoding only its continue token.
func metadataList(ctx context.Context, e *child.Env) error {
	client, err := rest.HTTPClientFor(e.Cfg)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	cont := ""
	for {
		q := url.Values{"limit": {strconv.Itoa(metadataPage)}}
		if cont != "" {
			q.Set("continue", cont)
		}
		u := e.Cfg.Host + "/api/v1/namespaces/" + url.PathEscape(e.Namespace) + "/" + e.Plural + "?" + q.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", metadataAccept)
		req.Header.Set("Accept-Encoding", "identity") // as ours asks by default
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d: %q", resp.StatusCode, buf.Bytes()[:min(buf.Len(), 4096)])
		}
		if cont, err = continueOf(buf.Bytes()); err != nil {
			return err
		}
		if cont == "" {
			return nil
		}
	}
}

// continueOf returns the continue token of a protobuf
// PartialObjectMetadataList: its ListMeta is field 1.
func continueOf(page []byte) (string, error) {
	if !bytes.HasPrefix(page, protobufMagic) {
		return "", errors.New("the page is not protobuf-encoded")
	}
	raw, err := field(page[len(protobufMagic):], 2)
	if err != nil {
		return "", err
	}
	lm, err := field(raw, 1)
	if err != nil {
		return "", err
	}
	var meta metav1.ListMeta
	if err := meta.Unmarshal(lm); err != nil {
		return "", fmt.Errorf("list metadata: %w", err)
	}
	return meta.Continue, nil
}
