/**
 * gymctl as npm users get it: `npm pack`, installed from the tarball into an
 * empty folder with `npm install`, then run and imported from there.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { ROOT } from '../helpers/cli.js';
import { emptyApp, npmInstall, packGymctl } from '../helpers/package.js';

const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
let work: string;
let app: string;
let packed: string[];
let tarball: string;
let installStderr: string;

const run = (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env, GYMCTL_CONFIG_DIR: path.join(work, 'config') } });

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'gymctl-package-'));
  ({ tarball, packed } = packGymctl(work));
  app = emptyApp(path.join(work, 'app'));
  installStderr = npmInstall([tarball], app);
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the package test itself', () => {
  it('without a registry or a cache, fails in seconds and says what it needs', () => {
    const empty = path.join(work, 'no-registry');
    run('mkdir', ['-p', path.join(empty, 'cache')], work);
    writeFileSync(path.join(empty, 'package.json'), JSON.stringify({ name: 'empty', version: '1.0.0', private: true }));
    // Fetches are cut short (one retry, waits of seconds): npm gives up of itself, with an exit status, where it used to
    // go on for 8 minutes, past the install's ceiling ("did not finish within").
    expect(() => npmInstall(['--registry', 'http://127.0.0.1:9', '--cache', path.join(empty, 'cache'), tarball], empty)).toThrow(
      /npm install of the packed gymctl exited \d+: it needs the npm registry, or npm's cache/,
    );
  }, 180_000);
});

describe('the npm package', () => {
  it('ships the built code, bin, types, openapi.json, README, CHANGELOG and LICENSE, and nothing else', () => {
    const top = new Set(packed.map((file) => (file.startsWith('dist/') ? `dist/${file.split('/')[1]}` : file)));
    expect([...top].sort()).toEqual(
      [
        'CHANGELOG.md',
        'LICENSE',
        'README.md',
        'bin/gymctl.cjs',
        'dist/side',
        'dist/boot.cjs',
        'dist/gymctl.cjs',
        'dist/gymctl.1',
        'dist/help.txt',
        'dist/index.js',
        'dist/index.cjs',
        'dist/index.web.js',
        'dist/cjs',
        'dist/jq.wasm',
        'dist/jq-wasm.cjs',
        'dist/keyring-agent.cjs',
        'dist/licenses',
        'dist/openapi.json',
        'dist/types',
        'package.json',
      ].sort(),
    );
    expect(packed).toContain('dist/types/index.d.ts');
    // --jq's jq is bundled: the notices of jq-wasm, jq and Oniguruma ship with it.
    for (const notice of ['jq-wasm', 'jq', 'oniguruma']) expect(packed).toContain(`dist/licenses/${notice}.txt`);
    // And every package bundled into the shipped files, with its licence text (test/unit/notices.test.ts checks the file).
    expect(packed).toContain('dist/licenses/THIRD-PARTY-NOTICES');
    expect(packed.some((file) => file.startsWith('src/') || file.startsWith('test/'))).toBe(false);
  });

  it("ships only the declarations a user's compiler reads from the library's entry: none of the CLI's, and at most 25", () => {
    const shipped = packed.filter((file) => file.startsWith('dist/types/') && file.endsWith('.d.ts')).sort();
    // CommonJS reads the same declarations again, from a folder that says they are CommonJS.
    const commonJs = packed.filter((file) => file.startsWith('dist/cjs/') && file.endsWith('.d.ts'));
    expect(commonJs.map((file) => file.replace(/^dist\/cjs\//, 'dist/types/')).sort()).toEqual(shipped);
    expect(packed.filter((file) => file.endsWith('.d.ts')).length).toBe(shipped.length * 2);
    expect(shipped.length).toBeGreaterThan(0);
    expect(shipped.length).toBeLessThanOrEqual(25);
    // What TypeScript itself reads of gymctl's for a program that imports it.
    writeFileSync(path.join(app, 'reads.ts'), "import { createClient } from 'gymctl';\nexport const client = createClient;\n");
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    const listed = run(
      tsc,
      ['--listFilesOnly', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types'), 'reads.ts'],
      app,
    );
    expect(listed.status, listed.stdout + listed.stderr).toBe(0);
    const installed = realpathSync(path.join(app, 'node_modules', 'gymctl'));
    const read = listed.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => path.relative(installed, realpathSync(line.trim())).split(path.sep).join('/'))
      .filter((file) => !file.startsWith('..'))
      .sort();
    expect(read).toContain('dist/types/index.d.ts');
    expect(shipped).toEqual(read);
    // The CLI's own folders (CONTRIBUTING.md's map) never reach a library user.
    const cli = /^dist\/types\/(commands|mcp|sandbox|terminal|startup|keyring|config|cache|run|files|sea)\//;
    expect(shipped.filter((file) => cli.test(file) || /^dist\/types\/(cli|main|program|flags|factory|failures|argv)\.d\.ts$/.test(file))).toEqual([]);
  });

  it("the CLI's files carry no copy of undici: its proxy path requires the one npm installed as the library's dependency", () => {
    const installed = path.join(app, 'node_modules', 'gymctl');
    // Text only undici's own code holds, kept by minifying: its error class's name, and the HTTP parser it compiles in.
    const markers = ['UndiciError', 'llhttp'];
    const undici = path.join(app, 'node_modules', 'undici', 'lib');
    const undiciCode = readdirSync(undici, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(path.join(undici, file), 'utf8'))
      .join('\n');
    for (const marker of markers) expect(undiciCode, `undici's own code holds ${marker}`).toContain(marker);
    const code = packed.filter((file) => /\.c?js$/.test(file));
    expect(code).toContain('dist/side/undici.cjs');
    for (const file of code) {
      const text = readFileSync(path.join(installed, file), 'utf8');
      for (const marker of markers) expect(text.includes(marker), `${file} holds ${marker}`).toBe(false);
    }
    expect(readFileSync(path.join(installed, 'dist', 'side', 'undici.cjs'), 'utf8')).toContain('require("undici")');
  });

  it("gymctl through a proxy, installed: the CLI's undici is the installed dependency", async () => {
    const sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
    // A CONNECT proxy that records where it is asked to go, and always goes to the sandbox: gym.test is reached through it alone.
    const tunnels: string[] = [];
    const proxy = http.createServer((_request, response) => response.writeHead(405).end());
    proxy.on('connect', (request: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      tunnels.push(request.url ?? '');
      const upstream = net.connect(Number(new URL(sandbox.url).port), '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        ...process.env,
        GYMCTL_CONFIG_DIR: path.join(work, 'config'),
        GYMCTL_BASE_URL: 'http://gym.test',
        GYMCTL_API_KEY: DEMO_KEY,
        HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      };
      // Asynchronous: the proxy and the sandbox answer from this process meanwhile.
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const bin = path.join(app, 'node_modules', '.bin', 'gymctl');
        execFile(bin, ['whoami', '--allow-http', '--jq', '.id'], { cwd: app, env, encoding: 'utf8' }, (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
        );
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('101\n');
      expect(tunnels).toEqual(['gym.test:80']);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      await sandbox.close();
    }
  });

  it('installs only what the library imports at run time and the keyring: the CLI bundle carries the rest', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(manifest.dependencies!).sort()).toEqual(['undici', 'zod']);
    // The keyring's native module is optional (package-no-keyring.test.ts installs gymctl without it), and installed by default.
    expect(Object.keys(manifest.optionalDependencies!)).toEqual(['@napi-rs/keyring']);
    const modules = path.join(app, 'node_modules');
    const installed = readdirSync(modules)
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) => (name.startsWith('@') ? readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
    // The keyring's native binary for this platform comes as a package of its own.
    const platformBinary = installed.filter((name) => name.startsWith('@napi-rs/keyring-'));
    expect(platformBinary).toHaveLength(1);
    expect(installed.filter((name) => !platformBinary.includes(name)).sort()).toEqual(['@napi-rs/keyring', 'gymctl', 'undici', 'zod']);
    // What the library's entry imports, and nothing the bundle needs.
    const library = readFileSync(path.join(modules, 'gymctl', 'dist', 'index.js'), 'utf8');
    const imported = new Set([...library.matchAll(/(?:from|import\()\s*"([^".][^"]*)"/g)].map(([, name]) => name!.split('/')[0]));
    expect([...imported].sort()).toEqual(['undici', 'zod']);
  });

  it('runs no script when installed: npm has nothing to warn about', () => {
    const { scripts = {} } = JSON.parse(readFileSync(path.join(app, 'node_modules', 'gymctl', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts, hook).not.toHaveProperty(hook);
    expect(installStderr).not.toContain('install-scripts');
  });

  it('npm install -g puts the man page where man finds it', () => {
    const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules', 'gymctl', 'package.json'), 'utf8')) as { man: string[] };
    expect(manifest.man).toEqual(['./dist/gymctl.1']);
    const prefix = path.join(work, 'global');
    npmInstall(['-g', '--prefix', prefix, tarball], work);
    const page = path.join(prefix, 'share', 'man', 'man1', 'gymctl.1');
    expect(readFileSync(page, 'utf8')).toBe(readFileSync(path.join(ROOT, 'dist', 'gymctl.1'), 'utf8'));
  }, 180_000);

  it('installs a gymctl that runs: --version, and whoami against the sandbox', () => {
    const bin = path.join(app, 'node_modules', '.bin', 'gymctl');
    const versionRun = run(bin, ['--version'], app);
    expect(versionRun.stdout).toBe(`${version}\n`);
    const whoami = run(bin, ['whoami', '--sandbox', '--json'], app);
    expect(whoami.status, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).id).toBe(101);
    // --jq finds its WebAssembly beside the bundle, with jq-wasm not installed.
    const jq = run(bin, ['academy', '1', '2', '--sandbox', '--jq', '.name'], app);
    expect(jq.status, jq.stderr).toBe(0);
    expect(jq.stdout).toBe('Alfama Jiu-Jitsu\nEastside Grappling Club\n');
    expect(existsSync(path.join(app, 'node_modules', 'jq-wasm'))).toBe(false);
  });

  it('version --licenses points at the notices inside the installed package', () => {
    const result = run(path.join(app, 'node_modules', '.bin', 'gymctl'), ['version', '--licenses'], app);
    expect(result.status, result.stderr).toBe(0);
    const file = result.stdout.trimEnd().split('\n').at(-1)!;
    expect(realpathSync(file)).toBe(realpathSync(path.join(app, 'node_modules', 'gymctl', 'dist', 'licenses', 'THIRD-PARTY-NOTICES')));
    expect(readFileSync(file, 'utf8')).toContain('\ncommander@');
  });

  it("installs the keyring's native module, which its agent loads: with no D-Bus, the keyring's own error", () => {
    const bin = path.join(app, 'node_modules', '.bin', 'gymctl');
    const config = mkdtempSync(path.join(tmpdir(), 'gymctl-keyring-config-'));
    writeFileSync(path.join(config, 'config.json'), JSON.stringify({ profiles: { default: { keyStore: 'keyring', baseUrl: 'http://127.0.0.1:9' } } }), { mode: 0o600 });
    const { DBUS_SESSION_BUS_ADDRESS: _none, DISPLAY: _no, WAYLAND_DISPLAY: _display, GYMCTL_API_KEY: _key, ...env } = process.env;
    const result = spawnSync(bin, ['whoami'], { cwd: app, env: { ...env, GYMCTL_CONFIG_DIR: config }, encoding: 'utf8' });
    rmSync(config, { recursive: true, force: true });
    expect(result.status).toBe(4);
    expect(result.stderr).toContain('keyring unavailable: no D-Bus session bus');
    expect(existsSync(path.join(app, 'node_modules', '@napi-rs', 'keyring'))).toBe(true);
  });

  it('imports as a library, with openapi.json beside it', () => {
    const script = `import { createClient, GymApiError, academySchema } from 'gymctl';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const openapi = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('gymctl/openapi.json'), 'utf8'));
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890' });
await client.getAcademy(0).catch((error) => console.log(error instanceof GymApiError, error.kind));
console.log(typeof academySchema, openapi.openapi);`;
    writeFileSync(path.join(app, 'use.mjs'), script);
    const result = run(process.execPath, ['use.mjs'], app);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('true usage\nobject 3.1.0\n');
  });

  it('can be required from CommonJS (require(esm), on by default from Node 20.19 and 22.12): the very module import gives, so instanceof holds across', () => {
    writeFileSync(
      path.join(app, 'use.cjs'),
      [
        "const { createClient, GymApiError } = require('gymctl');",
        'console.log(typeof createClient, typeof GymApiError);',
        "import('gymctl').then(async (esm) => {",
        "  const failure = await createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890' }).getAcademy(0).catch((error) => error);",
        '  console.log(esm.GymApiError === GymApiError, failure instanceof esm.GymApiError, failure instanceof GymApiError, esm.GymApiError.isUsage(failure));',
        '});',
      ].join('\n'),
    );
    const result = run(process.execPath, ['use.cjs'], app);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('function function\ntrue true true true\n');
  });

  it('brings full types: a correct program compiles, a wrong one does not', () => {
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    const options = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--typeRoots',
      path.join(ROOT, 'node_modules', '@types'),
      '--types',
      'node',
    ];
    writeFileSync(
      path.join(app, 'good.ts'),
      `import { createClient, GymApiError, type Academy, type FamilyMember } from 'gymctl';
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890', timeoutMs: 5000 });
export async function names(): Promise<string[]> {
  const academy: Academy = await client.getAcademy(1);
  const family: FamilyMember[] = await client.listFamily(501);
  const me = await client.getMe();
  return [academy.name ?? '', ...family.map((m) => m.firstName ?? ''), me.user?.email ?? ''];
}
export const isError = (e: unknown): e is GymApiError => e instanceof GymApiError && e.kind === 'not_found';
`,
    );
    writeFileSync(
      path.join(app, 'bad.ts'),
      `import { createClient } from 'gymctl';
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
export const wrong: string = client.getAcademy('one');
`,
    );
    const good = run(tsc, [...options, 'good.ts'], app);
    expect(good.status, good.stdout + good.stderr).toBe(0);
    const bad = run(tsc, [...options, 'bad.ts'], app);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toMatch(/bad\.ts/);
  });
});

describe('the types a TypeScript user gets from the installed package', () => {
  /** tsc on `files` in a folder of the installed app, with @types/node nowhere: `types: []`, and the lib the library's declarations need. */
  const compile = (folder: string, files: Record<string, string>, options: Record<string, unknown> = {}) => {
    const dir = path.join(app, folder);
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
    const compilerOptions = { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true, ...options };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(files) }));
    const result = run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir, '--pretty', 'false', '--listFiles'], dir);
    const listed = result.stdout.split('\n').filter((line) => line.startsWith('/'));
    return { status: result.status, errors: result.stdout.split('\n').filter((line) => /error TS\d+/.test(line)), listed, dir };
  };

  const USE = `import { academySchema, createClient, extraFields, GymApiError, type Academy, type ErrorBody, type WithResponse } from 'gymctl';
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890', signal: AbortSignal.timeout(5000), env: {} });
export async function show(): Promise<string> {
  try {
    const { data, response, correlationId }: WithResponse<Academy> = await client.getAcademy(1).withResponse();
    const headers: Headers = response.headers;
    const extra: Record<string, unknown> = extraFields(data, academySchema);
    const raw: Response = await client.getAcademy(1).asResponse();
    return [data.name, data.address?.city, response.status, response.url, headers.get('x-ratelimit-remaining'), correlationId, Object.keys(extra), raw.bodyUsed].join(' ');
  } catch (error) {
    if (GymApiError.isNotFound(error)) return error.correlationId ?? '';
    throw error;
  }
}
export const body: ErrorBody = { message: 'Resource not found', correlationId: '019a7e3c-5b1d-7f42-9c3e-0a1b2c3d4e5f' };
`;

  it('type-check with tsc --strict in a project without @types/node (types: [], lib es2022 and dom), undici’s types never read', () => {
    expect(existsSync(path.join(app, 'node_modules', '@types'))).toBe(false);
    const { status, errors, listed } = compile('no-node-types', { 'use.ts': USE });
    expect(errors).toEqual([]);
    expect(status).toBe(0);
    expect(listed.some((file) => file.includes('/node_modules/gymctl/dist/types/index.d.ts'))).toBe(true);
    // Neither Node's types nor undici's are part of the program: nothing of gymctl's names them.
    expect(listed.filter((file) => file.includes('/@types/') || file.includes('/node_modules/undici/'))).toEqual([]);
  });

  it.each(['node16', 'node18', 'nodenext'])('type-check from CommonJS under module %s: the CommonJS declarations, and a misspelt field is still an error', (mode) => {
    const source = `import { createClient, GymApiError, type Academy } from 'gymctl';
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890' });
export async function name(): Promise<string> {
  const academy: Academy = await client.getAcademy(1).catch((error: unknown) => {
    if (error instanceof GymApiError && GymApiError.isNotFound(error)) throw new Error(error.message);
    throw error;
  });
  return academy.name ?? String(academy.id + 1);
}
`;
    const { status, errors, listed } = compile(`cjs-${mode}`, { 'use.cts': source }, { module: mode, moduleResolution: mode === 'nodenext' ? 'nodenext' : 'node16' });
    expect(errors).toEqual([]);
    expect(status).toBe(0);
    expect(listed.some((file) => file.includes('/node_modules/gymctl/dist/cjs/index.d.ts'))).toBe(true);
    const typo = compile(
      `cjs-typo-${mode}`,
      { 'typo.cts': source.replace('academy.name ??', 'academy.nmae ??') },
      { module: mode, moduleResolution: mode === 'nodenext' ? 'nodenext' : 'node16' },
    );
    expect(typo.errors).toEqual([expect.stringMatching(/^typo\.cts\(\d+,\d+\): error TS2339: Property 'nmae' does not exist on type 'Academy'/)]);
  });

  it('a misspelt field is an error (TS2339), and a declaration emitted from the client names Academy', () => {
    const typo = compile('typo', {
      'typo.ts': `import { createClient } from 'gymctl';\nconst client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890' });\nconst a = await client.getAcademy(1);\nexport const name = a.nmae;\n`,
    });
    expect(typo.errors).toEqual([expect.stringMatching(/^typo\.ts\(4,23\): error TS2339: Property 'nmae' does not exist on type 'Academy'\.$/)]);
    const emitted = compile(
      'emitted',
      {
        'reexport.ts': `import { createClient } from 'gymctl';\nconst client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key_1234567890' });\nexport const f = () => client.getAcademy(1);\nexport const g = () => client.listFamily(501);\n`,
      },
      { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: 'out' },
    );
    expect(emitted.errors).toEqual([]);
    const declaration = readFileSync(path.join(emitted.dir, 'out', 'reexport.d.ts'), 'utf8');
    expect(declaration).toContain('export declare const f: () => import("gymctl").ApiPromise<import("gymctl").Academy>;');
    expect(declaration).toContain('export declare const g: () => import("gymctl").ApiPromise<import("gymctl").FamilyMember[]>;');
  });

  it('every field of the named types has its comment in the shipped declarations', () => {
    const types = path.join(app, 'node_modules', 'gymctl', 'dist', 'types');
    const files = readdirSync(types, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.d.ts'));
    const texts = files.map((file) => readFileSync(path.join(types, file), 'utf8'));
    for (const name of ['Academy', 'Address', 'Coordinates', 'ApiKey', 'User', 'FamilyMember', 'PhotoUrls', 'ErrorBody']) {
      const blocks = texts.flatMap((text) => [...text.matchAll(new RegExp(`/\\*\\* .+ \\*/\\nexport type ${name} = \\{\\n([\\s\\S]*?)\\n\\};`, 'g'))].map((found) => found[1]!));
      expect(blocks, name).toHaveLength(1);
      const lines = blocks[0]!.split('\n');
      const members = lines.filter((line) => /^ {4}\w+\??: /.test(line));
      expect(members.length, name).toBeGreaterThan(1);
      // Each member comes after its own one-line comment, and there is nothing else.
      expect(lines, name).toEqual(lines.map((_line, i) => (i % 2 === 0 ? expect.stringMatching(/^ {4}\/\*\* \S.* \*\/$/) : expect.stringMatching(/^ {4}\w+\??: /))));
    }
  });

  it('withResponse() from the installed package: the status, a header and the correlation ID of a success, a 64-bit id exact, extra fields reachable; its User-Agent has the version', () => {
    const script = `import http from 'node:http';
import { academySchema, createClient, extraFields } from 'gymctl';
let userAgent;
const server = http.createServer((request, response) => {
  userAgent = request.headers['user-agent'];
  response.writeHead(200, { 'content-type': 'application/json', 'x-correlation-id': '0190a5c4-7b1e-7c3a-9d2f-5e8b4a6c1d20', 'x-ratelimit-remaining': '41' });
  response.end('{"data":{"id":1,"name":"Alfama","franchiseId":9223372036854775807,"belt":"black"}}');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const client = createClient({ baseUrl: 'http://127.0.0.1:' + server.address().port, apiKey: 'key_1234567890', ids: 'bigint' });
const { data, response, correlationId } = await client.getAcademy(1).withResponse();
console.log(response instanceof Response, response.status, response.headers.get('X-RateLimit-Remaining'), correlationId, String(data.franchiseId), typeof data.franchiseId, JSON.stringify(extraFields(data, academySchema)));
console.log(userAgent, JSON.stringify(Object.keys(await client.getAcademy(1))));
await client.close();
server.close();`;
    writeFileSync(path.join(app, 'with-response.mjs'), script);
    const result = run(process.execPath, ['with-response.mjs'], app);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `true 200 41 0190a5c4-7b1e-7c3a-9d2f-5e8b4a6c1d20 9223372036854775807 bigint {"belt":"black"}\ngymctl/${version} ["id","name","franchiseId","belt"]\n`,
    );
  });
});
