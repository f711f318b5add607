/**
 * The warm-up run inside the start-up snapshot: one `whoami --json`, made
 * while the snapshot is built, so that the functions a call runs are
 * compiled already when a run starts.
 *
 * Nothing of the machine that builds the binary may reach a run, and a
 * snapshot cannot hold a socket, a stream on a file descriptor or the
 * signal `AbortSignal.any` makes (nor node:http loaded: its parser binding
 * cannot be serialised, so a call still loads it, as the floor does). So the run gets stand-ins, put back once
 * it is done: an environment of its own (a key, a loopback base URL, no
 * HOME, config or cache folder that exists, no colour), streams that are
 * not the process's, a `node:http` whose request answers at once with the
 * body the sandbox gives for /me, and an `AbortSignal.any` built from
 * plain controllers. `process.exitCode`, and the signal listeners the run
 * adds and removes, are left as they were. The build fails when the
 * warm-up does not print what whoami prints, rather than ship a snapshot
 * warmed by an error.
 *
 * What the run may still leave behind is state of gymctl's own modules,
 * none of it from the machine: the count of answers validated so far
 * (response.ts; its fast path starts one answer sooner), lazily built
 * schemas. Terminal width, colour, paths, time, argv and the environment
 * are read at each run, never kept at module level.
 */

/** The main file's `main`. */
type Main = (argv: string[]) => Promise<unknown>;

/** A directory that does not exist, for HOME and the XDG folders: nothing is read or written. */
const NOWHERE = '/nonexistent/gymctl-snapshot-warm-up';

function standInStreams() {
  const { Readable, Writable } = process.getBuiltinModule('node:stream');
  let out = '';
  let err = '';
  const writer = (add: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        add(String(chunk));
        done();
      },
    });
  const stdin = new Readable({ read() {} });
  stdin.push(null);
  return {
    stdin,
    stdout: writer((text) => {
      out += text;
    }),
    stderr: writer((text) => {
      err += text;
    }),
    written: () => ({ out, err }),
  };
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
        const response = Object.assign(new Readable({ read() {} }), {
          statusCode: 200,
          statusMessage: 'OK',
          httpVersion: '1.1',
          headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) },
          rawHeaders: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body))],
        });
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
  process.env = {
    GYMCTL_API_KEY: 'snapshot-warm-up',
    GYMCTL_BASE_URL: 'http://127.0.0.1:9',
    HOME: NOWHERE,
    GYMCTL_CONFIG_DIR: NOWHERE,
    XDG_CONFIG_HOME: NOWHERE,
    XDG_CACHE_HOME: NOWHERE,
    NO_COLOR: '1',
  };
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
  const { out, err } = streams.written();
  const expected = `${JSON.stringify(JSON.parse(meBody).data, null, 2)}\n`;
  // Node's own warnings while the snapshot is built (Node 24: "Single executable application is an experimental feature") are not the run's.
  const runErr = err.replace(/^\(node:\d+\) \w*Warning: .*\n(\(Use `node --trace-warnings .*\n)?/gm, '');
  if (out !== expected || runErr !== '') throw new Error(`the snapshot's warm-up run did not print what whoami prints:\n${out}${err}`);
}
