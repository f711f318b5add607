/**
 * The usual setting of an end-to-end test file: one sandbox for the file,
 * logging the requests it serves, and an empty config folder for each test.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { tempConfigDir } from './cli.js';

export interface World {
  readonly sandbox: Sandbox;
  /** One line per request the sandbox served in this test (method, path, status). */
  readonly requests: string[];
  readonly config: { dir: string; remove: () => void };
}

export function useSandboxAndConfig(): World {
  let sandbox: Sandbox | undefined;
  let config: World['config'] | undefined;
  const requests: string[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ log: (line) => requests.push(line) });
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => {
    requests.length = 0;
    config = tempConfigDir();
  });
  afterEach(() => config?.remove());
  return {
    get sandbox() {
      return sandbox!;
    },
    requests,
    get config() {
      return config!;
    },
  };
}
