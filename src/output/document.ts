/**
 * One way to print a document a command makes itself (a status, the
 * settings, a schema): through --jq when it is given; as JSON when --json,
 * --format json or the profile's stored format asks for it, or when the
 * document has no form for people; otherwise its form for people, which
 * the table and card renderer draws on a terminal.
 */
import type { Factory } from '../factory.js';

export type DocumentDeps = Pick<Factory, 'output' | 'printJson' | 'io'>;

export async function printDocument(f: DocumentDeps, json: () => string, human?: () => string | Promise<string>): Promise<void> {
  if (!human) return f.printJson(json());
  const { format, jq } = await f.output();
  if (jq || format === 'json') return f.printJson(json());
  f.io.out(await human());
}
