/** fit.ts: every result within the limit, both copies counted as written; what is kept is the most that fits, and the note says what is not. The gate: never more than its size at once. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { type Answer, bytesOf, fitAnswer, type Truncated, truncatedSchema } from '../../src/mcp/fit.js';
import { Gate } from '../../src/mcp/gate.js';
import { batchName, toolName } from '../../src/mcp/tools.js';
import { academy, family } from '../../src/operations/index.js';

const LIST = { shape: 'list', command: 'gymctl family 501 --json' } as const;
/** Shortened as the academy operation's batch is, but for how many ids it takes in one call. */
const BATCH = { shape: 'batch', command: 'gymctl academy 1 2 --json', tool: batchName(academy)! } as const;
const RECORD = { shape: 'record', command: 'gymctl academy 1 --json' } as const;

const structured = (result: CallToolResult) => result.structuredContent as Answer & { truncated?: Truncated };
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const records = (n: number, size: number, filler = 'x') => Array.from({ length: n }, (_, i) => ({ id: String(i + 1), name: filler.repeat(size) }));
const RAISE = "or ask the user to raise --max-answer in this MCP server's configuration.";
const asResult = (answer: Answer): CallToolResult => ({ structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] });

describe('fitAnswer', () => {
  it('leaves an answer within the limit as it is: the structured content, and the same JSON as text', () => {
    const answer = { data: records(3, 10), notFound: ['9'] };
    const result = fitAnswer(answer, 1000, BATCH);
    const whole = { ...answer, complete: true };
    expect(result).toEqual({ structuredContent: whole, content: [{ type: 'text', text: JSON.stringify(whole) }] });
    // Exactly at the limit is within it.
    expect(fitAnswer(answer, bytesOf(result), BATCH)).toEqual(result);
  });

  it('counts both copies, escapes included: quotes and backslashes, written twice in the text copy, still fit', () => {
    for (const filler of ['x', '"', '\\', 'é', '\u0001']) {
      const limit = 20_000;
      const result = fitAnswer({ data: records(100, 200, filler) }, limit, LIST);
      expect(bytesOf(result), filler).toBeLessThanOrEqual(limit);
      expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    }
  });

  it('keeps the first records of a list that fit, and no fewer: one more would not', () => {
    const data = records(300, 100);
    const limit = 16 * 1024;
    const result = fitAnswer({ data }, limit, LIST);
    const answer = structured(result);
    const kept = answer.data as unknown[];
    expect(bytesOf(result)).toBeLessThanOrEqual(limit);
    expect(kept).toEqual(data.slice(0, kept.length));
    expect(answer.truncated).toMatchObject({ returned: kept.length, total: 300, limit, bytes: bytesOf(fitAnswer({ data }, 10_000_000, LIST)) });
    expect(answer.truncated!.note).toMatch(new RegExp(`it holds the first ${kept.length} of its 300 records\\.$`));
    expect(answer.truncated!.next).toBe(
      "The rest is not available through this tool: ask the user to run `gymctl family 501 --json`, or ask the user to raise --max-answer in this MCP server's configuration.",
    );
    expect(answer.truncated!.omittedIds).toBeUndefined();
    // One more record, the note saying so, is over the limit.
    const more = { ...answer, data: data.slice(0, kept.length + 1), truncated: { ...answer.truncated!, returned: kept.length + 1 } };
    expect(bytesOf({ structuredContent: more, content: [{ type: 'text', text: JSON.stringify(more) }] })).toBeGreaterThan(limit);
  });

  it('weighs a long list over the limit only until its room is spent: records past it are written only to size the whole', () => {
    // Trying every count from the whole list down would write out a batch of 20,000 records 20,000 times over: an MCP call that hangs.
    for (const how of [LIST, BATCH]) {
      const written = new Map<string, number>();
      const data = records(600, 100).map((record) => ({
        ...record,
        toJSON: () => {
          written.set(record.id, (written.get(record.id) ?? 0) + 1);
          return record;
        },
      }));
      bytesOf(asResult({ data }));
      const toSize = written.get('600');
      written.clear();
      const kept = structured(fitAnswer({ data }, 24 * 1024, how)).data as unknown[];
      expect(kept.length, how.shape).toBeGreaterThan(20);
      // Past the records kept, the one that went over the room and the few its measuring as written gave back are weighed again.
      const past = data.slice(kept.length + 3).map((record) => written.get(record.id));
      expect(past, how.shape).toEqual(past.map(() => toSize));
    }
  });

  it("names a batch's records left out by id, in order, for another call", () => {
    const data = records(200, 100);
    const answer = structured(fitAnswer({ data, notFound: ['999'] }, 16 * 1024, BATCH));
    const kept = answer.data as Array<{ id: string }>;
    expect(answer.notFound).toEqual(['999']);
    expect([...kept.map((record) => record.id), ...answer.truncated!.omittedIds!]).toEqual(data.map((record) => record.id));
    expect(answer.truncated!.next).toMatch(new RegExp(`^Call ${BATCH.tool} again with the ids in omittedIds`));
  });

  it('names the ids a tool did not fetch after those left out, even when what it fetched fits', () => {
    const answer = structured(fitAnswer({ data: records(3, 10), notFound: ['9'] }, 100_000, { ...BATCH, cap: 3 }, [{ ids: ['4', '5'], reason: 'cap' }]));
    expect(answer.data).toEqual(records(3, 10));
    expect(answer.complete).toBe(false);
    expect(answer.truncated).toMatchObject({ reason: 'cap', returned: 3, total: 5, omittedIds: ['4', '5'] });
    expect(answer.truncated!.note).toBe('This tool fetches at most 3 records in one call, and 2 more were listed: it holds the first 3 of its 5 records.');
    const over = structured(fitAnswer({ data: records(200, 100) }, 16 * 1024, BATCH, [{ ids: ['201'], reason: 'cap' }]));
    expect(over.truncated!.omittedIds!.at(-1)).toBe('201');
    expect(over.truncated!.omittedIds!.length + (over.data as unknown[]).length).toBe(201);
  });

  it("says the call's time limit and the tool's cap that left ids unfetched, and how many ids to ask for at a time", () => {
    const how = { ...BATCH, perCall: 20, cap: 1500, timeLimitMs: 2500 };
    const late = structured(fitAnswer({ data: records(2, 10) }, 100_000, how, [{ ids: ['3'], reason: 'time_limit' }])).truncated!;
    expect(late).toMatchObject({ reason: 'time_limit', omittedIds: ['3'] });
    expect(late.note).toBe("This call's time limit (2.5 s, this server's --call-timeout) ran out before 1 records were fetched: it holds the first 2 of its 3 records.");
    expect(late.next).toBe(`Call ${BATCH.tool} again with the ids in omittedIds, at most 20 at a time: those the time limit left out were not refused, only not reached in time.`);
    const noLimit = structured(fitAnswer({ data: records(2, 10) }, 100_000, { ...how, perCall: undefined }, [{ ids: ['3'], reason: 'time_limit' }])).truncated!;
    expect(noLimit.next).toBe(`Call ${BATCH.tool} again with the ids in omittedIds: those the time limit left out were not refused, only not reached in time.`);
    const both = structured(
      fitAnswer({ data: records(2, 10) }, 100_000, how, [
        { ids: ['3'], reason: 'cap' },
        { ids: ['4', '5'], reason: 'time_limit' },
      ]),
    ).truncated!;
    expect(both.note).toMatch(/ran out before 2 records were fetched; this tool fetches at most 1,500 records in one call, and 1 more were listed: it holds/i);
    expect(both.next).toBe(
      `Call ${BATCH.tool} again with the ids in omittedIds, at most 20 at a time: that is how to page past this tool's cap of 1,500 records, which --max-answer does not lift; those the time limit left out were not refused, only not reached in time.`,
    );
  });

  it('keeps the fields of a record that fit whole, in order, and names the rest', () => {
    const data = { id: '1', name: 'Alfama', notes: 'n'.repeat(50_000), city: 'Lisboa', bio: 'b'.repeat(40_000), country: 'PT' };
    const limit = 16 * 1024;
    const result = fitAnswer({ data }, limit, RECORD);
    const answer = structured(result);
    expect(bytesOf(result)).toBeLessThanOrEqual(limit);
    expect(answer.data).toEqual({ id: '1', name: 'Alfama', city: 'Lisboa', country: 'PT' });
    expect(Object.keys(answer.data as object)).toEqual(['id', 'name', 'city', 'country']);
    expect(answer.truncated).toMatchObject({ omittedFields: ['data.notes', 'data.bio'], limit });
    expect(answer.truncated!.note).toMatch(/it holds the record without notes and bio, each too long to fit\.$/);
    expect(answer.truncated!.next).toMatch(/^To see them whole, ask the user to run `gymctl academy 1 --json`/);
  });

  it('keeps a field that fits even after one that does not, and a record of many long fields names 50 and counts the rest', () => {
    const data: Record<string, string> = { id: '1' };
    for (let i = 0; i < 120; i++) data[`field${i}`] = 'v'.repeat(1000);
    const answer = structured(fitAnswer({ data }, 16 * 1024, RECORD));
    const kept = Object.keys(answer.data as object);
    expect(kept[0]).toBe('id');
    expect(kept.length).toBeGreaterThan(2);
    expect(answer.truncated!.omittedFields).toHaveLength(50);
    expect(answer.truncated!.note).toMatch(new RegExp(`without field${kept.length - 1}, .* and ${120 - (kept.length - 1) - 5} more`));
  });

  it('shortens the first record of a list when not even it fits whole', () => {
    const data = [{ id: '1', name: 'Big', notes: 'n'.repeat(100_000) }, { id: '2' }];
    const answer = structured(fitAnswer({ data }, 16 * 1024, LIST));
    expect(answer.data).toEqual([{ id: '1', name: 'Big' }]);
    expect(answer.truncated).toMatchObject({ returned: 1, total: 2, omittedFields: ['data[0].notes'] });
    expect(answer.truncated!.note).toMatch(/the first without notes\.$/);
  });

  it('never goes over the limit, whatever the sizes', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 60; round++) {
      const data = Array.from({ length: 1 + random(80) }, (_, i) => ({ id: String(i), text: '"\\x'.repeat(random(3000)) }));
      const limit = 16 * 1024 + random(64 * 1024);
      for (const [answer, how] of [
        [{ data }, LIST],
        [{ data, notFound: [] }, BATCH],
        [{ data: Object.fromEntries(data.map((item) => [`f${item.id}`, item.text])) }, RECORD],
      ] as const) {
        const result = fitAnswer(answer as Answer, limit, how);
        expect(bytesOf(result), `round ${round} ${how.shape}`).toBeLessThanOrEqual(limit);
        expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
      }
    }
  });
});

