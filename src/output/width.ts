/**
 * How many terminal columns text takes, and how to cut it to fit: wide
 * East Asian characters and emoji take two, combining marks and joiners
 * none. Enough for aligning tables; text has been sanitised before it gets here.
 */
const ZERO_WIDTH = /[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u0610-\u061a\u064b-\u065f\u200b-\u200f\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f]|\u200d|\udb40[\udc00-\udc7f]/;

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}

function charWidth(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0;
  return isWide(char.codePointAt(0)!) ? 2 : 1;
}

/** Columns `text` takes on a terminal. ASCII, the common case, is counted at once. */
export function displayWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

/** `text` cut to at most `width` columns, ending in … when anything was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = charWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}


/**
 * Column widths that fit `available` columns in all, given each column's
 * natural width and the columns its frame takes: the widest columns give
 * way first, none below `minimum` (or its natural width, if smaller).
 */
export function fitWidths(natural: readonly number[], frame: number, available: number | undefined, minimum = 4): number[] {
  const widths = [...natural];
  if (!available) return widths;
  let excess = widths.reduce((sum, w) => sum + w, frame) - available;
  while (excess > 0) {
    const widest = Math.max(...widths);
    const floor = Math.max(minimum, Math.max(...widths.filter((w) => w < widest), 0));
    if (widest <= minimum) break;
    const index = widths.indexOf(widest);
    const cut = Math.min(excess, widest - floor || 1, widest - minimum);
    widths[index] = widest - cut;
    excess -= cut;
  }
  return widths;
}
