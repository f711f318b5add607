/**
 * The same bytes from the same tree (issue 44). This clone's tree is copied to another path and built there from
 * nothing (`npm run build`, then `npm run build:sea`, on the Node the binary is made of): the binary is the one
 * `npm run build:sea` made here, byte for byte, with the same build id and checksum file, and neither clone's path
 * nor the Node's is in it. A build that differs (Node's symbols kept) has other bytes and another id.
 *
 * The builds are reused for what needs a second build: offline, build:sea says what to do and leaves no .sea-node/;
 * and a run of one build removes another build's folder once it has gone a week unused, while a running binary of
 * that build goes on.
 *
 * One test, so that the tree is built once: it is the slow part of `npm run test:sea` (two builds of the binary and
 * one of dist/, about 20 s on two cores), and runs beside the matrix.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolName } from '../../src/mcp/tools.js';
import { academy } from '../../src/operations/index.js';
import { ROOT } from '../helpers/cli.js';
import { buildOf, haveBuilds, mcpSession, place, runTo } from './places.js';
import { BINARY, SEA_NODE, tool } from './run.js';

const ready = haveBuilds("the single executable's reproducible build test");
const NPM = tool('npm');
const GIT = tool('git');

/** This clone's tree as git sees it (tracked files and new ones, none it ignores: no dist/, no .sea-node/), copied to `to`; node_modules linked file by file, else copied. */
function copyTree(to: string): void {
  const listed = spawnSync(GIT!, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const name of listed.stdout.split('\0').filter(Boolean)) {
    const [source, target] = [path.join(ROOT, name), path.join(to, name)];
    const stat = lstatSync(source, { throwIfNoEntry: false });
    if (!stat) continue; // removed from the working tree
    mkdirSync(path.dirname(target), { recursive: true });
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      copyFileSync(source, target);
      chmodSync(target, stat.mode & 0o777);
    }
  }
  const modules = [path.join(ROOT, 'node_modules'), path.join(to, 'node_modules')];
  if (spawnSync('cp', ['-al', ...modules]).status !== 0 && spawnSync('cp', ['-a', ...modules]).status !== 0) throw new Error('could not copy node_modules');
}

