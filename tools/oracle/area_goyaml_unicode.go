package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
)

// goyaml-unicode: the letters and digits go-yaml's key order (keyList.Less: unicode.IsLetter,
// unicode.IsDigit) knows, as the compact table domain/metal3data/goyaml/unicode.ts embeds: for
// each run of code points, the gap since the previous run and the run's length, in base 36,
// space-separated. The case is ignored.
func init() {
	register("goyaml-unicode", func(json.RawMessage) (any, error) {
		return map[string]string{
			"version": unicode.Version,
			"letters": unicodeRuns(unicode.IsLetter),
			"digits":  unicodeRuns(unicode.IsDigit),
		}, nil
	})
}

func unicodeRuns(is func(rune) bool) string {
	var parts []string
	next := rune(0) // the first code point after the previous run
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !is(r) {
			continue
		}
		start := r
		for r+1 <= unicode.MaxRune && is(r+1) {
			r++
		}
		parts = append(parts, strconv.FormatInt(int64(start-next), 36), strconv.FormatInt(int64(r-start+1), 36))
		next = r + 1
	}
	return strings.Join(parts, " ")
}
