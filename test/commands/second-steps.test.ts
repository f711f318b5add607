/**
 * What a new user met after the first command: each message names a next
 * step that works as written, a mistyped value gets a suggestion, and what
 * is drawn for a terminal fits it.
 */
import { describe, expect, it } from 'vitest';
import { gymctl as inProcess, type GymctlOptions } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';

const world = useSandboxAndConfig();
const gymctl = (args: string[], options: GymctlOptions = {}) => inProcess(args, { configDir: world.config.dir, ...options });

describe('with no config at all', () => {
  it('whoami and doctor name a login that works as written: `gymctl auth login --base-url URL`', async () => {
    const whoami = await gymctl(['whoami']);
    expect(whoami.code).toBe(4);
    expect(whoami.stderr).toBe('gymctl: no API key for profile "default": run `gymctl auth login --base-url URL` or set GYMCTL_API_KEY (or try --sandbox)\n');
    const doctor = await gymctl(['doctor', '--json']);
    const key = (JSON.parse(doctor.stdout) as Array<{ check: string; fix: string | null }>).find((row) => row.check === 'key');
    expect(key?.fix).toBe('gymctl auth login --base-url URL, or set GYMCTL_API_KEY');
    // With a base URL known, the login needs nothing more.
    const known = await gymctl(['whoami'], { env: { GYMCTL_BASE_URL: world.sandbox.url } });
    expect(known.stderr).toMatch(/run `gymctl auth login` or set GYMCTL_API_KEY/);
    expect(world.requests).toEqual([]);
  });
});
