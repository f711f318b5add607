/**
 * The single executable against the npm build (issue 32, section 2): the same
 * command matrix (cases.ts), at a pipe and at a terminal, must give the same
 * stdout, stderr and exit code, byte for byte, with nothing written outside
 * the XDG folders. `npm run test:sea` builds the executable and runs this
 * file (the `sea` project of vitest.config.ts); `npm test` does not include it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import http, { type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxHandler } from '../../src/sandbox/server.js';
import { ROOT } from '../helpers/cli.js';
import { hasSecretService, removeHome, startSecretService } from '../helpers/keyring.js';
import { hasTool } from '../helpers/tls.js';
import { httpServer } from '../helpers/servers.js';
import { type Case, FIXED_ID, matrix } from './cases.js';
import { BINARY, type Build, commandLine, environment, folders, type Mode, type Output, type Run, placeBinary, runAll, SEA_NODE } from './run.js';

/** Both builds and `script` are there; under CI a missing one fails the run, elsewhere it skips with how to get it. */
function ready(): boolean {
  const missing = [
    ...(hasFile(BINARY) ? [] : [`the single executable ${BINARY}: run \`npm run build:sea\``]),
    ...(hasFile(SEA_NODE) ? [] : [`the Node it embeds, ${SEA_NODE}: run \`npm run build:sea\` (or set GYMCTL_SEA_NODE)`]),
  ];
  if (missing.length && process.env.CI === 'true') throw new Error(`the single executable's matrix needs ${missing.join(' and ')}`);
  if (missing.length) console.warn(`skipping the single executable's matrix: it needs ${missing.join(' and ')}`);
  return missing.length === 0 && hasTool('script', ['--version']);
}

const hasFile = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;

/** The sandbox's handler with its random correlation ID replaced by FIXED_ID, in the header and in error bodies alike. */
function fixedIdHandler(): Parameters<typeof httpServer>[0] {
  const handler = sandboxHandler();
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g;
  return (request, response) => {
    const writeHead = response.writeHead.bind(response) as (status: number, headers: Record<string, unknown>) => ServerResponse;
    const end = response.end.bind(response) as (body?: string) => ServerResponse;
    Object.assign(response, {
      writeHead: (status: number, headers: Record<string, unknown>) => writeHead(status, { ...headers, 'X-Correlation-Id': FIXED_ID }),
      // Same length as the id it replaces: Content-Length still holds.
      end: (body?: string) => end(typeof body === 'string' ? body.replace(uuid, FIXED_ID) : body),
    });
    handler(request, response);
  };
}

/** An output as compared: the masked text (for a readable diff) and the masked bytes. */
function shown(output: Output, command: readonly string[], mask: (text: string) => string) {
  const stdout = mask(output.stdout.toString('latin1'));
  const stderr = mask(output.stderr.toString('latin1'));
  return {
    command: command.join(' '),
    code: output.code,
    stdout: Buffer.from(stdout, 'latin1').toString('utf8'),
    stderr: Buffer.from(stderr, 'latin1').toString('utf8'),
    bytes: Buffer.concat([Buffer.from(stdout, 'latin1'), Buffer.from('\u0000'), Buffer.from(stderr, 'latin1')]).toString('base64'),
  };
}

const MODES: readonly Mode[] = ['pipe', 'terminal'];

/**
 * Where each build keeps its own files, which necessarily differs: the npm
 * build's dist/, the executable's folder unpacked under
 * $XDG_CACHE_HOME/gymctl-sea/<build id>. `gymctl version` names a file in it
 * (the licence notices): both folders are written as <gymctl's files>, and
 * the rest of the path must agree. Nothing else about the folder is masked.
 */
function ownFiles(build: Build, root: string): (text: string) => string {
  if (build === 'npm') return (text) => text.replaceAll(path.join(ROOT, 'dist'), "<gymctl's files>");
  const escaped = path.join(folders(root).cache, 'gymctl-sea').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const unpacked = new RegExp(`${escaped}/[^/\\s]+`, 'g');
  return (text) => text.replace(unpacked, "<gymctl's files>");
}

