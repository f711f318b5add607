/**
 * What gymctl does with its keyring agent (src/keyring/client.ts), the agent a stand-in of this process through the
 * seam `agentProcess`: how long it is waited for (time to type a password where the keyring may ask in a window),
 * Ctrl-C ending it, and what its answers mean.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FailureWithFix } from '../../src/failures.js';
import { agentProcess, deleteKeyringKey, explain, keyringError, readKeyringKey, storeKeyringKey } from '../../src/keyring/client.js';
import { keyringStore } from '../../src/keyring/stores.js';
import type { KeyringAnswer, KeyringRequest } from '../../src/keyring/protocol.js';

/** A stand-in agent: its answer to each request (none: it hangs until killed), and the signals it was sent. */
class FakeAgent extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly signals: string[] = [];
  request: KeyringRequest | undefined;
  constructor(answer: ((request: KeyringRequest) => KeyringAnswer | string | Error) | undefined, stderr = '') {
    super();
    let input = '';
    this.stdin.setEncoding('utf8').on('data', (chunk: string) => (input += chunk));
    this.stdin.on('end', () => {
      this.request = JSON.parse(input) as KeyringRequest;
      if (!answer) return;
      const said = answer(this.request);
      // An agent that could not be started, or whose stdin broke: an error event, and no close.
      if (said instanceof Error) {
        (said.message.includes('EPIPE') ? this.stdin : this).emit('error', said);
        if (said.message.includes('EPIPE')) this.stdout.end('{"ok":true,"value":"after_epipe"}', () => setImmediate(() => this.emit('close', 0, null)));
        return;
      }
      const reply = said;
      this.stderr.end(stderr);
      this.stdout.end(typeof reply === 'string' ? reply : `${JSON.stringify(reply)}\n`, () => setImmediate(() => this.emit('close', 0, null)));
    });
  }
  kill(signal: string): boolean {
    this.signals.push(signal);
    setImmediate(() => this.emit('close', null, signal));
    return true;
  }
}

const realSpawn = agentProcess.spawn;
let agents: FakeAgent[] = [];
afterEach(() => {
  agentProcess.spawn = realSpawn;
  agents = [];
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** Every agent started answers so (or hangs, with no answer). */
function agentAnswers(answer?: (request: KeyringRequest) => KeyringAnswer | string | Error, stderr?: string): void {
  agentProcess.spawn = () => {
    const agent = new FakeAgent(answer, stderr);
    agents.push(agent);
    return agent as unknown as ReturnType<typeof realSpawn>;
  };
}

/** Runs `body` as if on `platform`. */
async function on<T>(platform: NodeJS.Platform, body: () => Promise<T>): Promise<T> {
  const real = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { ...real, value: platform });
  try {
    return await body();
  } finally {
    Object.defineProperty(process, 'platform', real);
  }
}

/** How long a hung agent is waited for before it is killed, in fake time, and what the read then fails with. */
async function waitedFor(env: NodeJS.ProcessEnv): Promise<{ ms: number; message: string }> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  agentAnswers();
  const failure = readKeyringKey('default', { env }).then(
    () => 'answered',
    (error: Error) => error.message,
  );
  let ms = 0;
  while (agents[0]?.signals.length !== 1 && ms < 120_000) {
    await vi.advanceTimersByTimeAsync(1000);
    ms += 1000;
  }
  expect(agents[0]!.signals).toEqual(['SIGKILL']);
  return { ms, message: await failure };
}

describe('how long the keyring agent is waited for', () => {
  it('on a Linux desktop (DISPLAY or WAYLAND_DISPLAY), 60 s, time to type the unlock prompt’s password, not 5 s', async () => {
    await on('linux', async () => {
      expect(await waitedFor({ DISPLAY: ':0' })).toEqual({ ms: 60_000, message: 'keyring unavailable: the keyring did not answer within 60 s (is its daemon hung?)' });
      agents = [];
      expect((await waitedFor({ WAYLAND_DISPLAY: 'wayland-0' })).ms).toBe(60_000);
    });
  });

  it('on macOS and Windows, which may prompt with no DISPLAY, 60 s', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      agents = [];
      expect((await on(platform, () => waitedFor({}))).ms).toBe(60_000);
    }
  });

  it('on Linux with no display (a server, SSH), 5 s: no prompt can come, and a script moves on', async () => {
    await on('linux', async () => {
      expect(await waitedFor({ DISPLAY: '', WAYLAND_DISPLAY: '' })).toEqual({
        ms: 5000,
        message: 'keyring unavailable: the keyring did not answer within 5 s (is its daemon hung?)',
      });
    });
  });

  it('an agent that answers in time is not killed, and no timer is left behind', async () => {
    agentAnswers(() => ({ ok: true, value: 'stored_key_1234' }));
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    expect(await readKeyringKey('default', { env: {} })).toBe('stored_key_1234');
    expect(agents[0]!.signals).toEqual([]);
    expect(cleared).toHaveBeenCalled();
  });
});

