/**
 * A real Secret Service for the keyring tests: a D-Bus session bus from
 * `dbus-run-session` with `gnome-keyring-daemon` on it, in a throwaway
 * HOME, its login keyring unlocked with a throwaway password (or left
 * locked), and a D-Bus address that accepts connections and never answers
 * (a hung daemon).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hasTool } from './tls.js';

export const hasSecretService = () => hasTool('dbus-run-session', ['--version']) && hasTool('gnome-keyring-daemon', ['--version']);

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the session. */
  address: string;
  home: string;
  stop(): Promise<void>;
}

/**
 * Starts a session bus with gnome-keyring's Secret Service on it. `unlock`:
 * unlock (creating it on first use) the login keyring with the throwaway
 * password; otherwise a keyring made earlier in `home` stays locked.
 */
export async function startSecretService(options: { home?: string; unlock: boolean }): Promise<SecretService> {
  const home = options.home ?? mkdtempSync(path.join(tmpdir(), 'gymctl-keyring-'));
  const start = options.unlock
    ? 'printf throwaway | gnome-keyring-daemon --unlock --components=secrets >/dev/null'
    : 'gnome-keyring-daemon --daemonize --components=secrets >/dev/null';
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', `${start} && echo "$DBUS_SESSION_BUS_ADDRESS" && exec sleep 600`], {
    env: { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: home },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', (code) => reject(new Error(`dbus-run-session exited (${code}) before the Secret Service was up`)));
  });
  return {
    address,
    home,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      // A bus killed outright leaves its socket (unix:path=/tmp/dbus-…) behind: remove it.
      const socket = /(?:^|[:,;])path=([^,;]+)/.exec(address)?.[1];
      if (socket) rmSync(socket, { force: true });
    },
  };
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** A D-Bus address whose bus takes connections and never answers: a hung daemon. */
export async function hungBus(): Promise<{ address: string; connections: () => number; close(): void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gymctl-hung-'));
  const socket = path.join(dir, 'bus');
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((connection) => {
    connections++;
    sockets.add(connection);
    connection.on('error', () => {});
    connection.resume();
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    address: `unix:path=${socket}`,
    connections: () => connections,
    close() {
      for (const connection of sockets) connection.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
