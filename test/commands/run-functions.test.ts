/**
 * Commands called as functions, as gh tests its commands' run functions:
 * each takes only what it uses, so a test hands it fake streams, an output
 * choice and a real client whose fetch is a stub (as openai-node's tests
 * do). No server, no config folder, no parser.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { runPerId, runSingle } from '../../src/commands/operation/run.js';
import { academy, whoami } from '../../src/operations/index.js';
import type { OutputChoice } from '../../src/output/choice.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';
import { createIO } from '../../src/terminal/io.js';
import { fakeStreams } from '../helpers/harness.js';

const KEY = 'stub_key_0123456789abcdef';

/** A fetch that answers from a table of paths, recording each request. */
function stubFetch(answers: Record<string, { status: number; body: unknown }>) {
  const requests: Array<{ url: string; key: string | null }> = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const href = String(url);
    requests.push({ url: href, key: new Headers(init?.headers).get('x-api-key') });
    const answer = answers[new URL(href).pathname] ?? { status: 404, body: { message: 'Resource not found', correlationId: 'c-404' } };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'Content-Type': 'application/json' } });
  };
  return { fetch, requests };
}

function deps(answers: Record<string, { status: number; body: unknown }>, output: OutputChoice) {
  const streams = fakeStreams();
  const io = createIO(streams.streams, { env: {} });
  const { fetch, requests } = stubFetch(answers);
  const client = createClient({ baseUrl: 'https://api.gym.test', apiKey: KEY, userAgent: 'gymctl/test', retries: 0, fetch });
  const disposers: Array<() => Promise<void>> = [];
  return {
    f: {
      io,
      env: {},
      onDispose: (dispose: () => Promise<void>) => void disposers.push(dispose),
      output: async () => output,
      client: async () => ({ client, explain: <E>(error: E) => error, settings: { debug: false } }),
    },
    requests,
    stdout: streams.stdout,
    stderr: streams.stderr,
  };
}

describe('run functions with a stub client', () => {
  it('whoami prints the key as the server sent it, and sends the key in its header', async () => {
    const me = DEMO_DATA.keys[0]!.key;
    const { f, requests, stdout } = deps({ '/me': { status: 200, body: { data: me } } }, { format: 'json', headers: true });
    await runSingle(f, whoami);
    expect(JSON.parse(stdout())).toEqual(me);
    expect(requests).toEqual([{ url: 'https://api.gym.test/me', key: KEY }]);
  });

  it('academy with several ids: one request each, printed in argument order; a 404 is reported and fails the batch', async () => {
    const [one, two] = DEMO_DATA.academies;
    const answers = { '/academies/1': { status: 200, body: { data: one } }, '/academies/2': { status: 200, body: { data: two } } };
    const { f, requests, stdout, stderr } = deps(answers, { format: 'ndjson', headers: true });
    await expect(runPerId(f, academy, ['2', '1,9'], {})).rejects.toMatchObject({ kind: 'not_found' });
    expect(
      stdout()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual([2, 1]);
    expect(JSON.parse(stderr())).toMatchObject({ error: { kind: 'not_found', id: 9 } });
    expect(requests.map((r) => r.url).sort()).toEqual(['https://api.gym.test/academies/1', 'https://api.gym.test/academies/2', 'https://api.gym.test/academies/9']);
  });

  it('an invalid id sends nothing', async () => {
    const { f, requests, stdout } = deps({}, { format: 'json', headers: true });
    await expect(runPerId(f, academy, ['1', 'x'], {})).rejects.toMatchObject({ kind: 'usage' });
    expect(requests).toEqual([]);
    expect(stdout()).toBe('');
  });
});
