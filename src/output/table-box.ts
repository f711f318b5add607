/** A box drawn by cli-table3, whose layout is quadratic in rows: a long table is drawn in chunks joined into one box. */
import Table from 'cli-table3';

/** Rows a chunk of a long table holds: cli-table3's layout check costs rows² within a chunk. */
export const CHUNK_ROWS = 200;

export const NO_TOP = { top: '', 'top-mid': '', 'top-left': '', 'top-right': '' };
export const NO_BOTTOM = { bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '' };

/** Which edges of the box a drawing closes (a streamed table draws its top and bottom apart). */
export interface Edges {
  top?: boolean;
  bottom?: boolean;
}

/** A box of `rows` under `head`, cells cut with … to fit, drawn `chunkRows` at a time, the chunks joined at their borders. */
export function drawBox(widths: readonly number[], head: readonly string[] | undefined, rows: readonly string[][], chunkRows = CHUNK_ROWS, edges: Edges = {}): string {
  const colWidths = widths.map((w) => w + 2);
  const chunks = Math.max(1, Math.ceil(rows.length / chunkRows));
  const parts: string[] = [];
  for (let k = 0; k < chunks; k++) {
    const first = k === 0 && edges.top !== false;
    const last = k === chunks - 1 && edges.bottom !== false;
    const table = new Table({
      colWidths,
      head: k === 0 && head ? [...head] : [],
      chars: { ...(first ? {} : NO_TOP), ...(last ? {} : NO_BOTTOM) },
      style: { head: [], border: [], compact: true },
      truncate: '…',
      wordWrap: false,
    });
    table.push(...rows.slice(k * chunkRows, (k + 1) * chunkRows));
    const text = table.toString();
    if (text) parts.push(text);
  }
  return parts.length ? `${parts.join('\n')}\n` : '';
}

/** The box's bottom border alone, as cli-table3 draws it under a row. */
export function bottomBorder(widths: readonly number[]): string {
  const lines = drawBox(widths, undefined, [widths.map(() => '')], CHUNK_ROWS, { top: false }).split('\n');
  return `${lines.at(-2)}\n`;
}

/** "│ " before each column, " " after it, and the closing "│". */
export const frameOf = (count: number) => count * 3 + 1;
