/**
 * The warm-up run inside the start-up snapshot: one `whoami --json` while it is built, so that a run starts with a
 * call's functions compiled. Nothing of the building machine may reach a run, and a snapshot can hold no socket, no
 * stream on a descriptor, no `AbortSignal.any` signal and no node:http (its parser binding cannot be serialised): the
 * run gets stand-ins for the environment, the streams, node:http (answering the sandbox's /me at once) and
 * `AbortSignal.any`, all put back after it, with `process.exitCode` and the signal listeners. The build fails unless
 * it printed what whoami prints. What it leaves is gymctl's own module state (docs/sea-notes.md has the audit).
 */

/** The main file's `main`. */
type Main = (argv: string[]) => Promise<unknown>;

/** A directory that does not exist, for HOME and the XDG folders: nothing is read or written. */
const NOWHERE = '/nonexistent/gymctl-snapshot-warm-up';

function standInStreams() {
  const { Readable, Writable } = process.getBuiltinModule('node:stream');
  const written = { stdout: '', stderr: '' };
  const writer = (name: keyof typeof written) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        written[name] += String(chunk);
        done();
      },
    });
  const stdin = new Readable({ read() {} });
  stdin.push(null);
  return { stdin, stdout: writer('stdout'), stderr: writer('stderr'), written };
}

/** node:http with an Agent that holds nothing and a request that answers `body` at once. */
function standInHttp(body: string) {
  const { EventEmitter } = process.getBuiltinModule('node:events');
  const { Readable } = process.getBuiltinModule('node:stream');
  class Agent {
    destroy(): void {}
  }
  const request = (_options: unknown, answer: (response: unknown) => void) => {
    const sent = new EventEmitter() as InstanceType<typeof EventEmitter> & { end(): void; destroy(reason?: unknown): void };
    let stopped = false;
    sent.destroy = (reason) => {
      stopped = true;
      if (reason !== undefined) setImmediate(() => sent.emit('error', reason));
    };
    sent.end = () =>
      setImmediate(() => {
        if (stopped) return;
        const [type, length] = ['application/json; charset=utf-8', String(Buffer.byteLength(body))];
        const headers = { headers: { 'content-type': type, 'content-length': length }, rawHeaders: ['Content-Type', type, 'Content-Length', length] };
        const response = Object.assign(new Readable({ read() {} }), { statusCode: 200, statusMessage: 'OK', httpVersion: '1.1', ...headers });
        response.push(Buffer.from(body));
        response.push(null);
        answer(response);
      });
    return sent;
  };
  return { Agent, request };
}

/** AbortSignal.any from plain controllers (the real one's signals cannot be in a snapshot). */
function standInAny(signals: Iterable<AbortSignal>): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

/** Runs `whoami --json` once with stand-ins for everything outside the process, then puts everything back. */
export async function warmUp(main: Main, meBody: string): Promise<void> {
  const streams = standInStreams();
  const http = standInHttp(meBody);
  const saved = {
    env: process.env,
    exitCode: process.exitCode,
    getBuiltinModule: process.getBuiltinModule,
    any: AbortSignal.any,
    streams: (['stdin', 'stdout', 'stderr'] as const).map((name) => [name, Object.getOwnPropertyDescriptor(process, name)] as const),
    listeners: (['SIGINT', 'SIGTERM', 'SIGBREAK'] as const).map((name) => [name, process.listeners(name)] as const),
  };
  const folders = Object.fromEntries(['HOME', 'GYMCTL_CONFIG_DIR', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME'].map((name) => [name, NOWHERE]));
  process.env = { GYMCTL_API_KEY: 'snapshot-warm-up', GYMCTL_BASE_URL: 'http://127.0.0.1:9', NO_COLOR: '1', ...folders };
  for (const name of ['stdin', 'stdout', 'stderr'] as const) Object.defineProperty(process, name, { value: streams[name], configurable: true, writable: true });
  process.getBuiltinModule = ((id: string) => (id === 'node:http' || id === 'http' ? http : saved.getBuiltinModule(id))) as typeof process.getBuiltinModule;
  AbortSignal.any = standInAny;
  try {
    await main(['whoami', '--json']);
  } finally {
    process.env = saved.env;
    process.exitCode = saved.exitCode;
    process.getBuiltinModule = saved.getBuiltinModule;
    AbortSignal.any = saved.any;
    for (const [name, descriptor] of saved.streams) {
      if (descriptor) Object.defineProperty(process, name, descriptor);
      else delete (process as unknown as Record<string, unknown>)[name];
    }
    for (const [name, listeners] of saved.listeners) {
      process.removeAllListeners(name);
      for (const listener of listeners) process.on(name, listener as () => void);
    }
  }
  const { stdout: out, stderr: err } = streams.written;
  const expected = `${JSON.stringify(JSON.parse(meBody).data, null, 2)}\n`;
  // Node's own warnings while the snapshot is built (Node 24: "Single executable application is an experimental feature") are not the run's.
  const runErr = err.replace(/^\(node:\d+\) \w*Warning: .*\n(\(Use `node --trace-warnings .*\n)?/gm, '');
  if (out !== expected || runErr !== '') throw new Error(`the snapshot's warm-up run did not print what whoami prints:\n${out}${err}`);
}
