/** Choosing one of a list on stderr: @inquirer/search, or in accessible mode a numbered list, as a screen reader is silent on a redraw. */
import search from '@inquirer/search';
import { Interrupted, usageError } from '../failures.js';
import { sanitizeLine } from '../output/sanitize.js';
import { askLine } from './prompt.js';
import type { IO } from './io.js';

/** `name` is what is shown, and what typing filters on. */
type PickChoice<T> = { value: T; name: string };

export async function pick<T>(io: IO, message: string, choices: ReadonlyArray<PickChoice<T>>, signal?: AbortSignal): Promise<T> {
  // Names may come from a server: made safe before they reach the terminal.
  const safe = choices.map((choice) => ({ value: choice.value, name: sanitizeLine(choice.name) }));
  if (io.accessible) return pickByLine(io, message, safe, signal);
  let asked = '';
  const prompt = search<T>(
    {
      message,
      source: (term = '') => {
        asked = term;
        return matching(safe, term);
      },
    },
    { input: io.stdin, output: io.stderr, clearPromptOnDone: true, ...(signal ? { signal } : {}) },
  );
  try {
    // Enter read with the text before it (a paste) comes before the list is filtered by that text, so the prompt answers from
    // the list as it was: then the answer is the first that the text matches, as the prompt shows (with none, a usage error).
    const value = await prompt;
    const matches = matching(safe, asked);
    if (matches.some((choice) => choice.value === value)) return value;
    if (!matches[0]) throw usageError(`nothing in the list matches ${JSON.stringify(sanitizeLine(asked))}`);
    return matches[0].value;
  } catch (error) {
    // Ctrl-C in the list, or the run's interrupt: an interrupt, as anywhere else.
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) throw signal?.reason ?? new Interrupted();
    throw error;
  }
}

const matching = <T>(choices: ReadonlyArray<PickChoice<T>>, term: string) => choices.filter((choice) => choice.name.toLowerCase().includes(term.toLowerCase()));

const numbered = <T>(choices: ReadonlyArray<PickChoice<T>>) => choices.map((choice, i) => `  ${i + 1}) ${choice.name}\n`).join('');

/** A number picks; other text filters the whole list (one match is picked); an empty line shows it all again; Ctrl-D gives up. */
async function pickByLine<T>(io: IO, message: string, all: ReadonlyArray<PickChoice<T>>, signal: AbortSignal | undefined): Promise<T> {
  let shown = all;
  io.err(`${message}\n${numbered(all)}`);
  let again = '';
  for (;;) {
    // Input that ended after the last line (Ctrl-D, or a stream that ends) has no more lines to give.
    if ((io.stdin as { readableEnded?: boolean }).readableEnded) throw new Interrupted();
    const line = await askLine(io, `${again}Number (1 to ${shown.length}), or text to filter: `, (text) => text, { again: '', onEnd: undefined, signal });
    if (line === undefined) throw new Interrupted();
    again = '';
    if (/^\d+$/.test(line)) {
      const n = Number(line);
      if (n >= 1 && n <= shown.length) return shown[n - 1]!.value;
      again = `There is no ${n} in the list. `;
      continue;
    }
    if (line === '') {
      if (shown !== all) {
        shown = all;
        io.err(`All ${all.length}:\n${numbered(all)}`);
      }
      continue;
    }
    const matches = matching(all, line);
    const typed = JSON.stringify(sanitizeLine(line));
    if (matches.length === 0) {
      again = `Nothing matches ${typed}. `;
      continue;
    }
    if (matches.length === 1) {
      io.err(`Only one matches ${typed}: ${matches[0]!.name}\n`);
      return matches[0]!.value;
    }
    shown = matches;
    io.err(`${matches.length} match ${typed}:\n${numbered(matches)}`);
  }
}
