package main

import (
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// The answer to a goyaml case: the JSON text both sides receive, then the YAML CAPM3 writes or
// the error its yaml.Marshal returns.
type goyamlAnswer struct {
	JSON  string `json:"json"`
	YAML  string `json:"yaml,omitempty"`
	Error string `json:"error,omitempty"`
}

// goyaml: the text sigs.k8s.io/yaml.Marshal gives for a free JSON value inside a Metal3Data
// Secret, the way the value travels in a cluster.
//
// A case is a JSON string holding a JSON text (as the user wrote it). The API server (and
// Metacontroller after it) decode it with apimachinery's json.Unmarshal, which keeps integer
// literals that fit int64 as int64 and turns every other number into float64, and serve it
// re-encoded with encoding/json: that text is what CAPM3's client and Ironhook's hook read.
// CAPM3 keeps a bond parameter's value as apiextensionsv1.JSON (the raw text) and hands it to
// yaml.Marshal inside renderNetworkData's map; yaml.Marshal's json.Marshal copies the raw text,
// and JSONToYAML reads that text with go-yaml v2 (which resolves the numbers again) and writes it.
func init() {
	register("goyaml", func(input json.RawMessage) (any, error) {
		var text string
		if err := json.Unmarshal(input, &text); err != nil {
			return nil, err
		}
		var decoded any
		if err := utiljson.Unmarshal([]byte(text), &decoded); err != nil {
			return nil, err
		}
		served, err := json.Marshal(decoded)
		if err != nil {
			return nil, err
		}
		answer := goyamlAnswer{JSON: string(served)}
		out, err := yaml.Marshal(apiextensionsv1.JSON{Raw: served})
		if err != nil {
			answer.Error = err.Error()
		} else {
			answer.YAML = string(out)
		}
		return answer, nil
	})
}
