/**
 * The single executable, sealed (issue 44): it takes no code or debugger from its environment (NODE_OPTIONS,
 * NODE_COMPILE_CACHE, SIGUSR1), refuses at once and in one line a folder that is not as it made it, with nothing from
 * it run (a planted package.json, a FIFO, a folder gone or unreadable), and where its cache folder cannot be written (a
 * read-only tmpfs, a full one) it works from its own bytes, as the npm build does, and leaves nothing behind.
 * Each test against the binary has a control where one helps: the same thing done to Node or to the npm build, which
 * shows that the test could fail.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { VERSION } from '../../src/version.js';
import { waitFor } from '../helpers/wait.js';
import { canMount, haveBuilds, listeningPorts, mcpSession, npmBuild, onTmpfs, place, runTo } from './places.js';
import { SEA_NODE, tool } from './run.js';

const ready = haveBuilds("the single executable's sealing tests");

/** The one line gymctl says for a folder that is not as it made it: no stack, nothing else. */
const advice = (folder: string, what: string) => `gymctl: ${folder} is not as this gymctl unpacked it (${what}): remove ${folder}, and run gymctl again\n`;

describe.skipIf(!ready)('nothing from the environment', () => {
  it('NODE_OPTIONS=--require=./x.js gymctl --version does not run x.js (the npm build does)', () => {
    const at = place();
    try {
      writeFileSync(path.join(at.root, 'x.js'), `require('node:fs').writeFileSync(${JSON.stringify(path.join(at.root, 'ran'))}, 'x.js ran');\n`);
      const env = { NODE_OPTIONS: '--require=./x.js' };
      expect(runTo([at.binary, '--version'], at.where, { env, cwd: at.root })).toMatchObject({ status: 0, stdout: `${VERSION}\n`, stderr: '' });
      expect(existsSync(path.join(at.root, 'ran'))).toBe(false);
      // A command that loads side files, too.
      expect(runTo([at.binary, 'whoami', '--sandbox', '--json'], at.where, { env, cwd: at.root })).toMatchObject({ status: 0, stderr: '' });
      expect(existsSync(path.join(at.root, 'ran'))).toBe(false);
      expect(runTo(npmBuild('--version'), at.where, { env, cwd: at.root }).status).toBe(0);
      expect(existsSync(path.join(at.root, 'ran'))).toBe(true);
    } finally {
      at.remove();
    }
  });

  it("NODE_COMPILE_CACHE gets no code: gymctl's files and jq's worker are compiled without it (Node, given the same, writes there)", () => {
    const at = place();
    try {
      const cache = path.join(at.root, 'compile-cache');
      /** The files under the compile cache's folder (Node makes the folder itself at start, whatever gymctl does). */
      const files = () => (existsSync(cache) ? readdirSync(cache, { recursive: true, withFileTypes: true }).filter((entry) => !entry.isDirectory()) : []);
      const env = { NODE_COMPILE_CACHE: cache };
      expect(runTo([at.binary, 'academies', '--sandbox', '--jq', '.name'], at.where, { env })).toMatchObject({ status: 0, stderr: '' });
      expect(runTo([at.binary, 'academy', '1', '--sandbox', '--format', 'csv'], at.where, { env })).toMatchObject({ status: 0, stderr: '' });
      expect(files()).toEqual([]);
      // The control: the same Node, the same variable, a module required from a file.
      writeFileSync(path.join(at.root, 'a.cjs'), "require('./b.cjs');\n");
      writeFileSync(path.join(at.root, 'b.cjs'), 'module.exports = 1;\n');
      expect(runTo([SEA_NODE, path.join(at.root, 'a.cjs')], at.where, { env }).status).toBe(0);
      expect(files()).not.toEqual([]);
    } finally {
      at.remove();
    }
  });

  it('kill -USR1 on gymctl mcp opens no inspector, and the server goes on (Node, sent the same, opens one)', async () => {
    const at = place();
    // The control listens on a port of the system's choosing, so that another inspector on 9229 cannot fail it.
    const control = spawn(SEA_NODE, ['--inspect-port=0', '-e', "process.stdout.write('ready\\n'); setInterval(() => {}, 1e9);"], { stdio: ['ignore', 'pipe', 'pipe'] });
    const session = await mcpSession([at.binary, 'mcp'], at.where, { GYMCTL_API_KEY: DEMO_KEY, GYMCTL_BASE_URL: 'http://127.0.0.1:1' });
    try {
      let controlOut = '';
      let controlErr = '';
      control.stdout.setEncoding('utf8').on('data', (chunk: string) => (controlOut += chunk));
      control.stderr.setEncoding('utf8').on('data', (chunk: string) => (controlErr += chunk));
      await waitFor('the control Node to start', () => controlOut.includes('ready'));
      const pid = session.child.pid!;
      expect(listeningPorts(pid)).toEqual([]);
      process.kill(control.pid!, 'SIGUSR1');
      process.kill(pid, 'SIGUSR1');
      // Node opens its inspector on SIGUSR1: by the time the control's is listening, and the binary has answered a
      // request sent after its signal, the binary has had its signal handled as long as the control had.
      await waitFor("the control's inspector", () => controlErr.includes('Debugger listening on ws://'));
      expect(listeningPorts(control.pid!)).not.toEqual([]);
      expect(await session.ask(2, 'tools/list')).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
      expect({ ports: listeningPorts(pid), stderr: session.stderr() }).toEqual({ ports: [], stderr: expect.not.stringMatching(/Debugger|inspector/i) });
    } finally {
      control.kill('SIGKILL');
      await session.end();
      at.remove();
    }
  });
});

