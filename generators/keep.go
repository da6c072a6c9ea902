package generators

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// metav1Pkg is the package of TypeMeta, ObjectMeta and ListMeta.
const metav1Pkg = "k8s.io/apimachinery/pkg/apis/meta/v1"

// alwaysKept are the metadata fields a projection keeps without being
// asked: what a syncer's store and its deletions need.
var alwaysKept = []string{"Name", "Namespace", "UID", "ResourceVersion", "DeletionTimestamp"}

// resolveProjection walks the keep markers' paths through t, the API
// type of r, and returns the projection they make. Every path is checked
// before any is kept: errors are returned all at once, and no projection.
// The list type is looked up in apiScope, the API package's scope.
func resolveProjection(r *Resource, keeps []marker, t types.Type, apiScope *types.Scope) (*Projection, ErrorList) {
	root, ok := types.Unalias(t).(*types.Named)
	if !ok || root.TypeArgs().Len() > 0 {
		return nil, ErrorList{errorf(keeps[0].pos, ErrorTypeNotSupported, keeps[0].name(), "%s is not a named struct type", t)}
	}
	pb := &projBuilder{name: r.Name, kind: r.Kind, structs: map[*types.TypeName]*pstruct{}}
	rs := pb.pstruct(root)
	if rs.st == nil {
		return nil, ErrorList{errorf(keeps[0].pos, ErrorTypeNotSupported, keeps[0].name(), "%s is not a struct type", typeName(root))}
	}
	meta, typeMeta := pb.metaFields(rs)
	if meta < 0 {
		return nil, ErrorList{errorf(keeps[0].pos, ErrorTypeNotSupported, keeps[0].name(),
			"%s has no metav1.ObjectMeta as its metadata: a projection keeps it", typeName(root))}
	}
	var accepted []keptPath
	for _, m := range keeps {
		kp, err := pb.walk(rs, m)
		if err == nil {
			err = cmp.Or(kp.coveredBy(accepted), kp.whole)
		}
		if err != nil {
			pb.errs = append(pb.errs, err)
			continue
		}
		accepted = append(accepted, kp)
	}
	if len(pb.errs) > 0 {
		return nil, pb.errs
	}
	for _, kp := range accepted {
		kp.apply(pb)
	}
	ms := pb.pstruct(rs.fieldType(meta).(*types.Named))
	ms.meta = true
	rs.field(meta).child = ms
	for _, name := range alwaysKept {
		if i := fieldIndex(ms.st, name); i >= 0 {
			ms.field(i).whole = true
		}
	}
	if typeMeta >= 0 {
		ts := pb.pstruct(rs.fieldType(typeMeta).(*types.Named))
		ts.meta = true
		rs.field(typeMeta).child = ts
		for i := range ts.st.NumFields() {
			ts.field(i).whole = true
		}
	}
	p := &Projection{Name: r.Name, Pos: keeps[0].pos}
	for _, m := range keeps {
		p.Keeps = append(p.Keeps, m.value)
	}
	if err := pb.build(p, rs, keeps[0]); err != nil {
		return nil, ErrorList{err}
	}
	if apiScope == nil {
		apiScope = root.Obj().Pkg().Scope()
	}
	if err := pb.list(p, apiScope, r.ListKind, root, keeps[0]); err != nil {
		return nil, ErrorList{err}
	}
	p.Protobuf = hasMethod(root, "Unmarshal") && protobufCapable(p) && !pb.flat
	p.MetadataOnly = metadataOnly(p)
	return p, nil
}

// metadataOnly tells whether p keeps nothing but metadata: its root holds
// only metav1.TypeMeta and metav1.ObjectMeta, the latter as field 1 in
// protobuf where it is read from protobuf, as in PartialObjectMetadata.
func metadataOnly(p *Projection) bool {
	for _, f := range p.Root.Fields {
		meta := f.Type.Kind == TypeStruct && !f.Type.Struct.Generated || // kept in part
			f.Type.Kind == TypeUpstream && f.Type.Pkg == metav1Pkg && (f.Type.Name == "ObjectMeta" || f.Type.Name == "TypeMeta") // whole
		if !meta {
			return false
		}
		if p.Protobuf && f.Proto != nil && f.Proto.Number != 1 {
			return false
		}
	}
	return true
}

