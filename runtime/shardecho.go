package runtime

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
)

// A LIST answer's metadata.shardInfo.selector names the shard the server
// kept it to (kube-apiserver echoes the selector it parsed). It is compared
// with the selector the request carried, both read as shard ranges (so
// that spellings of one selector compare equal: spacing, quotes, the order
// of the ranges, ranges split or joined). An answer for another shard (a
// proxy that rewrites the parameter, a server that mixes up requests)
// holds objects that are not the shard's and lacks some that are: it is
// not served. The Syncer reports it (KindShardMismatch), stops asking for
// the shard and keeps to it itself, as for a server that ignores the
// selector: every object comes and the others are dropped on arrival. A
// LIST in progress is read again from its start. An echo where none was
// asked for is the same fault, with nothing left to ask differently: the
// request fails, and is retried. A WatchList tells nothing of the shard,
// nor do the pages of a metadata-only LIST from kube-apiserver (it drops
// shardInfo converting a list to PartialObjectMetadataList): both are
// preceded by a LIST of one item of the full type (source.count).

// errShardMismatch is an answer for another shard than the one asked for.
type errShardMismatch struct {
	asked, echoed string
}

func (e *errShardMismatch) Error() string {
	if e.asked == "" {
		return fmt.Sprintf("the server answered a LIST for shard %q, though no shard was asked for", e.echoed)
	}
	return fmt.Sprintf("the server answered a LIST for shard %q, not for the shard asked for, %q", e.echoed, e.asked)
}

// askedShard tells whether err is an answer for another shard than the one
// the request asked for: asking again, for every object, gives the
// selection.
func askedShard(err error) bool {
	var m *errShardMismatch
	return errors.As(err, &m) && m.asked != ""
}

// shardInfo returns the shardInfo of a LIST answer's metadata, nil if none.
func shardInfo(l metav1.ListInterface) *metav1.ShardInfo {
	if sl, ok := l.(metav1.ShardedListInterface); ok {
		return sl.GetShardInfo()
	}
	return nil
}

// noteShard notes from a LIST answer's metadata.shardInfo, for a request
// that carried the shard selector asked ("" for none), who keeps the
// Syncer to its shard; an answer for another shard is an
// *errShardMismatch. The first such answer to a request that asked for the
// shard is reported, and the requests that follow carry no shard selector.
func (s *source[T]) noteShard(asked string, info *metav1.ShardInfo) error {
	echoed := ""
	if info != nil {
		echoed = info.Selector
	}
	switch {
	case echoed == "":
		if s.setShardMode(ShardFiltered) {
			s.cfg.logger.Info("the server ignores the shard selector (feature gate ShardedListAndWatch off, a server older than 1.36, or a proxy that drops it); the syncer keeps to its shard itself",
				"resource", s.res.String(), "shard", s.cfg.shard.String())
		}
		return nil
	case asked != "" && sameShard(asked, echoed):
		if s.setShardMode(ShardServed) {
			s.cfg.logger.Info("the server keeps the syncer to its shard", "resource", s.res.String(), "shard", asked)
		}
		return nil
	}
	err := &errShardMismatch{asked: asked, echoed: echoed}
	if asked != "" && s.shardOff.CompareAndSwap(false, true) {
		s.setShardMode(ShardFiltered)
		s.cfg.logger.Info("the server answered for another shard than the one asked for; the syncer asks for every object and keeps to its shard itself",
			"resource", s.res.String(), "shard", asked, "answered", echoed)
		s.report(&SyncError{Kind: KindShardMismatch, Resource: s.res.String(), Op: "list", Err: err})
	}
	return err
}

// setShardMode records who keeps a sharded Syncer to its shard, and tells
// whether that changed: the first answer, and a change, is counted and
// remembered for the Syncers of the same server and resource made later.
func (s *source[T]) setShardMode(mode ShardMode) (changed bool) {
	if s.cfg.shard == nil || ShardMode(s.shardMode.Swap(int32(mode))) == mode {
		return false
	}
	shardModes.Store(s.key, mode)
	s.cfg.metrics.ShardModeChanged(mode)
	return true
}

// sameShard tells whether two shard selectors select the same objects as
// written: the same field, and the same union of hash ranges. A selector
// that cannot be read selects nothing known.
func sameShard(a, b string) bool {
	na, err := normalShard(a)
	if err != nil {
		return false
	}
	nb, err := normalShard(b)
	return err == nil && na == nb
}

