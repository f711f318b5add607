// gymctl mcp's tools run against a fake API (src/mcp/tools.ts): what a model is answered when some ids fail, when it
// asks for too many, and when some do not exist. A tool that answers partial data as if whole misleads a model silently.
import { describe, expect, it } from 'vitest';
import { GymApiError, GymctlError } from '../../src/api/errors.js';
import type { ApiResponse, Operation } from '../../src/api/transport/types.js';
import { MAX_BATCH_IDS, type Send, toolsOf, toolName } from '../../src/mcp/tools.js';
import { commandNames } from '../../src/operations/declare.js';
import { OPERATIONS, academy, whoami } from '../../src/operations/index.js';
import { DEMO_DATA } from '../../src/sandbox/demo-data.js';

/** The academy operation's tools: its own, its batch, and the one listing every academy of the key. */
const [GET_ACADEMY, GET_ACADEMIES, LIST_ACADEMIES] = toolsOf([academy]).map((tool) => tool.name) as [string, string, string];
const WHOAMI = toolName(whoami);

const tool = (name: string) => toolsOf(OPERATIONS).find((t) => t.name === name)!;

/** The arguments of every declared tool: 5 for each id, and 5, 6 and 5 again for each batch of ids. */
const ARGS = Object.fromEntries(OPERATIONS.flatMap((d) => (d.param ? [[d.param.name, '5'] as const, [`${d.param.name}s`, ['5', '6', '5']] as const] : [])));

/** `shown`'s entries for the names `expected` has: the tools pinned here, whatever other operations are declared beside them. */
const only = <T>(shown: Record<string, T>, expected: Record<string, unknown>) => Object.fromEntries(Object.keys(expected).map((name) => [name, shown[name]]));

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

describe(GET_ACADEMIES, () => {
  it('never answers partial data with the failed ids gone: any failure but not found fails the call', async () => {
    const down = new GymApiError('unavailable', 'academy 2: the API is down', { id: 2, status: 503 });
    const { send } = api({ '2': down });
    await expect(tool(GET_ACADEMIES).run({ academyIds: ['1', '2', '3'] }, send)).rejects.toBe(down);
  });

  it('names the ids the API does not know instead of dropping them silently', async () => {
    const { send } = api({ '2': notFound(2), '4': notFound(4) });
    const answer = (await tool(GET_ACADEMIES).run({ academyIds: ['1', '2', '3', '4'] }, send)) as { data: { id: string }[]; notFound: string[] };
    expect(answer.data.map((a) => a.id)).toEqual(['1', '3']);
    expect(answer.notFound).toEqual(['2', '4']);
  });

  it('fetches an id named twice once, and answers in the order asked', async () => {
    const { send, asked } = api();
    const answer = (await tool(GET_ACADEMIES).run({ academyIds: ['3', '1', '3'] }, send)) as { data: { id: string }[]; notFound: string[] };
    expect(answer.data.map((a) => a.id)).toEqual(['3', '1']);
    expect(answer.notFound).toEqual([]);
    expect(asked.sort()).toEqual(['1', '3']);
  });

  it(`refuses more than ${MAX_BATCH_IDS} ids before sending any, saying to split the call`, async () => {
    const { send, asked } = api();
    const ids = Array.from({ length: MAX_BATCH_IDS + 1 }, (_, i) => String(i + 1));
    await expect(tool(GET_ACADEMIES).run({ academyIds: ids }, send)).rejects.toMatchObject({
      kind: 'usage',
      message: `academyIds must be a list of 1 to ${MAX_BATCH_IDS} academy ids, not ${MAX_BATCH_IDS + 1}: split the call`,
    });
    expect(asked).toEqual([]);
    const answer = (await tool(GET_ACADEMIES).run({ academyIds: ids.slice(0, MAX_BATCH_IDS) }, send)) as { data: unknown[] };
    expect(answer.data).toHaveLength(MAX_BATCH_IDS);
  });

  it('refuses an empty list or no list, before sending anything', async () => {
    const { send, asked } = api();
    for (const academyIds of [[], undefined, '1']) {
      await expect(tool(GET_ACADEMIES).run({ academyIds }, send), JSON.stringify(academyIds)).rejects.toMatchObject({
        kind: 'usage',
        message: 'academyIds must be a list of 1 to 20 academy ids',
      });
    }
    expect(asked).toEqual([]);
  });
});