/** A CONNECT proxy on loopback that tunnels every request to `port` on 127.0.0.1, whatever host it names. */
async function tunnellingProxy(port: number): Promise<{ url: string; close(): void }> {
  const sockets = new Set<net.Socket>();
  const proxy = http.createServer((_request, response) => response.writeHead(405).end());
  proxy.on('connect', (_request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const upstream = net.connect(port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on('close', () => sockets.delete(end));
    }
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const close = () => {
    for (const socket of sockets) socket.destroy();
    proxy.close();
  };
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, close };
}

/** The first line of each section of a THIRD-PARTY-NOTICES file: `name@version`, or a work compiled into jq.wasm. */
const noticeHeads = (file: string) =>
  readFileSync(file, 'utf8')
    .split(`${'='.repeat(78)}\n`)
    .slice(1)
    .map((section) => section.slice(0, section.indexOf('\n')));

describe.skipIf(!ready())('the single executable against the npm build', () => {
  let cases: Case[] = [];
  let binaryFolder: string;
  let proxy: { url: string; close(): void } | undefined;
  beforeAll(async () => {
    binaryFolder = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-binary-'));
    placeBinary(binaryFolder);
    const server = await httpServer(fixedIdHandler());
    proxy = await tunnellingProxy(Number(new URL(server).port));
    cases = matrix(server, proxy.url);
  });
  afterAll(() => {
    proxy?.close();
    rmSync(binaryFolder, { recursive: true, force: true });
  });

  const names = matrix('http://127.0.0.1:1').map((entry) => entry.name);
  const keyring = hasSecretService();
  for (const name of names) {
    for (const mode of MODES) {
      // Without gnome-keyring and dbus, only the keyring case is skipped (hasSecretService says why; under CI it fails).
      const test = name === 'the keyring' && !keyring ? it.skip : it.concurrent;
      test(`${name}, at a ${mode}`, async () => {
        const entry = cases.find((candidate) => candidate.name === name)!;
        const mask = entry.mask ?? ((text: string) => text);
        // One folder name for both builds, made afresh for each: paths in the output (config path, doctor) agree.
        const root = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-'));
        rmSync(root, { recursive: true });
        const runs = {} as Record<Build, Run>;
        for (const build of ['binary', 'npm'] as const) {
          const service = entry.keyring ? await startSecretService({ unlock: true }) : undefined;
          try {
            runs[build] = await runAll(build, mode, entry.commands, root, service ? { DBUS_SESSION_BUS_ADDRESS: service.address } : {});
          } finally {
            await service?.stop();
            if (service) removeHome(service.home);
          }
        }
        const view = (build: Build) => {
          const own = ownFiles(build, root);
          return runs[build].outputs.map((output, i) => shown(output, entry.commands[i]!.args, (text) => mask(own(text))));
        };
        expect(view('binary')).toEqual(view('npm'));
        expect(runs.npm.outputs.map((output) => output.code)).toEqual(entry.commands.map((command) => command.code));
        const npmText = view('npm')
          .map((output) => output.stdout + output.stderr)
          .join('');
        if (entry.shows) expect(npmText).toContain(entry.shows);
        // At a terminal everything reaches the terminal (stdout), whose line discipline ends lines with \r\n.
        if (mode === 'terminal')
          expect({ stderr: view('npm').map((output) => output.stderr), crlf: npmText.includes('\r\n') }).toEqual({ stderr: view('npm').map(() => ''), crlf: true });
        for (const build of ['binary', 'npm'] as const) {
          const { outsideXdg, leftInTmp, notPrivate } = runs[build];
          expect({ build, outsideXdg, leftInTmp, notPrivate }).toEqual({ build, outsideXdg: [], leftInTmp: [], notPrivate: [] });
        }
      });
    }
  }

  it("through a linked cache folder (~/.cache a link, as dotfiles make it), gymctl's code and jq's still come from the binary, never from the unpacked copies", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-'));
    try {
      const where = folders(root);
      const real = path.join(root, 'real-cache');
      mkdirSync(real, { mode: 0o700 });
      mkdirSync(where.home, { recursive: true });
      symlinkSync(real, where.cache);
      mkdirSync(where.tmp);
      mkdirSync(where.bin);
      const env = environment(where);
      const [file, ...args] = commandLine('binary');
      const run = (...command: string[]) => spawnSync(file!, [...args, ...command], { env, cwd: root, encoding: 'utf8', timeout: 30_000 });
      // The first run unpacks; then every unpacked side file is replaced by one that says so if it ever runs.
      expect(run('academy', '1', '--sandbox', '--jq', '.name')).toMatchObject({ status: 0, stdout: 'Alfama Jiu-Jitsu\n' });
      const [build] = readdirSync(path.join(real, 'gymctl-sea'));
      const side = path.join(real, 'gymctl-sea', build!, 'side');
      for (const name of readdirSync(side)) writeFileSync(path.join(side, name), "process.stdout.write('a copy on disk ran\\n');");
      // jq's loader and WebAssembly too: the binary's own copies are run, never those on disk.
      writeFileSync(path.join(side, '..', 'jq-wasm.cjs'), "process.stdout.write('a copy on disk ran\\n');");
      writeFileSync(path.join(side, '..', 'jq.wasm'), 'not WebAssembly');
      const again = run('academy', '1', '--sandbox', '--jq', '.name');
      expect({ status: again.status, stdout: again.stdout }).toEqual({ status: 0, stdout: 'Alfama Jiu-Jitsu\n' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("version --licenses: the binary's notices are the npm build's and undici's, which it bundles where the npm build requires the installed package", () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-'));
    try {
      const where = folders(root);
      for (const folder of [where.home, where.tmp, where.bin]) mkdirSync(folder, { recursive: true });
      const [binary, npm] = (['binary', 'npm'] as const).map((build) => {
        const [file, ...args] = commandLine(build);
        const ran = spawnSync(file!, [...args, 'version', '--licenses'], { env: environment(where), cwd: root, encoding: 'utf8', timeout: 30_000 });
        expect({ build, code: ran.status, stderr: ran.stderr }).toEqual({ build, code: 0, stderr: '' });
        const [said, , notices] = ran.stdout.trimEnd().split('\n');
        return { said: said!, heads: noticeHeads(notices!) };
      });
      const { version: undici } = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'undici', 'package.json'), 'utf8')) as { version: string };
      expect(npm!.heads).not.toContain(`undici@${undici}`);
      expect([...binary!.heads].sort()).toEqual([...npm!.heads, `undici@${undici}`].sort());
      const count = (said: string) => Number(/^gymctl bundles (\d+) third-party packages/.exec(said)?.[1]);
      expect(count(binary!.said)).toBe(count(npm!.said) + 1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('--version answers with a HOME that cannot be written, root or not (a path under a file), and no XDG folders set', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'gymctl-sea-'));
    try {
      writeFileSync(path.join(root, 'file'), '');
      const env = environment({ ...folders(root), home: path.join(root, 'file', 'home'), tmp: root }, { XDG_CONFIG_HOME: undefined, XDG_CACHE_HOME: undefined });
      const [binary, npm] = (['binary', 'npm'] as const).map((build) => {
        const [file, ...args] = commandLine(build);
        const ran = spawnSync(file!, [...args, '--version'], { env, cwd: root, encoding: 'utf8', timeout: 30_000 });
        return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr };
      });
      expect(binary).toEqual(npm);
      expect(binary).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: '' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
