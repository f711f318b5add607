/** `gymctl family <memberId>`: the members linked to a member (GET /members/{id}/family). */
import { operations } from '../api/client.js';
import { parseId } from '../api/ids.js';
import type { Context } from '../context.js';
import { printList } from '../output/print.js';
import { familyColumns } from '../output/views.js';

export async function runFamily(ctx: Context, memberIdText: string): Promise<void> {
  const memberId = parseId(memberIdText, 'member id');
  const { client, settings } = await ctx.api();
  const response = await client.request(operations.family(memberId));
  await printList(ctx.io, settings.format.value, response, familyColumns, `No family members are linked to member ${memberId}.`);
}