describe('Ctrl-C while the keyring agent is waited for', () => {
  it('ends the agent at once and stops gymctl, rather than hanging until the agent’s time is up', async () => {
    // The agent's own time limit never comes: only Ctrl-C can end the wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    agentAnswers();
    const controller = new AbortController();
    let outcome: unknown = 'still waiting';
    void readKeyringKey('default', { env: { DISPLAY: ':0' }, signal: controller.signal }).then(
      () => (outcome = 'answered'),
      (error: Error) => (outcome = error.message),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(agents[0]!.signals).toEqual([]);
    controller.abort(new Error('interrupted'));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(agents[0]!.signals).toEqual(['SIGKILL']);
    expect(outcome).toBe('interrupted');
  });

  it('after the agent answered, the signal no longer reaches it', async () => {
    agentAnswers(() => ({ ok: true, value: 'stored_key_1234' }));
    const controller = new AbortController();
    expect(await readKeyringKey('default', { env: {}, signal: controller.signal })).toBe('stored_key_1234');
    controller.abort();
    expect(agents[0]!.signals).toEqual([]);
  });
});

describe('what the agent’s answers mean', () => {
  it('auth logout’s delete: true only when the keyring held a key, so "Removed" is never said of a key that was not there', async () => {
    agentAnswers(() => ({ ok: true, value: 'deleted' }));
    expect(await deleteKeyringKey('default', { env: {} })).toBe(true);
    agentAnswers(() => ({ ok: true, value: null }));
    expect(await deleteKeyringKey('default', { env: {} })).toBe(false);
  });

  it('each call sends its request, the key only with set; an empty keyring is undefined', async () => {
    agentAnswers(() => ({ ok: true, value: null }));
    expect(await readKeyringKey('work', { env: {} })).toBeUndefined();
    await storeKeyringKey('work', 'new_key_5678', { env: {} });
    await deleteKeyringKey('work', { env: {} });
    expect(agents.map((agent) => agent.request)).toEqual([
      { op: 'get', account: 'work' },
      { op: 'set', account: 'work', secret: 'new_key_5678' },
      { op: 'delete', account: 'work' },
    ]);
  });

  it('an agent that fails without an answer is said with the last line it wrote, or without one', async () => {
    agentAnswers(() => '', 'first line\nsecond line\nTypeError: boom\n');
    await expect(readKeyringKey('default', { env: {} })).rejects.toThrow(/^keyring unavailable: the keyring agent failed: TypeError: boom$/);
    agentAnswers(() => '', '  \n');
    await expect(readKeyringKey('default', { env: {} })).rejects.toThrow(/^keyring unavailable: the keyring agent failed$/);
  });

  it('a refusal becomes the keyring’s error, its message explained', async () => {
    agentAnswers(() => ({ ok: false, trouble: 'locked', message: 'Collection is locked' }));
    const error = (await readKeyringKey('default', { env: {} }).catch((thrown: unknown) => thrown)) as FailureWithFix;
    expect(error.message).toBe('keyring locked: Collection is locked');
    agentAnswers(() => ({ ok: false, trouble: 'missing', message: '@napi-rs/keyring is not installed' }));
    await expect(readKeyringKey('default', { env: {} })).rejects.toThrow('the system keyring is not available on this install (@napi-rs/keyring is not installed)');
  });
});

describe('an agent that fails to start or to take its request', () => {
  it('an agent that cannot be started (an error, and no close) is said as a failed agent, not waited for', async () => {
    agentAnswers(() => Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' }));
    await expect(readKeyringKey('default', { env: {} })).rejects.toThrow(/^keyring unavailable: the keyring agent failed$/);
  });

  it('an agent whose stdin breaks (EPIPE) does not crash gymctl: its answer is still read', async () => {
    agentAnswers(() => new Error('write EPIPE'));
    expect(await readKeyringKey('default', { env: {} })).toBe('after_epipe');
  });
});

describe('where the agent is and how it is spawned', () => {
  const global = globalThis as { __KEYRING_AGENT__?: string };
  afterEach(() => {
    delete global.__KEYRING_AGENT__;
  });

  it('the built agent beside the bundle when the build names it, else dist/ from the sources', async () => {
    const started: string[] = [];
    agentProcess.spawn = (_command, args) => {
      started.push(args[0]!);
      const agent = new FakeAgent(() => ({ ok: true, value: null }));
      return agent as unknown as ReturnType<typeof realSpawn>;
    };
    await readKeyringKey('default', { env: {} });
    global.__KEYRING_AGENT__ = './side/agent-here.cjs';
    await readKeyringKey('default', { env: {} });
    expect(started).toEqual([expect.stringMatching(/[/\\]dist[/\\]keyring-agent\.cjs$/), expect.stringMatching(/[/\\]src[/\\]keyring[/\\]side[/\\]agent-here\.cjs$/)]);
  });

  it('the seam spawns a real process by default', async () => {
    const child = realSpawn(process.execPath, ['-e', 'process.stdout.write("spawned")'], {});
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    await new Promise((resolve) => child.on('close', resolve));
    expect(out).toBe('spawned');
  });
});

describe('the keyring’s failures, word for word', () => {
  const store = keyringStore('linux');
  const Store = `${store.name[0]!.toUpperCase()}${store.name.slice(1)}`;
  const keeps = [`Profile "work" keeps its key in the system keyring, ${store.name}.`, `See it in ${store.see}.`];
  const said = (error: unknown) => ({ kind: (error as FailureWithFix).kind, message: (error as FailureWithFix).message, fix: (error as FailureWithFix).fix });

  it('storing a key: locked, or unavailable, with the reason on one line', () => {
    expect(said(keyringError('locked', '  the collection\n\n is locked  ', { op: 'set', account: 'work' }, 'linux'))).toEqual({
      kind: 'unauthorized',
      message: 'keyring locked: the collection is locked; the key was not stored, and profile "work" is unchanged',
      fix: [store.unlock],
    });
    expect(said(keyringError('unavailable', 'no daemon', { op: 'set', account: 'work' }, 'linux'))).toEqual({
      kind: 'unauthorized',
      message: 'keyring unavailable: no daemon; the key was not stored, and profile "work" is unchanged',
      fix: [
        `${Store} could not take it. To go on, either:`,
        '- log in without --keyring, to keep the key in the config file (readable by you alone), or',
        `- run gymctl ${store.reach}.`,
      ],
    });
  });

  it('reading a key: locked, or unavailable', () => {
    expect(said(keyringError('locked', 'locked', { op: 'get', account: 'work' }, 'linux'))).toEqual({
      kind: 'unauthorized',
      message: 'keyring locked: locked',
      fix: [...keeps, store.unlock, 'Or set GYMCTL_API_KEY.'],
    });
    expect(said(keyringError('unavailable', 'no daemon', { op: 'delete', account: 'work' }, 'linux'))).toEqual({
      kind: 'unauthorized',
      message: 'keyring unavailable: no daemon',
      fix: [
        ...keeps,
        'To go on, either:',
        `- run gymctl ${store.reach},`,
        '- move the key to the config file: gymctl auth login --no-keyring --profile work, or',
        '- set GYMCTL_API_KEY.',
      ],
    });
  });

  it('no native module', () => {
    expect(said(keyringError('missing', '@napi-rs/keyring is not installed', { op: 'get', account: 'work' }, 'linux'))).toEqual({
      kind: 'unauthorized',
      message: 'the system keyring is not available on this install (@napi-rs/keyring is not installed)',
      fix: [
        ...keeps,
        'To go on, either:',
        '- install gymctl with its optional dependencies (without --omit=optional),',
        '- keep a key in the config file instead: gymctl auth login --no-keyring --profile work, or',
        '- set GYMCTL_API_KEY.',
      ],
    });
  });

  it('the native library’s reasons, explained; a missing module’s reason is given as it is', async () => {
    expect(explain('No result found', {}, 'linux')).toBe('the Secret Service has no default keyring to keep keys in');
    expect(explain("Couldn't access platform storage: it broke", {}, 'darwin')).toBe('it broke');
    expect(explain("it said Couldn't access platform storage: twice", {}, 'darwin')).toBe("it said Couldn't access platform storage: twice");
    agentAnswers(() => ({ ok: false, trouble: 'unavailable', message: "Couldn't access platform storage: it broke" }));
    await expect(readKeyringKey('work', { env: {} })).rejects.toThrow(/^keyring unavailable: it broke$/);
    agentAnswers(() => ({ ok: false, trouble: 'missing', message: "Couldn't access platform storage: no result found" }));
    await expect(readKeyringKey('work', { env: {} })).rejects.toThrow("(Couldn't access platform storage: no result found)");
  });
});