// projBuilder collects the kept fields of each upstream struct type.
type projBuilder struct {
	name, kind string
	structs    map[*types.TypeName]*pstruct
	order      []*pstruct
	errs       ErrorList
	// flat is set when a kept field is of an unexported embedded struct,
	// kept flat: its protobuf field number is the embedded message's, so
	// the projection reads JSON only.
	flat bool
}

// pstruct is an upstream struct type and the fields kept of it, on every
// path that reaches it: a struct type met on several paths is generated
// once, with the fields all of them keep.
type pstruct struct {
	named  *types.Named
	st     *types.Struct
	meta   bool // metav1.ObjectMeta or TypeMeta: kept as the upstream type
	fields map[string]*pfield
	out    *Struct
}

// pfield is a kept field: whole (its upstream type), or a struct of which
// child keeps some fields. Whole wins where one path keeps a field whole
// and another only part of it.
type pfield struct {
	// chain are the field indexes from the struct: one, or more for a
	// field of unexported embedded structs, which is kept flat.
	chain []int
	whole bool
	child *pstruct
	built *Field
}

func (pb *projBuilder) pstruct(n *types.Named) *pstruct {
	if ps, ok := pb.structs[n.Obj()]; ok {
		return ps
	}
	ps := &pstruct{named: n, fields: map[string]*pfield{}}
	ps.st, _ = n.Underlying().(*types.Struct)
	pb.structs[n.Obj()] = ps
	pb.order = append(pb.order, ps)
	return ps
}

// field returns the kept field at chain, made if need be.
func (ps *pstruct) field(chain ...int) *pfield {
	k := fmt.Sprint(chain)
	f, ok := ps.fields[k]
	if !ok {
		f = &pfield{chain: slices.Clone(chain)}
		ps.fields[k] = f
	}
	return f
}

// kept returns the kept fields in the upstream struct's order.
func (ps *pstruct) kept() []*pfield {
	out := slices.Collect(maps.Values(ps.fields))
	slices.SortFunc(out, func(x, y *pfield) int { return slices.Compare(x.chain, y.chain) })
	return out
}

func (ps *pstruct) fieldType(i int) types.Type { return types.Unalias(ps.st.Field(i).Type()) }

// metaFields returns the indexes of the root's embedded metav1.ObjectMeta
// (serialised as "metadata") and metav1.TypeMeta, -1 for one it lacks.
func (pb *projBuilder) metaFields(rs *pstruct) (meta, typeMeta int) {
	meta, typeMeta = -1, -1
	for i := range rs.st.NumFields() {
		f := rs.st.Field(i)
		switch {
		case isMetav1(f.Type(), "ObjectMeta") && jsonName(f, rs.st.Tag(i)) == "metadata":
			meta = i
		case isMetav1(f.Type(), "TypeMeta") && f.Embedded():
			typeMeta = i
		}
	}
	return meta, typeMeta
}

func isMetav1(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == metav1Pkg && n.Obj().Name() == name
}

// keptPath is one keep marker's path, walked through the types: the
// fields it goes through, as (struct, field index) steps.
type keptPath struct {
	m     marker
	steps []keptStep
	ids   []string // the upstream Go names along the path, to compare paths
	whole *Error   // why the field at its end cannot be kept whole, reported after a path that repeats another
}

// keptStep keeps the field of ps at chain: whole when child is nil, else
// the fields of child that the rest of the path keeps.
type keptStep struct {
	ps    *pstruct
	chain []int
	child *types.Named
}

func (kp keptPath) apply(pb *projBuilder) {
	for _, s := range kp.steps {
		f := s.ps.field(s.chain...)
		if s.child == nil {
			f.whole = true
			continue
		}
		f.child = pb.pstruct(s.child)
	}
}

