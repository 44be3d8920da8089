// Every relative link in README.md and docs/ points at a file that exists and, with an anchor,
// at a heading (GitHub's slug) or an explicit <a id> in it: the user guide and the alerts'
// runbook links (docs/troubleshooting.md) must not rot when pages move or headings change.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/chart-sync.js';

function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(dir, file));
}

const withoutCode = (text: string): string => text.replace(/```[\s\S]*?```/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] ?? ''));
  const seen = new Map<string, number>();
  for (const [, heading = ''] of withoutCode(text).matchAll(/^#+ (.*)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${String(count)}`);
  }
  return anchors;
}

const FILES = ['README.md', ...markdownFiles('docs')].sort();

function brokenLinks(file: string): string[] {
  const text = withoutCode(readFileSync(join(ROOT, file), 'utf8'));
  const broken: string[] = [];
  for (const [, link = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(link)) continue;
    const [path = '', anchor] = link.split('#');
    const target = path === '' ? file : normalize(join(dirname(file), path));
    if (!existsSync(join(ROOT, target))) {
      broken.push(`${link}: no ${target}`);
    } else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(join(ROOT, target), 'utf8')).has(anchor)) {
      broken.push(`${link}: no anchor #${anchor} in ${relative('.', target)}`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('covers the user guide', () => {
    expect(FILES).toEqual(expect.arrayContaining(['docs/guide/README.md', 'docs/guide/migration.md', 'docs/troubleshooting.md']));
  });

  it.each(FILES)('%s has no broken relative link', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('finds a broken anchor', () => {
    expect(anchorsOf('# Stuck in `registering`\n<a id="host-in-error"></a>\n## Stuck in `registering`')).toEqual(
      new Set(['host-in-error', 'stuck-in-registering', 'stuck-in-registering-1']),
    );
  });
});
