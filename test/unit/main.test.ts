import { describe, expect, it } from 'vitest';
import { GymApiError } from '../../src/api/errors.js';
import { describeUnexpected, toGymError } from '../../src/main.js';

describe('describeUnexpected', () => {
  const bug = () => toGymError(new TypeError('boom')) as GymApiError;

  it('an unexpected error is one line pointing to --debug, without its stack', () => {
    const { error, stack } = describeUnexpected(bug(), false);
    expect(error.message).toBe('unexpected error: boom (run with --debug for details)');
    expect(error.kind).toBe('internal');
    expect(stack).toBeUndefined();
  });

  it('with --debug, the stack comes too', () => {
    const { error, stack } = describeUnexpected(bug(), true);
    expect(error.message).toBe('unexpected error: boom');
    expect(stack).toMatch(/^TypeError: boom\n\s+at /);
  });

  it('known failures are shown as they are', () => {
    const known = new GymApiError('not_found', 'academy 9: Resource not found', { status: 404 });
    expect(describeUnexpected(known, false)).toEqual({ error: known });
    const unreadable = new GymApiError('internal', 'config file x cannot be read (EISDIR)', { cause: new Error('EISDIR') });
    expect(describeUnexpected(unreadable, true)).toEqual({ error: unreadable });
  });
});
