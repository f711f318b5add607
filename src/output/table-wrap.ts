/** Wrapping for columns of sentences a reader needs whole (doctor's details and fixes): broken between words, never cut. */
import stringWidth from 'string-width';

/** Text that is punctuation or symbols alone (`)`, `).`, `—`): a line of its own it would read as a stray mark. */
const MARKS_ONLY = /^[\p{P}\p{S}]+$/u;

/** `text` in lines of at most `width`, a word wider split where it must; no line is punctuation alone (a stray `)`). */
export function wrapText(text: string, width: number): string {
  const lines: string[] = [];
  let words: string[] = [];
  let used = 0;
  const take = (word: string) => {
    words.push(word);
    used += (words.length > 1 ? 1 : 0) + stringWidth(word);
  };
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const size = stringWidth(word);
    if (used > 0 && used + 1 + size <= width) {
      take(word);
      continue;
    }
    // A mark alone would start the next line: the word before it goes along (when that leaves a word behind, and both fit).
    const carried = MARKS_ONLY.test(word) && words.length > 1 && stringWidth(words.at(-1)!) + 1 + size <= width ? words.pop()! : undefined;
    if (words.length > 0) lines.push(words.join(' '));
    words = [];
    used = 0;
    if (carried !== undefined) take(carried);
    if (carried !== undefined || size <= width) {
      take(word);
      continue;
    }
    let rest = [...word];
    while (stringWidth(rest.join('')) > width) {
      let cut = 0;
      let headSize = 0;
      for (const char of rest) {
        const w = stringWidth(char);
        if (headSize + w > width && cut > 0) break;
        cut++;
        headSize += w;
      }
      // The word's last piece is never marks alone: it takes characters from the end of this one, while it fits, until it is not.
      const tail = (from: number) => rest.slice(from).join('');
      while (cut > 1 && MARKS_ONLY.test(tail(cut)) && stringWidth(tail(cut - 1)) <= width) cut--;
      lines.push(rest.slice(0, cut).join(''));
      rest = rest.slice(cut);
    }
    take(rest.join(''));
  }
  if (used > 0 || lines.length === 0) lines.push(words.join(' '));
  return lines.join('\n');
}

/** Two wrapped columns (doctor's Detail and Fix) share their room where it takes the fewest lines, every split tried (a short fix is not wrapped a word a line beside paths). */
export function balanceWraps(widths: number[], wraps: readonly boolean[], texts: ReadonlyArray<ReadonlyArray<string | undefined>>): void {
  const wrapped = wraps.flatMap((wrap, i) => (wrap ? [i] : []));
  if (wrapped.length !== 2) return;
  const [a, b] = wrapped as [number, number];
  const pool = widths[a]! + widths[b]!;
  const lines = (text: string | undefined, width: number) => (text === undefined ? 1 : wrapText(text, width).split('\n').length);
  const height = (wa: number) => texts.reduce((sum, row) => sum + Math.max(lines(row[a], wa), lines(row[b], pool - wa)), 0);
  let best = widths[a]!;
  let bestHeight = height(best);
  for (let wa = 2; wa <= pool - 2; wa++) {
    const h = height(wa);
    if (h < bestHeight || (h === bestHeight && Math.abs(wa - widths[a]!) < Math.abs(best - widths[a]!))) {
      best = wa;
      bestHeight = h;
    }
  }
  widths[a] = best;
  widths[b] = pool - best;
}
