/** What the library's failures look like to a test: the usage failure a call throws at once, and the failure a call's promise settles with. */
import { expect } from 'vitest';
import { GymApiError } from '../../src/api/errors.js';

/** The usage failure `make` throws: a GymApiError of kind usage, as a library user catches it. */
export function usage(make: () => unknown): GymApiError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(GymApiError);
    expect((error as GymApiError).kind).toBe('usage');
    return error as GymApiError;
  }
  throw new Error('expected a usage failure');
}

/** The failure a call's promise settles with: a GymApiError, as a library user catches it. */
export async function failure(promise: Promise<unknown>): Promise<GymApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GymApiError);
  return error as GymApiError;
}
