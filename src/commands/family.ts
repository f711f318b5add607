/**
 * `gymctl family <memberId...>`: the members linked to each member's family
 * (GET /members/{id}/family each), in argument order; `-` reads ids from
 * stdin, and ids may be comma-separated. In JSON, with one id, the API's
 * array as it is; with several, an array of those arrays, in argument
 * order. In every other format, whatever the count, a member a row or
 * line, with `familyOf` (the member whose family it is, a field the API
 * does not use) first; a terminal's table for one member leaves it out.
 */
import { operations } from '../api/client.js';
import { GymctlError } from '../api/errors.js';
import type { FamilyMember, Id } from '../api/schemas.js';
import type { ApiResponse } from '../api/transport/types.js';
import type { Factory } from '../factory.js';
import { rawArrayItems } from '../json/raw.js';
import { createEmitter, jsonForStdout, jsonValue, type OutputItem } from '../output/emit.js';
import { familyBatchView, familyOneView, type FamilyEntry } from '../output/views.js';
import { parseConcurrency } from './shared/batch.js';
import { CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION, defineCommand, type FactoryRef } from './shared/define.js';
import { type BatchDeps, collectIds, fetchAll, noteSkipped } from './shared/read.js';

export interface FamilyOptions {
  concurrency?: string;
  ignoreNotFound?: boolean;
}

/** Each member of one family's answer, marked with whose family it is. */
function entries(response: ApiResponse<FamilyMember[]>, familyOf: Id): Array<OutputItem<FamilyEntry>> {
  return rawArrayItems(response.rawData).map((raw, i) => ({
    data: { familyOf, ...response.data[i]! },
    // The member's own text, as sent, with the field put first.
    raw: `{"familyOf":${familyOf}${/^\{\s*\}$/.test(raw) ? '' : ','}${raw.trim().slice(1)}`,
  }));
}

export type FamilyDeps = BatchDeps & Pick<Factory, 'output' | 'client'>;

export async function runFamily(f: FamilyDeps, idTexts: readonly string[], options: FamilyOptions): Promise<void> {
  const concurrency = parseConcurrency(options.concurrency);
  const { ids, shape } = await collectIds(f, idTexts, 'member id');
  const output = await f.output();
  const { format } = output;
  if (shape === 'one') {
    const memberId = ids[0]!;
    // In JSON the family is the one value the API sent (filtered as one by --jq); in other formats, a member a row or line.
    const whole = format === 'json';
    const emitter = whole ? undefined : await createEmitter(f.io, output, familyOneView, 'many', { emptyMessage: `No family members are linked to member ${memberId}.` });
    const { client } = await f.client(concurrency);
    let response: ApiResponse<FamilyMember[]>;
    try {
      response = await client.request(operations.family(memberId));
    } catch (error) {
      if (!options.ignoreNotFound || !(error instanceof GymctlError) || error.kind !== 'not_found') throw error;
      noteSkipped(f.io, error.id === undefined ? error.with({ id: memberId }) : error, format);
      return emitter?.end(false);
    }
    if (!emitter) {
      if (!output.jq) return f.io.out(jsonForStdout(f.io)(jsonValue(response.rawData)));
      // --slurp reads the one answer as jq -s would: an array of it.
      return output.jq.print((text) => f.io.out(text), output.slurp ? `[${response.rawData}]` : response.rawData, f.io.stdoutIsTTY);
    }
    // Each member with `familyOf`, as in a batch: a script sees the same fields whatever the count.
    for (const entry of entries(response, memberId)) emitter.write(entry);
    return emitter.end(false);
  }
  const { client } = await f.client(concurrency);
  await fetchAll<FamilyMember[], FamilyEntry>(f, {
    ids,
    shape,
    output,
    concurrency,
    view: familyBatchView,
    send: (id, done) => client.requestWith(operations.family(id), undefined, done),
    // JSON keeps each family as the API sent it: an array of arrays.
    records: (response, id) => (format === 'json' ? [{ data: { familyOf: id } as FamilyEntry, raw: response.rawData }] : entries(response, id)),
    label: 'Fetching families',
    ignoreNotFound: options.ignoreNotFound === true,
    emit: { emptyMessage: 'No family members are linked to these members.' },
  });
}

export const newCmdFamily = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'family',
      description: "list the members linked to a member's family (the member itself excluded)",
      arguments: [['<memberId...>', 'member ids (positive whole numbers, or comma-separated), or - to read them from stdin']],
      options: [CONCURRENCY_OPTION, IGNORE_NOT_FOUND_OPTION],
      examples: ['gymctl family 501', 'gymctl family 501,530 --format ndjson', "gymctl family 501 --json | jq '.[] | select(.primaryFamilyMember)'"],
    },
    (memberIds: string[], options: FamilyOptions) => runFamily(f(), memberIds, options),
  );
