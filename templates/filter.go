package templates

import (
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// passes renders the test of a filtered step on the element x: every
// condition, joined by &&.
func passes(x *jen.Statement, conds []generators.Condition) *jen.Statement {
	test := jen.Null()
	for i, c := range conds {
		if i > 0 {
			test.Op("&&")
		}
		test.Add(condition(x, c))
	}
	return test
}

// condition renders one condition on the element x: each pointer on the
// way is tested for nil (no value: == fails, != holds), then the value is
// compared with the literal; a bool is used as it is, or negated. A !=
// through pointers is an ||, in parentheses.
func condition(x *jen.Statement, c generators.Condition) *jen.Statement {
	v := x.Clone()
	var nils []*jen.Statement // the pointers on the way
	for i, s := range c.Steps {
		switch s.Kind {
		case generators.StepField:
			v = v.Clone().Dot(s.GoName) // a selector goes through a pointer by itself
		case generators.StepPointer:
			nils = append(nils, v.Clone())
			if i == len(c.Steps)-1 {
				v = jen.Op("*").Add(v.Clone())
			}
		}
	}
	var cmp *jen.Statement
	if b, ok := c.Value.(bool); ok {
		cmp = v
		if b != c.Equal {
			cmp = jen.Op("!").Add(v)
		}
	} else {
		op := "=="
		if !c.Equal {
			op = "!="
		}
		cmp = v.Op(op).Add(literal(c.Value))
	}
	if len(nils) == 0 {
		return cmp
	}
	test := jen.Null()
	for _, p := range nils {
		if c.Equal {
			test.Add(p).Op("!=").Nil().Op("&&")
		} else {
			test.Add(p).Op("==").Nil().Op("||")
		}
	}
	if c.Equal {
		return test.Add(cmp)
	}
	return jen.Parens(test.Add(cmp))
}

// literal renders a condition's literal as an untyped constant: an
// integer compares with any integer type, a defined one included (jen.Lit
// would convert a uint64 to uint64).
func literal(v any) *jen.Statement {
	if n, ok := v.(uint64); ok {
		return jen.Op(strconv.FormatUint(n, 10))
	}
	return jen.Lit(v)
}
