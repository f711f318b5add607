import { describe, expect, it } from 'vitest';
import { GymctlError } from '../../src/api/errors.js';
import { Interrupted, UnexpectedError } from '../../src/failures.js';
import { formatFailure } from '../../src/output/errors.js';
import { parseIdList } from '../../src/commands/shared/ids.js';
import { rawArrayItems } from '../../src/json/raw.js';
import { parseConcurrency, runBatch } from '../../src/commands/shared/batch.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runBatch', () => {
  it('hands results over in argument order whatever order they finish in', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => i + 1);
    const seen: number[] = [];
    await runBatch({
      ids,
      concurrency: 5,
      request: async (id) => {
        await sleep((Number(id) * 7) % 13);
        return Number(id) * 10;
      },
      onResult: (value, id) => {
        expect(value).toBe(Number(id) * 10);
        seen.push(Number(id));
      },
      onError: () => expect.unreachable(),
    });
    expect(seen).toEqual(ids);
  });

  it('never runs more requests at once than the concurrency, and does use it', async () => {
    let active = 0;
    let peak = 0;
    await runBatch({
      ids: Array.from({ length: 40 }, (_, i) => i + 1),
      concurrency: 4,
      request: async () => {
        peak = Math.max(peak, ++active);
        await sleep(5);
        active--;
      },
      onResult: () => {},
      onError: () => {},
    });
    expect(peak).toBe(4);
  });

  it('holds a bounded number of results while the first one is slow', async () => {
    let started = 0;
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const batch = runBatch({
      ids: Array.from({ length: 1000 }, (_, i) => i + 1),
      concurrency: 2,
      request: async (id) => {
        started++;
        if (id === 1) await slow;
      },
      onResult: () => {},
      onError: () => {},
    });
    await sleep(50);
    expect(started).toBeLessThanOrEqual(16);
    release();
    await batch;
    expect(started).toBe(1000);
  });

  it('reports failures as they happen and returns the first in argument order', async () => {
    const reported: number[] = [];
    const results: number[] = [];
    const first = await runBatch({
      ids: [1, 2, 3, 4],
      concurrency: 4,
      request: async (id) => {
        if (id === 2) {
          await sleep(30);
          throw new GymctlError('unavailable', 'slow failure', { id });
        }
        if (id === 3) throw new GymctlError('not_found', 'fast failure', { id });
        return id;
      },
      onResult: (value) => results.push(Number(value)),
      onError: (error, id) => {
        expect(error.id).toBe(id);
        reported.push(Number(id));
      },
    });
    expect(reported).toEqual([3, 2]);
    expect(results).toEqual([1, 4]);
    expect(first?.kind).toBe('unavailable');
  });

  it('turns an unexpected exception into an internal failure of that id', async () => {
    const first = await runBatch({
      ids: [7],
      concurrency: 1,
      request: async () => {
        throw new RangeError('bug');
      },
      onResult: () => {},
      onError: () => {},
    });
    expect(first).toMatchObject({ kind: 'internal', id: 7 });
    expect(first?.message).toContain('bug');
  });
});

describe('parseConcurrency', () => {
  it('defaults to 8 and takes 1 to 64', () => {
    expect(parseConcurrency(undefined)).toBe(8);
    expect(parseConcurrency('1')).toBe(1);
    expect(parseConcurrency('64')).toBe(64);
  });
  for (const bad of ['0', '65', '-1', '2.5', 'x', '', '1e1']) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      expect(() => parseConcurrency(bad)).toThrow(GymctlError);
    });
  }
});

describe('parseIdList', () => {
  it('takes ids separated by any white space, skipping blank lines and # comments', () => {
    expect(parseIdList('1 2\n\n  3\t4\r\n# all of this is a comment 99\n5 # and this 98\n')).toEqual([1, 2, 3, 4, 5]);
    expect(parseIdList('')).toEqual([]);
  });
  it('names the line of a bad id', () => {
    expect(() => parseIdList('1\n2\n3x\n', 'academy id')).toThrow('invalid academy id "3x" (stdin line 3)');
    expect(() => parseIdList('1 -2')).toThrow(GymctlError);
  });
});

describe('rawArrayItems', () => {
  it('splits an array into the raw text of each element', () => {
    expect(rawArrayItems('[ {"a":[1,2],"b":"x,]"} , 2.50, "s" ,null,[[]] ]')).toEqual(['{"a":[1,2],"b":"x,]"}', '2.50', '"s"', 'null', '[[]]']);
    expect(rawArrayItems('[]')).toEqual([]);
    expect(rawArrayItems('{"a":1}')).toEqual([]);
  });
});

describe('a bug inside a batch', () => {
  /** A batch of `count` ids whose request for id 2 throws `thrown`; the failures it reported, and how it settled. */
  function throwingOnTwo(count: number, thrown: Error) {
    const failures: GymctlError[] = [];
    const settled = runBatch({
      ids: Array.from({ length: count }, (_, i) => i + 1),
      concurrency: count,
      request: async (id) => {
        if (id === 2) throw thrown;
        return id;
      },
      onResult: () => {},
      onError: (error) => failures.push(error),
    });
    return { failures, settled };
  }

  it('is an UnexpectedError that keeps the stack of what was thrown, shown with --debug', async () => {
    const { failures, settled } = throwingOnTwo(2, new TypeError('cannot read properties of undefined'));
    const first = await settled;
    expect(first).toBe(failures[0]);
    expect(failures[0]).toBeInstanceOf(UnexpectedError);
    expect(failures[0]!.id).toBe(2);
    expect(formatFailure(failures[0]!, 'table', true)).toMatch(
      /^gymctl: unexpected error: cannot read properties of undefined\nTypeError: cannot read properties of undefined\n\s+at /,
    );
    expect(formatFailure(failures[0]!, 'table', false)).toBe('gymctl: unexpected error: cannot read properties of undefined (run with --debug for details)\n');
  });

  it('an interrupt ends the batch at once, reported by no one but the entry point', async () => {
    const { failures, settled } = throwingOnTwo(3, new Interrupted('SIGINT'));
    await expect(settled).rejects.toBeInstanceOf(Interrupted);
    expect(failures).toEqual([]);
  });
});
