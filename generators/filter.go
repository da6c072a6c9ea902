package generators

import (
	"fmt"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"strings"
)

// A filter keeps the elements of a list that pass every condition, in
// JSONPath's filter syntax as kubectl's -o jsonpath reads it:
//
//	.metadata.ownerReferences[?(@.controller==true && @.kind=='CronJob')].name
//
// A condition is @.field[.field...] == or != a literal: 'text' or "text",
// true or false, an integer. The parentheses may be left out
// ([?@.controller==true], as RFC 9535 writes it). A field behind a nil
// pointer has no value: == fails and != holds, as in RFC 9535.
type filter struct {
	text  string // as written, from "[?" to "]"
	conds []cond
}

// cond is one condition of a filter, and where its parts are in the path.
type cond struct {
	fields  []string // JSON names from the element down
	offset  int      // of the "@"
	equal   bool     // == (else !=)
	lit     any      // string, bool or int
	litText string
	litOff  int
}

// filterHint is what a filter looks like, for errors.
const filterHint = "a filter is [?(@.field==literal && ...)], e.g. [?(@.controller==true && @.kind=='CronJob')]"

// parseFilter parses the filter that starts at path[at] ("[?") and returns
// it and the offset just past its "]", or the offset of an error.
func parseFilter(path string, at int) (*filter, int, error) {
	p := filterParser{s: path, i: at + 2}
	p.space()
	paren := p.eat("(")
	f := &filter{}
	for {
		c, err := p.cond()
		if err != nil {
			return nil, p.i, err
		}
		f.conds = append(f.conds, c)
		p.space()
		if !p.eat("&&") {
			break
		}
	}
	if paren && !p.eat(")") {
		return nil, p.i, fmt.Errorf("expected \"&&\" or \")\" at %q; %s", p.rest(), filterHint)
	}
	p.space()
	if !p.eat("]") {
		return nil, p.i, fmt.Errorf("expected \"&&\" or \"]\" at %q; %s", p.rest(), filterHint)
	}
	f.text = path[at:p.i]
	return f, p.i, nil
}

// filterParser reads a filter's text from s[i].
type filterParser struct {
	s string
	i int
}

func (p *filterParser) rest() string { return p.s[p.i:] }

func (p *filterParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *filterParser) eat(tok string) bool {
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// cond reads @.field... op literal.
func (p *filterParser) cond() (cond, error) {
	p.space()
	c := cond{offset: p.i}
	if !p.eat("@") {
		return c, fmt.Errorf("expected \"@\" at %q; %s", p.rest(), filterHint)
	}
	for p.eat(".") {
		start := p.i
		for p.i < len(p.s) && isNameChar(rune(p.s[p.i]), p.i == start) {
			p.i++
		}
		if p.i == start {
			return c, fmt.Errorf("expected a field name after \"@.\"; %s", filterHint)
		}
		c.fields = append(c.fields, p.s[start:p.i])
	}
	if len(c.fields) == 0 {
		return c, fmt.Errorf("expected \".field\" after \"@\"; %s", filterHint)
	}
	p.space()
	switch {
	case p.eat("=="):
		c.equal = true
	case p.eat("!="):
	default:
		return c, fmt.Errorf("expected \"==\" or \"!=\" at %q; %s", p.rest(), filterHint)
	}
	p.space()
	return c, p.literal(&c)
}

// literal reads 'text', "text", true, false or a number into c: an
// integer as an int, or a uint64 past the int64 range; any other number
// as a float64, which no condition takes, so that the error is the
// literal's.
func (p *filterParser) literal(c *cond) error {
	c.litOff = p.i
	if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"') {
		q := p.s[p.i]
		end := strings.IndexByte(p.s[p.i+1:], q)
		if end < 0 {
			return fmt.Errorf("unclosed %c; %s", q, filterHint)
		}
		c.lit = p.s[p.i+1 : p.i+1+end]
		p.i += end + 2
		c.litText = p.s[c.litOff:p.i]
		return nil
	}
	start := p.i
	for p.i < len(p.s) && (isNameChar(rune(p.s[p.i]), false) || strings.IndexByte("-+.", p.s[p.i]) >= 0) {
		p.i++
	}
	c.litText = p.s[start:p.i]
	switch c.litText {
	case "true", "false":
		c.lit = c.litText == "true"
		return nil
	}
	number := c.litText != "" && strings.IndexByte("0123456789-+.", c.litText[0]) >= 0
	if n, err := strconv.ParseInt(c.litText, 10, 64); err == nil && number {
		c.lit = int(n)
		return nil
	}
	if n, err := strconv.ParseUint(c.litText, 10, 64); err == nil && number {
		c.lit = n
		return nil
	}
	if f, err := strconv.ParseFloat(c.litText, 64); err == nil && number {
		c.lit = f
		return nil
	}
	p.i = start
	return fmt.Errorf("expected a literal ('text', true, false or an integer) at %q; %s", p.rest(), filterHint)
}

