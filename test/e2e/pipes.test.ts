/**
 * Pipes that close early (`| head`): only a real process, in a real bash
 * pipeline, shows how gymctl meets EPIPE.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { BIN, cleanEnv } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const env = () => ({ GYMCTL_BASE_URL: world.sandbox.url, GYMCTL_API_KEY: DEMO_KEY });

/** Runs a bash pipeline with gymctl as `$GYMCTL`; prints gymctl's exit status last on stderr. */
function pipeline(script: string): Promise<{ stdout: string; stderr: string; gymctlStatus: number }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${script}; echo "status=\${PIPESTATUS[0]}" >&2`], {
      env: { ...cleanEnv(world.config.dir, env()), GYMCTL: `${process.execPath} ${BIN}` },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', () => {
      const match = /status=(\d+)\n$/.exec(stderr);
      resolve({ stdout, stderr: stderr.replace(/status=\d+\n$/, ''), gymctlStatus: Number(match?.[1]) });
    });
  });
}

describe('pipes that close early', () => {
  it('family … --format ndjson | head -1 ends quietly with exit 0', async () => {
    const result = await pipeline('$GYMCTL family 530 --format ndjson | head -1');
    expect(JSON.parse(result.stdout).id).toBe(531);
    expect(result.stderr).toBe('');
    expect(result.gymctlStatus).toBe(0);
  });

  it('a 1,000-id batch into head -1 stops early, quietly, with exit 0', async () => {
    const result = await pipeline('seq 1000 | sed "s/.*/2/" | $GYMCTL academy - --format ndjson | head -1');
    expect(JSON.parse(result.stdout).id).toBe(2);
    expect(result.stderr).toBe('');
    expect(result.gymctlStatus).toBe(0);
    expect(world.requests.length).toBeLessThan(1000);
  });
});

describe('--jq results as they come', () => {
  it("--jq 'range(1e9)' | head -3: the first results come before jq ends, and head closing the pipe ends gymctl", async () => {
    // jq would take hours to count to 1e9 (and the results would not fit in memory): were they held until jq ends,
    // head would get nothing and the pipeline would run until the test's ceiling ended it.
    const { stdout, gymctlStatus } = await pipeline(`$GYMCTL whoami --jq 'range(1e9)' | head -3`);
    expect(stdout).toBe('0\n1\n2\n');
    expect(gymctlStatus).toBe(0);
  });
});

/** A reader that has not read yet: a moment in which gymctl, or jq in it, could run ahead of it if it did not wait. */
const notReading = () => new Promise((resolve) => setTimeout(resolve, 2000));

describe('--jq and a reader that does not read at first', () => {
  it("api /me --jq 'range(1e8)' into a pipe nobody reads: once read, the results are whole and in order", async () => {
    // That jq waits for the pipe (and gymctl's memory with it) is test/unit/jq-flow.test.ts's, on a stream that says
    // when it is full; the memory a run takes is `npm run bench`'s. Here, a real pipe: nothing lost or reordered.
    const child = spawn(process.execPath, [BIN, 'api', '/me', '--jq', 'range(1e8)'], { env: cleanEnv(world.config.dir, env()) });
    try {
      // Nothing is read: the stream is only told when something is there (it buffers its high-water mark, then stops reading).
      await new Promise((resolve) => child.stdout.once('readable', resolve));
      await notReading();
      // Then read: the first 200,000 results, every one, in order.
      const lines = await readLines(child, 200_000);
      expect(lines.every((line, i) => line === String(i))).toBe(true);
    } finally {
      await killed(child);
    }
  });
});

/** Reads the child's stdout until `count` whole lines are there: the first `count` lines. */
async function readLines(child: ChildProcessWithoutNullStreams, count: number): Promise<string[]> {
  let text = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve) => {
    const take = (chunk: string) => {
      text += chunk;
      if (text.split('\n').length > count) {
        child.stdout.off('data', take);
        resolve();
      }
    };
    child.stdout.on('data', take);
  });
  return text.split('\n').slice(0, count);
}

/** SIGKILL, and the child gone. */
async function killed(child: ChildProcessWithoutNullStreams): Promise<void> {
  child.kill('SIGKILL');
  await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('close', resolve)));
}

describe('a batch and a reader that does not read', () => {
  /** 50,000 ids, 1 to 4 over and over: each line's id says the order is kept. */
  const IDS = Array.from({ length: 50_000 }, (_, i) => (i % 4) + 1);
  for (const [name, extra, id] of [
    ['--format ndjson', ['--format', 'ndjson'], (line: string) => (JSON.parse(line) as { id: number }).id],
    // Whole records (as compact JSON), so that the pipe fills as soon as with ndjson.
    ['--jq .', ['--jq', '.'], (line: string) => (JSON.parse(line) as { id: number }).id],
  ] as const) {
    it(`academy - ${name} into a pipe nobody reads: the requests stop at what the pipe holds, and the batch goes on, in order, once read`, async () => {
      const child = spawn(process.execPath, [BIN, 'academy', '-', ...extra], { env: cleanEnv(world.config.dir, env()) });
      try {
        child.stdin.end(IDS.join('\n'));
        // Nothing is read: the stream is only told when something is there (it buffers its high-water mark, then stops reading).
        await new Promise((resolve) => child.stdout.once('readable', resolve));
        // While nobody reads, what the server is asked for is bounded by what the pipe and the streams' buffers hold
        // (records of about 200 bytes: a few hundred), and the requests in flight: never the 50,000. A batch that did
        // not wait went on fetching, hundreds of records a second. A slow machine asks for fewer, never more.
        const requests: number[] = [];
        for (let i = 0; i < 20; i++) {
          requests.push(world.requests.length);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(Math.max(...requests), `requests ${requests.join(' ')}`).toBeLessThan(2000);
        // Then read: the batch goes on, every record in order.
        const lines = await readLines(child, 5000);
        expect(lines.map(id)).toEqual(IDS.slice(0, 5000));
        expect(world.requests.length).toBeGreaterThanOrEqual(5000);
      } finally {
        await killed(child);
      }
    });
  }
});

describe('gymctl api in a pipe', () => {
  it('prints the body byte for byte, invalid UTF-8 included (never U+FFFD in its place)', async () => {
    const body = Buffer.concat([Buffer.from('{"data":{"name":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}')]);
    const url = await httpServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
    const child = spawn(process.execPath, [BIN, 'api', '/anything'], { env: cleanEnv(world.config.dir, { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: DEMO_KEY }) });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(Buffer.concat(chunks).equals(body)).toBe(true);
  });
});
