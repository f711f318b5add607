/** A declared operation's commands: its own (`academy <academyId...>`), and where the API lists the ids, the one that shows them all (`academies`). */
import type { Command } from 'commander';
import type { OperationDeclaration } from '../operations/declare.js';
import { type ReadFlags, runAll, runPerId, runSingle } from './operation/run.js';
import { CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION, LIMIT_OPTION, defineCommand, type FactoryRef } from './shared/define.js';

const ID_OPTIONS = [CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION];

export function newCmdsOperation(f: FactoryRef, declaration: OperationDeclaration): Command[] {
  const { command: text, param, values } = declaration;
  if (!param) return [defineCommand(text, () => runSingle(f(), declaration))];
  const argument = values ? `[${param.name}...]` : `<${param.name}...>`;
  const own = defineCommand({ ...text, arguments: [[argument, text.argument ?? `${param.what}s`]], options: ID_OPTIONS }, (ids: string[], flags: ReadFlags) =>
    runPerId(f(), declaration, ids, flags),
  );
  if (!values) return [own];
  // Optional to the parser when the ids can be listed (a terminal chooses from them), but required as far as the usage says.
  own.usage(`[options] <${param.name}...>`);
  return [own, defineCommand({ ...values.all, options: [...ID_OPTIONS, LIMIT_OPTION] }, (flags: ReadFlags) => runAll(f(), declaration, flags))];
}
