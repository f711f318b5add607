/** Reading a drawn table back: the cells of a boxed line, and the rows of a box (header first). */

/** The cells of one line of a box, trimmed: `│ 1  │ Kyoto │` is ['1', 'Kyoto']. */
export const cellsOf = (line: string): string[] =>
  line
    .split('│')
    .slice(1, -1)
    .map((cell) => cell.trim());

/** Every line of a box that holds cells (the header, then each row), as cells. */
export const boxRows = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('│'))
    .map(cellsOf);