// coveredBy reports a path that repeats an earlier one, or lies inside
// one (.status.phase and .status), or contains one.
func (kp keptPath) coveredBy(earlier []keptPath) *Error {
	for _, e := range earlier {
		n := min(len(e.ids), len(kp.ids))
		if !slices.Equal(e.ids[:n], kp.ids[:n]) {
			continue
		}
		how := "repeats"
		switch {
		case len(e.ids) < len(kp.ids):
			how = "is inside"
		case len(e.ids) > len(kp.ids):
			how = "contains"
		}
		return errorf(kp.m.valuePos, ErrorTypeDuplicate, kp.m.name(), "%s %s %s, kept at %s; keep each field once", kp.m.value, how, e.m.value, e.m.pos)
	}
	return nil
}

// walk resolves the path of m from rs, the API type's struct.
func (pb *projBuilder) walk(rs *pstruct, m marker) (keptPath, *Error) {
	kp := keptPath{m: m}
	segs, off, err := parseFieldPath(m.value)
	if err != nil {
		return kp, errorf(at(m.valuePos, off), ErrorTypeInvalid, m.name(), "%v", err)
	}
	fail := func(i int, typ ErrorType, format string, args ...any) (keptPath, *Error) {
		return kp, errorf(at(m.valuePos, segs[i].offset), typ, m.name(), "%s: %s", pathUpTo(segs, i+1), fmt.Sprintf(format, args...))
	}
	cur := rs
	for i, seg := range segs {
		last := i == len(segs)-1
		jf, found := jsonFieldByName(cur.st, seg.name)
		if !found {
			return fail(i, ErrorTypeNotFound, "no field %q in %s; %s", seg.name, typeName(cur.named), notFound(cur.st, seg.name))
		}
		if seg.filter != nil {
			return kp, errorf(at(m.valuePos, seg.offset+1+len(seg.name)), ErrorTypeNotSupported, m.name(),
				"%s: a projection keeps every element of a list, and cannot filter them: write %s (an index may filter: +%s:%s=%s)",
				pathUpTo(segs, i+1), eachPath(segs), markerName, keyIndex, m.value)
		}
		// The embedded structs on the way, whose fields JSON inlines: an
		// exported one is kept as a generated struct, embedded; the fields
		// of an unexported one, which generated code cannot name, are kept
		// flat, selected by Go's promotion.
		var pending []int
		for _, ref := range jf.chain[:len(jf.chain)-1] {
			pending = append(pending, ref)
			ef, _ := fieldAt(cur.st, pending)
			n, ok := types.Unalias(ef.Type()).(*types.Named)
			switch {
			case !ok:
				return fail(i, ErrorTypeNotSupported, "reached through the embedded pointer %s, which a projection does not support", typeName(ef.Type()))
			case !ef.Exported():
				continue
			}
			if err := pb.promoted(cur, pending); err != nil {
				return fail(i, ErrorTypeNotSupported, "%v", err)
			}
			kp.steps = append(kp.steps, keptStep{ps: cur, chain: pending, child: n})
			kp.ids = append(kp.ids, ef.Name())
			cur, pending = pb.pstruct(n), nil
		}
		chain := append(pending, jf.chain[len(jf.chain)-1])
		f, _ := fieldAt(cur.st, chain)
		if !f.Exported() {
			return fail(i, ErrorTypeNotSupported, "the unexported embedded field %s, which generated code cannot name: keep what holds it whole", f.Name())
		}
		if err := pb.promoted(cur, chain); err != nil {
			return fail(i, ErrorTypeNotSupported, "%v", err)
		}
		kp.ids = append(kp.ids, f.Name())
		if cur == rs && isMetav1(f.Type(), "ObjectMeta") && i+2 < len(segs) {
			return fail(i+2, ErrorTypeNotSupported, "metadata keeps its fields whole (it stays a metav1.ObjectMeta): write .metadata.%s", segs[i+1].name)
		}
		ft := types.Unalias(f.Type())
		if seg.hasKey {
			return fail(i, ErrorTypeNotSupported, "[%s] selects one key of a map; a projection keeps a map whole: write %s", seg.key, pathUpTo(segs[:i], i)+"."+seg.name)
		}
		if seg.each {
			sl, ok := derefAll(ft).Underlying().(*types.Slice)
			if !ok {
				return fail(i, ErrorTypeInvalid, "[*] needs a list, and %s is a %s", seg.name, typeName(ft))
			}
			ft = types.Unalias(sl.Elem())
		}
		if last {
			if _, err := upstreamType(f.Type(), 0); err != nil {
				_, kp.whole = fail(i, ErrorTypeNotSupported, "%v", err)
			}
			kp.steps = append(kp.steps, keptStep{ps: cur, chain: chain})
			return kp, nil
		}
		inner := derefAll(ft)
		switch inner.Underlying().(type) {
		case *types.Slice:
			if seg.each {
				return fail(i, ErrorTypeNotSupported, "%s is a list of lists, which a projection keeps whole: write %s", seg.name, pathUpTo(segs, i+1))
			}
			return fail(i, ErrorTypeInvalid, "%s is a list: write %s[*] to keep fields of its elements", seg.name, pathUpTo(segs, i+1))
		case *types.Map:
			return fail(i, ErrorTypeNotSupported, "%s is a map, which a projection keeps whole: write %s", seg.name, pathUpTo(segs, i+1))
		case *types.Interface:
			return fail(i, ErrorTypeNotSupported, "%s is an interface, whose fields are not known: keep %s whole", seg.name, pathUpTo(segs, i+1))
		case *types.Struct:
			n, named := inner.(*types.Named)
			switch {
			case !named:
				return fail(i, ErrorTypeNotSupported, "%s is an anonymous struct, which a projection keeps whole: write %s", seg.name, pathUpTo(segs, i+1))
			case ownJSON(n):
				return fail(i, ErrorTypeNotSupported, "%s decodes its JSON its own way, so its fields cannot be picked: keep %s whole", typeName(n), pathUpTo(segs, i+1))
			case !n.Obj().Exported() || n.TypeArgs().Len() > 0:
				return fail(i, ErrorTypeNotSupported, "%s is a %s, which generated code cannot name: a projection cannot keep fields of it; keep %s, which holds it, whole",
					seg.name, typeName(n), cmp.Or(pathUpTo(segs, i), "the object"))
			}
			kp.steps = append(kp.steps, keptStep{ps: cur, chain: chain, child: n})
			cur = pb.pstruct(n)
		default:
			return fail(i, ErrorTypeNotFound, "%s has no fields; only the last field of a path may be a %s", typeName(inner), typeName(inner))
		}
	}
	return kp, nil
}

