/**
 * `npm ci` on the oldest Node 20 gymctl supports warns of no unsupported engine: every package the lock installs
 * accepts it. The MCP conformance suite, whose dependencies need Node 22, is installed by its own script instead, at an
 * exact version.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const semver = createRequire(import.meta.url)('semver') as { minVersion(range: string): { version: string }; satisfies(version: string, range: string): boolean };
const json = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('engines', () => {
  it("every package in the lock accepts the oldest Node package.json's engines allow", () => {
    const oldest = semver.minVersion(json('package.json').engines.node).version;
    expect(oldest).toMatch(/^20\./);
    const packages = json('package-lock.json').packages as Record<string, { engines?: { node?: string } | string[] }>;
    const refusing = Object.entries(packages)
      .filter(([, entry]) => !Array.isArray(entry.engines) && entry.engines?.node !== undefined && !semver.satisfies(oldest, entry.engines.node))
      .map(([name, entry]) => `${name} (${(entry.engines as { node: string }).node})`);
    expect(refusing).toEqual([]);
  });

  it('the conformance suite is no devDependency: test:conformance installs it, at an exact version', () => {
    expect(Object.keys(json('package.json').devDependencies)).not.toContain('@modelcontextprotocol/conformance');
    const script = readFileSync(path.join(ROOT, 'scripts', 'test-conformance.mjs'), 'utf8');
    expect(script).toMatch(/const SUITE = '@modelcontextprotocol\/conformance@\d+\.\d+\.\d+';/);
  });
});
