package projection

import kjson "sigs.k8s.io/json"

// FullProtobuf decodes the protobuf message b with the upstream type's own
// Unmarshal and projects the result with from: what a projected decoder
// does with a message it does not understand. Its error is the full
// decoder's.
func FullProtobuf[U any, PU interface {
	*U
	Unmarshal([]byte) error
}, P any](b []byte, from func(PU) *P) (*P, error) {
	full := PU(new(U))
	if err := full.Unmarshal(b); err != nil {
		return nil, err
	}
	return from(full), nil
}

// FullJSON decodes the JSON b into the upstream type as apimachinery's
// JSON serializer does (sigs.k8s.io/json, case-sensitive, integers kept
// as int64 in untyped values) and projects the result with from: what a
// projected decoder does with JSON it does not understand. Its error is the
// full decoder's.
func FullJSON[U any, P any](b []byte, from func(*U) *P) (*P, error) {
	full := new(U)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, full); err != nil {
		return nil, err
	}
	return from(full), nil
}