// promoted checks that generated code can select the field of ps at
// chain: one of ps's own, or one of unexported embedded structs, flat,
// that Go promotes by its name. A field kept flat makes the projection
// read JSON only (pb.flat).
func (pb *projBuilder) promoted(ps *pstruct, chain []int) error {
	if len(chain) == 1 {
		return nil
	}
	pb.flat = true
	return promoted(ps.named, ps.st, chain)
}

// eachPath returns the path of segs with every filter written [*].
func eachPath(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString("." + s.name)
		switch {
		case s.filter != nil, s.each:
			b.WriteString("[*]")
		case s.hasKey:
			b.WriteString("[" + s.key + "]")
		}
	}
	return b.String()
}

// derefAll goes through pointers.
func derefAll(t types.Type) types.Type {
	for {
		p, ok := types.Unalias(t).Underlying().(*types.Pointer)
		if !ok {
			return types.Unalias(t)
		}
		t = p.Elem()
	}
}

func fieldIndex(st *types.Struct, goName string) int {
	for i := range st.NumFields() {
		if st.Field(i).Name() == goName {
			return i
		}
	}
	return -1
}

// build makes the Structs of p from the kept fields reachable from rs.
func (pb *projBuilder) build(p *Projection, rs *pstruct, m marker) *Error {
	var reached []*pstruct
	var reach func(ps *pstruct)
	reach = func(ps *pstruct) {
		if ps.out != nil {
			return
		}
		ps.out = &Struct{Upstream: typeNameOf(ps.named), Generated: !ps.meta}
		reached = append(reached, ps)
		for _, f := range ps.kept() {
			if !f.whole && f.child != nil {
				reach(f.child)
			}
		}
	}
	reach(rs)
	pb.nameStructs(reached)
	for _, ps := range reached {
		for _, pf := range ps.kept() {
			f, err := pb.field(ps, pf, m)
			if err != nil {
				return err
			}
			ps.out.Fields = append(ps.out.Fields, f)
			pf.built = f
		}
	}
	for _, ps := range reached {
		ps.out.JSON = jsonMembers(ps, ps, nil, nil)
	}
	p.Root = rs.out
	slices.SortStableFunc(reached[1:], func(x, y *pstruct) int {
		return cmp.Or(cmp.Compare(boolInt(x.meta), boolInt(y.meta)), cmp.Compare(x.out.Name, y.out.Name))
	})
	for _, ps := range reached {
		p.Structs = append(p.Structs, ps.out)
	}
	return nil
}

