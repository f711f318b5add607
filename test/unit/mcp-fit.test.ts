/** fit.ts: every result within the limit, both copies counted as written; what is kept is the most that fits, and the note says what is not. The gate: never more than its size at once. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { type Answer, bytesOf, fitAnswer, type Truncated } from '../../src/mcp/fit.js';
import { Gate } from '../../src/mcp/gate.js';

const LIST = { shape: 'list', command: 'gymctl family 501 --json' } as const;
const BATCH = { shape: 'batch', command: 'gymctl academy 1 2 --json', tool: 'get_academies' } as const;
const RECORD = { shape: 'record', command: 'gymctl academy 1 --json' } as const;

const structured = (result: CallToolResult) => result.structuredContent as Answer & { truncated?: Truncated };
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const records = (n: number, size: number, filler = 'x') => Array.from({ length: n }, (_, i) => ({ id: String(i + 1), name: filler.repeat(size) }));

describe('fitAnswer', () => {
  it('leaves an answer within the limit as it is: the structured content, and the same JSON as text', () => {
    const answer = { data: records(3, 10), notFound: ['9'] };
    const result = fitAnswer(answer, 1000, BATCH);
    expect(result).toEqual({ structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] });
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

  it("names a batch's records left out by id, in order, for another call", () => {
    const data = records(200, 100);
    const answer = structured(fitAnswer({ data, notFound: ['999'] }, 16 * 1024, BATCH));
    const kept = answer.data as Array<{ id: string }>;
    expect(answer.notFound).toEqual(['999']);
    expect([...kept.map((record) => record.id), ...answer.truncated!.omittedIds!]).toEqual(data.map((record) => record.id));
    expect(answer.truncated!.next).toMatch(/^Call get_academies again with the ids in omittedIds/);
  });

  it('names the ids a tool did not fetch after those left out, even when what it fetched fits', () => {
    const answer = structured(fitAnswer({ data: records(3, 10), notFound: ['9'] }, 100_000, BATCH, ['4', '5']));
    expect(answer.data).toEqual(records(3, 10));
    expect(answer.truncated).toMatchObject({ returned: 3, total: 5, omittedIds: ['4', '5'] });
    expect(answer.truncated!.note).toBe('This tool fetches at most 3 records in one call: it holds the first 3 of its 5 records.');
    const over = structured(fitAnswer({ data: records(200, 100) }, 16 * 1024, BATCH, ['201']));
    expect(over.truncated!.omittedIds!.at(-1)).toBe('201');
    expect(over.truncated!.omittedIds!.length + (over.data as unknown[]).length).toBe(201);
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
