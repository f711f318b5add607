import { describe, expect, it } from 'vitest';
import { GymApiError, GymctlError } from '../../src/api/errors.js';
import { EXIT_CODES, Interrupted, UnexpectedError, exitCodeOf, toFailure } from '../../src/failures.js';
import { formatFailure } from '../../src/output/errors.js';

describe('unexpected errors', () => {
  const bug = () => toFailure(new TypeError('boom'));

  it('any unknown throw becomes an internal UnexpectedError that keeps what was thrown', () => {
    const failure = bug();
    expect(failure).toBeInstanceOf(UnexpectedError);
    expect(failure.kind).toBe('internal');
    expect(failure.cause).toBeInstanceOf(TypeError);
    expect(toFailure('a string').message).toBe('unexpected error: a string');
  });

  it('an unexpected error is one line pointing to --debug, without its stack', () => {
    expect(formatFailure(bug(), 'table', false)).toBe('gymctl: unexpected error: boom (run with --debug for details)\n');
  });

  it('with --debug, the stack comes too', () => {
    const text = formatFailure(bug(), 'table', true);
    expect(text).toMatch(/^gymctl: unexpected error: boom\nTypeError: boom\n\s+at /);
  });

  it('known failures are shown as they are, and pass through toFailure unchanged', () => {
    const known = new GymApiError('not_found', 'academy 9: Resource not found', { status: 404 });
    expect(toFailure(known)).toBe(known);
    expect(formatFailure(known, 'table', true)).toBe('gymctl: academy 9: Resource not found (HTTP 404)\n');
    const unreadable = new GymctlError('internal', 'config file x cannot be read (EISDIR)', { cause: new Error('EISDIR') });
    expect(formatFailure(unreadable, 'table', true)).toBe('gymctl: config file x cannot be read (EISDIR)\n');
  });
});

describe('the error model', () => {
  it('GymApiError is a GymctlError, and with() keeps the class and every field', () => {
    const error = new GymApiError('unavailable', 'busy', { status: 503, retryable: true, retryAfterMs: 1000, reason: 'server_error', id: 4 });
    const changed = error.with({ message: 'busy (gave up after 3 attempts)' });
    expect(changed).toBeInstanceOf(GymApiError);
    expect(changed).toBeInstanceOf(GymctlError);
    expect(changed).toMatchObject({ kind: 'unavailable', status: 503, retryable: true, retryAfterMs: 1000, reason: 'server_error', id: 4 });
    expect(changed.message).toBe('busy (gave up after 3 attempts)');
    expect(error.message).toBe('busy');
  });

  it('exit codes come from one table; interrupts are 130 and 143', () => {
    expect(exitCodeOf(new GymctlError('usage', 'x'))).toBe(2);
    expect(exitCodeOf(new GymApiError('invalid_response', 'x'))).toBe(6);
    expect(exitCodeOf(new Interrupted('SIGINT'))).toBe(130);
    expect(exitCodeOf(new Interrupted('SIGTERM'))).toBe(143);
    // Ctrl-Break in a Windows console is an interrupt, as Ctrl-C is.
    expect(exitCodeOf(new Interrupted('SIGBREAK'))).toBe(130);
    expect(EXIT_CODES.map((row) => row.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 130, 143]);
  });
});
