/**
 * Wrapping, for the columns of a table whose cells are sentences a reader
 * needs whole (doctor's details and fixes): text broken into lines between
 * words, never cut, and the room of two such columns shared where it takes
 * the table's rows the fewest lines. Widths are measured by string-width.
 * Loaded only with table.ts.
 */
import stringWidth from 'string-width';

/**
 * `text` in lines of at most `width` columns, broken between words, a word
 * wider than the line split where it must: nothing is lost.
 */
export function wrapText(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word;
    let size = stringWidth(rest);
    if (used > 0 && used + 1 + size <= width) {
      line += ` ${rest}`;
      used += 1 + size;
      continue;
    }
    if (used > 0) lines.push(line);
    line = '';
    used = 0;
    while (size > width) {
      let head = '';
      let headSize = 0;
      for (const char of rest) {
        const w = stringWidth(char);
        if (headSize + w > width && headSize > 0) break;
        head += char;
        headSize += w;
      }
      lines.push(head);
      rest = rest.slice(head.length);
      size = stringWidth(rest);
    }
    line = rest;
    used = size;
  }
  if (used > 0 || lines.length === 0) lines.push(line);
  return lines.join('\n');
}

/**
 * Wrapped columns lose nothing when narrowed, only add lines: their room
 * is shared where it takes the table's rows the fewest lines (so a short fix is not wrapped a word a line beside a wide
 * column of paths).
 */
export function balanceWraps(widths: number[], wraps: readonly boolean[], texts: ReadonlyArray<ReadonlyArray<string | undefined>>): void {
  const wrapped = wraps.flatMap((wrap, i) => (wrap ? [i] : []));
  // Two wrapped columns (doctor's Detail and Fix): every split of their room is tried.
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
