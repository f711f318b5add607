/**
 * What gymctl does with its keyring agent (src/keyring/client.ts), the agent a stand-in of this process through the
 * seam `agentProcess`: how long it is waited for (time to type a password where the keyring may ask in a window),
 * Ctrl-C ending it, and what its answers mean.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FailureWithFix } from '../../src/failures.js';
import { agentProcess, deleteKeyringKey, readKeyringKey, storeKeyringKey } from '../../src/keyring/client.js';
import type { KeyringAnswer, KeyringRequest } from '../../src/keyring/protocol.js';

/** A stand-in agent: its answer to each request (none: it hangs until killed), and the signals it was sent. */
class FakeAgent extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly signals: string[] = [];
  request: KeyringRequest | undefined;
  constructor(answer: ((request: KeyringRequest) => KeyringAnswer | string) | undefined, stderr = '') {
    super();
    let input = '';
    this.stdin.setEncoding('utf8').on('data', (chunk: string) => (input += chunk));
    this.stdin.on('end', () => {
      this.request = JSON.parse(input) as KeyringRequest;
      if (!answer) return;
      const reply = answer(this.request);
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
function agentAnswers(answer?: (request: KeyringRequest) => KeyringAnswer | string, stderr?: string): void {
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
    agentAnswers(() => '', 'first line\nTypeError: boom\n');
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