// jsonMembers returns the members of top's JSON object kept in cur, a
// struct inlined in top at the fields path (chain in indexes), or top
// itself: each named field, and the members of the embedded structs it
// inlines. A member that encoding/json gives to another field of top (one
// not kept, shallower) is not top's to read.
func jsonMembers(top, cur *pstruct, path []*Field, chain []int) []*JSONMember {
	var out []*JSONMember
	for _, pf := range cur.kept() {
		f := pf.built
		p, c := append(slices.Clip(path), f), append(slices.Clip(chain), pf.chain...)
		switch {
		case f.JSONName != "":
			if got, ok := jsonFieldByName(top.st, f.JSONName); ok && slices.Equal(got.chain, c) {
				out = append(out, &JSONMember{Name: f.JSONName, Path: p})
			}
		case f.Embedded && pf.child != nil && !pf.whole:
			out = append(out, jsonMembers(top, pf.child, p, c)...)
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nameStructs names the structs of reached, the root first: the
// projection's name for the root; for the others, the projection's name
// and the upstream struct's without the kind in front (PodSpec ->
// NodePodSpec, Container -> NodePodContainer). Two upstream structs never
// get one name, nor a struct a name the syncer's code declares
// (NodePodList) or a kept field's (an embedded struct's field is named
// after its type): where that short name is taken, or wanted by another
// struct, the struct whose own name it is (SecurityContext over
// PodSecurityContext) keeps it, and the others take the projection's name
// and their upstream name whole (NodePodPodSecurityContext), then
// qualified by their package's path from its last element up
// (NodePodV1Foo, NodePodApiV1Foo...). Names depend only on the set of
// structs kept, not on the order of the keep markers.
func (pb *projBuilder) nameStructs(reached []*pstruct) {
	taken := map[string]bool{}
	for _, n := range syncerNames(pb.name) {
		taken[n] = true
	}
	taken[pb.name+"List"], taken[pb.name+"From"] = true, true
	for _, ps := range reached {
		for _, pf := range ps.fields {
			f, _ := fieldAt(ps.st, pf.chain)
			taken[f.Name()] = true
		}
	}
	reached[0].out.Name = pb.name
	taken[pb.name] = true
	rest := slices.Clone(reached[1:])
	slices.SortFunc(rest, func(x, y *pstruct) int {
		return cmp.Or(cmp.Compare(x.named.Obj().Name(), y.named.Obj().Name()), cmp.Compare(x.named.Obj().Pkg().Path(), y.named.Obj().Pkg().Path()))
	})
	short := func(ps *pstruct) string {
		n := ps.named.Obj().Name()
		if rest, ok := strings.CutPrefix(n, pb.kind); ok && rest != "" {
			n = rest
		}
		return pb.name + n
	}
	wanted := map[string]int{}
	for _, ps := range rest {
		wanted[short(ps)]++
	}
	var later []*pstruct
	for _, ps := range rest {
		if n := short(ps); wanted[n] == 1 && !taken[n] {
			ps.out.Name, taken[n] = n, true
		} else {
			later = append(later, ps)
		}
	}
	for _, ps := range later {
		name := ps.named.Obj().Name()
		candidates := []string{pb.name + name}
		elems := strings.Split(ps.named.Obj().Pkg().Path(), "/")
		qual := ""
		for i := len(elems) - 1; i >= 0; i-- {
			qual = upperFirst(keepAlnum(elems[i])) + qual
			candidates = append(candidates, pb.name+qual+name)
		}
		for i := 0; ; i++ {
			c := fmt.Sprintf("%s%s%d", pb.name, name, i-len(candidates)+2)
			if i < len(candidates) {
				c = candidates[i]
			}
			if !taken[c] {
				ps.out.Name, taken[c] = c, true
				break
			}
		}
	}
}

func typeNameOf(n *types.Named) TypeName {
	return TypeName{Pkg: n.Obj().Pkg().Path(), Name: n.Obj().Name()}
}

// field returns the kept field pf of ps.
func (pb *projBuilder) field(ps *pstruct, pf *pfield, m marker) (*Field, *Error) {
	v, tag := fieldAt(ps.st, pf.chain)
	f := &Field{GoName: v.Name(), UpstreamName: v.Name(), Embedded: v.Embedded(), Tag: tag, JSONName: jsonName(v, tag)}
	f.JSONQuoted = slices.Contains(strings.Split(reflect.StructTag(tag).Get("json"), ",")[1:], "string")
	if len(pf.chain) == 1 { // a field kept flat has its embedded message's number
		f.Proto = protoTag(tag)
	}
	var err error
	if pf.whole || pf.child == nil {
		f.Type, err = upstreamType(v.Type(), 0)
	} else {
		f.Type, err = projectedType(v.Type(), pf.child)
		if f.Embedded && pf.child.out.Generated {
			f.GoName = pf.child.out.Name
		}
	}
	if err != nil {
		return nil, errorf(m.pos, ErrorTypeNotSupported, m.name(), "%s.%s: %v", typeName(ps.named), v.Name(), err)
	}
	return f, nil
}

// projectedType returns t, the type of a field kept in part, with the
// struct of child in place of its upstream struct: through pointers and
// slices, named slices losing their name.
func projectedType(t types.Type, child *pstruct) (*Type, error) {
	t = types.Unalias(t)
	if n, ok := t.(*types.Named); ok && n.Obj() == child.named.Obj() {
		return &Type{Kind: TypeStruct, Struct: child.out}, nil
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		e, err := projectedType(u.Elem(), child)
		return &Type{Kind: TypePointer, Elem: e}, err
	case *types.Slice:
		e, err := projectedType(u.Elem(), child)
		return &Type{Kind: TypeSlice, Elem: e}, err
	}
	return nil, fmt.Errorf("%s does not lead to %s", t, child.named)
}

// upstreamType describes t, kept as it is.
func upstreamType(t types.Type, depth int) (*Type, error) {
	if depth > maxTypeHops {
		return nil, fmt.Errorf("type %s nests too deep", t)
	}
	t = types.Unalias(t)
	switch u := t.(type) {
	case *types.Basic:
		return &Type{Kind: TypeUpstream, Name: u.Name(), Basic: u.Name(), Plain: true}, nil
	case *types.Named:
		if u.TypeArgs().Len() > 0 || u.Obj().Pkg() == nil {
			return nil, fmt.Errorf("type %s is not supported in a projection", u)
		}
		if !u.Obj().Exported() {
			return nil, fmt.Errorf("%s is unexported: generated code, in another package, cannot name it", typeName(u))
		}
		ty := &Type{Kind: TypeUpstream, Pkg: u.Obj().Pkg().Path(), Name: u.Obj().Name(),
			OwnJSON: ownJSON(u), Protobuf: hasMethod(u, "Unmarshal"), DeepCopy: hasMethod(u, "DeepCopyInto"), Plain: plain(u, 0)}
		switch under := u.Underlying().(type) {
		case *types.Basic:
			ty.Basic = under.Name()
		case *types.Slice, *types.Map, *types.Pointer:
			var err error
			if ty.Under, err = upstreamType(under, depth+1); err != nil {
				return nil, err
			}
		case *types.Struct:
			if !ty.DeepCopy && !ty.Plain {
				return nil, fmt.Errorf("%s has no DeepCopyInto: keep fields of it rather than all of it", typeName(u))
			}
		case *types.Interface:
		default:
			return nil, fmt.Errorf("type %s is not supported in a projection", u)
		}
		return ty, nil
	case *types.Pointer:
		e, err := upstreamType(u.Elem(), depth+1)
		return &Type{Kind: TypePointer, Elem: e}, err
	case *types.Slice:
		e, err := upstreamType(u.Elem(), depth+1)
		return &Type{Kind: TypeSlice, Elem: e}, err
	case *types.Map:
		k, err := upstreamType(u.Key(), depth+1)
		if err != nil {
			return nil, err
		}
		e, err := upstreamType(u.Elem(), depth+1)
		return &Type{Kind: TypeMap, Key: k, Elem: e}, err
	case *types.Interface:
		if u.Empty() {
			return &Type{Kind: TypeUpstream, Name: "any"}, nil
		}
	}
	return nil, fmt.Errorf("type %s is not supported in a projection", t)
}

// hasMethod tells whether *n has the method name.
func hasMethod(n *types.Named, name string) bool {
	ms := types.NewMethodSet(types.NewPointer(n))
	for i := range ms.Len() {
		if ms.At(i).Obj().Name() == name {
			return true
		}
	}
	return false
}

// ownJSON tells whether n decodes JSON its own way, as encoding/json
// sees it: UnmarshalJSON, or UnmarshalText, on *n.
func ownJSON(n *types.Named) bool {
	return hasMethod(n, "UnmarshalJSON") || hasMethod(n, "UnmarshalText")
}

// plain tells whether a value of t is copied whole by assignment.
func plain(t types.Type, depth int) bool {
	if depth > maxTypeHops {
		return false
	}
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		return true
	case *types.Array:
		return plain(u.Elem(), depth+1)
	case *types.Struct:
		for i := range u.NumFields() {
			if !plain(u.Field(i).Type(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// list fills in the projected list type from the upstream one, <Kind>List.
func (pb *projBuilder) list(p *Projection, scope *types.Scope, listKind string, root *types.Named, m marker) *Error {
	n, ok := scope.Lookup(listKind).(*types.TypeName)
	if !ok {
		return errorf(m.pos, ErrorTypeRequired, m.name(), "no type %s in the API package", listKind)
	}
	ln, _ := types.Unalias(n.Type()).(*types.Named)
	st, _ := ln.Underlying().(*types.Struct)
	if st == nil {
		return errorf(m.pos, ErrorTypeNotSupported, m.name(), "%s is not a struct", typeName(ln))
	}
	p.List = typeNameOf(ln)
	// The generated list reads and copies these members into the same
	// fields: kind and apiVersion into an inlined metav1.TypeMeta, a
	// metav1.ListMeta of its own name, and items, a list of the type.
	fields := jsonFields(st)
	field := func(name string) (*types.Var, string, bool) {
		f, ok := fields[name]
		if !ok || len(f.chain) > 2 || len(f.chain) == 2 && !isMetav1(st.Field(f.chain[0]).Type(), "TypeMeta") {
			return nil, "", false
		}
		v, tag := fieldAt(st, f.chain)
		return v, tag, true
	}
	_, _, kind := field("kind")
	_, _, apiVersion := field("apiVersion")
	for i := range st.NumFields() {
		if v, tag := st.Field(i), st.Tag(i); isMetav1(v.Type(), "ListMeta") && jsonName(v, tag) != "" {
			if lv, _, ok := field(jsonName(v, tag)); ok && lv == v {
				t, err := upstreamType(v.Type(), 0)
				if err != nil {
					return errorf(m.pos, ErrorTypeNotSupported, m.name(), "%v", err)
				}
				p.ListMeta = &Field{GoName: v.Name(), UpstreamName: v.Name(), Embedded: v.Embedded(), Tag: tag, JSONName: jsonName(v, tag), Proto: protoTag(tag), Type: t}
			}
		}
	}
	if v, tag, ok := field("items"); ok && !v.Embedded() {
		if sl, isSlice := types.Unalias(v.Type()).(*types.Slice); isSlice && types.Identical(sl.Elem(), root) {
			p.Items = &Field{GoName: v.Name(), UpstreamName: v.Name(), Tag: tag, JSONName: "items", Proto: protoTag(tag),
				Type: &Type{Kind: TypeSlice, Elem: &Type{Kind: TypeStruct, Struct: p.Root}}}
		}
	}
	if !kind || !apiVersion || p.ListMeta == nil || p.Items == nil {
		return errorf(m.pos, ErrorTypeNotSupported, m.name(), "%s is not a list as a projection reads it: an inlined metav1.TypeMeta, a metav1.ListMeta and items, a list of %s", typeName(ln), typeName(root))
	}
	if !hasMethod(ln, "Unmarshal") {
		p.ListMeta.Proto, p.Items.Proto = nil, nil
	}
	return nil
}

// indexSteps returns the steps of an index, walked through the upstream
// type, for the projected type, or an error when its path, or a field
// its filters compare, is not kept.
func (p *Projection) indexSteps(steps []Step, path string, pos token.Position, marker string) ([]Step, *Error) {
	out, _, missing := p.Root.project(steps)
	if missing < 0 {
		return out, nil
	}
	if s := steps[missing]; s.Kind == StepFilter {
		return nil, errorf(pos, ErrorTypeInvalid, marker, "%s filters on a field the projection %s does not keep: keep the fields its conditions compare too (%s)",
			path, p.Name, conditionPaths(path))
	}
	return nil, errorf(pos, ErrorTypeInvalid, marker, "%s is not kept by the projection %s: add +syncer-gen:keep=%s (or a path that holds it)", path, p.Name, path)
}

// project returns steps, walked through upstream structs from the one s
// projects, with the names of the projected structs' fields, and the
// generated struct they end in (nil within a field kept whole); missing
// is the index of the first step that reads a field not kept, -1 if none.
func (s *Struct) project(steps []Step) (out []Step, end *Struct, missing int) {
	out = slices.Clone(steps)
	cur := s
	for i, st := range steps {
		if cur == nil {
			break // within a field kept whole
		}
		switch st.Kind {
		case StepField:
			f := cur.field(st.GoName)
			if f == nil {
				return nil, nil, i
			}
			out[i].GoName = f.GoName
			cur = f.Type.structOf()
		case StepFilter:
			out[i].Filter = slices.Clone(st.Filter)
			for j, c := range st.Filter {
				cs, _, m := cur.project(c.Steps)
				if m >= 0 {
					return nil, nil, i
				}
				out[i].Filter[j].Steps = cs
			}
		}
	}
	return out, cur, -1
}

// conditionPaths names, for a message, the fields that path's filters
// compare, as keep paths: .spec.ports[*].port for .spec.ports[?(@.port==80)].name.
func conditionPaths(path string) string {
	segs, _, err := parseFieldPath(path)
	if err != nil {
		return path
	}
	var out []string
	for i, s := range segs {
		if s.filter == nil {
			continue
		}
		for _, c := range s.filter.conds {
			out = append(out, eachPath(segs[:i+1])+"."+strings.Join(c.fields, "."))
		}
	}
	return strings.Join(out, ", ")
}

// field returns the kept field whose upstream name is name, nil if none.
func (s *Struct) field(name string) *Field {
	for _, f := range s.Fields {
		if f.UpstreamName == name {
			return f
		}
	}
	return nil
}

// structOf returns the struct a field of type t keeps fields of, through
// pointers and slices; nil for a type kept whole.
func (t *Type) structOf() *Struct {
	for t != nil {
		switch t.Kind {
		case TypeStruct:
			return t.Struct
		case TypePointer, TypeSlice:
			t = t.Elem
		default:
			return nil
		}
	}
	return nil
}
