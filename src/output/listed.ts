/** Words as a sentence lists them: `a, b and c` (or `a, b or c`). */
export const listed = (words: readonly string[], conjunction = 'and'): string =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1)}`;
