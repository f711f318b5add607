/** `gymctl sandbox`: serve the reference API with demo data until Ctrl-C. */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { GymctlError } from '../../api/errors.js';
import { parseWholeNumber } from '../../files/system.js';
import { usageError } from '../../failures.js';
import { isLoopbackHost } from '../../api/transport/loopback.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonExact } from '../../json/exact.js';
import { describeJsonError } from '../../json/positions.js';
import { columnsText, stdoutTerminal } from '../../output/human.js';
import type { Factory } from '../../factory.js';
import { parseSandboxData, type SandboxData } from '../../sandbox/data.js';
import { DEMO_DATA } from '../../sandbox/demo-data.js';
import { academyList } from '../auth/words.js';
import { parseFault, type Fault } from '../../sandbox/faults.js';
import { startSandbox } from '../../sandbox/server.js';
import { OPERATIONS } from '../../operations/index.js';

const DEFAULT_SANDBOX_PORT = 4010;

function loadData(file: string): SandboxData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read sandbox data ${JSON.stringify(file)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  // Deep nesting is said as such (the exact parser would run out of stack on it), never read.
  if (nestsDeeperThan(text)) throw usageError(`sandbox data ${file} nests deeper than ${MAX_JSON_DEPTH} levels, which no sandbox data does`);
  let json: unknown;
  try {
    json = parseJsonExact(text);
  } catch {
    throw usageError(`sandbox data ${file} is not valid JSON (${describeJsonError(text)})`);
  }
  try {
    return parseSandboxData(json);
  } catch (error) {
    throw usageError(`invalid sandbox data in ${file}: ${(error as Error).message}`);
  }
}

export async function runSandbox(f: Pick<Factory, 'io' | 'signal'>, options: { port?: string; host?: string; data?: string; fault?: string[] }): Promise<void> {
  const port = parseWholeNumber(options.port ?? String(DEFAULT_SANDBOX_PORT), 0, 65535);
  if (port === undefined) throw usageError(`invalid port ${JSON.stringify(options.port)}: expected a whole number from 0 to 65535 (0 picks a free one)`);
  const host = options.host ?? '127.0.0.1';
  if (host.trim() === '') throw usageError('--host needs an address, such as 127.0.0.1 (an empty one would listen on every interface)');
  const data = options.data === undefined ? DEMO_DATA : loadData(options.data);
  const faults = (options.fault ?? []).map((spec): Fault => {
    try {
      return parseFault(spec);
    } catch (error) {
      throw usageError((error as Error).message);
    }
  });
  const { io } = f;
  if (!isLoopbackHost(host)) io.err(`Warning: listening on ${host}, not loopback: others on the network can reach the sandbox.\n`);
  const sandbox = await startSandbox({ host, port, data, faults, log: (line) => io.err(`${line}\n`) }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    // The port or address is what the user chose: a usage error, with what to choose instead.
    if (code === 'EADDRINUSE') throw usageError(`cannot start the sandbox: port ${port} on ${host} is taken; choose another with --port (0 picks a free one)`);
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw usageError(`cannot start the sandbox on ${host}:${port} (${code}): choose another --host or --port`);
    throw new GymctlError('internal', `cannot start the sandbox on ${host}:${port}: ${code ?? String(error)}`);
  });
  // The keys, aligned on a terminal and in a pipe alike (a secret is plain ASCII, so padding it aligns the names); names come from --data, and are sanitised as every cell is.
  const width = Math.max(0, ...data.keys.map(({ secret }) => secret.length));
  const cells = data.keys.map(({ secret, key }) => [io.stdoutIsTTY ? secret : secret.padEnd(width), `${key.name ?? ''} (${academyList(key.academyIds)})`]);
  const keys = await columnsText(cells, stdoutTerminal(io), 2);
  const tryIt = [`export GYMCTL_BASE_URL=${sandbox.url}`, `export GYMCTL_API_KEY=${data.keys[0]?.secret ?? '<key>'}`, `gymctl ${OPERATIONS[0].command.name}`];
  io.out(`Sandbox API listening on ${sandbox.url}\n\nKeys:\n${keys}\nTry:\n${tryIt.map((line) => `  ${line}\n`).join('')}`);
  for (const { kind, value, times } of faults) {
    const when = times === undefined ? 'every request' : `the next ${times} request${times === 1 ? '' : 's'}`;
    io.err(`Fault: ${kind}${value ? `=${value}` : ''} on ${when}\n`);
  }
  io.err('Press Ctrl-C to stop.\n');
  if (!f.signal.aborted) await once(f.signal, 'abort');
  await sandbox.close();
  io.err('Sandbox stopped.\n');
  throw f.signal.reason;
}
