package runtime

import (
	"encoding/json"
	"errors"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// asUndecodable returns the object a stream or page could not decode, if
// err says so.
func asUndecodable(err error) *ObjectDecodeError {
	var bad *ObjectDecodeError
	if errors.As(err, &bad) {
		return bad
	}
	return nil
}

// stub returns an object that holds only what names bad's object: the
// selection, shard and warm-start bookkeeping read it; it is never stored.
func (s *Syncer[T]) stub(bad *ObjectDecodeError) T {
	o := reflect.New(s.src.elemType).Interface().(T)
	o.SetNamespace(bad.Namespace)
	o.SetName(bad.Name)
	o.SetUID(bad.UID)
	o.SetResourceVersion(bad.ResourceVersion)
	return o
}

// ingest applies an event to the cache; bad, when not nil, says that obj is
// a stub for an object that could not be decoded.
func (s *Syncer[T]) ingest(op string, typ watch.EventType, obj T, bad *ObjectDecodeError) {
	if bad != nil {
		s.takeUndecodable(op, typ, KeyOf(obj), bad)
		return
	}
	if len(s.bad) > 0 {
		delete(s.bad, KeyOf(obj)) // a version that decodes: taken in below
	}
	switch typ {
	case watch.Added, watch.Modified:
		s.cache.upsert(obj)
	case watch.Deleted:
		s.cache.delete(obj)
	}
}

// takeUndecodable reports an object that could not be decoded, once per
// version, and applies what is known of it: it is still there (the version
// stored, the last that decoded, is kept), or it was deleted.
func (s *Syncer[T]) takeUndecodable(op string, typ watch.EventType, k Key, bad *ObjectDecodeError) {
	if s.bad == nil {
		s.bad = map[Key]string{}
	}
	if s.bad[k] != bad.ResourceVersion {
		s.bad[k] = bad.ResourceVersion
		s.cfg.logger.Error(bad, "object not decoded; the syncer goes on without this version of it",
			"resource", s.res.String(), "object", k.String(), "resourceVersion", bad.ResourceVersion)
		s.report(&SyncError{Kind: KindUndecodable, Resource: s.res.String(), Op: op, Err: bad})
	}
	if typ == watch.Deleted {
		delete(s.bad, k)
	}
	s.cache.undecodable(k, bad.ResourceVersion, typ == watch.Deleted)
}

// listItems decodes a JSON LIST page item by item, after the page as a
// whole failed to decode with err: each item that decodes goes to each,
// each that does not but names itself to bad. A page that is not a JSON
// list, or an item that does not name itself, is err. asked is the shard
// selector the request carried (see noteShard).
func (s *source[T]) listItems(body []byte, asked string, err error, each func(T), bad func(*ObjectDecodeError)) (listPage, error) {
	var page struct {
		Metadata metav1.ListMeta   `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if len(body) == 0 || body[0] != '{' || bad == nil || json.Unmarshal(body, &page) != nil {
		return listPage{}, errDecode{err}
	}
	dec, derr := s.negotiator.Decoder(kruntime.ContentTypeJSON, nil)
	if derr != nil {
		return listPage{}, errDecode{err}
	}
	if err := s.noteShard(asked, page.Metadata.ShardInfo); err != nil {
		return listPage{}, err
	}
	for _, raw := range page.Items {
		o, ierr := kruntime.Decode(dec, raw)
		if obj, ok := o.(T); ierr == nil && ok {
			each(obj)
			continue
		}
		b := undecodable(raw, ierr)
		if b == nil {
			return listPage{}, errDecode{err}
		}
		b.event = watch.Added
		bad(b)
	}
	m := page.Metadata
	return newListPage(m.ResourceVersion, m.Continue, len(page.Items), m.RemainingItemCount)
}
