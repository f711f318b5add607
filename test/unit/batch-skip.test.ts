// A batch's ids skipped with --ignore-not-found, and a batch held back by a reader that does not read
// (src/commands/shared/batch.ts), with requests the test settles itself.
import { describe, expect, it } from 'vitest';
import { GymApiError, type GymctlError } from '../../src/api/errors.js';
import type { Id } from '../../src/api/schemas.js';
import { runBatch } from '../../src/commands/shared/batch.js';

const notFound = (id: Id) => new GymApiError('not_found', `academy ${id}: not found`, { id });
const skipNotFound = (error: GymctlError) => error.kind === 'not_found';

describe('--ignore-not-found in a batch', () => {
  it('skips unknown ids: they are neither reported nor the batch failure, and the others are still handed over in order', async () => {
    const results: Id[] = [];
    const errors: Id[] = [];
    const failure = await runBatch({
      ids: [1, 2, 3, 4],
      concurrency: 2,
      request: async (id) => {
        if (id === 2 || id === 4) throw notFound(id);
        return id;
      },
      onResult: (value) => results.push(value),
      onError: (_, id) => errors.push(id),
      skip: skipNotFound,
    });
    expect(failure).toBeUndefined();
    expect(results).toEqual([1, 3]);
    expect(errors).toEqual([]);
  });

  it('still reports, and fails with, a failure it does not skip', async () => {
    const down = new GymApiError('unavailable', 'academy 3: down', { id: 3 });
    const errors: GymctlError[] = [];
    const failure = await runBatch({
      ids: [1, 2, 3],
      concurrency: 1,
      request: async (id) => {
        if (id === 1) throw notFound(id);
        if (id === 3) throw down;
        return id;
      },
      onResult: () => {},
      onError: (error) => errors.push(error),
      skip: skipNotFound,
    });
    expect(failure).toBe(down);
    expect(errors).toEqual([down]);
  });

  it('without --ignore-not-found, an unknown id is reported and fails the batch', async () => {
    const errors: Id[] = [];
    const failure = await runBatch({
      ids: [1, 2],
      concurrency: 2,
      request: async (id) => {
        if (id === 1) throw notFound(id);
        return id;
      },
      onResult: () => {},
      onError: (_, id) => errors.push(id),
    });
    expect(failure?.kind).toBe('not_found');
    expect(errors).toEqual([1]);
  });
});

/** An output that is full or has room, as stdout is for runBatch's `room`: `drain()` makes room, and lets a waiting batch go on. */
function outputRoom(full: boolean) {
  let drain = () => {};
  return {
    room: () =>
      full
        ? new Promise<void>((resolve) => {
            drain = () => {
              full = false;
              resolve();
            };
          })
        : undefined,
    fill: () => {
      full = true;
    },
    drain: () => drain(),
  };
}

describe('a batch behind its reader', () => {
  it('starts no request while the output has no room, and goes on, in order, once it has', async () => {
    let started = 0;
    const output = outputRoom(true);
    const handed: Id[] = [];
    const done = runBatch({
      ids: [1, 2, 3, 4, 5, 6],
      concurrency: 2,
      request: async (id) => {
        started++;
        return id;
      },
      onResult: (value) => handed.push(value),
      onError: () => {},
      room: output.room,
    });
    // Many turns of the event loop: nothing is asked while the output is full.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(0);
    output.drain();
    expect(await done).toBeUndefined();
    expect(handed).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a batch of no ids ends at once, asking nothing', async () => {
    let asked = 0;
    expect(await runBatch({ ids: [], concurrency: 2, request: async () => asked++, onResult: () => {}, onError: () => {} })).toBeUndefined();
    expect(asked).toBe(0);
  });
});

const turns = async (n = 30) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('a batch around a slow or failing id', () => {
  it('a slow first id does not stall the others: up to 4 × --concurrency ids are fetched ahead of it', async () => {
    let started = 0;
    let release!: () => void;
    const first = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = runBatch({
      ids: Array.from({ length: 100 }, (_, i) => i + 1),
      concurrency: 8,
      request: async (id) => {
        started++;
        if (id === 1) await first;
        return id;
      },
      onResult: () => {},
      onError: () => {},
    });
    await turns();
    expect(started).toBe(32);
    release();
    expect(await done).toBeUndefined();
    expect(started).toBe(100);
  });

  it('after Ctrl-C, no other request starts, whatever was in flight', async () => {
    const asked: Id[] = [];
    let release!: () => void;
    const second = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { Interrupted } = await import('../../src/failures.js');
    const done = runBatch({
      ids: [1, 2, 3, 4],
      concurrency: 2,
      request: async (id) => {
        asked.push(id);
        if (id === 1) throw new Interrupted('SIGINT');
        await second;
        return id;
      },
      onResult: () => {},
      onError: () => {},
    });
    await expect(done).rejects.toBeInstanceOf(Interrupted);
    release();
    await turns();
    expect(asked).toEqual([1, 2]);
  });

  it('a request that throws at once fails its own id, and the batch goes on', async () => {
    const results: Id[] = [];
    const errors: Id[] = [];
    const failure = await runBatch({
      ids: [1, 2, 3],
      concurrency: 3,
      request: (id) => {
        if (id === 2) throw new RangeError('bug');
        return Promise.resolve(id);
      },
      onResult: (value) => results.push(value),
      onError: (_, id) => errors.push(id),
    });
    expect(failure).toMatchObject({ kind: 'internal', id: 2 });
    expect(results).toEqual([1, 3]);
    expect(errors).toEqual([2]);
  });

  it('--concurrency out of range says what it takes', async () => {
    const { parseConcurrency } = await import('../../src/commands/shared/batch.js');
    expect(() => parseConcurrency('65')).toThrow('invalid --concurrency "65": expected a whole number from 1 to 64');
  });
});

describe('Ctrl-C while the batch waits for its reader', () => {
  it('no request starts once stdout drains after an interrupt', async () => {
    const { Interrupted } = await import('../../src/failures.js');
    const asked: Id[] = [];
    let interrupt!: () => void;
    const output = outputRoom(false);
    const done = runBatch({
      ids: [1, 2, 3, 4],
      concurrency: 2,
      request: (id) => {
        asked.push(id);
        if (id === 1) return Promise.resolve(id);
        return new Promise<Id>((_, reject) => {
          interrupt = () => reject(new Interrupted('SIGINT'));
        });
      },
      onResult: () => output.fill(),
      onError: () => {},
      room: output.room,
    });
    await turns();
    expect(asked).toEqual([1, 2]);
    interrupt();
    await expect(done).rejects.toBeInstanceOf(Interrupted);
    output.drain();
    await turns();
    expect(asked).toEqual([1, 2]);
  });
});

describe('a refused key in a batch of the library', () => {
  it('ends the batch with the refusal, unreported, even with no onStopped to be told the ids not tried', async () => {
    const refused = new GymApiError('unauthorized', 'academy 1: the API key was refused', { id: 1 });
    const errors: Id[] = [];
    const failure = await runBatch({
      ids: [1, 2, 3],
      concurrency: 1,
      request: async () => {
        throw refused;
      },
      onResult: () => expect.unreachable(),
      onError: (_, id) => errors.push(id),
    });
    expect(failure).toBe(refused);
    expect(errors).toEqual([]);
  });
});
