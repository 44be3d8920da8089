// The Prometheus Operator's own CRDs (ServiceMonitor, PrometheusRule), from its Go module (the
// module zip carries example/prometheus-operator-crd), so the chart's monitoring objects are
// validated by a real kube-apiserver against the real schemas. Downloaded into the Go module cache
// on first use; a failed download fails the test that needs it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const MODULE = 'github.com/prometheus-operator/prometheus-operator@v0.85.0';

export async function prometheusOperatorCRDFiles(): Promise<string[]> {
  const { stdout } = await run('go', ['mod', 'download', '-json', MODULE], { maxBuffer: 8 * 1024 * 1024 });
  const { Dir: dir } = JSON.parse(stdout) as { Dir?: string };
  if (!dir) throw new Error(`go mod download ${MODULE} gave no directory: ${stdout}`);
  return ['servicemonitors', 'prometheusrules'].map((kind) => join(dir, 'example', 'prometheus-operator-crd', `monitoring.coreos.com_${kind}.yaml`));
}
