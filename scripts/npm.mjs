// npm as the build scripts call it, with arguments that arrive as they were given, spaces in a path included.
// On Windows npm is npm.cmd, a batch file, which Node 20.12 and later start only through cmd.exe (shell: true;
// CVE-2024-27980), and Node then joins the arguments with spaces as they are: each is quoted here for cmd.exe and
// for the Microsoft C rules node.exe reads its command line by (npm.cmd passes it on as %*). Elsewhere npm is
// started with its arguments as they are, no shell between.
import { spawnSync } from 'node:child_process';

/**
 * `arg` as one argument on a cmd.exe command line: as it is when it holds only characters neither cmd nor the C
 * rules treat specially, else in double quotes, inside which cmd takes & | < > ^ ( ) and spaces as they are, with
 * the backslashes before the closing quote doubled (the C rules read `\"` as a quote). cmd expands %NAME% even
 * inside quotes and has no escape for it there, and a `"` cannot be carried through: those are refused.
 */
export function cmdArgument(arg) {
  if (/[%"\r\n\0]/.test(arg)) throw new Error(`cannot pass ${JSON.stringify(arg)} to npm.cmd through cmd.exe: it holds a %, a " or a line break`);
  if (/^[\w.,:=@+/\\-]+$/.test(arg)) return arg;
  return `"${arg.replace(/(\\+)$/, '$1$1')}"`;
}

/** The command Node is given for `npm args…` on `platform`: npm.cmd's whole command line for cmd.exe on Windows. */
export function npmCommand(args, platform = process.platform) {
  if (platform === 'win32') return { command: ['npm.cmd', ...args].map(cmdArgument).join(' '), args: [], shell: true };
  return { command: 'npm', args, shell: false };
}

/** Runs `npm args…` (spawnSync's `options`, but the shell, which is this file's to choose), and returns what spawnSync does. */
export function runNpm(args, options = {}) {
  const { command, args: rest, shell } = npmCommand(args);
  return spawnSync(command, rest, { ...options, shell, windowsHide: true });
}
