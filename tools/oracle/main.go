// Command oracle answers Ironhook's differential tests with upstream Metal3's own functions.
//
//	oracle AREA < cases.jsonl > answers.jsonl
//
// Each input line is one case (JSON); each output line answers the case on the same line:
// {"ok": <the area's result>} or {"err": "<upstream's error text>"}; a panic inside upstream's
// code is answered {"panic": "<value>"} rather than ending the run, so one case cannot hide the
// others.
//
// BMO v0.13.2 is released built with Go 1.25, whose net/url still lets colons into the host of
// http and https URLs; Go 1.26 rejects them (urlstrictcolons). The directive below makes every
// area parse URLs as the released operator does (BMC addresses, image URLs).

//go:debug urlstrictcolons=0
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

// An area turns one case into upstream's answer.
type area func(input json.RawMessage) (any, error)

var areas = map[string]area{}

func register(name string, run area) {
	if _, dup := areas[name]; dup {
		panic("oracle: area registered twice: " + name)
	}
	areas[name] = run
}

// An answer has exactly one key: "ok" (which may be null), "err" or "panic".
type answer map[string]any

func answerCase(run area, line []byte) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{"panic": fmt.Sprint(r)}
		}
	}()
	out, err := run(json.RawMessage(line))
	if err != nil {
		return answer{"err": err.Error()}
	}
	return answer{"ok": out}
}

func serve(run area, in io.Reader, out io.Writer) error {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	writer := bufio.NewWriter(out)
	encoder := json.NewEncoder(writer)
	encoder.SetEscapeHTML(false)
	for scanner.Scan() {
		if err := encoder.Encode(answerCase(run, scanner.Bytes())); err != nil {
			return err
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	return writer.Flush()
}

func main() {
	names := make([]string, 0, len(areas))
	for name := range areas {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(os.Args) != 2 || areas[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: oracle AREA < cases.jsonl\nareas: %v\n", names)
		os.Exit(2)
	}
	if err := serve(areas[os.Args[1]], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}
