package driver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// ProtobufStream is the media type of a protobuf watch stream.
const ProtobufStream = "application/vnd.kubernetes.protobuf;stream=watch"

// CountingDial is a rest.Config Dial that adds every byte read from the
// sockets it opens to n: what the server sent, as it came on the wire.
func CountingDial(n *atomic.Int64) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, n: n}, nil
	}
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(b []byte) (int, error) {
	k, err := c.Conn.Read(b)
	c.n.Add(int64(k))
	return k, err
}

// Digest sums up a store's "namespace/name resourceVersion" lines, in any
// order, as "<count>:<hash>".
func Digest(keys []string) string {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\n")))
	return fmt.Sprintf("%d:%s", len(keys), hex.EncodeToString(sum[:8]))
}
