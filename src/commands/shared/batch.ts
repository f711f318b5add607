/**
 * One request per id, at bounded concurrency, the results handed over in argument order as soon as they and all before them
 * are done. At most `window` are held, and no request starts while the output is backed up, so memory stays flat whatever the
 * number of ids or the reader's speed. Failures are reported as they happen; the first in argument order is returned. A
 * refused key (401, 403: kind unauthorized) is wrong for every id: it stops the batch, cancels what is in flight, and is
 * returned, unreported, once `onStopped` has the number of ids left without an answer.
 */
import type { GymctlError } from '../../api/errors.js';
import { Interrupted, toFailure, usageError } from '../../failures.js';
import { parseWholeNumber } from '../../files/system.js';
import type { Id } from '../../api/schemas.js';

export interface BatchOptions<R> {
  ids: readonly Id[];
  concurrency: number;
  /** `signal` aborts once a refused key has stopped the batch. */
  request: (id: Id, signal: AbortSignal) => Promise<R>;
  /** Each success, in argument order. */
  onResult: (result: R, id: Id) => void;
  /** Each failure, when it happens. */
  onError: (error: GymctlError, id: Id) => void;
  /** A failure to skip (`--ignore-not-found`), when it happens: true, and it is neither reported by onError nor the batch's failure. */
  skip?: (error: GymctlError, id: Id) => boolean;
  /** A refused key stopped the batch, which then resolves with it: the ids not sent, cancelled, or refused after it (untold). */
  onStopped?: (notTried: number) => void;
  /** Whether the output can take more: a promise that settles once it can, or undefined when it can now. Checked before each request starts. */
  room?: () => Promise<void> | undefined;
}

type Settled<R> = { ok: true; value: R } | { ok: false; error: GymctlError; skipped?: boolean };

export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 64;

/** Runs the batch; an interrupt (Ctrl-C) ends it at once, reported by no one but the entry point. */
export function runBatch<R>(options: BatchOptions<R>): Promise<GymctlError | undefined> {
  const { ids, concurrency, request } = options;
  const window = Math.max(concurrency * 4, 16);
  const stop = new AbortController();
  return new Promise((resolve, reject) => {
    /** Results not yet handed over, by index; at most `window` (the first not handed over, and those after it). */
    const held = new Map<number, Settled<R>>();
    let next = 0;
    let handed = 0;
    let active = 0;
    let firstFailure: GymctlError | undefined;
    let refusal: GymctlError | undefined;
    /** After the refusal: requests cancelled, or refused too. */
    let untold = 0;
    let ended = false;
    const settle = (index: number, settled: Settled<R>) => {
      active--;
      if (ended) return;
      if (!settled.ok && settled.error instanceof Interrupted) {
        ended = true;
        reject(settled.error);
        return;
      }
      held.set(index, settled);
      while (held.has(handed)) {
        const result = held.get(handed)!;
        held.delete(handed);
        if (result.ok) options.onResult(result.value, ids[handed]!);
        else if (!result.skipped) firstFailure ??= result.error;
        handed++;
      }
      // Every result handed over: every request has settled, and none is left to start. After a refusal, none starts:
      // once those in flight have settled, all of them are handed over (requests start in argument order).
      if (refusal && active === 0) {
        options.onStopped?.(ids.length - next + untold);
        resolve(refusal);
      } else if (!refusal && handed === ids.length) resolve(firstFailure);
      else startMore();
    };
    const fail = (index: number, id: Id, error: unknown) => {
      const failure = toFailure(error, { id });
      if (!(failure instanceof Interrupted) && (refusal || failure.kind === 'unauthorized')) {
        if (refusal) untold++;
        else {
          refusal = failure;
          stop.abort(failure);
        }
        return settle(index, { ok: false, error: failure, skipped: true });
      }
      const skipped = !(failure instanceof Interrupted) && options.skip?.(failure, id) === true;
      if (!(failure instanceof Interrupted) && !skipped) options.onError(failure, id);
      settle(index, { ok: false, error: failure, skipped });
    };
    const start = (index: number) => {
      const id = ids[index]!;
      active++;
      let pending: Promise<R>;
      try {
        pending = request(id, stop.signal);
      } catch (error) {
        // A failure thrown at once is taken on the next turn, as any other: never inside the loop that starts requests.
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => settle(index, { ok: true, value }),
        (error: unknown) => fail(index, id, error),
      );
    };
    /** Waiting for the output to have room: the requests in flight finish, and no other starts. */
    let waiting = false;
    const resume = () => {
      waiting = false;
      startMore();
    };
    const startMore = () => {
      while (!ended && !refusal && !waiting && active < concurrency && next < ids.length && next < handed + window) {
        const full = options.room?.();
        if (full) {
          waiting = true;
          full.then(resume, resume);
          return;
        }
        start(next++);
      }
    };
    if (ids.length === 0) resolve(undefined);
    else startMore();
  });
}

export function parseConcurrency(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONCURRENCY;
  const value = parseWholeNumber(text, 1, MAX_CONCURRENCY);
  if (value === undefined) {
    throw usageError(`invalid --concurrency ${JSON.stringify(text)}: expected a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  return value;
}
