package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// slowProxy stands between one replica and the server. It holds each
// status write back for delay on its way, as a slow network or server
// would, and then delivers it even if the replica has given up on it
// meanwhile (a request on its way reaches the server all the same). It
// logs the status writes and the shard Leases' releases it forwards.
type slowProxy struct {
	srv   *httptest.Server
	rp    *httputil.ReverseProxy
	delay atomic.Int64 // nanoseconds

	mu       sync.Mutex
	writes   []*statusWrite
	releases map[string][]time.Time // shard Lease -> when each of its releases came, in order
}

// statusWrite is one status write the proxy forwarded: when it came from
// the replica, when it went on to the server, when the server's answer
// came back (zero: not yet), and when the replica stopped waiting for it
// first, as far as the proxy could tell (zero: it waited for the answer,
// or the proxy did not see it go).
type statusWrite struct {
	widget                                string
	received, forwarded, answered, gaveUp time.Time
}

type writeKey struct{}

func startSlowProxy(t *testing.T, srv *testbed.Server, delay time.Duration) *slowProxy {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	p := &slowProxy{releases: map[string][]time.Time{}}
	p.delay.Store(int64(delay))
	p.rp = httputil.NewSingleHostReverseProxy(u)
	p.rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	p.rp.FlushInterval = -1 // watch streams
	p.rp.ModifyResponse = func(resp *http.Response) error {
		if w, ok := resp.Request.Context().Value(writeKey{}).(*statusWrite); ok {
			p.mu.Lock()
			w.answered = time.Now()
			p.mu.Unlock()
		}
		return nil
	}
	p.srv = httptest.NewTLSServer(p)
	t.Cleanup(func() { p.srv.CloseClientConnections(); p.srv.Close() })
	return p
}

func (p *slowProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/widgets/") && path.Base(r.URL.Path) == "status":
		sw := &statusWrite{widget: path.Base(path.Dir(r.URL.Path)), received: time.Now()}
		gaveUp := context.AfterFunc(r.Context(), func() { // the replica cancelled the request, or timed out
			p.mu.Lock()
			if sw.answered.IsZero() {
				sw.gaveUp = time.Now()
			}
			p.mu.Unlock()
		})
		defer gaveUp()
		delay := time.NewTimer(time.Duration(p.delay.Load()))
		<-delay.C // the write on its way: a fault the test makes, not a synchronisation
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Minute)
		defer cancel()
		p.mu.Lock()
		sw.forwarded = time.Now()
		p.writes = append(p.writes, sw)
		p.mu.Unlock()
		r = r.WithContext(context.WithValue(ctx, writeKey{}, sw))
	case r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/leases/") && strings.Contains(path.Base(r.URL.Path), "-shard-"):
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil) // JSON or protobuf
		if lease, ok := obj.(*coordinationv1.Lease); err == nil && ok && (lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "") {
			p.mu.Lock()
			p.releases[path.Base(r.URL.Path)] = append(p.releases[path.Base(r.URL.Path)], time.Now())
			p.mu.Unlock()
		}
	}
	p.rp.ServeHTTP(w, r)
}

// kubeconfig writes an admin kubeconfig that goes through the proxy.
func (p *slowProxy) kubeconfig(t *testing.T) string {
	t.Helper()
	c := clientcmdapi.NewConfig()
	c.Clusters["proxy"] = &clientcmdapi.Cluster{Server: p.srv.URL, InsecureSkipTLSVerify: true}
	c.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: testbed.AdminToken}
	c.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "admin"}
	c.CurrentContext = "proxy"
	file := filepath.Join(t.TempDir(), "kubeconfig-proxy")
	if err := clientcmd.WriteToFile(*c, file); err != nil {
		t.Fatal(err)
	}
	return file
}

func (p *slowProxy) log() ([]statusWrite, map[string][]time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	writes := make([]statusWrite, len(p.writes))
	for i, w := range p.writes {
		writes[i] = *w
	}
	releases := map[string][]time.Time{}
	for k, v := range p.releases {
		releases[k] = slices.Clone(v)
	}
	return writes, releases
}