describe.skipIf(!ready)('nothing run from disk but what it checked: a folder that is not as gymctl made it is refused at once, in one line', () => {
  /** The folder unpacked by a first run, then `change`d. */
  const changed = (change: (folder: string, at: ReturnType<typeof place>) => void) => {
    const at = place();
    expect(runTo([at.binary, 'version'], at.where).status).toBe(0);
    change(at.folder, at);
    return at;
  };

  it('a package.json planted beside the keyring addon, leading to code outside the folder: neither gymctl nor its keyring agent runs it', () => {
    const at = changed((folder, { root }) => {
      const evil = path.join(folder, '..', 'node_modules', '@napi-rs', 'keyring', 'evil.js');
      mkdirSync(path.dirname(evil), { recursive: true, mode: 0o700 });
      writeFileSync(evil, `require('node:fs').writeFileSync(${JSON.stringify(path.join(root, 'ran'))}, 'evil.js ran');\n`);
      writeFileSync(path.join(folder, 'node_modules', '@napi-rs', 'keyring', 'package.json'), '{"main": "../../../../node_modules/@napi-rs/keyring/evil.js"}\n');
    });
    try {
      const refused = advice(at.folder, 'node_modules/@napi-rs/keyring/package.json is not a file this gymctl unpacked');
      const login = runTo([at.binary, 'auth', 'login', '--keyring', '--with-key', '--base-url', 'http://127.0.0.1:1'], at.where, { input: DEMO_KEY });
      expect(login).toMatchObject({ status: 1, stdout: '', stderr: refused });
      // The agent itself, as gymctl starts it, with a request on stdin.
      const agent = runTo([at.binary, path.join(at.folder, 'keyring-agent.cjs')], at.where, { input: '{"op":"get","account":"default"}' });
      expect(agent).toMatchObject({ status: 1, stdout: '', stderr: refused });
      expect(existsSync(path.join(at.root, 'ran'))).toBe(false);
    } finally {
      at.remove();
    }
  });

  it('jq.wasm a FIFO, or a link to /dev/zero: --jq is refused at once, never hangs', () => {
    const at = changed((folder) => {
      rmSync(path.join(folder, 'jq.wasm'));
      expect(spawnSync('mkfifo', [path.join(folder, 'jq.wasm')]).status).toBe(0);
    });
    try {
      const jq = () => runTo([at.binary, 'academies', '--sandbox', '--jq', '.name'], at.where);
      expect(jq()).toMatchObject({ status: 1, signal: null, stdout: '', stderr: advice(at.folder, 'jq.wasm is not a regular file') });
      rmSync(path.join(at.folder, 'jq.wasm'));
      symlinkSync('/dev/zero', path.join(at.folder, 'jq.wasm'));
      expect(jq()).toMatchObject({ status: 1, signal: null, stdout: '', stderr: advice(at.folder, 'jq.wasm is not a regular file') });
    } finally {
      at.remove();
    }
  });

  it('the keyring addon a FIFO: the keyring agent refuses it at once', () => {
    const addon = path.join('node_modules', '@napi-rs', 'keyring', 'index.node');
    const at = changed((folder) => {
      rmSync(path.join(folder, addon));
      expect(spawnSync('mkfifo', [path.join(folder, addon)]).status).toBe(0);
    });
    try {
      const agent = runTo([at.binary, path.join(at.folder, 'keyring-agent.cjs')], at.where, { input: '{"op":"get","account":"default"}' });
      expect(agent).toMatchObject({ status: 1, signal: null, stdout: '', stderr: advice(at.folder, 'node_modules/@napi-rs/keyring/index.node is not a regular file') });
    } finally {
      at.remove();
    }
  });

  it('side/ gone: the same advice, no stack', () => {
    const at = changed((folder, { root }) => renameSync(path.join(folder, 'side'), path.join(root, 'side')));
    try {
      expect(runTo([at.binary, 'whoami', '--sandbox'], at.where)).toMatchObject({ status: 1, stdout: '', stderr: advice(at.folder, 'side is missing') });
      // Put back, it is as gymctl made it again.
      renameSync(path.join(at.root, 'side'), path.join(at.folder, 'side'));
      expect(runTo([at.binary, 'whoami', '--sandbox'], at.where)).toMatchObject({ status: 0, stderr: '' });
    } finally {
      at.remove();
    }
  });

  const setpriv = tool('setpriv');
  it.runIf(process.getuid?.() === 0 && setpriv)('side/ unreadable (mode 000, for a user who is not root): the same advice, no stack', () => {
    const at = place();
    const nobody = 65534;
    try {
      // The user's own home and binary, under a folder they can reach.
      chmodSync(at.root, 0o755);
      for (const dir of [at.where.home, at.where.config, at.where.cache, at.where.tmp, at.where.bin]) chownSync(dir, nobody, nobody);
      const asNobody = (...args: string[]) => runTo([setpriv!, `--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', at.binary, ...args], at.where);
      expect(asNobody('version')).toMatchObject({ status: 0, stderr: '' });
      const folder = path.join(realpathSync(at.where.cache), 'gymctl-sea', path.basename(at.folder));
      chmodSync(path.join(folder, 'side'), 0o000);
      expect(asNobody('whoami', '--sandbox')).toMatchObject({ status: 1, stdout: '', stderr: advice(folder, 'cannot read side: EACCES') });
    } finally {
      at.remove();
    }
  });
});

describe.skipIf(!ready)('a cache folder that cannot be written: the binary works from its own bytes', () => {
  it.runIf(canMount('the read-only cache test'))(
    'on a read-only tmpfs: whoami --sandbox, --jq . and version --licenses exit 0, as the npm build; the keyring says in one line what it needs',
    () => {
      const at = place();
      try {
        const commands = [['whoami', '--sandbox'], ['whoami', '--sandbox', '--jq', '.'], ['version', '--licenses'], ['version']];
        const login = { argv: [at.binary, 'auth', 'login', '--keyring', '--with-key', '--base-url', 'http://127.0.0.1:1'], stdin: DEMO_KEY };
        const { outputs, listing } = onTmpfs(
          'ro',
          [...commands.map((args) => ({ argv: [at.binary, ...args] })), login, ...commands.map((args) => ({ argv: npmBuild(...args) }))],
          at.where,
        );
        const [binary, npm] = [outputs.slice(0, 4), outputs.slice(5)];
        expect([...binary, ...npm].map((ran) => [ran.status, ran.stderr])).toEqual(Array(8).fill([0, '']));
        // What the API gives is the same; where the notices are is said as the binary has them.
        expect(binary.slice(0, 2).map((ran) => ran.stdout)).toEqual(npm.slice(0, 2).map((ran) => ran.stdout));
        expect(binary[1]!.stdout).toContain('"Front desk (demo)"');
        // The binary bundles undici, which the npm build takes from node_modules: one package more.
        const counted = npm[2]!.stdout.split('\n')[0]!.replace(/bundles (\d+)/, (_, n: string) => `bundles ${Number(n) + 1}`);
        expect(binary[2]!.stdout).toBe(
          `${counted}\nTheir licence notices, each with its licence text, are in this binary, which writes them to a file in its cache folder when it can: set XDG_CACHE_HOME to a writable folder of your own.\n`,
        );
        expect(binary[3]!.stdout).toBe(
          `gymctl version ${VERSION}\nThird-party licence notices: in this binary, which writes them to a file in its cache folder when it can: set XDG_CACHE_HOME to a writable folder of your own\n`,
        );
        // The keyring module must be a file: one line says what needs the folder and how to give it one; nothing stored.
        expect(outputs[4]!.status).toBe(4);
        expect(outputs[4]!.stderr.split('\n')[0]).toBe(
          `gymctl: keyring unavailable: the keyring module must be a file on disk, and gymctl cannot write it into ${path.join(at.where.cache, 'gymctl-sea')} (EROFS): set XDG_CACHE_HOME to a writable folder of your own; the key was not asked for, and nothing was stored`,
        );
        expect(listing).toEqual([]);
      } finally {
        at.remove();
      }
    },
  );

  it.runIf(canMount('the full cache test'))('on a full 4 MB tmpfs: five runs work and leave no temporary folder; the disk is left empty', () => {
    const at = place();
    try {
      const runs = Array.from({ length: 5 }, () => ({ argv: [at.binary, 'whoami', '--sandbox'] }));
      const { outputs, listing } = onTmpfs('size=4m', [...runs, { argv: [at.binary, 'academies', '--sandbox', '--jq', '.name'] }], at.where);
      expect(outputs.map((ran) => [ran.status, ran.stderr])).toEqual(Array(6).fill([0, '']));
      expect(outputs[5]!.stdout).toContain('Alfama Jiu-Jitsu\n');
      // gymctl-sea/ itself, made before the disk filled, and nothing in it.
      expect(listing).toEqual(['gymctl-sea d']);
    } finally {
      at.remove();
    }
  });
});
