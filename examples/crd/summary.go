package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// summary prints how many widgets each owner and each color has, as the
// store's generated indexes answer, e.g.
//
//	by owner: alice=500 bob=500 carol=500 dave=500
//	by color: blue=666 green=667 red=667
func summary[T any](w io.Writer, store widgetStore[T], read func(T) fields) {
	if store.Len() == 0 {
		return
	}
	owners, colors := map[string]bool{}, map[string]bool{}
	for _, x := range store.List() {
		r := read(x)
		owners[r.owner] = true
		colors[r.color] = true
	}
	fmt.Fprintf(w, "by owner: %s\n", counts(owners, store.ByOwner))
	fmt.Fprintf(w, "by color: %s\n", counts(colors, store.ByColor))
}

// counts renders "value=n" for each value, n being how many widgets lookup
// returns for it.
func counts[T any](values map[string]bool, lookup func(string) []T) string {
	parts := make([]string, 0, len(values))
	for _, v := range slices.Sorted(maps.Keys(values)) {
		parts = append(parts, fmt.Sprintf("%s=%d", show(v), len(lookup(v))))
	}
	return strings.Join(parts, " ")
}