describe('the records a batch fetched, when some fail or time runs out', () => {
  const aborted = (id: number) => new GymctlError('aborted', `academy ${id}: aborted`, { id });
  /** A fake API: `missing` are not found, `cut` are aborted, the rest answer. */
  const sendOf = (missing: number[], cut: number[]) =>
    (async (operation: Operation<unknown>) => {
      const id = Number(operation.id);
      if (missing.includes(id)) throw notFound(id);
      if (cut.includes(id)) throw aborted(id);
      return { data: record(id), rawData: '', status: 200 } as unknown as ApiResponse<unknown>;
    }) as Send;

  it('counts each record settled, found or not, but not one aborted, and names those the time limit left out', async () => {
    const progress: Array<[number, number]> = [];
    const context = { progress: (done: number, total: number) => void progress.push([done, total]), timedOut: () => true };
    const answer = await tool(GET_ACADEMIES).run({ academyIds: ['1', '2', '3', '4', '5'] }, sendOf([2, 3], [4]), context);
    expect(answer).toEqual({
      data: [expect.objectContaining({ id: '1' }), expect.objectContaining({ id: '5' })],
      notFound: ['2', '3'],
      unfetched: [{ ids: ['4'], reason: 'time_limit' }],
    });
    expect(progress).toEqual([0, 1, 2, 3, 4].map((done) => [done, 5]));
  });

  it('fails with the abort when nothing was fetched in time, or when the call was stopped by anything but its time limit', async () => {
    await expect(tool(GET_ACADEMIES).run({ academyIds: ['4'] }, sendOf([], [4]), { timedOut: () => true })).rejects.toMatchObject({ kind: 'aborted', id: 4 });
    await expect(tool(GET_ACADEMIES).run({ academyIds: ['1', '4'] }, sendOf([], [4]), { timedOut: () => false })).rejects.toMatchObject({ kind: 'aborted', id: 4 });
    await expect(tool(GET_ACADEMIES).run({ academyIds: ['1', '4'] }, sendOf([], [4]))).rejects.toMatchObject({ kind: 'aborted', id: 4 });
  });

  it('fails with any other failure even once the time limit has run out', async () => {
    const down = new GymApiError('unavailable', 'academy 2: the API is down', { id: 2, status: 503 });
    await expect(tool(GET_ACADEMIES).run({ academyIds: ['1', '2'] }, api({ '2': down }).send, { timedOut: () => true })).rejects.toBe(down);
  });
});

