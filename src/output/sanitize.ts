/**
 * Makes text from the server safe for a terminal. Control characters
 * (C0, DEL, C1) are shown in caret notation instead of being passed through,
 * so an escape sequence in a name cannot move the cursor, change colours,
 * set the window title or write a hyperlink: ESC becomes `^[`, and the rest
 * of the sequence is left as the harmless text it then is. C1 controls are
 * shown as the ESC form they stand for (U+009B, CSI, becomes `^[[`).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Characters that reorder text (the bidi embeddings, overrides and isolates
 * of "Trojan Source") or hide in it (zero-width space, word joiner, byte
 * order mark): shown as <U+XXXX>. Joiners that emoji and scripts need stay.
 */
const INVISIBLE = /[\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

const codePoint = (char: string) => `<U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`;

function caret(char: string): string {
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
  return text.replace(/\r\n|[\t\n\r]/g, ' ').replace(CONTROL, caret).replace(INVISIBLE, codePoint);
}
