package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"k8s.io/client-go/rest"
)

// readFloor opens a raw WatchList stream and reads it up to the
// initial-events-end bookmark, calling decode (when not nil) with the
// protobuf bytes of each ADDED object. When live is not nil, the stream
// stays open and a goroutine hands it each later added or modified object,
// until the child exits; otherwise it is closed.
func readFloor(ctx context.Context, e *child.Env, decode, live func([]byte) error) (child.Outcome, error) {
	ctx, cancel := context.WithCancel(ctx)
	body, err := openWatchList(ctx, e)
	if err != nil {
		cancel()
		return child.Outcome{}, err
	}
	stop := func() {
		cancel()
		body.Close()
	}
	deadline := time.AfterFunc(e.Timeout, stop)
	fr := &frameReader{r: bufio.NewReaderSize(body, 64<<10)}
	n, err := readInitialEvents(fr, decode)
	if !deadline.Stop() && err != nil {
		err = fmt.Errorf("not synced after %s: %w", e.Timeout, err)
	}
	if err != nil || live == nil {
		stop()
		return child.Outcome{Objects: n}, err
	}
	go func() {
		defer stop()
		// readLive returns only when the stream ends: an error, told unless the run is over.
		if err := readLive(fr, live); ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "floor: live events:", err)
		}
	}()
	return child.Outcome{Objects: n, Keep: fr}, nil
}

// openWatchList sends the WatchList request with the same transport
// (TLS, HTTP/2, auth) as client-go's and returns the response body.
func openWatchList(ctx context.Context, e *child.Env) (io.ReadCloser, error) {
	client, err := rest.HTTPClientFor(e.Cfg)
	if err != nil {
		return nil, err
	}
	q := url.Values{
		"watch":                {"1"},
		"sendInitialEvents":    {"true"},
		"resourceVersionMatch": {"NotOlderThan"},
		"allowWatchBookmarks":  {"true"},
	}
	if e.FieldSelector != "" {
		q.Set("fieldSelector", e.FieldSelector)
	}
	u := e.Cfg.Host + "/api/v1/namespaces/" + url.PathEscape(e.Namespace) + "/" + e.Plural + "?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", driver.ProtobufStream)
	// Uncompressed, as a syncer asks by default: a floor that gunzips
	// 1.37's compressed WatchList would be no floor for ours.
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("WatchList request: HTTP %d: %q", resp.StatusCode, b)
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "application/vnd.kubernetes.protobuf" || params["stream"] != "watch" {
		resp.Body.Close()
		return nil, fmt.Errorf("WatchList request: got Content-Type %q, want %q", resp.Header.Get("Content-Type"), driver.ProtobufStream)
	}
	return resp.Body, nil
}
