/** A document a command makes itself (a status, the settings): JSON when asked for or when it has no form for people. */
import type { Factory } from '../factory.js';

export type DocumentDeps = Pick<Factory, 'output' | 'printJson' | 'io'>;

export async function printDocument(f: DocumentDeps, json: () => string, human?: () => string | Promise<string>): Promise<void> {
  if (!human) return f.printJson(json());
  const { format, jq } = await f.output();
  if (jq || format === 'json') return f.printJson(json());
  f.io.out(await human());
}
