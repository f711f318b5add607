/** The warm-up run inside the start-up snapshot (docs/sea-notes.md, "Warm-up"). */
const [{ Readable, Writable }, fs, path] = [process.getBuiltinModule('node:stream'), process.getBuiltinModule('node:fs'), process.getBuiltinModule('node:path')];

/** node:http with an Agent that holds nothing and a request, a stream (destroy(reason) fails it, as node:http's), that answers `body` once ended, unless destroyed first. */
function standInHttp(body: string) {
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) };
  const response = { statusCode: 200, statusMessage: 'OK', httpVersion: '1.1', headers, rawHeaders: Object.entries(headers).flat() };
  class Agent {
    destroy(): void {}
  }
  const request = (_options: unknown, answer: (response: unknown) => void) =>
    new Writable({
      final(done) {
        setImmediate(() => {
          if (!this.destroyed) answer(Object.assign(Readable.from([Buffer.from(body)], { objectMode: false }), response));
          done();
        });
      },
    });
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

/** Runs `whoami --json` once with stand-ins for what a snapshot cannot hold or a run must not inherit, then puts them back. */
export async function warmUp(main: (argv: string[]) => Promise<unknown>, meBody: string): Promise<void> {
  const written = { stdout: '', stderr: '' };
  const writer = (name: keyof typeof written) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        written[name] += String(chunk);
        done();
      },
    });
  const http = standInHttp(meBody);
  const { getBuiltinModule } = process;
  const realTimeout = globalThis.setTimeout;
  function referenced<T>(this: T): T {
    return this;
  }
  // As after `gymctl auth login`, the snapshot holding that path compiled: the key and base URL in a config file, in a
  // folder of its own removed after; HOME and the XDG folders under a path that does not exist.
  const config = fs.mkdtempSync(path.join(getBuiltinModule('node:os').tmpdir(), 'gymctl-warm-up-'));
  fs.writeFileSync(path.join(config, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: 'warm-up', baseUrl: 'http://127.0.0.1:9' } } }), { mode: 0o600 });
  const folders = Object.fromEntries(['HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME'].map((name) => [name, '/nonexistent/gymctl-snapshot-warm-up']));
  const standIns: Array<[object, string, unknown]> = [
    [process, 'env', { GYMCTL_CONFIG_DIR: config, NO_COLOR: '1', ...folders }],
    [process, 'stdin', Readable.from([], { objectMode: false })],
    [process, 'stdout', writer('stdout')],
    [process, 'stderr', writer('stderr')],
    [process, 'getBuiltinModule', (id: string) => (id === 'node:http' || id === 'http' ? http : getBuiltinModule(id))],
    [AbortSignal, 'any', standInAny],
    // Timers kept referenced: clearing an unreferenced one leaves its list, and the build's moment, in Node's timers.
    [globalThis, 'setTimeout', (...args: Parameters<typeof setTimeout>) => Object.assign(realTimeout(...args), { unref: referenced })],
  ];
  const saved = standIns.map(([target, name, value]) => {
    const descriptor = Object.getOwnPropertyDescriptor(target, name)!;
    Object.defineProperty(target, name, { value, configurable: true, writable: true });
    return () => Object.defineProperty(target, name, descriptor);
  });
  const exitCode = process.exitCode;
  try {
    await main(['whoami', '--json']);
  } finally {
    fs.rmSync(config, { recursive: true, force: true });
    for (const putBack of saved) putBack();
    process.exitCode = exitCode;
  }
  // One timer run to its end, so that Node's next expiry, set by the run's timers, is reset to none.
  await new Promise((resolve) => setTimeout(resolve, 1));
  const expected = `${JSON.stringify(JSON.parse(meBody).data, null, 2)}\n`;
  if (written.stdout !== expected || written.stderr !== '') throw new Error(`the snapshot's warm-up run did not print what whoami prints:\n${written.stdout}${written.stderr}`);
}
