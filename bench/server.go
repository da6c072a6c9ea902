package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"k8s.io/client-go/rest"
)

// describeServer names the kube-apiserver's version and tells whether it
// gzips WatchList responses (1.37's WatchListCompression), as seen on the
// wire: a WatchList request for nothing (a label selector no object has)
// that accepts gzip, answered with Content-Encoding gzip or not.
func describeServer(ctx context.Context, srv *testbed.Server, namespace string) (string, error) {
	client, err := rest.HTTPClientFor(srv.Config())
	if err != nil {
		return "", err
	}
	defer client.CloseIdleConnections()
	q := url.Values{
		"watch":                {"1"},
		"sendInitialEvents":    {"true"},
		"resourceVersionMatch": {"NotOlderThan"},
		"allowWatchBookmarks":  {"true"},
		"labelSelector":        {"syncer-gen.bench/probe=none"},
		"timeoutSeconds":       {"1"},
	}
	u := srv.URL() + "/api/v1/namespaces/" + url.PathEscape(namespace) + "/configmaps?" + q.Encode()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", driver.ProtobufStream)
	req.Header.Set("Accept-Encoding", "gzip") // set here, the transport leaves the body compressed and the header in place
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("WatchList probe: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return "", fmt.Errorf("WatchList probe: HTTP %d: %q", resp.StatusCode, b)
	}
	compression := "off (WatchList responses not compressed)"
	if resp.Header.Get("Content-Encoding") == "gzip" {
		compression = "on (WatchList responses gzip-compressed)"
	}
	return fmt.Sprintf("server: kube-apiserver %s, WatchListCompression %s", srv.Version(), compression), nil
}

// apiserverAllocated returns kube-apiserver's allocatedMetric. Unlike its
// peak RSS, which depends on when its garbage collector last ran, it
// counts the work a row gave the server; each scrape adds the same small
// amount (the rendering of /metrics) to every row.
func (b *bench) apiserverAllocated(ctx context.Context) (float64, error) {
	return b.apiserverMetric(ctx, driver.AllocatedMetric)
}

// apiserverMetric returns the sample of kube-apiserver's /metrics named
// name, without labels.
func (b *bench) apiserverMetric(ctx context.Context, name string) (float64, error) {
	body, err := b.cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	return driver.ParseMetric(body, name)
}
