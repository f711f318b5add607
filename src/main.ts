/**
 * Runs one command: `run(argv, { io, env, signal })` parses, runs, reports any failure on stderr and returns the exit code (a
 * second interrupt alone exits without it: run/interrupt.ts). Loaded by cli.ts for all but --version and the top-level help; tests call it
 * in-process. The wiring: the pre-scan of argv (argv.ts), the one factory made once the parser has read the flags, the race
 * with an interrupt (run/interrupt.ts), the outcome (run/settle.ts) and its report (run/report.ts).
 */
import type { GymctlError } from './api/errors.js';
import { scanArgv } from './argv.js';
import { stopsOnInterrupt } from './commands/shared/define.js';
import { habitAnswer } from './commands/shared/suggest.js';
import type { GlobalFlags } from './config/settings.js';
import { createFactory, type Factory } from './factory.js';
import { buildProgram, commandWords } from './program.js';
import { untilInterrupted, watchInterrupts } from './run/interrupt.js';
import { fieldListHint } from './run/json-hint.js';
import { report, scannedFlags } from './run/report.js';
import { settle } from './run/settle.js';
import { createIO, type IOStreams } from './terminal/io.js';

export interface RunOptions {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  /** Aborted with an Interrupted reason on Ctrl-C, Ctrl-Break (Windows) or SIGTERM. */
  signal?: AbortSignal;
}

/** `config set accessible true`: read with the config, which most commands read anyway; a broken file is the command's to report. */
function storedAccessible(f: Factory): boolean {
  try {
    return f.config().read().accessible === true;
  } catch {
    return false;
  }
}

export async function run(argv: readonly string[], options: RunOptions): Promise<number> {
  const { env } = options;
  const signal = options.signal ?? new AbortController().signal;
  const scan = scanArgv(argv);
  const io = createIO(options.io, { env, colorFlag: !scan.options.has('--no-color') });
  const disposers: Array<() => Promise<void>> = [];
  // Until the parser has run, errors (including its own) take the format from the pre-scan.
  let flags: Readonly<GlobalFlags> = Object.freeze(scannedFlags(scan));
  const make = () => createFactory({ io, env, signal, flags, disposers });
  let factory: Factory | undefined;
  let handlesInterrupt = false;
  let outcome: number | GymctlError = 0;
  const program = await buildProgram({
    io,
    scan,
    factory: () => (factory ??= make()),
    parsed(command, parsedFlags) {
      flags = Object.freeze({ ...parsedFlags });
      factory = make();
      io.accessible ||= storedAccessible(factory);
      handlesInterrupt = stopsOnInterrupt(command);
    },
  });
  try {
    // `--json id,name`: refused with a hint, unless the word after --json is a command.
    const fieldList = fieldListHint(scan, commandWords(program));
    if (fieldList) throw fieldList;
    await untilInterrupted(program.parseAsync(argv.length === 0 ? ['--help'] : [...argv], { from: 'user' }), signal, () => handlesInterrupt);
  } catch (error) {
    outcome = settle(error, argv, program, scan);
    // A usage error where argv holds another CLI's habit (gh's, kubectl's): the gymctl way instead.
    if (typeof outcome !== 'number' && outcome.kind === 'usage') outcome = habitAnswer(scan) ?? outcome;
  } finally {
    // Clients and servers, last opened first.
    for (const dispose of disposers.splice(0).reverse()) await dispose().catch(() => {});
  }
  return typeof outcome === 'number' ? outcome : report(outcome, factory ?? make(), flags, io);
}

/** Ctrl-C, Ctrl-Break (Windows) and SIGTERM: the first aborts the command (requests aborted, files left whole); a second ends gymctl at once. */
export function watchSignals(): { signal: AbortSignal; stop(): void } {
  return watchInterrupts((code) => process.exit(code));
}
