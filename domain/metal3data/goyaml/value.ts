// The values sigs.k8s.io/yaml.Marshal is given here: what JSON can hold.
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };
