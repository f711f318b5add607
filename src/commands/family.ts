/** `gymctl family <memberId>`: the members linked to a member (GET /members/{id}/family). */
import { operations } from '../api/client.js';
import { parseId } from '../api/ids.js';
import { rawArrayItems } from '../json/raw.js';
import type { Context } from '../context.js';
import { createEmitter, jsonValue } from '../output/emit.js';
import { familyView } from '../output/views.js';

export async function runFamily(ctx: Context, memberIdText: string): Promise<void> {
  const memberId = parseId(memberIdText, 'member id');
  const { client, settings } = await ctx.api();
  const response = await client.request(operations.family(memberId));
  const format = settings.format.value;
  // In JSON the family is the one value the API sent; in other formats, a member a row or line.
  if (format === 'json') return ctx.io.out(jsonValue(response.rawData));
  const emitter = await createEmitter(ctx.io, format, familyView, 'many', {
    emptyMessage: `No family members are linked to member ${memberId}.`,
  });
  rawArrayItems(response.rawData).forEach((raw, i) => emitter.write({ data: response.data[i]!, raw }));
  emitter.end(false);
}
