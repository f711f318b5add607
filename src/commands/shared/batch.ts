/**
 * Runs one request per id with bounded concurrency and hands the results
 * over in argument order, each as soon as it and everything before it are
 * done. At most `window` results are held at once, so memory stays flat
 * however many ids there are. Failures are reported the moment they
 * happen; the first failure in argument order is returned.
 */
import type { GymctlError } from '../../api/errors.js';
import { Interrupted, UsageError, toFailure } from '../../failures.js';
import { parseWholeNumber } from '../../system.js';
import type { Id } from '../../api/schemas.js';

export interface BatchOptions<R> {
  ids: readonly Id[];
  concurrency: number;
  request: (id: Id) => Promise<R>;
  /** Each success, in argument order. */
  onResult: (result: R, id: Id) => void;
  /** Each failure, when it happens. */
  onError: (error: GymctlError, id: Id) => void;
}

type Settled<R> = { ok: true; value: R } | { ok: false; error: GymctlError };

export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 64;

/** Runs the batch; an interrupt (Ctrl-C) ends it at once, reported by no one but the entry point. */
export async function runBatch<R>(options: BatchOptions<R>): Promise<GymctlError | undefined> {
  const { ids, concurrency, request } = options;
  const window = Math.max(concurrency * 4, 16);
  let active = 0;
  const waiting: Array<() => void> = [];
  const acquire = async () => {
    while (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
  };
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  const start = async (id: Id): Promise<Settled<R>> => {
    await acquire();
    try {
      return { ok: true, value: await request(id) };
    } catch (caught) {
      const error = toFailure(caught, { id });
      if (!(error instanceof Interrupted)) options.onError(error, id);
      return { ok: false, error };
    } finally {
      release();
    }
  };

  const pending: Array<Promise<Settled<R>>> = [];
  let next = 0;
  while (next < ids.length && pending.length < window) pending.push(start(ids[next++]!));
  let firstFailure: GymctlError | undefined;
  for (const id of ids) {
    const settled = await pending.shift()!;
    if (!settled.ok && settled.error instanceof Interrupted) throw settled.error;
    if (next < ids.length) pending.push(start(ids[next++]!));
    if (settled.ok) options.onResult(settled.value, id);
    else firstFailure ??= settled.error;
  }
  return firstFailure;
}

export function parseConcurrency(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONCURRENCY;
  const value = parseWholeNumber(text, 1, MAX_CONCURRENCY);
  if (value === undefined) {
    throw new UsageError(`invalid --concurrency ${JSON.stringify(text)}: expected a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  return value;
}
