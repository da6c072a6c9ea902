package projectiontest

import (
	"math/rand"

	"google.golang.org/protobuf/encoding/protowire"
)

// ProtobufVariants returns messages made from the protobuf message b, each
// changed in one way in b and in every length-delimited field that parses
// as a message: fields in another order, some repeated, some split in two,
// some emptied, unknown fields of every wire type added. Decoders that
// agree on b must agree on each: protobuf promises no order, merges a
// message given twice and ignores what it does not know. (A string that
// happens to parse as a message is changed too; both decoders see the
// same bytes.)
func ProtobufVariants(b []byte, rnd *rand.Rand) [][]byte {
	changes := []func([]pbField) []pbField{
		func(fs []pbField) []pbField { // reordered
			rnd.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
			return fs
		},
		func(fs []pbField) []pbField { // unknown fields added
			for range 1 + rnd.Intn(3) {
				i := rnd.Intn(len(fs) + 1)
				fs = append(fs[:i], append([]pbField{unknownField(rnd)}, fs[i:]...)...)
			}
			return fs
		},
		func(fs []pbField) []pbField { // a field repeated
			return append(fs, fs[rnd.Intn(len(fs))])
		},
		func(fs []pbField) []pbField { // a message split in two
			i := rnd.Intn(len(fs))
			inner, ok := parseMessage(fs[i].val)
			if fs[i].typ != protowire.BytesType || !ok || len(inner) < 2 {
				return fs
			}
			cut := 1 + rnd.Intn(len(inner)-1)
			a, c := bytesField(fs[i].num, encodeFields(inner[:cut])), bytesField(fs[i].num, encodeFields(inner[cut:]))
			return append(fs[:i], append([]pbField{a, c}, fs[i+1:]...)...)
		},
		func(fs []pbField) []pbField { // a length-delimited field emptied
			i := rnd.Intn(len(fs))
			if fs[i].typ == protowire.BytesType {
				fs[i] = bytesField(fs[i].num, nil)
			}
			return fs
		},
	}
	var out [][]byte
	for _, change := range changes {
		out = append(out, rewrite(b, 0, change))
	}
	return out
}

// pbField is one field of a message: its tag, its whole encoding, and the
// value of a length-delimited one.
type pbField struct {
	num protowire.Number
	typ protowire.Type
	raw []byte
	val []byte
}

// parseMessage splits b into fields; ok is false when b is not a message.
func parseMessage(b []byte) (fs []pbField, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, false
		}
		f := pbField{num: num, typ: typ, raw: b[:n+m]}
		if typ == protowire.BytesType {
			f.val, _ = protowire.ConsumeBytes(b[n:])
		}
		fs, b = append(fs, f), b[n+m:]
	}
	return fs, true
}

func encodeFields(fs []pbField) []byte {
	var out []byte
	for _, f := range fs {
		out = append(out, f.raw...)
	}
	return out
}

func bytesField(num protowire.Number, v []byte) pbField {
	raw := protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
	return pbField{num: num, typ: protowire.BytesType, raw: raw, val: v}
}

// unknownField returns a field of a number no API type uses, of a random wire type.
func unknownField(rnd *rand.Rand) pbField {
	num := protowire.Number(5000 + rnd.Intn(1000))
	var raw []byte
	switch rnd.Intn(5) {
	case 0:
		raw = protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), rnd.Uint64())
	case 1:
		raw = protowire.AppendFixed32(protowire.AppendTag(nil, num, protowire.Fixed32Type), rnd.Uint32())
	case 2:
		raw = protowire.AppendFixed64(protowire.AppendTag(nil, num, protowire.Fixed64Type), rnd.Uint64())
	case 3:
		return bytesField(num, []byte("\x08\x01unknown"))
	default:
		raw = protowire.AppendTag(nil, num, protowire.StartGroupType)
		raw = protowire.AppendVarint(protowire.AppendTag(raw, 1, protowire.VarintType), 1)
		raw = protowire.AppendTag(raw, num, protowire.EndGroupType)
	}
	typ := protowire.Type(raw[0] & 7)
	return pbField{num: num, typ: typ, raw: raw}
}

// rewrite applies change to the message b and to every length-delimited
// field in it that parses as a message, innermost first.
func rewrite(b []byte, depth int, change func([]pbField) []pbField) []byte {
	fs, ok := parseMessage(b)
	if !ok || len(fs) == 0 || depth > 12 {
		return b
	}
	for i, f := range fs {
		if f.typ == protowire.BytesType {
			fs[i] = bytesField(f.num, rewrite(f.val, depth+1, change))
		}
	}
	return encodeFields(change(fs))
}