// resolveFilter checks seg's filter against the list t that its field
// holds (through pointers), appends the filtered step to steps and
// returns the type of the list's elements. Errors are placed at pos, the
// start of the path in the source.
func resolveFilter(t types.Type, seg segment, upTo string, steps *[]Step, pos token.Position, marker string) (types.Type, *Error) {
	t = pointers(t, steps)
	list, ok := t.Underlying().(*types.Slice)
	if !ok {
		return nil, errorf(at(pos, seg.offset), ErrorTypeInvalid, marker,
			"%s: %s keeps elements of a list, and %s is a %s", upTo, seg.filter.text, seg.name, typeName(t))
	}
	var conds []Condition
	for _, c := range seg.filter.conds {
		cc, err := resolveCond(list.Elem(), c, pos, marker)
		if err != nil {
			return nil, err
		}
		conds = append(conds, cc)
	}
	*steps = append(*steps, Step{Kind: StepFilter, Filter: conds})
	return list.Elem(), nil
}

// resolveCond walks c's fields from the element type elem to a string,
// bool or integer, and checks that c's literal is one of those.
func resolveCond(elem types.Type, c cond, pos token.Position, marker string) (Condition, *Error) {
	out := Condition{Equal: c.equal, Value: c.lit}
	cur := elem
	for i, name := range c.fields {
		cur = pointers(cur, &out.Steps)
		st, ok := cur.Underlying().(*types.Struct)
		where := "@." + strings.Join(c.fields[:i+1], ".")
		if !ok {
			return out, errorf(at(pos, c.offset), ErrorTypeNotFound, marker, "%s: %s has no fields", where, typeName(cur))
		}
		jf, found := jsonFieldByName(st, name)
		if !found {
			return out, errorf(at(pos, c.offset), ErrorTypeNotFound, marker, "%s: no field %q in %s; %s", where, name, typeName(cur), notFound(st, name))
		}
		fieldSteps, ft, err := selectSteps(cur, st, jf.chain)
		if err != nil {
			return out, errorf(at(pos, c.offset), ErrorTypeNotSupported, marker, "%s: %v", where, err)
		}
		out.Steps = append(out.Steps, fieldSteps...)
		cur = ft
	}
	cur = pointers(cur, &out.Steps)
	where := "@." + strings.Join(c.fields, ".")
	basic, ok := cur.Underlying().(*types.Basic)
	var want string
	switch {
	case !ok:
		return out, errorf(at(pos, c.offset), ErrorTypeInvalid, marker, "%s is a %s; a condition compares a string, bool or integer", where, typeName(cur))
	case basic.Info()&types.IsString != 0:
		if _, isString := c.lit.(string); !isString {
			want = "a quoted string, e.g. 'CronJob'"
		}
	case basic.Info()&types.IsBoolean != 0:
		if _, isBool := c.lit.(bool); !isBool {
			want = "true or false"
		}
	case basic.Info()&types.IsInteger != 0:
		lo, hi := intRange(basic.Kind())
		if !inRange(c.lit, lo, hi) {
			want = fmt.Sprintf("an integer from %d to %d", lo, hi)
			switch basic.Kind() {
			case types.Int, types.Uint, types.Uintptr:
				want += fmt.Sprintf(" (%s is 32 bits on some platforms)", basic.Name())
			}
		}
	default:
		return out, errorf(at(pos, c.offset), ErrorTypeInvalid, marker, "%s is a %s; a condition compares a string, bool or integer", where, typeName(cur))
	}
	if want != "" {
		return out, errorf(at(pos, c.litOff), ErrorTypeInvalid, marker, "%s is a %s, and %s is not one; expected %s", where, typeName(cur), c.litText, want)
	}
	return out, nil
}

// intRange returns the values of an integer kind that generated code may
// compare with a constant on every platform: int, uint and uintptr are
// taken as 32 bits, their size on some.
func intRange(k types.BasicKind) (lo int64, hi uint64) {
	switch k {
	case types.Int8:
		return math.MinInt8, math.MaxInt8
	case types.Int16:
		return math.MinInt16, math.MaxInt16
	case types.Int32, types.Int:
		return math.MinInt32, math.MaxInt32
	case types.Int64:
		return math.MinInt64, math.MaxInt64
	case types.Uint8:
		return 0, math.MaxUint8
	case types.Uint16:
		return 0, math.MaxUint16
	case types.Uint32, types.Uint, types.Uintptr:
		return 0, math.MaxUint32
	}
	return 0, math.MaxUint64
}

// inRange tells whether lit, a literal, is an integer from lo to hi.
func inRange(lit any, lo int64, hi uint64) bool {
	switch n := lit.(type) {
	case int:
		return int64(n) >= lo && (n < 0 || uint64(n) <= hi)
	case uint64:
		return n <= hi
	}
	return false
}

// pointers goes through the pointers of t, adding a step for each.
func pointers(t types.Type, steps *[]Step) types.Type {
	for {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			return t
		}
		*steps = append(*steps, Step{Kind: StepPointer})
		t = p.Elem()
	}
}
