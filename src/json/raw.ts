/**
 * JSON text worked on as text, so what the server sent reaches `--json` exactly: no key reordered (JSON.parse moves
 * integer-like keys first), no number or escape rewritten. Input must be valid JSON. Plain index scans: a batch runs this per record.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDelimiter = (c: number) => isSpace(c) || c === COMMA || c === COLON || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === QUOTE || c === OPEN_BRACE || c === OPEN_BRACKET;

export function skipSpace(json: string, i: number): number {
  while (i < json.length && isSpace(json.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string that starts (with its quote) at `i`. */
export function endOfString(json: string, i: number): number {
  let j = i + 1;
  while (j < json.length) {
    const c = json.charCodeAt(j);
    if (c === BACKSLASH) j += 2;
    else if (c === QUOTE) return j + 1;
    else j++;
  }
  return j;
}

/** The index just past the number, true, false or null that starts at `i`. */
export function endOfScalar(json: string, i: number): number {
  let j = i + 1;
  while (j < json.length && !isDelimiter(json.charCodeAt(j))) j++;
  return j;
}

/** The index just past the value that starts at `i`. */
function endOfValue(json: string, i: number): number {
  const c = json.charCodeAt(i);
  if (c === QUOTE) return endOfString(json, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return endOfScalar(json, i);
  let depth = 0;
  let j = i;
  while (j < json.length) {
    const d = json.charCodeAt(j);
    if (d === QUOTE) {
      j = endOfString(json, j);
      continue;
    }
    if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return j;
}

const pads = new Map<number, string[]>();

/** JSON text laid out as JSON.stringify(value, null, indent) would, every token kept byte for byte; `indent` 0 is compact. */
export function formatJson(json: string, indent = 2): string {
  const padding = pads.get(indent) ?? [];
  pads.set(indent, padding);
  const pad = (depth: number) => {
    if (indent === 0) return '';
    padding[depth] ??= `\n${' '.repeat(indent * depth)}`;
    return padding[depth];
  };
  let out = '';
  let depth = 0;
  let i = 0;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (isSpace(c)) {
      i++;
    } else if (c === QUOTE) {
      const end = endOfString(json, i);
      out += json.slice(i, end);
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const next = skipSpace(json, i + 1);
      if (json.charCodeAt(next) === (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
        out += c === OPEN_BRACE ? '{}' : '[]';
        i = next + 1;
      } else {
        depth++;
        out += json[i] + pad(depth);
        i++;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      out += pad(depth) + json[i];
      i++;
    } else if (c === COMMA) {
      out += `,${pad(depth)}`;
      i++;
    } else if (c === COLON) {
      out += indent > 0 ? ': ' : ':';
      i++;
    } else {
      const end = endOfScalar(json, i);
      out += json.slice(i, end);
      i = end;
    }
  }
  return out;
}

/** The raw text of the top-level member `name`; of duplicates the last, as JSON.parse, so it matches what was validated. */
export function rawMember(json: string, name: string): string | undefined {
  let i = skipSpace(json, 0);
  if (json.charCodeAt(i) !== OPEN_BRACE) return undefined;
  const quoted = JSON.stringify(name);
  let found: string | undefined;
  i = skipSpace(json, i + 1);
  while (i < json.length && json.charCodeAt(i) === QUOTE) {
    const keyEnd = endOfString(json, i);
    const key = json.slice(i, keyEnd);
    const valueStart = skipSpace(json, skipSpace(json, keyEnd) + 1); // past the colon
    const valueEnd = endOfValue(json, valueStart);
    // A key written with escapes (\u0064ata) is compared by its value.
    if (key === quoted || (key.includes('\\') && JSON.parse(key) === name)) found = json.slice(valueStart, valueEnd);
    i = skipSpace(json, valueEnd);
    if (json.charCodeAt(i) !== COMMA) break;
    i = skipSpace(json, i + 1);
  }
  return found;
}

/** The raw text of each element of the JSON array `json`, in order; [] when it is not an array. */
export function rawArrayItems(json: string): string[] {
  let i = skipSpace(json, 0);
  if (json.charCodeAt(i) !== OPEN_BRACKET) return [];
  const items: string[] = [];
  i = skipSpace(json, i + 1);
  while (i < json.length && json.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = endOfValue(json, i);
    items.push(json.slice(i, end));
    i = skipSpace(json, end);
    if (json.charCodeAt(i) === COMMA) i = skipSpace(json, i + 1);
  }
  return items;
}

/** An object's JSON text with one more member put first (its value already JSON), the rest exactly as sent. */
export function withFirstMember(json: string, name: string, value: string): string {
  const text = json.trim();
  const empty = skipSpace(text, 1) === text.length - 1;
  return `{${JSON.stringify(name)}:${value}${empty ? '' : ','}${text.slice(1)}`;
}
