/** What only a process shows of the library: after close(), nothing of the client keeps Node alive or crashes it later. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';

describe('the library in a host process', () => {
  it('close() during a request: the host exits at once, with no uncaught error 30 s later', async () => {
    // A server that never answers, so the request waits on its 30 s deadline; it tells the host when the request is in.
    let tell: () => void = () => {};
    const url = await httpServer(() => tell());
    const script = `
      import { createClient } from ${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))};
      const client = createClient({ baseUrl: ${JSON.stringify(url)}, apiKey: 'test_key_0123456789', timeoutMs: 30000 });
      const pending = client.getMe().then(() => 'answered', (error) => error.constructor.name + ': ' + error.message);
      process.stdin.once('data', async () => {
        process.stdin.destroy();
        await client.close();
        console.log(await pending);
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
    tell = () => child.stdin.write('in\n');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Left with anything of the client keeping it alive, the host would live until the deadline at 30 s: the
    // ceiling below it kills it then, and the exit code says so.
    const ceiling = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve)).finally(() => clearTimeout(ceiling));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe('GymApiError: the client was closed\n');
  }, 60_000);
});
