/**
 * The config store and the modes it finds (src/config/store.ts): a write leaves a folder closed to others as it is,
 * and a file opened to others after it was read is warned about at the write that reads it again.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';

let base: string;
let dir: string;
let file: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-store-modes-'));
  dir = path.join(base, 'config');
  file = path.join(dir, 'config.json');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe.skipIf(process.platform === 'win32')('the config store and the modes it finds', () => {
  it('a config folder of mode 1700 (closed to others, sticky) keeps its mode after a write: only a folder open to others is made 0700', async () => {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o1700);
    await new ConfigStore(dir).updateProfile('default', () => ({ format: 'json' }));
    expect((statSync(dir).mode & 0o7777).toString(8)).toBe('1700');
    chmodSync(dir, 0o1750);
    await new ConfigStore(dir).updateProfile('default', () => ({ format: 'csv' }));
    expect((statSync(dir).mode & 0o7777).toString(8)).toBe('700');
  });

  it('a config file made readable by others after it was read is warned about when a write reads it again', async () => {
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(file, '{"profiles":{"default":{"format":"json"}}}\n', { mode: 0o600 });
    const warnings: string[] = [];
    const store = new ConfigStore(dir, { warn: (line) => warnings.push(line) });
    store.read();
    expect(warnings).toEqual([]);
    chmodSync(file, 0o644);
    await store.updateProfile('default', () => ({ format: 'csv' }));
    expect(warnings).toEqual([`warning: config file ${file} can be read by others (mode 0644) and may hold your API key; fix it with: chmod 600 ${file}`]);
  });
});
