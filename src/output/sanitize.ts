/**
 * Text from the server made safe for a terminal: controls (C0, DEL, C1) in caret notation, so an escape sequence cannot
 * move the cursor, set the title or write a hyperlink (ESC is `^[`; C1 as the ESC form it stands for, CSI `^[[`).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Characters that reorder text ("Trojan Source" bidi controls), break lines unseen (U+2028/9) or hide (zero-width,
 * fillers, tags…): shown as <U+XXXX>. The joiners and variation selectors emoji and scripts need stay.
 */
export const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each character is matched alone, on purpose: these are what hides text.
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;

export const codePoint = (char: string) => `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;

/** JSON with every control, bidi and invisible character as a \uXXXX escape: the same value, safe for a terminal. */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, escapeUnits).replace(INVISIBLE, escapeUnits);
}

const escapeUnits = (chars: string) => Array.from({ length: chars.length }, (_, i) => `\\u${chars.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

export function caret(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x7f) return '^?';
  if (code >= 0x80) return `^[${String.fromCharCode(code - 0x40)}`;
  return `^${String.fromCharCode(code + 0x40)}`;
}

/** For a single line: every control character, tab and newline included, shown visibly. */
export function sanitizeLine(text: string): string {
  return text.replace(CONTROL, caret).replace(INVISIBLE, codePoint);
}

/** For a table cell: tabs and line breaks become spaces, other controls shown visibly. */
export function sanitizeCell(text: string): string {
  return text
    .replace(/\r\n|[\t\n\r]/g, ' ')
    .replace(CONTROL, caret)
    .replace(INVISIBLE, codePoint);
}
