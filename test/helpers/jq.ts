import { expect } from 'vitest';
import { compileJq } from '../../src/output/jq.js';

/** Why `expression` does not compile, as the usage error says it. */
export async function refused(expression: string): Promise<string> {
  try {
    await (await compileJq(expression)).close();
  } catch (error) {
    expect(error).toMatchObject({ kind: 'usage' });
    return (error as Error).message;
  }
  throw new Error(`${expression} compiled`);
}
