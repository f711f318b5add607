/** Suggestions for a mistyped command, topic, option, profile or value. */
import type { Command } from 'commander';
import { usageError } from '../../failures.js';

/** The closest of `names` to a mistyped `word`, if one is close enough to suggest. */
export function closest(word: string, names: readonly string[]): string | undefined {
  // Edits, with two neighbours swapped counted as one (`wrok` is one from `work`), as typos most often are.
  const distance = (a: string, b: string) => {
    let before: number[] = [];
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) {
        next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) next[j] = Math.min(next[j]!, before[j - 2]! + 1);
      }
      before = row;
      row = next;
    }
    return row[b.length]!;
  };
  const [best] = names.map((name) => ({ name, d: distance(word, name) })).sort((x, y) => x.d - y.d);
  return best && best.d <= Math.max(1, Math.floor(word.length / 3)) ? best.name : undefined;
}

/** ` (Did you mean csv?)`, to end a message about a mistyped `word`, or '' when no name is close enough. */
export function didYouMean(word: string, names: readonly string[]): string {
  const suggestion = closest(word, names);
  return suggestion ? ` (Did you mean ${suggestion}?)` : '';
}

/** A group's action (see defineGroup): its help alone, or a usage error suggesting the closest command. */
export function helpForGroup(group: Command) {
  return (word: string | undefined) => {
    if (word === undefined) return group.outputHelp();
    const names = group.commands.map((c) => c.name());
    const suggestion = closest(word, names);
    throw usageError(`unknown command '${group.name()} ${word}'${suggestion ? ` (Did you mean ${group.name()} ${suggestion}?)` : `: expected one of ${names.join(', ')}`}`);
  };
}