describe('fitAnswer, as an MCP client reads it', () => {
  it("the truncated note's schema describes every field, and requires the note, the sizes and how to get the rest", () => {
    expect(z.toJSONSchema(truncatedSchema())).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      description: "Present only when the answer is not complete: too long for one result, past the tool's cap, or cut short by the time limit",
      properties: {
        note: { type: 'string', description: 'What was left out, and why, in words' },
        reason: {
          type: 'string',
          enum: ['too_large', 'cap', 'time_limit'],
          description:
            "Why: too_large, over this server's limit on one result (--max-answer); cap, past the records the tool fetches in one call; time_limit, not fetched before the call's time limit ran out (--call-timeout)",
        },
        bytes: { type: 'number', description: 'Bytes the whole answer would have taken (both of its copies); absent when records were not fetched, whose size is unknown' },
        returnedBytes: { type: 'number', description: 'Bytes of this result as returned (both of its copies)' },
        limit: { type: 'number', description: "Bytes this server sends in one result at most (gymctl mcp's --max-answer)" },
        returned: { type: 'number', description: 'Records in data' },
        total: { type: 'number', description: 'Records in the whole answer' },
        omittedIds: { type: 'array', items: { type: 'string' }, description: 'Ids of the records left out, in order: ask for them in another call' },
        omittedFields: {
          type: 'array',
          items: { type: 'string' },
          description: 'Fields left out, each too long to fit whole, as paths (data.notes, data[0].bio); the first 50',
        },
        next: { type: 'string', description: 'How to get what was left out' },
      },
      required: ['note', 'reason', 'returnedBytes', 'limit', 'next'],
      additionalProperties: false,
    });
  });

  it('a list cut to fit says how long the whole answer was, the limit, and how many records of how many it holds', () => {
    const result = fitAnswer({ data: records(300, 100) }, 16 * 1024, LIST);
    const answer = structured(result);
    expect(answer.complete).toBe(false);
    expect(answer.truncated).toEqual({
      reason: 'too_large',
      bytes: bytesOf(fitAnswer({ data: records(300, 100) }, 10_000_000, LIST)),
      returnedBytes: bytesOf(result),
      limit: 16_384,
      note: 'This answer is 76,100 bytes, over the 16,384 this server sends in one result: it holds the first 61 of its 300 records.',
      returned: 61,
      total: 300,
      next: `The rest is not available through this tool: ask the user to run \`gymctl family 501 --json\`, ${RAISE}`,
    });
  });

  it('a list holds the most records that fit at every limit: one more would be over it', () => {
    // Few large records (single-digit counts) and many small ones (counts whose digits grow the note).
    for (const [data, span] of [
      [records(8, 1600), 3400],
      [records(300, 100), 500],
    ] as const) {
      for (let limit = 16_384; limit < 16_384 + span; limit++) {
        const result = fitAnswer({ data }, limit, LIST);
        const answer = structured(result);
        const kept = answer.truncated!.returned!;
        expect(bytesOf(result), `${limit}`).toBeLessThanOrEqual(limit);
        expect(answer.data).toEqual(data.slice(0, kept));
        const more = {
          ...answer,
          data: data.slice(0, kept + 1),
          truncated: { ...answer.truncated!, returned: kept + 1, note: answer.truncated!.note.replace(` first ${kept} of`, ` first ${kept + 1} of`) },
        };
        expect(bytesOf(asResult(more)), `${limit}`).toBeGreaterThan(limit);
      }
    }
  });

  it('a batch holds the most records that fit at every limit, each kept no longer named in omittedIds: one more would be over it', () => {
    const data = records(300, 100);
    for (let limit = 16_384; limit < 16_884; limit++) {
      const result = fitAnswer({ data, notFound: [] }, limit, BATCH, [{ ids: ['301'], reason: 'cap' }]);
      const answer = structured(result);
      const kept = answer.truncated!.returned!;
      expect(bytesOf(result), `${limit}`).toBeLessThanOrEqual(limit);
      expect(answer.data).toEqual(data.slice(0, kept));
      expect(answer.truncated!.omittedIds).toEqual([...data.slice(kept).map((record) => record.id), '301']);
      const truncated = answer.truncated!;
      const more = {
        ...answer,
        data: data.slice(0, kept + 1),
        truncated: { ...truncated, returned: kept + 1, omittedIds: truncated.omittedIds!.slice(1), note: truncated.note.replace(` first ${kept} of`, ` first ${kept + 1} of`) },
      };
      expect(bytesOf(asResult(more)), `${limit}`).toBeGreaterThan(limit);
    }
  });

  it('names three or more fields left out as "a, b and c", five as "a, b, c, d and e", and past five counts the rest', () => {
    const long = (keys: string[]) => ({ id: '1', ...Object.fromEntries(keys.map((key) => [key, key[0]!.repeat(40_000)])) });
    const note = (keys: string[]) => structured(fitAnswer({ data: long(keys) }, 16 * 1024, RECORD)).truncated!.note;
    expect(note(['notes', 'bio', 'history'])).toMatch(/: it holds the record without notes, bio and history, each too long to fit\.$/);
    expect(note(['a', 'b', 'c', 'd', 'e'])).toMatch(/: it holds the record without a, b, c, d and e, each too long to fit\.$/);
    expect(note(['a', 'b', 'c', 'd', 'e', 'f'])).toMatch(/: it holds the record without a, b, c, d, e and 1 more, each too long to fit\.$/);
  });

  it('keeps a field of a record as soon as the limit leaves room for it beside the note naming every field, to the byte', () => {
    const data = { a: 'x'.repeat(5000), big: 'y'.repeat(100_000) };
    // At 10,000 bytes, a does not fit: the answer is the note naming a and big, with no field.
    const bare = fitAnswer({ data }, 10_000, RECORD);
    expect(structured(bare).data).toEqual({});
    const fragment = `"a":${JSON.stringify(data.a)},`;
    // The field's cost in both copies, and in each the digits returnedBytes may take (the limit's: 5, not the 3 of bare's size).
    const limit = bytesOf(bare) + Buffer.byteLength(fragment) + Buffer.byteLength(JSON.stringify(fragment)) - 2 + 4;
    const kept = fitAnswer({ data }, limit, RECORD);
    expect(structured(kept).data).toEqual({ a: data.a });
    expect(structured(kept).truncated!.returnedBytes).toBe(bytesOf(kept));
    expect(structured(fitAnswer({ data }, limit - 1, RECORD)).data).toEqual({});
  });

  it('a record or the first of a list cut to fit never goes over the limit, and one of exactly the limit is sent as it is', () => {
    // The short fields come first; the note grows when they are kept, as the long names left out take their place in it.
    const names = Array.from({ length: 6 }, (_, i) => `a_field_with_a_rather_long_name_${i}`);
    const record = {
      a: 'x'.repeat(50),
      b: 'x'.repeat(50),
      c: 'x'.repeat(50),
      d: 'x'.repeat(50),
      e: 'x'.repeat(50),
      ...Object.fromEntries(names.map((name) => [name, 'y'.repeat(2000)])),
    };
    for (const [answer, how] of [
      [{ data: record }, RECORD],
      [{ data: [record, { id: '2' }] }, LIST],
    ] as const) {
      let shortened = 0;
      for (let limit = 2000; limit < 3200; limit++) {
        const result = fitAnswer(answer, limit, how);
        expect(bytesOf(result), `${how.shape} ${limit}`).toBeLessThanOrEqual(limit);
        const kept = structured(result).data;
        if (JSON.stringify(kept) === '{}' || JSON.stringify(kept) === '[]') continue;
        shortened++;
        // Sent again under a limit of exactly its own size, the same answer.
        expect(structured(fitAnswer(answer, bytesOf(result), how)).data, `${how.shape} ${limit}`).toEqual(kept);
      }
      expect(shortened, how.shape).toBeGreaterThan(100);
    }
  });

  it('a list of values that are not records is cut by whole values, never into their characters nor into empty records', () => {
    const answer = structured(fitAnswer({ data: ['x'.repeat(20_000), 'short'] }, 16 * 1024, LIST));
    expect(answer.data).toEqual([]);
    expect(answer.truncated).toMatchObject({ returned: 0, total: 2 });
    expect(answer.truncated!.note).toMatch(/: it holds the first 0 of its 2 records\.$/);
    expect(answer.truncated!.omittedFields).toBeUndefined();
    // true takes more bytes than {}: at every limit, the answer holds the first values as they are, or none.
    const flags = [true, 'x'.repeat(5000)];
    for (let limit = 400; limit < 1400; limit++) {
      const data = structured(fitAnswer({ data: flags }, limit, LIST)).data as unknown[];
      expect(data, `${limit}`).toEqual(flags.slice(0, data.length));
    }
  });

  it('the first record of a list keeps its fields that fit when the next is a little too long for the room the note leaves', () => {
    const data = [{ id: '1', name: 'Big', notes: 'n'.repeat(8200) }, { id: '2' }];
    const answer = structured(fitAnswer({ data }, 16 * 1024, LIST));
    expect(answer.data).toEqual([{ id: '1', name: 'Big' }]);
    expect(answer.truncated).toMatchObject({ returned: 1, total: 2, omittedFields: ['data[0].notes'] });
  });

  it("a batch's records left out are named by their ids, as text, and those with no id (or not records) are not named", () => {
    const data = [{ id: '1', name: 'x'.repeat(100) }, { name: 'no id', bio: 'x'.repeat(20_000) }, null, 7, { id: 5, name: 'x'.repeat(20_000) }];
    const answer = structured(fitAnswer({ data, notFound: [] }, 16 * 1024, BATCH));
    expect(answer.data).toEqual([data[0]]);
    expect(answer.truncated).toMatchObject({ returned: 1, total: 5, omittedIds: ['5'] });
  });

  it('an answer that is not a record nor a list, too long to fit, is left out whole', () => {
    const answer = structured(fitAnswer({ data: 'x'.repeat(100_000) }, 16 * 1024, RECORD));
    expect(answer).toStrictEqual({
      data: {},
      complete: false,
      truncated: {
        reason: 'too_large',
        bytes: 200_120,
        returnedBytes: 792,
        limit: 16_384,
        note: 'This answer is 200,120 bytes, over the 16,384 this server sends in one result, and no part of it fits.',
        next: `Ask the user to run \`gymctl academy 1 --json\`, ${RAISE}`,
      },
    });
  });

  it('under a limit below any note, the note alone: a record keeps its id (its schema requires it), a list no record', () => {
    const notes = 'n'.repeat(1000);
    const alone = (data: unknown, how: typeof RECORD | typeof LIST) => structured(fitAnswer({ data }, 600, how));
    expect(alone({ id: '1', notes }, RECORD)).toEqual({
      data: { id: '1' },
      complete: false,
      truncated: {
        reason: 'too_large',
        bytes: 2164,
        returnedBytes: 794,
        limit: 600,
        note: 'This answer is 2,164 bytes, over the 600 this server sends in one result, and no part of it fits.',
        next: `Ask the user to run \`gymctl academy 1 --json\`, ${RAISE}`,
      },
    });
    // A record with no id has none added: no id key at all.
    expect(alone({ notes }, RECORD).data).toStrictEqual({});
    expect(structured(fitAnswer({ data: null }, 10, RECORD)).data).toStrictEqual({});
    expect(alone([null, { id: '2', notes }], LIST).data).toEqual([]);
    // A list's note alone says how many records there were, even over the limit.
    const pair = [
      { id: '1', notes },
      { id: '2', notes },
    ];
    expect(alone(pair, LIST)).toEqual({
      data: [],
      complete: false,
      truncated: {
        reason: 'too_large',
        bytes: 4220,
        returnedBytes: 946,
        limit: 600,
        note: 'This answer is 4,220 bytes, over the 600 this server sends in one result: it holds the first 0 of its 2 records.',
        returned: 0,
        total: 2,
        next: `The rest is not available through this tool: ask the user to run \`gymctl family 501 --json\`, ${RAISE}`,
      },
    });
  });

  it('an answer exactly at the limit is not said to be over it, even when ids a batch did not fetch shorten it', () => {
    const answer = { data: records(3, 10), notFound: [] };
    const limit = bytesOf(fitAnswer(answer, 1_000_000, BATCH));
    const note = structured(fitAnswer(answer, limit, { ...BATCH, cap: 3 }, [{ ids: ['4'], reason: 'cap' }])).truncated!.note;
    // The note does not fit beside the 3 records at that limit; it still gives the cap, never "over the limit".
    expect(note).toMatch(/^This tool fetches at most 3 records in one call, and 1 more were listed: it holds the first [0-3] of its 4 records\.$/);
  });

  it('only a batch with a tool sends the client back to it; a list, even one given a tool, and a batch with none point to the command', () => {
    const data = records(300, 100);
    const list = structured(fitAnswer({ data }, 16 * 1024, { ...LIST, tool: toolName(family) }));
    expect(list.truncated!.next).toBe(`The rest is not available through this tool: ask the user to run \`gymctl family 501 --json\`, ${RAISE}`);
    expect(list.truncated!.omittedIds).toBeUndefined();
    const batch = structured(fitAnswer({ data, notFound: [] }, 16 * 1024, { shape: 'batch', command: 'gymctl academies --json' }));
    expect(batch.truncated!.next).toBe(`The rest is not available through this tool: ask the user to run \`gymctl academies --json\`, ${RAISE}`);
    expect(batch.truncated!.omittedIds![0]).toBe(String(batch.truncated!.returned! + 1));
    // Past a cap, with no tool to page with: the command alone, never --max-answer, which would not help.
    const capped = structured(
      fitAnswer({ data: records(3, 10), notFound: [] }, 100_000, { shape: 'batch', command: 'gymctl academies --json', cap: 3 }, [{ ids: ['4'], reason: 'cap' }]),
    );
    expect(capped.truncated!.next).toBe('The rest is not available through this tool: ask the user to run `gymctl academies --json`.');
    const again = structured(fitAnswer({ data, notFound: [] }, 16 * 1024, BATCH));
    expect(again.truncated!.next).toBe(`Call ${BATCH.tool} again with the ids in omittedIds (fewer at a time), ${RAISE}`);
  });
});

describe('Gate', () => {
  it('runs at most its size at once, the rest in the order asked, each place given back however its task ends', async () => {
    const gate = new Gate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) => async () => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
      if (n % 3 === 0) throw new Error(`task ${n}`);
      return n;
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 9 }, (_, n) => gate.run(task(n))));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    // All places back: as many at once again.
    let again = 0;
    await Promise.all([gate.run(async () => again++), gate.run(async () => again++)]);
    expect(again).toBe(2);
  });

  it('a task aborted while it waits leaves the queue with its reason, and never runs', async () => {
    const gate = new Gate(1);
    let release!: () => void;
    const first = gate.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    let ran = false;
    const waiting = gate.run(async () => {
      ran = true;
    }, controller.signal);
    const third = gate.run(async () => 'third');
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    release();
    await first;
    expect(await third).toBe('third');
    expect(ran).toBe(false);
    // Already aborted: refused at once.
    await expect(gate.run(async () => 1, controller.signal)).rejects.toThrow('cancelled');
  });
});
