package eventpath

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Media types a stream is framed in.
const (
	Protobuf = kruntime.ContentTypeProtobuf
	JSON     = kruntime.ContentTypeJSON
)

// FirstRV is the resourceVersion of the first object the stream holds;
// every resourceVersion has its 12 digits, so that an update's frame is
// rewritten in place (see Update).
const FirstRV = 100_000_000_001

// API answers a Syncer's requests for one resource: the WatchList of its
// objects (ADDED each, then the initial-events-end bookmark), which then
// stays open for the frames Send writes. Every other request (the LIST of
// one item that counts the objects, a plain watch) is a 404: a Syncer
// goes without the count, and never opens a plain watch while its
// WatchList stays open.
type API struct {
	media   string
	initial []byte // the initial events and the bookmark, framed
	objs    []kruntime.Object
	lastRV  uint64

	mu   sync.Mutex
	live *io.PipeWriter // of the open WatchList; nil before it opens
	open chan struct{}  // closed when it opens
}

// NewAPI returns an API whose WatchList holds objs, framed in media: their
// resourceVersions are set to FirstRV, FirstRV+1 and so on.
func NewAPI(media string, objs []kruntime.Object) (*API, error) {
	if len(objs) == 0 {
		return nil, errors.New("eventpath: no objects")
	}
	a := &API{media: media, objs: objs, open: make(chan struct{})}
	var buf bytes.Buffer
	rv := uint64(FirstRV)
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			return nil, err
		}
		m.SetResourceVersion(strconv.FormatUint(rv, 10))
		f, err := Frame(media, watch.Added, o)
		if err != nil {
			return nil, err
		}
		buf.Write(f)
		rv++
	}
	// The bookmark: an empty object of the same kind at the last
	// resourceVersion, as the server sends it.
	bm := reflect.New(reflect.TypeOf(objs[0]).Elem()).Interface().(kruntime.Object)
	bm.GetObjectKind().SetGroupVersionKind(objs[0].GetObjectKind().GroupVersionKind())
	m, _ := meta.Accessor(bm)
	a.lastRV = rv - 1
	m.SetResourceVersion(strconv.FormatUint(a.lastRV, 10))
	m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	f, err := Frame(media, watch.Bookmark, bm)
	if err != nil {
		return nil, err
	}
	buf.Write(f)
	a.initial = buf.Bytes()
	return a, nil
}

// Config returns a rest.Config whose requests go to a.
func (a *API) Config() *rest.Config {
	return &rest.Config{Host: "http://eventpath.invalid", Transport: a, QPS: -1}
}

// Objects returns the objects of the WatchList, at the resourceVersions
// it sent them.
func (a *API) Objects() []kruntime.Object { return a.objs }

// LastRV returns the resourceVersion of the bookmark that ends the
// initial events.
func (a *API) LastRV() uint64 { return a.lastRV }

// RoundTrip implements http.RoundTripper.
func (a *API) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	q := r.URL.Query()
	if q.Get("watch") != "true" || q.Get("sendInitialEvents") != "true" {
		return notFound(r), nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.live != nil {
		return notFound(r), nil // one WatchList: a second is a Syncer that lost the first
	}
	pr, pw := io.Pipe()
	a.live = pw
	close(a.open)
	// As a transport does, the request's end ends its response.
	context.AfterFunc(r.Context(), func() { pw.CloseWithError(r.Context().Err()) })
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {a.media}},
		Body:    body{Reader: io.MultiReader(bytes.NewReader(a.initial), pr), pr: pr},
		Request: r,
	}, nil
}

// body is a WatchList's: the initial events, then what Send writes.
type body struct {
	io.Reader
	pr *io.PipeReader
}

func (b body) Close() error { return b.pr.Close() }

func notFound(r *http.Request) *http.Response {
	st, _ := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: "eventpath serves the WatchList only"})
	return &http.Response{
		StatusCode: http.StatusNotFound, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {JSON}},
		Body:    io.NopCloser(bytes.NewReader(st)),
		Request: r,
	}
}

// Send writes frame to the open WatchList and returns once the Syncer has
// read it; an error when none is open or the Syncer closed it.
func (a *API) Send(frame []byte) error {
	a.mu.Lock()
	w := a.live
	a.mu.Unlock()
	if w == nil {
		return errors.New("eventpath: no WatchList open")
	}
	_, err := w.Write(frame)
	return err
}

// Opened is closed once the WatchList is open.
func (a *API) Opened() <-chan struct{} { return a.open }

// Frame returns a watch event of obj framed in media as kube-apiserver
// frames it: in protobuf a WatchEvent, length-prefixed, whose object is
// the protobuf envelope (magic number, kind and bytes); in JSON a
// WatchEvent on a line. obj carries its apiVersion and kind.
func Frame(media string, typ watch.EventType, obj kruntime.Object) ([]byte, error) {
	switch media {
	case Protobuf:
		var raw bytes.Buffer
		if err := protobuf.NewSerializer(nil, nil).Encode(obj, &raw); err != nil {
			return nil, fmt.Errorf("eventpath: %T in protobuf: %w", obj, err)
		}
		ev := metav1.WatchEvent{Type: string(typ), Object: kruntime.RawExtension{Raw: raw.Bytes()}}
		b, err := ev.Marshal()
		if err != nil {
			return nil, err
		}
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...), nil
	case JSON:
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("eventpath: %T in JSON: %w", obj, err)
		}
		b, err := json.Marshal(metav1.WatchEvent{Type: string(typ), Object: kruntime.RawExtension{Raw: raw}})
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	return nil, fmt.Errorf("eventpath: media type %q", media)
}

// rvPlaceholder is the resourceVersion an Update's frame is encoded with,
// found in it and then rewritten for each event: 12 digits, as FirstRV.
const rvPlaceholder = "987654321098"

// Update is a MODIFIED event of an object whose resourceVersion is
// rewritten in its frame in place, for one event after another.
type Update struct {
	Frame []byte
	at    int // where the resourceVersion's 12 digits are
}

// NewUpdate returns a MODIFIED event of obj framed in media. It changes
// obj's resourceVersion.
func NewUpdate(media string, obj kruntime.Object) (*Update, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(rvPlaceholder)
	f, err := Frame(media, watch.Modified, obj)
	if err != nil {
		return nil, err
	}
	at := bytes.Index(f, []byte(rvPlaceholder))
	if at < 0 || bytes.Count(f, []byte(rvPlaceholder)) != 1 {
		return nil, fmt.Errorf("eventpath: the resourceVersion of %s/%s is not once in its frame", m.GetNamespace(), m.GetName())
	}
	return &Update{Frame: f, at: at}, nil
}

// SetResourceVersion writes rv, of 12 digits, into the frame.
func (u *Update) SetResourceVersion(rv uint64) {
	b := u.Frame[u.at : u.at+len(rvPlaceholder)]
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + rv%10)
		rv /= 10
	}
}
