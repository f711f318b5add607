// test/helpers/throws.ts, a setup file of every vitest configuration: a test that expects an error is not passed by a
// throw of nothing (undefined or null), which vitest alone would let through.
import { describe, expect, it } from 'vitest';

const fails = (assertion: () => unknown) => {
  try {
    assertion();
  } catch (error) {
    return (error as Error).message;
  }
  return 'passed';
};

const failsAsync = (assertion: () => Promise<unknown>) =>
  assertion().then(
    () => 'passed',
    (error: unknown) => (error as Error).message,
  );

describe('an expected error is never passed by a throw of nothing', () => {
  it('toThrow with a message, a pattern or nothing fails when the function throws undefined or null', () => {
    for (const thrown of [undefined, null]) {
      const fn = () => {
        throw thrown;
      };
      for (const expected of ['a message', /a message/, undefined]) {
        expect(
          fails(() => expect(fn).toThrow(expected)),
          `${thrown} ${expected}`,
        ).toBe(`expected an error to be thrown, but ${thrown} was`);
        expect(
          fails(() => expect(fn).toThrowError(expected)),
          `${thrown} ${expected}`,
        ).toBe(`expected an error to be thrown, but ${thrown} was`);
      }
    }
  });

  it('rejects.toThrow fails when the promise rejects with undefined or null', async () => {
    for (const thrown of [undefined, null]) {
      for (const expected of ['a message', /a message/, undefined]) {
        expect(await failsAsync(() => expect(Promise.reject(thrown)).rejects.toThrow(expected))).toBe(`expected an error to be thrown, but ${thrown} was`);
      }
    }
  });

  it('an error that is thrown is judged as before, and not.toThrow still passes a function that throws nothing', async () => {
    const fn = () => {
      throw new Error('a message, whole');
    };
    expect(fails(() => expect(fn).toThrow('a message'))).toBe('passed');
    expect(fails(() => expect(fn).toThrow(/^a message, whole$/))).toBe('passed');
    expect(fails(() => expect(fn).toThrow('another'))).toMatch(/to throw error including 'another'/);
    expect(fails(() => expect(() => 1).not.toThrow())).toBe('passed');
    expect(await failsAsync(() => expect(Promise.reject(new Error('gone'))).rejects.toThrow('gone'))).toBe('passed');
    expect(await failsAsync(() => expect(Promise.reject(new Error('gone'))).rejects.toThrow('kept'))).toMatch(/to throw error including 'kept'/);
  });
});
