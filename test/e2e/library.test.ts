/** What only a process shows of the library: after close(), nothing of the client keeps Node alive or crashes it later. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { httpServer } from '../helpers/servers.js';

describe('the library in a host process', () => {
  it('close() during a request: the host exits, with no uncaught error later', async () => {
    // A server that never answers, so the request waits on its deadline, a day away; it tells the host when the request is in.
    let tell: () => void = () => {};
    const url = await httpServer(() => tell());
    const script = `
      import { createClient } from ${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))};
      const client = createClient({ baseUrl: ${JSON.stringify(url)}, apiKey: 'test_key_0123456789', timeoutMs: 86400000 });
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
    // Left with anything of the client keeping it alive (the request's timer, a socket), the host would live until the
    // deadline a day away: the test's ceiling would end it, and the test fail.
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe('GymApiError: the client was closed\n');
  });
});