describe('what a model reads of each tool', () => {
  it('each tool says what it answers, what it takes, that ids are text and that it changes nothing, and the command that gives the same', () => {
    const tools = toolsOf(OPERATIONS);
    for (const t of tools) {
      expect(t.description, t.name).toContain('Every id in the answer is a string of digits, exact however large (ids are 64-bit).');
      expect(t.description, t.name).toMatch(/ Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged\.$/);
      expect(t.shortening(ARGS).command, t.name).toMatch(new RegExp(`^gymctl (${OPERATIONS.flatMap(commandNames).join('|')})( 5)?( 6)? --json$`));
    }
    const shown = Object.fromEntries(tools.map((t) => [t.name, [t.title, t.description, t.shortening(ARGS).command]]));
    const expected = {
      whoami: [
        'The calling API key, the academies it is scoped to, and its owner',
        'Which key is in use and what it may see: the calling API key, the academies it is scoped to, and its owner (GET /me). Returns the key that made the call, the academies it is scoped to (academyIds), and its owning user. Takes no arguments. Answers {"data": {...}}: one ApiKey record, with the fields the API sent. Every id in the answer is a string of digits, exact however large (ids are 64-bit). Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.',
        'gymctl whoami --json',
      ],
      get_academy: [
        'One academy',
        'What an academy is: one academy (GET /academies/{academyId}). Returns exactly one academy. The specification does not say what happens when the academy lies outside the key\'s scope. Takes academyId, the academy id: a positive whole number, best sent as a string ("42"). The academies this key can see are the academyIds that whoami answers. Answers {"data": {...}}: one Academy record, with the fields the API sent. Every id in the answer is a string of digits, exact however large (ids are 64-bit). Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.',
        'gymctl academy 5 --json',
      ],
      get_academies: [
        'Academies by id, several at once',
        'Academies by id, several at once: what an academy is for each id (one GET /academies/{academyId} each). Takes academyIds: 1 to 20 academy ids, each a positive whole number, best sent as a string; for one, get_academy does the same. The academies this key can see are the academyIds that whoami answers. Answers {"data": [...], "notFound": [...]}: the Academy records in the order asked (an id named twice is fetched and answered once), and the ids the API does not know (or that lie outside this key\'s scope). Any other failure fails the whole call. Every id in the answer is a string of digits, exact however large (ids are 64-bit). Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.',
        'gymctl academy 5 6 --json',
      ],
      list_academies: [
        'Every academy the key is scoped to, in the order of its academyIds',
        'Every academy the key is scoped to, in the order of its academyIds, in one call (one GET /academies/{academyId} each). Takes no arguments. Answers {"data": [...], "notFound": [...]}: the Academy records, and the ids listed that the API does not know; past 500, the first 500, and the rest named in truncated.omittedIds. Every id in the answer is a string of digits, exact however large (ids are 64-bit). Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.',
        'gymctl academies --json',
      ],
      list_family: [
        'The other members of the family of a member (the member itself excluded)',
        'Who is in a member\'s family: the other members of the family of a member (the member itself excluded) (GET /members/{memberId}/family). Lists the other members in the family of the given member, which is itself excluded: an empty array, or one entry per linked member. Neither the order nor any pagination is specified. Takes memberId, the member id: a positive whole number, best sent as a string ("42"). A member id is a member\'s id in the gym\'s own records, or the id of a member that an earlier family answer listed: the API cannot list every member. Answers {"data": [...]}: a list of FamilyMember records, possibly empty. Every id in the answer is a string of digits, exact however large (ids are 64-bit). Read-only: it changes nothing, and the same call gives the same answer while the data is unchanged.',
        'gymctl family 5 --json',
      ],
    };
    expect(only(shown, expected)).toEqual(expected);
  });
});

describe(LIST_ACADEMIES, () => {
  /** A fake API whose key is scoped to `scope`; the ids in `unknown` are not found. */
  function scoped(scope: number[], unknown: number[] = []) {
    const asked: string[] = [];
    const send = (async (operation: Operation<unknown>) => {
      asked.push(operation.path);
      if (operation.id === undefined) return { data: { ...DEMO_DATA.keys[0]!.key, academyIds: scope }, rawData: '', status: 200 } as unknown as ApiResponse<unknown>;
      if (unknown.includes(Number(operation.id))) throw notFound(Number(operation.id));
      return { data: record(Number(operation.id)), rawData: '', status: 200 } as unknown as ApiResponse<unknown>;
    }) as Send;
    return { send, asked };
  }

  it("answers every academy of the key once, in the key's order, naming those the API does not know", async () => {
    const { send } = scoped([3, 1, 3, 2], [2]);
    const answer = (await tool(LIST_ACADEMIES).run({}, send)) as unknown as { data: { id: string }[]; notFound: string[]; unfetched: unknown[] };
    expect(answer.data.map((a) => a.id)).toEqual(['3', '1']);
    expect(answer.notFound).toEqual(['2']);
    expect(answer.unfetched).toEqual([]);
  });

  it('answers none for a key scoped to no academy', async () => {
    expect(await tool(LIST_ACADEMIES).run({}, scoped([]).send)).toEqual({ data: [], notFound: [], unfetched: [] });
  });

  it('past 500 academies, fetches the first 500 and names the rest', async () => {
    const { send, asked } = scoped(Array.from({ length: 502 }, (_, i) => i + 1));
    const answer = (await tool(LIST_ACADEMIES).run({}, send)) as unknown as { data: unknown[]; unfetched: unknown[] };
    expect(answer.data).toHaveLength(500);
    expect(answer.unfetched).toEqual([{ ids: ['501', '502'], reason: 'cap' }]);
    expect(asked).toHaveLength(501);
  });
});

