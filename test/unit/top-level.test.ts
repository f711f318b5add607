/**
 * The repository's top level stays small enough to read at a glance: at most 18 entries, each named in
 * CONTRIBUTING.md's map with why it is there (git's own folder and what .gitignore keeps out aside).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const patterns = readFileSync(path.join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
/** An entry .gitignore keeps out: `name/`, `name`, or `*.suffix`. */
const ignored = (name: string) => patterns.some((pattern) => (pattern.startsWith('*') ? name.endsWith(pattern.slice(1)) : pattern.replace(/\/$/, '') === name));

/** The rows of the map's first table, entry → why: `` | `name` | why | ``. */
function map(): Map<string, string> {
  const text = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## A map of the house\n'));
  const table = section.slice(section.indexOf('\n|'), section.indexOf('\n\n', section.indexOf('\n|')));
  const rows = [...table.matchAll(/^\| `([^`]+)` \| (.*) \|$/gm)];
  return new Map(rows.map(([, entry, why]) => [entry!.replace(/\/$/, ''), why!.trim()]));
}

describe('the top level', () => {
  const entries = readdirSync(ROOT)
    .filter((name) => name !== '.git' && !ignored(name))
    .sort();

  it('holds at most 18 entries', () => {
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.length, entries.join(', ')).toBeLessThanOrEqual(18);
  });

  it("names each entry in CONTRIBUTING.md's map, with why it is there, and nothing that is not there", () => {
    const rows = map();
    expect([...rows.keys()].sort()).toEqual(entries);
    for (const [entry, why] of rows) expect(why.length, entry).toBeGreaterThan(10);
  });

  it('leaves out of the count only what .gitignore keeps out of git', () => {
    expect(ignored('node_modules')).toBe(true);
    expect(ignored('dist')).toBe(true);
    expect(ignored('gymctl-0.1.0.tgz')).toBe(true);
    expect(ignored('src')).toBe(false);
  });
});
