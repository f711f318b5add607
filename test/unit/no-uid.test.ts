// Where the system has no uids (Windows: process.getuid is not there), the path rule and the code cache's secret
// check no owners, and work: run here on a real folder, with process.getuid taken away for the test.
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { trustedPath, untrustedPart } from '../../src/files/trusted-path.js';
import { enableCompileCache } from '../../src/startup/boot.js';
import { needsRoot, withoutUids } from '../helpers/root.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'gymctl-no-uid-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('a system with no uids', () => {
  it('the path rule checks no owners there, rather than failing', () => {
    withoutUids(() => {
      expect(untrustedPart(path.join(base, 'cache'))).toBeUndefined();
      expect(trustedPath(path.join(base, 'cache'))).toBe(true);
    });
  });

  it("the compile cache's folder is made and used, not refused for an owner it cannot check", () => {
    const enabled: string[] = [];
    const dir = withoutUids(() => enableCompileCache({ XDG_CACHE_HOME: base }, (folder) => enabled.push(folder)));
    expect(dir).toBe(path.join(base, 'gymctl-code-cache'));
    expect(enabled).toEqual([dir]);
  });
});

describe('the path rule for another uid', () => {
  it('a path that cannot be walked (a name too long for the system) is not trusted', () => {
    expect(trustedPath(path.join(base, 'a'.repeat(300), 'cache'))).toBe(false);
  });

  it.runIf(needsRoot('the test of a folder of another uid', 'to give a folder to another user'))('is judged for the uid asked about, not the one gymctl runs as', () => {
    const theirs = path.join(base, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 4242, 4242);
    expect(trustedPath(theirs, 4242)).toBe(true);
    expect(trustedPath(theirs, 0)).toBe(false);
  });
});
