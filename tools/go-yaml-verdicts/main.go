// Prints, for every case of cases.json, what sigs.k8s.io/yaml (go-yaml, as Kubernetes reads YAML)
// makes of it: the JSON value, or the error, with Unmarshal and with UnmarshalStrict. The output is
// committed as verdicts.json; test/unit/shared/yaml-go-verdicts.test.ts holds op-gen's YAML reader
// to it. go.mod pins sigs.k8s.io/yaml v1.6.0 and go.yaml.in/yaml/v2 v2.4.4, the versions
// k8s.io/apimachinery v0.37.2 (Kubernetes 1.37) builds with. Run: (cd tools/go-yaml-verdicts && go run . > verdicts.json && npx prettier --write verdicts.json).
// Not a run-time dependency.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

type testCase struct {
	Name string `json:"name"`
	YAML string `json:"yaml"`
}

type verdict struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

type row struct {
	Name   string  `json:"name"`
	Loose  verdict `json:"unmarshal"`
	Strict verdict `json:"unmarshalStrict"`
}

func read(text string, strict bool) verdict {
	var v interface{}
	var err error
	if strict {
		err = yaml.UnmarshalStrict([]byte(text), &v)
	} else {
		err = yaml.Unmarshal([]byte(text), &v)
	}
	if err != nil {
		return verdict{OK: false, Error: err.Error()}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return verdict{OK: false, Error: err.Error()}
	}
	return verdict{OK: true, Value: out}
}

func main() {
	raw, err := os.ReadFile("cases.json")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var cases []testCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rows := []row{}
	for _, c := range cases {
		text := strings.ReplaceAll(c.YAML, "LONGKEY", strings.Repeat("k", 1100))
		rows = append(rows, row{Name: c.Name, Loose: read(text, false), Strict: read(text, true)})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rows); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
