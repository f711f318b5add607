/**
 * Ctrl-C or SIGTERM while --jq's worker starts or runs: whatever waits on
 * jq fails with the interrupt, and closing the filter afterwards settles,
 * so gymctl ends with the interrupt's exit code instead of running out of
 * work with exit 0.
 */
import { describe, expect, it } from 'vitest';
import { Interrupted } from '../../src/failures.js';
import { compileJq } from '../../src/output/jq.js';

describe('--jq stopped by an interrupt', () => {
  it('a filter closed after the interrupt stopped its worker: close settles', async () => {
    const controller = new AbortController();
    const filter = await compileJq('.', controller.signal);
    controller.abort(new Interrupted('SIGTERM'));
    await expect(filter.close()).resolves.toBeUndefined();
    await expect(filter.print(() => {}, '1', false)).rejects.toBeInstanceOf(Interrupted);
  });

  it('an interrupt while the worker starts fails what waits on it, and close still settles', async () => {
    const controller = new AbortController();
    const compiling = compileJq('.', controller.signal);
    // The worker is being started now (compileJq started it before its first await).
    controller.abort(new Interrupted('SIGINT'));
    const filter = await compiling;
    await expect(filter.print(() => {}, '1', false)).rejects.toBeInstanceOf(Interrupted);
    await expect(filter.close()).resolves.toBeUndefined();
  });
});