/** Runs npm in `cwd` to its end; a failure throws with what it said. */
function npm(cwd: string, args: string[], env: NodeJS.ProcessEnv): void {
  const ran = spawnSync(NPM!, args, { cwd, env, encoding: 'utf8', timeout: 300_000, killSignal: 'SIGKILL' });
  if (ran.status !== 0) throw new Error(`npm ${args.join(' ')} in the copy failed (${ran.status ?? ran.signal}):\n${ran.stdout}\n${ran.stderr}`);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** How often `needle` is in `bytes`, as one-byte text (what `strings` finds) or as UTF-16 (what it does not). */
function occurrences(bytes: Buffer, needle: string): number {
  let count = 0;
  for (const encoded of [Buffer.from(needle, 'latin1'), Buffer.from(needle, 'utf16le')]) {
    for (let at = bytes.indexOf(encoded); at !== -1; at = bytes.indexOf(encoded, at + 1)) count++;
  }
  return count;
}

describe.skipIf(!ready || !NPM || !GIT)('two builds of one tree, in two folders', () => {
  it('give the same bytes, id and checksum, with no builder path inside; another build, another id; an old build folder goes once unused', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-clone-'));
    try {
      // Another path, of another length, below another folder.
      const clone = path.join(work, 'another place', 'gymctl-copy');
      copyTree(clone);

      // Offline, with no Node named: what to do, and nothing half-installed left (npm offline, with an empty cache of its own).
      // Node's compile cache off (npm turns it on from Node 22): nothing is left in the temporary folder.
      const { GYMCTL_SEA_NODE: _unset, ...withoutNode }: NodeJS.ProcessEnv = { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' };
      const offlineEnv = { ...withoutNode, npm_config_offline: 'true', npm_config_cache: path.join(work, 'npm-cache'), npm_config_registry: 'http://127.0.0.1:9/' };
      const offline = spawnSync(process.execPath, ['scripts/build-sea.mjs'], { cwd: clone, env: offlineEnv, encoding: 'utf8', timeout: 120_000 });
      expect({ status: offline.status, said: offline.stderr.trim().split('\n').slice(-2) }).toEqual({
        status: 1,
        said: [
          `build:sea: could not install node@26 into ${path.join(clone, '.sea-node')}`,
          'build:sea: offline? Name a Node 24 or later already on this machine: GYMCTL_SEA_NODE=/path/to/node npm run build:sea',
        ],
      });
      expect(existsSync(path.join(clone, '.sea-node'))).toBe(false);

      const env = { ...withoutNode, GYMCTL_SEA_NODE: SEA_NODE };
      npm(clone, ['run', 'build'], env);
      npm(clone, ['run', 'build:sea'], env);
      const theirs = path.join(clone, 'dist', 'sea');
      const ours = path.dirname(BINARY);
      const [mine, copy] = [readFileSync(BINARY), readFileSync(path.join(theirs, 'gymctl'))];
      const digest = sha256(mine);
      expect({ sha256: sha256(copy), build: buildOf(theirs), checksum: readFileSync(path.join(theirs, 'gymctl.sha256'), 'utf8') }).toEqual({
        sha256: digest,
        build: buildOf(ours),
        checksum: `${digest}  gymctl\n`,
      });
      expect(readFileSync(path.join(ours, 'gymctl.sha256'), 'utf8')).toBe(`${digest}  gymctl\n`);
      const sha256sum = tool('sha256sum');
      if (sha256sum) expect(spawnSync(sha256sum, ['-c', 'gymctl.sha256'], { cwd: theirs, encoding: 'utf8' })).toMatchObject({ status: 0, stdout: 'gymctl: OK\n' });

      // No builder's path: neither clone's, the copy's folder or the Node's, more often than Node itself holds it.
      const node = readFileSync(SEA_NODE);
      const paths = [...new Set([ROOT, realpathSync(ROOT), clone, work, SEA_NODE, realpathSync(SEA_NODE), path.dirname(SEA_NODE)])];
      expect(paths.map((found) => [found, occurrences(mine, found) - occurrences(node, found)]).filter(([, more]) => Number(more) > 0)).toEqual([]);
      const strings = tool('strings');
      if (strings) {
        const text = spawnSync(strings, ['-a', path.join(theirs, 'gymctl')], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 }).stdout;
        expect(paths.filter((found) => text.includes(found) && !node.includes(found))).toEqual([]);
      }

      // Another build (Node's symbols kept): other bytes, another id.
      npm(clone, ['run', 'build:sea'], { ...env, GYMCTL_SEA_STRIP: '0' });
      const other = buildOf(theirs);
      expect(other).not.toBe(buildOf(ours));
      expect(sha256(readFileSync(path.join(theirs, 'gymctl')))).not.toBe(digest);

      // An older build's folder: kept while used, gone once a week and a day unused, whoever still runs it.
      const at = place();
      try {
        const olderBinary = path.join(at.root, 'older-gymctl');
        copyFileSync(path.join(theirs, 'gymctl'), olderBinary);
        chmodSync(olderBinary, 0o755);
        const otherFolder = path.join(at.where.cache, 'gymctl-sea', other);
        const run = (binary: string, ...args: string[]) => runTo([binary, ...args], at.where);
        expect(run(olderBinary, 'version')).toMatchObject({ status: 0, stderr: '' });
        expect(run(at.binary, 'version')).toMatchObject({ status: 0, stderr: '' });
        expect(readdirSync(path.dirname(otherFolder)).sort()).toEqual([buildOf(ours), other].sort());
        const session = await mcpSession([olderBinary, 'mcp', '--sandbox'], at.where);
        try {
          const past = (Date.now() - 8 * 24 * 60 * 60 * 1000) / 1000;
          utimesSync(otherFolder, past, past);
          expect(run(at.binary, 'version')).toMatchObject({ status: 0, stderr: '' });
          expect(readdirSync(path.dirname(otherFolder))).toEqual([buildOf(ours)]);
          // The older binary, still running, goes on from its own bytes.
          const answer = await session.ask(2, 'tools/call', { name: toolName(academy), arguments: { [academy.param.name]: '1' } });
          expect(JSON.stringify(answer)).toContain('Alfama Jiu-Jitsu');
        } finally {
          await session.end();
        }
        // Its next run makes its folder again.
        expect(run(olderBinary, 'version')).toMatchObject({ status: 0, stderr: '' });
        expect(existsSync(otherFolder)).toBe(true);
      } finally {
        at.remove();
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 900_000);
});
