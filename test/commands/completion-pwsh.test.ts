/**
 * `gymctl completion pwsh`: PowerShell's completer, tested against the
 * `__complete` protocol without a PowerShell to run it (none is installed
 * here). Its text is checked whole (brackets and quotes balanced, one
 * Register-ArgumentCompleter, nothing that evaluates text), what it passes
 * to `__complete` (the words before the cursor, then the one under it),
 * how it reads the directive, and, with the script's own patterns, how
 * the lines of real `__complete` runs become CompletionResult objects whose
 * text PowerShell reads back as the very value, one word, never code.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PWSH } from '../../src/commands/completion/pwsh.js';
import { gymctl } from '../helpers/harness.js';
import { httpServer } from '../helpers/servers.js';

/** PowerShell's single quotes: the ASCII one and the typographic ones it also reads as such. */
const QUOTES = "'\u2018\u2019\u201a\u201b";

/** The script with its comments and the insides of its strings blanked, and its brackets checked: PowerShell's lexing, as far as the script uses it. */
function lex(script: string): { code: string; strings: string[] } {
  let code = '';
  const strings: string[] = [];
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === '#') {
      while (i < script.length && script[i] !== '\n') i++;
      code += '\n';
    } else if (c === "'" || c === '"') {
      let text = '';
      for (i++; ; i++) {
        if (i >= script.length) throw new Error(`a string never closed: ${text.slice(0, 40)}`);
        if (c === '"' && script[i] === '`') text += script[++i];
        else if (script[i] === c && script[i + 1] === c) text += script[i++];
        else if (script[i] === c) break;
        else text += script[i];
      }
      strings.push(text);
      code += `${c}${c}`;
    } else {
      if ('([{'.includes(c)) stack.push(c);
      if (')]}'.includes(c) && stack.pop() !== pairs[c]) throw new Error(`unbalanced ${c} at ${i}`);
      code += c;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed ${stack.join('')}`);
  return { code, strings };
}

/** The value of a PowerShell single-quoted literal in the script, found by what comes before it. */
function literalAfter(before: string): string {
  const at = PWSH.indexOf(before);
  expect(at, before).toBeGreaterThan(-1);
  const match = /^'((?:[^']|'')*)'/.exec(PWSH.slice(at + before.length))!;
  return match[1]!.replaceAll("''", "'");
}

const PLAIN_WORD = new RegExp(literalAfter('$plain = '), 'u');
const PLAIN_VALUE = new RegExp(literalAfter('if ($value -match '), 'u');
const QUOTE_CHARS = new RegExp(literalAfter('$text = "\'" + ($value -replace '), 'gu');
/** What each quote is replaced with, .NET's $0 (the match) in JavaScript's words. */
const QUOTE_REPLACEMENT = literalAfter(`$text = "'" + ($value -replace '${QUOTE_CHARS.source.replaceAll("'", "''")}', `).replaceAll('$0', () => '$&');

/** What the script passes to `__complete` for the words after gymctl before the cursor and the one under it. */
const passed = (before: string[], current: string) => (PLAIN_WORD.test(current) ? ['--', ...before.map((word) => (PLAIN_WORD.test(word) ? word : '_')), current] : null);

interface CompletionResult {
  completionText: string;
  listItemText: string;
  toolTip: string;
}

/** The script's reading of `__complete`'s lines: null for `:files` (PowerShell's own file names), else the results. */
function results(stdout: string): CompletionResult[] | null {
  let directive = ':none';
  const out: CompletionResult[] = [];
  for (const line of stdout.split('\n')) {
    if (line === ':files' || line === ':none') directive = line;
    else if (line) {
      const [value, description] = [line.split('\t')[0]!, line.split('\t').slice(1).join('\t')];
      const completionText = PLAIN_VALUE.test(value) ? value : `'${value.replace(QUOTE_CHARS, QUOTE_REPLACEMENT)}'`;
      out.push({ completionText, listItemText: value, toolTip: description || value });
    }
  }
  return directive === ':files' ? null : out;
}

/**
 * What PowerShell reads a completion text as, in argument mode: one word
 * (the value), or an error when it would be more than one, an array, a
 * variable, a subexpression or a redirection.
 */
function readBack(text: string): string {
  if (QUOTES.includes(text[0]!)) {
    const inner = text.slice(1, -1);
    expect(QUOTES).toContain(text.at(-1));
    // Inside, a quote only ever doubled: none ends the literal early.
    expect(inner.replace(/(['\u2018-\u201b])\1/gu, '')).not.toMatch(/['\u2018-\u201b]/u);
    return inner.replace(/(['\u2018-\u201b])\1/gu, '$1');
  }
  expect(text).not.toMatch(/[\s'"`$@(){}[\];,|&<>#\u2018-\u201e]/u);
  expect(text.startsWith('--%')).toBe(false);
  return text;
}

describe('the script, as text', () => {
  const { code, strings } = lex(PWSH);

  it('is ASCII, its brackets and quotes balanced, one native completer for every name gymctl is run by, whose block is the whole rest', () => {
    expect(PWSH).toMatch(/^[\x09\x0a\x20-\x7e]*$/);
    expect(code.match(/Register-ArgumentCompleter/g)).toHaveLength(1);
    expect(code).toMatch(/^\s*Register-ArgumentCompleter -Native -CommandName '', '', '', '' -ScriptBlock \{/m);
    // The names, in the order they are given: gymctl, npm's two shims, the single executable.
    const registered = /Register-ArgumentCompleter -Native -CommandName ((?:'[^']*'(?:, )?)+) -ScriptBlock/.exec(PWSH)![1]!;
    expect(registered.split(', ').map((name) => name.slice(1, -1))).toEqual(['gymctl', 'gymctl.cmd', 'gymctl.exe', 'gymctl.ps1']);
    expect(strings).toEqual(expect.arrayContaining(['gymctl', 'gymctl.cmd', 'gymctl.exe', 'gymctl.ps1']));
    expect(code.trimEnd().endsWith('}')).toBe(true);
    expect(code.slice(code.indexOf('-ScriptBlock {') + '-ScriptBlock '.length).trimEnd()).toMatch(/^\{[\s\S]*\}$/);
    expect(code).toMatch(/param\(\$wordToComplete, \$commandAst, \$cursorPosition\)/);
  });

  it('never evaluates text: no Invoke-Expression, script block from a string, or expansion; one call, of the gymctl program', () => {
    expect(code).not.toMatch(/Invoke-Expression|\biex\b|Invoke-Command|ExpandString|\[scriptblock\]|NewScriptBlock|Add-Type|\.Invoke\(/i);
    // The only call: the program found on PATH, with __complete, '--' as a string (npm's gymctl.ps1 would swallow a bare --), and the words.
    expect(code.match(/(^|[^-])& /g)).toHaveLength(1);
    expect(PWSH).toContain("$lines = @(& $gymctl.Path '__complete' '--' @words 2>$null)");
    expect(PWSH).toContain("Get-Command -Name 'gymctl' -CommandType Application -ErrorAction Ignore");
    // On Windows, npm's extensionless gymctl is a sh script: never the one called.
    expect(PWSH).toContain("Where-Object { $_.Extension -ne '' -or $PSVersionTable.Platform -eq 'Unix' }");
  });

  it('passes the words before the cursor as read from the parsed command (a quoted one without its quotes), then the word under it', () => {
    expect(PWSH).toContain('if ($element.Extent.EndOffset -ge $cursorPosition) { break }');
    expect(PWSH).toContain(
      'if ($element -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $word = $element.Value } else { $word = $element.Extent.Text }',
    );
    expect(PWSH).toMatch(/\$words \+= \$wordToComplete/);
    // An empty word where PowerShell would drop it (Windows PowerShell, before 7.3, Legacy, a .cmd under Windows) goes as "".
    expect(PWSH).toContain("$dropsEmpty = (-not $passing) -or ($passing -eq 'Legacy') -or ($passing -eq 'Windows' -and $gymctl.Extension -in '.cmd', '.bat')");
    expect(PWSH).toContain(`if ($wordToComplete -eq '' -and $dropsEmpty) { $words += '""' }`);
  });

  it('reads the directive: :files leaves file names to PowerShell, no candidate offers an empty one (no files where gymctl has none)', () => {
    expect(PWSH).toContain("if ($line -eq ':files' -or $line -eq ':none') { $directive = $line; continue }");
    expect(PWSH).toContain("if ($directive -eq ':files') { return }");
    expect(PWSH).toContain("if ($results) { $results } else { '' }");
    expect(PWSH).toContain("[System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $description)");
  });

  it('a word that is not plain keeps its place as _, and nothing that cmd.exe or PowerShell reads as an operator is ever passed', () => {
    expect(passed(['--format', 'json', '--columns'], 'id,')).toEqual(['--', '--format', 'json', '--columns', 'id,']);
    expect(passed(['--data', 'C:\\Users\\me\\data.json', 'academy'], '')).toEqual(['--', '--data', 'C:\\Users\\me\\data.json', 'academy', '']);
    expect(passed(['--data', 'C:\\My Files\\x.json', '$(calc)', 'a&calc', '"x"', '%PATH%'], '')).toEqual(['--', '--data', '_', '_', '_', '_', '_', '']);
    // A word under the cursor that is not plain (a quoted path): PowerShell completes file names, gymctl is not asked.
    expect(passed(['--data'], "'C:\\My Fi")).toBeNull();
    for (let code = 0; code < 128; code++) {
      const char = String.fromCharCode(code);
      if (/[\s&|<>^%!"'`()$;#{}[\]*?]/.test(char) || code < 32) expect(PLAIN_WORD.test(`a${char}b`), JSON.stringify(char)).toBe(false);
    }
    // .NET's $ matches before a last newline too (JavaScript's does not, so this is read off the text): the pattern
    // refuses a word that ends in one, which would end cmd.exe's line.
    expect(PLAIN_WORD.source.endsWith('$(?!\\n)')).toBe(true);
  });
});

describe('real __complete runs, as CompletionResult objects', () => {
  let configDir: string;
  beforeAll(() => {
    configDir = mkdtempSync(path.join(tmpdir(), 'gymctl-pwsh-'));
    const profiles = { work: {}, home: {}, '$(touch x)': {}, "o'neil": {} };
    writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  });
  afterAll(() => rmSync(configDir, { recursive: true, force: true }));

  const complete = async (words: string[], env: Record<string, string> = {}) => {
    const result = await gymctl(['__complete', ...(passed(words.slice(0, -1), words.at(-1)!) ?? [])], { configDir, env });
    expect(result.code).toBe(0);
    return { lines: result.stdout.split('\n').slice(0, -1), results: results(result.stdout) };
  };
  /** Each result's text reads back as its value, and the values are the candidates gymctl offered, in order. */
  const expectFaithful = (lines: string[], offered: CompletionResult[] | null) => {
    expect(offered).not.toBeNull();
    expect(offered!.map((result) => readBack(result.completionText))).toEqual(lines.slice(0, -1).map((line) => line.split('\t')[0]));
    expect(offered!.map((result) => result.listItemText)).toEqual(lines.slice(0, -1).map((line) => line.split('\t')[0]));
  };

  it('commands after gymctl, and the shells after completion (pwsh among them)', async () => {
    const commands = await complete(['']);
    expectFaithful(commands.lines, commands.results);
    expect(commands.results!.map((result) => result.completionText)).toEqual(expect.arrayContaining(['academy', 'auth', 'completion', 'whoami']));
    const shells = await complete(['completion', '']);
    expect(shells.results!.map((result) => result.completionText)).toEqual(['bash', 'zsh', 'fish', 'pwsh']);
  });

  it('flags, each a plain word put as it is', async () => {
    const flags = await complete(['academy', '--f']);
    expectFaithful(flags.lines, flags.results);
    expect(flags.results!.map((result) => result.completionText)).toContain('--format');
    expect(flags.results!.every((result) => result.completionText === result.listItemText)).toBe(true);
  });

  it('profile names: only the valid ones, as they are', async () => {
    const profiles = await complete(['whoami', '--profile', '']);
    expect(profiles.results!.map((result) => result.completionText)).toEqual(['home', 'work']);
  });

  it('columns after a comma go in quotes: unquoted, PowerShell would pass an array', async () => {
    const columns = await complete(['academies', '--columns', 'id,']);
    expectFaithful(columns.lines, columns.results);
    expect(columns.results!.length).toBeGreaterThan(1);
    for (const result of columns.results!) expect(result.completionText).toBe(`'${result.listItemText}'`);
  });

  it('file names after --data are left to PowerShell', async () => {
    expect((await complete(['sandbox', '--data', ''])).results).toBeNull();
  });

  it("academy ids with their names as tooltips; a name's quotes, ampersands or $( ) are never code", async () => {
    const names: Record<string, string> = { '1': "O'Neil's Gym", '2': '\u2018Smart\u2019 Dojo', '3': 'Fight & Co; $(calc) `x`' };
    const url = await httpServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/me') return void response.end(JSON.stringify({ data: { id: 1, name: 'k', academyIds: [1, 2, 3] } }));
      const id = /^\/academies\/(\d+)$/.exec(request.url ?? '')?.[1];
      if (!id) return void response.writeHead(404).end('{}');
      const record = { id: Number(id), name: names[id], currency: 'EUR', email: null, phone: null, logoUrl: null, createdAt: '2020-01-01T00:00:00Z' };
      response.end(JSON.stringify({ data: record }));
    });
    const ids = await complete(['academy', ''], { GYMCTL_BASE_URL: url, GYMCTL_API_KEY: 'demo_key_pwsh' });
    expectFaithful(ids.lines, ids.results);
    expect(ids.results).toEqual(Object.entries(names).map(([id, name]) => ({ completionText: id, listItemText: id, toolTip: name })));
  });

  it('what a name could hold is quoted so that PowerShell reads it back whole', () => {
    for (const value of ["it's", '\u2018a\u2019', 'a b', '$(calc)', 'a;b', 'a|b', '--%', '@x', 'a,b', '`x', '#x', 'x"y']) {
      const [result] = results(`${value}\n:none\n`)!;
      expect(readBack(result!.completionText), value).toBe(value);
      expect(result!.completionText).not.toBe(value);
    }
    expect(results(':none\n')).toEqual([]);
  });
});

describe('gymctl completion pwsh', () => {
  it('prints the script; powershell is the same; the error for an unknown shell lists pwsh', async () => {
    const pwsh = await gymctl(['completion', 'pwsh']);
    expect(pwsh.code).toBe(0);
    expect(pwsh.stdout).toBe(PWSH);
    expect((await gymctl(['completion', 'powershell'])).stdout).toBe(PWSH);
    const tcsh = await gymctl(['completion', 'tcsh']);
    expect(tcsh.code).toBe(2);
    expect(tcsh.stderr).toContain('expected one of bash, zsh, fish, pwsh');
  });

  it('its help names pwsh, with the line that loads it', async () => {
    const help = await gymctl(['completion', '--help']);
    expect(help.stdout).toContain('bash, zsh, fish or pwsh');
    expect(help.stdout).toContain('gymctl completion pwsh | Out-String | Invoke-Expression');
  });
});
