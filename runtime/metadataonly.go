package runtime

import (
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// A Syncer whose type keeps only metadata (Resource.MetadataOnly) asks
// the server for PartialObjectMetadata: every request of its sync (the
// WatchList, a LIST's pages, a watch, the count before a WatchList, a warm
// start's GETs and LISTs of one object) carries an Accept header that asks
// for the object's metadata in the media types the Syncer reads, with
// as=PartialObjectMetadata (as=PartialObjectMetadataList for a LIST), and
// the server converts each object before it encodes it: on kube-apiserver
// v1.37.2, 1,000 ConfigMaps of 64 KB are 65.2 MB listed whole in protobuf
// and 0.23 MB as a PartialObjectMetadataList, served in 7 ms rather than
// 84. The answer decodes into the Syncer's type as a whole object would
// (the wire readers take PartialObjectMetadata as the resource's own
// kind), so the store holds what a Syncer of whole objects would hold.
//
// A server that refuses such a request (406 Not Acceptable, 415
// Unsupported Media Type: a server older than 1.15, an aggregated server
// that does not convert, a proxy) is asked again at once for whole
// objects, and every request of that server and resource asks for whole
// objects until the probe interval (WithProbeInterval) has passed, as a
// refused WatchList is remembered. A server that ignores the parameters
// sends whole objects, which decode as well.
//
// Two things tell less in a PartialObjectMetadataList than in a whole
// list: kube-apiserver (1.37) drops metadata.shardInfo, so that a sharded
// Syncer learns whether the server keeps to its shard from a LIST of one
// whole object (see count and list); and each item is typed as
// PartialObjectMetadata in JSON, which ownKind replaces with the
// resource's apiVersion and kind, as a whole object's item would have.

// acceptObjects and acceptList ask for the metadata of objects, and of a
// LIST, in protobuf first where the Syncer's type reads it.
const (
	metadataObjectsJSON  = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	metadataListJSON     = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	metadataObjectsProto = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," + metadataObjectsJSON
	metadataListProto    = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," + metadataListJSON
)

// metadataRefusals remembers, per server and resource (a source's key),
// until when requests ask for whole objects: the server refused to send
// PartialObjectMetadata. Shared by every Syncer of the process, as modes.
var metadataRefusals = &refusals{until: map[string]time.Time{}}

type refusals struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (r *refusals) refused(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.until[key]
	return ok && now.Before(t)
}

func (r *refusals) refuse(key string, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.until[key] = until
}

// registerPartial makes scheme decode PartialObjectMetadata, and its list,
// into the Syncer's type and list type: what the REST client's decoders
// (a LIST page into its list, a GET into an object, an unusual frame) look
// the server's kind up in.
func registerPartial(scheme *kruntime.Scheme, obj, list kruntime.Object) {
	gv := metav1.SchemeGroupVersion
	scheme.AddKnownTypeWithName(gv.WithKind("PartialObjectMetadata"), obj)
	scheme.AddKnownTypeWithName(gv.WithKind("PartialObjectMetadataList"), list)
}

// ask sets on r, for a metadata-only Syncer, the Accept header that asks
// for the metadata of objects (list: of a LIST), unless the server refused
// it; asked tells whether it did.
func (s *source[T]) ask(r *rest.Request, list bool) (_ *rest.Request, asked bool) {
	if !s.res.MetadataOnly || metadataRefusals.refused(s.key, time.Now()) {
		return r, false
	}
	switch {
	case list && s.protobuf:
		r.SetHeader("Accept", metadataListProto)
	case list:
		r.SetHeader("Accept", metadataListJSON)
	case s.protobuf:
		r.SetHeader("Accept", metadataObjectsProto)
	default:
		r.SetHeader("Accept", metadataObjectsJSON)
	}
	return r, true
}

// refusedMetadata tells whether err answers a request that asked for
// metadata (asked) with a refusal of the media type; it remembers that the
// server refuses it, and the caller sends the request again, for whole
// objects.
func (s *source[T]) refusedMetadata(asked bool, err error) bool {
	if !asked || !apierrors.IsNotAcceptable(err) && !apierrors.IsUnsupportedMediaType(err) {
		return false
	}
	metadataRefusals.refuse(s.key, time.Now().Add(s.cfg.probeInterval))
	s.cfg.logger.Info("the server refused to send PartialObjectMetadata; asking for whole objects",
		"resource", s.res.String(), "retryIn", s.cfg.probeInterval, "err", err.Error())
	return true
}

// ownKind gives an item of a LIST that the server sent as
// PartialObjectMetadata (a JSON page's items say so) the resource's
// apiVersion and kind, which a whole object's item of a JSON page has.
func (s *source[T]) ownKind(obj T) {
	k := obj.GetObjectKind()
	if gvk := k.GroupVersionKind(); gvk.Kind == "PartialObjectMetadata" && gvk.GroupVersion() == metav1.SchemeGroupVersion {
		k.SetGroupVersionKind(schema.GroupVersionKind{Group: s.res.Group, Version: s.res.Version, Kind: s.res.Kind})
	}
}
