/**
 * Ids (and a key) on stdin in UTF-16 with its byte-order mark, as Windows
 * PowerShell 5.1's `>` writes a file, read as their UTF-8 copy is: the same
 * output, byte for byte. Without the mark, UTF-16 is not guessed, and the
 * usage error says why.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { gymctl } from '../helpers/harness.js';
import { useSandboxAndConfig } from '../helpers/world.js';

/** An ids file as Windows writes one: CRLF line ends, a comment with an accent, a blank line. */
const IDS = '1\r\n2\r\n# Rua dos Remédios\r\n\r\n4\r\n1\r\n';

const encodings = {
  'UTF-16LE with its byte-order mark': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(IDS, 'utf16le')]),
  'UTF-16BE with its byte-order mark': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(IDS, 'utf16le').swap16()]),
  'UTF-8 with its byte-order mark': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(IDS, 'utf8')]),
};

describe('ids on stdin in UTF-16', () => {
  for (const [name, bytes] of Object.entries(encodings)) {
    it(`${name}: the same output as the UTF-8 copy, in CSV and ndjson`, async () => {
      for (const format of ['csv', 'ndjson']) {
        const args = ['academy', '-', '--sandbox', '--format', format];
        const copy = await gymctl(args, { stdin: IDS });
        expect(copy.code, copy.stderr).toBe(0);
        expect(copy.stdout).toContain('Rua dos Remédios 12');
        const read = await gymctl(args, { stdin: bytes });
        expect({ code: read.code, stderr: read.stderr }).toEqual({ code: 0, stderr: '' });
        expect(read.stdout, format).toBe(copy.stdout);
      }
    });
  }

  it('family - reads them too', async () => {
    const copy = await gymctl(['family', '-', '--sandbox', '--format', 'ndjson'], { stdin: '501\r\n530\r\n' });
    expect(copy.code, copy.stderr).toBe(0);
    const read = await gymctl(['family', '-', '--sandbox', '--format', 'ndjson'], { stdin: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('501\r\n530\r\n', 'utf16le')]) });
    expect(read).toEqual(copy);
  });

  it('UTF-16 without its mark is not guessed: exit 2, nothing sent or printed, and the message says why', async () => {
    const result = await gymctl(['academy', '-', '--sandbox'], { stdin: Buffer.from(IDS, 'utf16le') });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'gymctl: stdin holds NUL characters, as UTF-16 text with no byte-order mark does: gymctl reads ids as UTF-8, or as UTF-16 with its byte-order mark, and never guesses UTF-16; save them in one of those\n',
    );
  });
});

describe('a key on stdin in UTF-16', () => {
  const world = useSandboxAndConfig();

  it('auth login --with-key reads it as its UTF-8 copy', async () => {
    const key = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${DEMO_KEY}\r\n`, 'utf16le')]);
    const login = await gymctl(['auth', 'login', '--with-key', '--base-url', world.sandbox.url], { stdin: key, configDir: world.config.dir });
    expect(login.code, login.stderr).toBe(0);
    const whoami = await gymctl(['whoami', '--json'], { configDir: world.config.dir });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ id: 101 });
  });
});
