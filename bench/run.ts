// `npm run bench`: runs every benchmark and writes docs/benchmarks.md up to the scale bench's part
// (`npm run bench:scale`, kept as it is). Numbers, not assertions.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { scalePart } from '../devenv/scale/doc.js';
import { cpus, totalmem } from 'node:os';
import { benchBareMetalHost } from './bmh.js';
import { benchIpam } from './ipam.js';
import type { BenchResult } from './types.js';

const benches: (() => Promise<BenchResult>)[] = [benchBareMetalHost, benchIpam];

function table(result: BenchResult): string {
  const lines = [`## ${result.title}`, '', `| ${result.header.join(' | ')} |`, `|${result.header.map(() => '---').join('|')}|`];
  lines.push(...result.rows.map((row) => `| ${row.join(' | ')} |`), '', ...result.notes.map((note) => `- ${note}`), '');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const sections: string[] = [];
  for (const bench of benches) {
    const result = await bench();
    process.stdout.write(`${table(result)}\n`);
    sections.push(table(result));
  }
  const machine = `${String(cpus().length)} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const header = `# Benchmarks\n\nWritten by \`npm run bench\` (bench/run.ts). Machine: ${machine}.\n\n`;
  // The scale bench's part (npm run bench:scale) is kept as it is.
  const doc = new URL('../docs/benchmarks.md', import.meta.url);
  const scale = existsSync(doc) ? scalePart(readFileSync(doc, 'utf8')) : '';
  writeFileSync(doc, header + sections.join('\n') + (scale === '' ? '' : `\n${scale}`));
}

await main();
