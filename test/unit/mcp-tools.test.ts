// gymctl mcp's tools run against a fake API (src/mcp/tools.ts): what a model is answered when some ids fail, when it
// asks for too many, and when some do not exist. A tool that answers partial data as if whole misleads a model silently.
import { describe, expect, it } from 'vitest';
import { GymApiError } from '../../src/api/errors.js';
import type { ApiResponse, Operation } from '../../src/api/transport/types.js';
import { MAX_BATCH_IDS, type Send, toolsOf } from '../../src/mcp/tools.js';
import { OPERATIONS } from '../../src/operations/index.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';

const tool = (name: string) => toolsOf(OPERATIONS).find((t) => t.name === name)!;
const record = (id: number) => ({ ...DEMO_DATA.academies[0]!, id });

/** A fake API: each academy answers with its record, but for the ids `failing` says fail, with that failure. */
function api(failing: Record<string, GymApiError> = {}) {
  const asked: string[] = [];
  const send = (async (operation: Operation<unknown>) => {
    const id = String(operation.id);
    asked.push(id);
    const failure = failing[id];
    if (failure) throw failure;
    return { data: record(Number(id)), rawData: '', status: 200 } as unknown as ApiResponse<unknown>;
  }) as Send;
  return { send, asked };
}

const notFound = (id: number) => new GymApiError('not_found', `academy ${id}: not found`, { id, status: 404 });

describe('get_academies', () => {
  it('never answers partial data with the failed ids gone: any failure but not found fails the call', async () => {
    const down = new GymApiError('unavailable', 'academy 2: the API is down', { id: 2, status: 503 });
    const { send } = api({ '2': down });
    await expect(tool('get_academies').run({ academyIds: ['1', '2', '3'] }, send)).rejects.toBe(down);
  });

  it('names the ids the API does not know instead of dropping them silently', async () => {
    const { send } = api({ '2': notFound(2), '4': notFound(4) });
    const answer = (await tool('get_academies').run({ academyIds: ['1', '2', '3', '4'] }, send)) as { data: { id: string }[]; notFound: string[] };
    expect(answer.data.map((a) => a.id)).toEqual(['1', '3']);
    expect(answer.notFound).toEqual(['2', '4']);
  });

  it('fetches an id named twice once, and answers in the order asked', async () => {
    const { send, asked } = api();
    const answer = (await tool('get_academies').run({ academyIds: ['3', '1', '3'] }, send)) as { data: { id: string }[]; notFound: string[] };
    expect(answer.data.map((a) => a.id)).toEqual(['3', '1']);
    expect(answer.notFound).toEqual([]);
    expect(asked.sort()).toEqual(['1', '3']);
  });

  it(`refuses more than ${MAX_BATCH_IDS} ids before sending any, saying to split the call`, async () => {
    const { send, asked } = api();
    const ids = Array.from({ length: MAX_BATCH_IDS + 1 }, (_, i) => String(i + 1));
    await expect(tool('get_academies').run({ academyIds: ids }, send)).rejects.toMatchObject({
      kind: 'usage',
      message: `academyIds must be a list of 1 to ${MAX_BATCH_IDS} academy ids, not ${MAX_BATCH_IDS + 1}: split the call`,
    });
    expect(asked).toEqual([]);
    const answer = (await tool('get_academies').run({ academyIds: ids.slice(0, MAX_BATCH_IDS) }, send)) as { data: unknown[] };
    expect(answer.data).toHaveLength(MAX_BATCH_IDS);
  });

  it('refuses an empty list or no list, before sending anything', async () => {
    const { send, asked } = api();
    for (const academyIds of [[], undefined, '1']) {
      await expect(tool('get_academies').run({ academyIds }, send), JSON.stringify(academyIds)).rejects.toMatchObject({
        kind: 'usage',
        message: 'academyIds must be a list of 1 to 20 academy ids',
      });
    }
    expect(asked).toEqual([]);
  });
});
