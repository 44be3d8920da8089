package main

import (
	"encoding/json"

	"sigs.k8s.io/yaml"
)

// goyaml: the text sigs.k8s.io/yaml.Marshal gives for a JSON value, as CAPM3 writes the
// metaData and networkData Secrets.
func init() {
	register("goyaml", func(input json.RawMessage) (any, error) {
		var value any
		if err := json.Unmarshal(input, &value); err != nil {
			return nil, err
		}
		text, err := yaml.Marshal(value)
		return string(text), err
	})
}
