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
