/**
 * Choosing one of a list at a terminal: a type-to-filter list drawn by
 * @inquirer/search on stderr (stdout stays for the answer); in accessible
 * mode, a numbered list and a line read, since a screen reader stays silent
 * on a list redrawn in place.
 */
import search from '@inquirer/search';
import { Interrupted } from '../failures.js';
import { sanitizeLine } from '../output/sanitize.js';
import { askLine } from './prompt.js';
import type { IO } from './io.js';

export interface PickChoice<T> {
  value: T;
  /** What is shown, and what typing filters on. */
  name: string;
}

export async function pick<T>(io: IO, message: string, choices: ReadonlyArray<PickChoice<T>>, signal?: AbortSignal): Promise<T> {
  // Names may come from a server: made safe before they reach the terminal.
  const safe = choices.map((choice) => ({ value: choice.value, name: sanitizeLine(choice.name) }));
  if (io.accessible) {
    io.err(`${message}\n${safe.map((choice, i) => `  ${i + 1}) ${choice.name}\n`).join('')}`);
    const index = await askLine(
      io,
      `Number (1 to ${safe.length}): `,
      (line) => {
        const n = Number(line);
        return Number.isInteger(n) && n >= 1 && n <= safe.length ? n - 1 : undefined;
      },
      { again: 'Please answer with one of the numbers. ', onEnd: -1, signal },
    );
    if (index < 0) throw new Interrupted();
    return safe[index]!.value;
  }
  const prompt = search<T>(
    {
      message,
      source: (term) => {
        const wanted = (term ?? '').toLowerCase();
        return safe.filter((choice) => choice.name.toLowerCase().includes(wanted));
      },
    },
    { input: io.stdin, output: io.stderr, clearPromptOnDone: true, ...(signal ? { signal } : {}) },
  );
  try {
    return await prompt;
  } catch (error) {
    // Ctrl-C in the list, or the run's interrupt: an interrupt, as anywhere else.
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) throw signal?.reason ?? new Interrupted();
    throw error;
  }
}
