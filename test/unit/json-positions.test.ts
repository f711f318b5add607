import { describe, expect, it } from 'vitest';
import { describeJsonError } from '../../src/json/positions.js';

describe('describeJsonError', () => {
  it('names the line and column of the first error, and never quotes the text', () => {
    expect(describeJsonError('{"profiles": {"default": {"apiKey": \'k3y_9f8e7d\'}}}')).toBe('error at line 1, column 37');
    expect(describeJsonError('{\n  "apiKey": sk_live_SUPERSECRET\n}')).toBe('error at line 2, column 13');
    expect(describeJsonError('{"a": 1,}')).toBe('error at line 1, column 9');
    expect(describeJsonError('[1 2]')).toBe('error at line 1, column 4');
  });
  it('says when the text ends too early', () => {
    expect(describeJsonError('{"a": [1, 2')).toBe('it ends too early');
    expect(describeJsonError('')).toBe('it ends too early');
  });
});
