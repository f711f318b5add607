/**
 * The keyring agent (dist/keyring-agent.cjs), a process of its own: @napi-rs/keyring talks to D-Bus synchronously, and a
 * hung daemon would hang gymctl, where a process can be killed. The key crosses pipes only (JSON on stdin and stdout).
 * On Linux the entry is pinned to the Secret Service, never the kernel keyring (which does not survive a reboot).
 */
import { confinedRequire, type EntryClass, keyringRoots, loadEntry, NativeModuleMissing } from './native.js';
import { KEYRING_SERVICE, type KeyringAnswer, type KeyringRequest, type KeyringTrouble } from './protocol.js';

const troubleOf = (message: string): KeyringTrouble => (/prompt was dismissed|is locked|\blocked\b/i.test(message) ? 'locked' : 'unavailable');

function answer(request: KeyringRequest, Entry: EntryClass): KeyringAnswer {
  const entry = new Entry(KEYRING_SERVICE, request.account, { linux: { store: 'secret-service' } });
  if (request.op === 'get') return { ok: true, value: entry.getPassword() };
  if (request.op === 'set') {
    entry.setPassword(request.secret ?? '');
    return { ok: true, value: null };
  }
  return { ok: true, value: entry.deleteCredential() ? 'deleted' : null };
}

async function main(): Promise<void> {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  let reply: KeyringAnswer;
  try {
    const request = JSON.parse(input) as KeyringRequest;
    // Resolved from the agent's own file, and taken only from the package's own node_modules.
    const agentFile = process.getBuiltinModule('node:fs').realpathSync(process.argv[1]!);
    const Entry = loadEntry(confinedRequire(process.getBuiltinModule('node:module').createRequire(agentFile), keyringRoots(agentFile)));
    reply = answer(request, Entry);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply = { ok: false, trouble: error instanceof NativeModuleMissing ? 'missing' : troubleOf(message), message };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}

void main();