// normalShard reads a shard selector in the server's syntax,
//
//	shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(...)
//
// (parentheses, spacing and either quote allowed, as CEL does; the parser
// is k8s.io/apiserver's, which brings CEL, too heavy an import for the
// runtime), and returns one spelling of it: its field, then its ranges
// sorted, those that overlap or touch joined, each bound 17 hex digits.
func normalShard(sel string) (string, error) {
	p := &shardParser{in: sel}
	reqs, err := p.union()
	if err == nil && p.next() != "" {
		err = p.unexpected("the end")
	}
	if err != nil {
		return "", fmt.Errorf("shard selector %q: %w", sel, err)
	}
	for i := range reqs {
		r := &reqs[i]
		if r.Key != reqs[0].Key {
			return "", fmt.Errorf("shard selector %q: fields %q and %q; want one", sel, reqs[0].Key, r.Key)
		}
		if r.Start, err = hex17(r.Start); err == nil {
			r.End, err = hex17(r.End)
		}
		if err == nil && r.Start >= r.End {
			err = errors.New("an empty range")
		}
		if err != nil {
			return "", fmt.Errorf("shard selector %q: %w", sel, err)
		}
	}
	slices.SortFunc(reqs, func(x, y sharding.ShardRangeRequirement) int { return strings.Compare(x.Start, y.Start) })
	var joined []sharding.ShardRangeRequirement
	for _, r := range reqs {
		if n := len(joined); n > 0 && r.Start <= joined[n-1].End {
			joined[n-1].End = max(joined[n-1].End, r.End)
			continue
		}
		joined = append(joined, r)
	}
	var b strings.Builder
	b.WriteString(reqs[0].Key)
	for _, r := range joined {
		b.WriteString(" " + r.Start + "-" + r.End)
	}
	return b.String(), nil
}

// hex17 returns a 0x-prefixed hex bound as 17 lowercase digits, so that
// bounds compare as strings; 2^64 is the largest.
func hex17(h string) (string, error) {
	d, ok := strings.CutPrefix(h, "0x")
	if !ok || d == "" || len(d) > 17 || strings.Trim(d, "0123456789abcdef") != "" {
		return "", fmt.Errorf("bound %q: want 0x and at most 17 lowercase hex digits", h)
	}
	d = strings.Repeat("0", 17-len(d)) + d
	if d > "10000000000000000" {
		return "", fmt.Errorf("bound %q: over 2^64", h)
	}
	return d, nil
}

// shardParser reads the shard selector syntax: a union (||) of
// shardRange(field path, 'start', 'end') calls, in parentheses or not.
type shardParser struct {
	in  string
	pos int
}

// next returns the next token without taking it: an identifier, a quoted
// string, "||", "" at the end, or else one byte.
func (p *shardParser) next() string {
	for p.pos < len(p.in) && strings.IndexByte(" \t\r\n", p.in[p.pos]) >= 0 {
		p.pos++
	}
	rest := p.in[p.pos:]
	switch {
	case rest == "":
		return ""
	case strings.HasPrefix(rest, "||"):
		return "||"
	case rest[0] == '\'' || rest[0] == '"':
		if end := strings.IndexByte(rest[1:], rest[0]); end >= 0 {
			return rest[:end+2]
		}
	case identByte(rest[0], true):
		n := 1
		for n < len(rest) && identByte(rest[n], false) {
			n++
		}
		return rest[:n]
	}
	return rest[:1]
}

func identByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

// expect takes the tokens want, in order.
func (p *shardParser) expect(want ...string) error {
	for _, w := range want {
		if p.next() != w {
			return p.unexpected(fmt.Sprintf("%q", w))
		}
		p.pos += len(w)
	}
	return nil
}

func (p *shardParser) unexpected(want string) error {
	return fmt.Errorf("at %d: want %s, found %q", p.pos, want, p.next())
}

// union reads term || term ...
func (p *shardParser) union() ([]sharding.ShardRangeRequirement, error) {
	var reqs []sharding.ShardRangeRequirement
	for {
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r...)
		if p.next() != "||" {
			return reqs, nil
		}
		p.pos += len("||")
	}
}

// term reads (union) or shardRange(field path, 'start', 'end').
func (p *shardParser) term() ([]sharding.ShardRangeRequirement, error) {
	if p.next() == "(" {
		p.pos++
		reqs, err := p.union()
		if err == nil {
			err = p.expect(")")
		}
		return reqs, err
	}
	if err := p.expect("shardRange", "("); err != nil {
		return nil, err
	}
	var path []string
	for {
		t := p.next()
		if t == "" || !identByte(t[0], true) {
			return nil, p.unexpected("a field name")
		}
		p.pos += len(t)
		path = append(path, t)
		if p.next() != "." {
			break
		}
		p.pos++
	}
	var bounds [2]string
	for i := range bounds {
		if err := p.expect(","); err != nil {
			return nil, err
		}
		t := p.next()
		if len(t) < 2 || t[0] != '\'' && t[0] != '"' {
			return nil, p.unexpected("a quoted bound")
		}
		p.pos += len(t)
		bounds[i] = t[1 : len(t)-1]
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return []sharding.ShardRangeRequirement{{Key: strings.Join(path, "."), Start: bounds[0], End: bounds[1]}}, nil
}
