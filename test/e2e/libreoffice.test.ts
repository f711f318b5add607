/**
 * A spreadsheet reads gymctl's CSV with its accents, with and without the
 * byte-order mark of --bom: LibreOffice (Debian's libreoffice-calc-nogui)
 * converts the built CLI's CSV of the sandbox's academies and of a family
 * to xlsx, told the files are UTF-8, all four in one `soffice` call (it
 * takes seconds to start), in a profile, HOME and TMPDIR of the test's own,
 * removed after. The workbook's shared strings must hold every cell of
 * gymctl's CSV that has a character beyond ASCII, exactly, and the first
 * header with no mark glued to it. No test runs Excel.
 */
import { type ExecFileOptions, execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/cli.js';

/** Runs a program to its end: its stdout's bytes, or a rejection that holds its stderr. */
function run(file: string, args: string[], options: ExecFileOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...options, encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${error.message}\n${stderr.toString()}`));
      else resolve(stdout);
    });
  });
}

/** soffice on PATH, found without running it (a run writes into HOME). Under CI a missing one fails the run; elsewhere the tests are skipped, naming it. */
function sofficeHere(): boolean {
  const found = (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && existsSync(path.join(dir, 'soffice')));
  const what = 'soffice (Debian: apt-get install --no-install-recommends libreoffice-calc-nogui)';
  if (!found && process.env.CI === 'true') throw new Error(`${what} is needed by these tests and is not installed (.ci/run installs it)`);
  if (!found) console.warn(`skipping: these tests need ${what}, which is not installed`);
  return found;
}

/** The text of one file of a zip archive (an xlsx is one), found through the archive's central directory: stored or deflated. */
function unzipText(zip: Buffer, name: string): string {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(end + 16);
  for (let entry = zip.readUInt16LE(end + 10); entry > 0; entry--) {
    const nameLength = zip.readUInt16LE(at + 28);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const local = zip.readUInt32LE(at + 42);
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + zip.readUInt32LE(at + 20));
      return (zip.readUInt16LE(at + 10) === 8 ? inflateRawSync(data) : data).toString('utf8');
    }
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  throw new Error(`${name} is not in the archive`);
}

const unescapeXml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[entity.toLowerCase()]!;
  });

/** The workbook's shared strings (every text cell's value): each `<si>`, its runs joined. */
function sharedStrings(xlsx: Buffer): string[] {
  const xml = unzipText(xlsx, 'xl/sharedStrings.xml');
  return [...xml.matchAll(/<si>([\s\S]*?)<\/si>/g)].map(([, item]) => [...item!.matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)].map(([, text]) => unescapeXml(text!)).join(''));
}

/** The cells of RFC 4180 text, row by row (quoted fields with commas, doubled quotes and line breaks). */
function csvCells(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') cell += text[++i];
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      rows.push([...row, cell]);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

const ready = sofficeHere();
const folder = mkdtempSync(path.join(tmpdir(), 'gymctl-libreoffice-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The built CLI's stdout, as bytes, in a config folder of the test's own. */
async function gymctlBytes(args: string[]): Promise<Buffer> {
  return run(process.execPath, [BIN, ...args], { env: cleanEnv(path.join(folder, 'config')) });
}

describe.skipIf(!ready)('LibreOffice reads gymctl CSV', () => {
  it('every accented cell exactly, with and without the byte-order mark, and no mark in the first header', { timeout: 300_000 }, async () => {
    const sources = {
      academies: ['academies', '--sandbox', '--format', 'csv'],
      // A family whose names hold an accent, commas, quotes and a line break.
      family: ['family', '550', '--sandbox', '--format', 'csv'],
    };
    const files: Array<{ name: string; csv: Buffer }> = [];
    for (const [name, args] of Object.entries(sources)) {
      files.push({ name, csv: await gymctlBytes(args) });
      files.push({ name: `${name}-bom`, csv: await gymctlBytes([...args, '--bom']) });
    }
    for (const { name, csv } of files) {
      expect(csv.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), name).toBe(name.endsWith('-bom'));
      writeFileSync(path.join(folder, `${name}.csv`), csv);
    }

    const home = path.join(folder, 'home');
    const temp = path.join(folder, 'tmp');
    for (const dir of [home, temp]) mkdirSync(dir, { recursive: true });
    await run(
      'soffice',
      [
        `-env:UserInstallation=${pathToFileURL(path.join(folder, 'profile')).href}`,
        '--headless',
        // CSV, separated by commas, quoted with ", in UTF-8 (76): as a user picks it in LibreOffice's Text Import dialog.
        '--infilter=Text - txt - csv (StarCalc):44,34,76',
        '--convert-to',
        'xlsx',
        '--outdir',
        path.join(folder, 'out'),
        ...files.map(({ name }) => path.join(folder, `${name}.csv`)),
      ],
      { cwd: folder, env: { PATH: process.env.PATH, HOME: home, TMPDIR: temp, LANG: 'C.UTF-8' }, timeout: 240_000 },
    );

    const accented: string[] = [];
    for (const { name, csv } of files) {
      const cells = csvCells(csv.toString('utf8').replace(/^\ufeff/, ''));
      const wanted = cells.flat().filter((cell) => /[^\x00-\x7f]/.test(cell));
      accented.push(...wanted);
      const read = sharedStrings(readFileSync(path.join(folder, 'out', `${name}.xlsx`)));
      for (const cell of wanted) expect(read, `${name}: ${cell}`).toContain(cell);
      expect(read, name).toContain(cells[0]![0]);
      expect(
        read.filter((text) => text.includes('\ufeff') || text.includes('ï»¿')),
        name,
      ).toEqual([]);
    }
    // What is compared: the sandbox's accented values, in each of the four files.
    expect(accented.filter((cell) => cell === 'Rua dos Remédios 12')).toHaveLength(2);
    expect(accented.filter((cell) => cell === 'Zoë')).toHaveLength(2);
  });
});