describe('the batch tool of an operation', () => {
  it("is named after the path's collection, in the words a model reads, and only when the collection is a plain word", async () => {
    const { batchName } = await import('../../src/mcp/tools.js');
    const { academy } = await import('../../src/operations/index.js');
    const at = (path: string) => batchName({ ...academy, path } as typeof academy);
    expect(at('/academies/{academyId}')).toBe('get_academies');
    expect(at('/training-halls/{academyId}')).toBe('get_training_halls');
    for (const path of ['/my_things/{academyId}', '/things_x/{academyId}', '/{academyId}', '/Academies/{academyId}', '/academies/{otherId}']) {
      expect(at(path), path).toBeUndefined();
    }
  });
});

describe('what a model is shown of the arguments and answers', () => {
  it('get_academy asks for academyId, and get_academies for 1 to 20 academyIds, each required', async () => {
    const z = await import('zod/mini');
    const json = (name: string) =>
      z.toJSONSchema(tool(name).inputSchema!, { io: 'input' }) as { required?: string[]; properties: Record<string, { maxItems?: number; type?: string }> };
    expect(json(GET_ACADEMY).required).toEqual(['academyId']);
    expect(json(GET_ACADEMIES).required).toEqual(['academyIds']);
    expect(json(GET_ACADEMIES).properties.academyIds).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 });
    expect(tool(WHOAMI).inputSchema).toBeUndefined();
  });

  it("get_academies' answer names the ids not found, in its output schema", async () => {
    const z = await import('zod/mini');
    const json = z.toJSONSchema(tool(GET_ACADEMIES).outputSchema, { io: 'output' }) as { properties: Record<string, unknown> };
    expect(Object.keys(json.properties)).toContain('notFound');
  });

  it('each tool says how its answer is shortened, and which tool gets the rest of a batch', () => {
    const tools = toolsOf(OPERATIONS);
    const names = tools.map((t) => t.name);
    const shortened = Object.fromEntries(tools.map((t) => [t.name, t.shortening(ARGS)]));
    // A batch's rest is got from a tool that exists.
    for (const [name, shortening] of Object.entries(shortened)) if ('tool' in shortening) expect(names, name).toContain(shortening.tool);
    const expected = {
      whoami: { shape: 'record', command: 'gymctl whoami --json' },
      get_academy: { shape: 'record', command: 'gymctl academy 5 --json' },
      get_academies: { shape: 'batch', tool: 'get_academies', perCall: 20, command: 'gymctl academy 5 6 --json' },
      list_academies: { shape: 'batch', tool: 'get_academies', perCall: 20, cap: 500, command: 'gymctl academies --json' },
      list_family: { shape: 'list', command: 'gymctl family 5 --json' },
    };
    expect(only(shortened, expected)).toEqual(expected);
  });

  it('get_academy answers the record with its ids as text', async () => {
    const { send } = api();
    expect(await tool(GET_ACADEMY).run({ academyId: '7' }, send)).toMatchObject({ data: { id: '7' } });
  });

  it("the server's instructions say how a failure reads and what a shortened answer has", async () => {
    const { FAILURES, SHORTENED } = await import('../../src/mcp/tools.js');
    expect(FAILURES).toContain('{"error":{"message","kind","correlationId","status","id","next"}}');
    expect(SHORTENED).toContain('"truncated"');
  });

  it('an operation of another shape is named by its own words: a list command with a -, a description that says show twice, a batch named as the tool', async () => {
    const { academy } = await import('../../src/operations/index.js');
    const values = academy.values!;
    const other = { ...academy, values: { ...values, all: { ...values.all, name: 'all-halls', description: 'show halls to show' } } } as typeof academy;
    const list = toolsOf([other]).find((t) => t.name.startsWith('list_'))!;
    expect(list.name).toBe('list_all_halls');
    expect(list.title).toBe('Halls to show');
    expect(list.description).toMatch(/^Halls to show, in one call/);
    // Only a leading "show " is dropped.
    const plain = { ...academy, values: { ...values, all: { ...values.all, description: 'every hall to show here' } } } as typeof academy;
    const listed = toolsOf([plain]).find((t) => t.name.startsWith('list_'))!;
    expect(listed.title).toBe('Every hall to show here');
    expect(listed.description).toMatch(/^Every hall to show here, in one call/);
    // A batch whose name would be the operation's own tool is not made twice.
    const same = { ...academy, name: 'academies' } as typeof academy;
    expect(toolsOf([same]).map((t) => t.name)).toEqual(['get_academies', 'list_academies']);
  });
});
