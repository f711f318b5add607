/**
 * Works on JSON text without turning it into JavaScript values, so that what
 * the server sent reaches `--json` output exactly: no key reordered (JSON.parse
 * moves integer-like keys first), no number rounded or rewritten (`1.0`, `1e2`,
 * integers beyond 2^53), no string escape changed. Input must be valid JSON;
 * callers parse it with JSON.parse first.
 */

const PUNCTUATION = new Set(['{', '}', '[', ']', ':', ',']);
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

interface Token {
  text: string;
  start: number;
  end: number;
}

function* tokens(json: string): Generator<Token> {
  let i = 0;
  while (i < json.length) {
    const c = json[i]!;
    if (WHITESPACE.has(c)) {
      i++;
    } else if (PUNCTUATION.has(c)) {
      yield { text: c, start: i, end: i + 1 };
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      yield { text: json.slice(i, j + 1), start: i, end: j + 1 };
      i = j + 1;
    } else {
      let j = i + 1;
      while (j < json.length && !WHITESPACE.has(json[j]!) && !PUNCTUATION.has(json[j]!) && json[j] !== '"') j++;
      yield { text: json.slice(i, j), start: i, end: j };
      i = j;
    }
  }
}

/**
 * Lays out JSON text as JSON.stringify(value, null, indent) would, but keeps
 * every string and number token byte for byte. `indent` 0 gives compact text.
 */
export function formatJson(json: string, indent = 2): string {
  const pad = (depth: number) => (indent > 0 ? '\n' + ' '.repeat(indent * depth) : '');
  const out: string[] = [];
  let depth = 0;
  let pendingOpen: string | undefined;
  for (const { text } of tokens(json)) {
    if (pendingOpen !== undefined) {
      const closesAtOnce = (pendingOpen === '{' && text === '}') || (pendingOpen === '[' && text === ']');
      out.push(pendingOpen);
      pendingOpen = undefined;
      if (closesAtOnce) {
        out.push(text);
        continue;
      }
      depth++;
      out.push(pad(depth));
    }
    switch (text) {
      case '{':
      case '[':
        pendingOpen = text;
        break;
      case '}':
      case ']':
        depth--;
        out.push(pad(depth), text);
        break;
      case ',':
        out.push(',', pad(depth));
        break;
      case ':':
        out.push(indent > 0 ? ': ' : ':');
        break;
      default:
        out.push(text);
    }
  }
  if (pendingOpen !== undefined) out.push(pendingOpen);
  return out.join('');
}

/**
 * The raw text of member `name` of the top-level object in `json`, or
 * undefined when there is none. With duplicate names the last one wins, as
 * in JSON.parse, so the text matches the value that was validated.
 */
export function rawMember(json: string, name: string): string | undefined {
  const iter = tokens(json);
  const first = iter.next();
  if (first.done || first.value.text !== '{') return undefined;
  let found: string | undefined;
  for (;;) {
    const key = iter.next();
    if (key.done || key.value.text === '}') return found;
    if (key.value.text === ',') continue;
    iter.next(); // the colon
    let depth = 0;
    let start = -1;
    let end = -1;
    for (let t = iter.next(); !t.done; t = iter.next()) {
      const { text } = t.value;
      if (start < 0) start = t.value.start;
      if (text === '{' || text === '[') depth++;
      else if (text === '}' || text === ']') depth--;
      end = t.value.end;
      if (depth === 0) break;
    }
    if (start >= 0 && JSON.parse(key.value.text) === name) found = json.slice(start, end);
  }
}

/** The raw text of each element of the JSON array `json`, in order; [] when it is not an array. */
export function rawArrayItems(json: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = -1;
  let end = -1;
  for (const token of tokens(json)) {
    const { text } = token;
    if (depth === 0) {
      if (text !== '[') return [];
      depth = 1;
      continue;
    }
    if (depth === 1 && (text === ',' || text === ']')) {
      if (start >= 0) items.push(json.slice(start, end));
      start = -1;
      if (text === ']') return items;
      continue;
    }
    if (start < 0) start = token.start;
    if (text === '{' || text === '[') depth++;
    else if (text === '}' || text === ']') depth--;
    end = token.end;
  }
  return items;
}