// A shard handed over while its status writes are slow: r1 holds both
// shards and is in its first pass over 200 widgets, each status write held
// 200 ms on its way to the server, when r2 joins and r1 gives one shard up.
// Every status write r1 made for a widget of a shard it held was answered
// before r1 sent the release that ended that holding: the shard's work
// waited for its workers, and no write of r1's lands after r2 may have the
// shard. Or r1 said it gave the write up unanswered, having waited the
// half of LeaseDuration-RenewDeadline that the example gives a write (the
// fleet leaves a shard's work no more to return): a loaded machine's
// server can be slower than that. A machine that loaded may also make the
// replicas lose their leases and take them again: each write is judged by
// the release that ended the holding it was made in, the first release of
// its shard's Lease after the proxy received it.
func TestShardHandoverWaitsForStatusWrites(t *testing.T) {
	const (
		n      = 200
		shards = 2
	)
	ctx, srv, kubeconfig, widgets, ns, leaseNS := setupSharded(t, n, 3*time.Minute)
	list, err := widgets.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	shardOf := map[string]int{}
	for _, w := range list {
		for s := range shards {
			if ok, err := sharding.NewSelector(runtime.ShardRange("object.metadata.uid", s, shards)).Matches(w); err != nil {
				t.Fatal(err)
			} else if ok {
				shardOf[w.Name] = s
			}
		}
	}
	bin := buildExample(t)
	p := startSlowProxy(t, srv, 200*time.Millisecond)
	args := []string{"--shards", fmt.Sprint(shards), "--lease-namespace", leaseNS, "--lease-duration", "3s"}
	r1 := startReplica(t, bin, p.kubeconfig(t), ns, "r1", args...)
	eventually(t, time.Minute, func() string {
		if writes, _ := p.log(); len(r1.held()) != shards || len(writes) < 4 {
			return fmt.Sprintf("r1 holds %d shards and made %d status writes; want %d and 4 or more", len(r1.held()), len(writes), shards)
		}
		return ""
	})
	r2 := startReplica(t, bin, kubeconfig, ns, "r2", args...)
	eventually(t, time.Minute, func() string {
		if _, releases := p.log(); len(releases) == 0 || len(r2.held()) != 1 || len(r1.held()) != 1 {
			return fmt.Sprintf("r1 holds %v, r2 %v, %d releases by r1", r1.held(), r2.held(), len(releases))
		}
		return ""
	})
	p.delay.Store(0)
	eventually(t, time.Minute, statusesFollowSpecs(ctx, widgets))

	writes, releases := p.log()
	defer func() {
		if t.Failed() {
			for _, r := range []*replica{r1, r2} {
				for _, l := range r.seen() {
					t.Logf("%s %s", l.at.Format("15:04:05.000"), l.text)
				}
			}
		}
	}()
	givenUp := map[string]int{} // widget -> writes r1 said it gave up unanswered
	for _, l := range r1.seen() {
		if m := givenUpLine.FindStringSubmatch(l.text); m != nil && m[1] == ns {
			givenUp[m[2]]++
		}
	}
	answered, late := 0, 0
	for _, w := range writes {
		s := shardOf[w.widget]
		lease := fmt.Sprintf("%s-shard-%d", fleetName(shards), s)
		i, _ := slices.BinarySearchFunc(releases[lease], w.received, func(r, at time.Time) int { return r.Compare(at) })
		if i == len(releases[lease]) {
			continue // made in a holding r1 has not ended
		}
		released := releases[lease][i]
		switch {
		case !w.answered.IsZero() && w.answered.Before(released):
			answered++
		case givenUp[w.widget] > 0:
			givenUp[w.widget]--
			late++
			t.Logf("r1's status write of %s (shard %d), on its way when r1 released the shard at %s, was given up unanswered at its bound, as r1 said",
				w.widget, s, released.Format("15:04:05.000"))
		default:
			waited := "r1 still waited for its answer"
			if !w.gaveUp.IsZero() {
				waited = fmt.Sprintf("r1 gave up on it, seen %s after it was sent, without saying so", w.gaveUp.Sub(w.received).Round(time.Millisecond))
			}
			t.Errorf("r1's status write of %s (shard %d) was on its way when r1 released the shard at %s (%s; forwarded %s, answered %s after the release)",
				w.widget, s, released.Format("15:04:05.000"), waited, w.forwarded.Sub(released).Round(time.Millisecond), w.answered.Sub(released).Round(time.Millisecond))
		}
	}
	released := 0
	for _, rs := range releases {
		released += len(rs)
	}
	t.Logf("r1 released shards %d times; %d of its status writes were answered before the release that ended their shard's holding, %d given up",
		released, answered, late)
	if answered == 0 {
		t.Error("no status write of r1's was answered before it released a shard: the test proves nothing")
	}
}

// givenUpLine is the line of a status write the example gave up unanswered:
// namespace and name.
var givenUpLine = regexp.MustCompile(`status write of ([^/ ]+)/(\S+) given up after \S+, unanswered`)
