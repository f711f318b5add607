import { describe, expect, it } from 'vitest';
import { classifyStatus, GymApiError } from '../../src/api/errors.js';
import { usageError } from '../../src/failures.js';
import { formatErrorJson, formatErrorLine } from '../../src/output/errors.js';

const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('classifyStatus', () => {
  it.each([401, 403])('%i is unauthorized', (status) => {
    expect(classifyStatus(status, undefined)).toBe('unauthorized');
    expect(classifyStatus(status, 'Resource not found')).toBe('unauthorized');
  });

  it("404 is not_found with the API's message, and without it not the API's answer at all", () => {
    expect(classifyStatus(404, 'Unauthorized')).toBe('not_found');
    expect(classifyStatus(404, '')).toBe('not_found');
    expect(classifyStatus(404, undefined)).toBe('invalid_response');
    expect(classifyStatus(404, null)).toBe('invalid_response');
  });

  it.each([500, 502, 503, 504, 429])('%i is unavailable regardless of message', (status) => {
    expect(classifyStatus(status, undefined)).toBe('unavailable');
    expect(classifyStatus(status, null)).toBe('unavailable');
    expect(classifyStatus(status, 'Unauthorized')).toBe('unavailable');
    expect(classifyStatus(status, 'Resource not found')).toBe('unavailable');
    expect(classifyStatus(status, 'something else')).toBe('unavailable');
  });

  it('400 with "Unauthorized" is unauthorized', () => {
    expect(classifyStatus(400, 'Unauthorized')).toBe('unauthorized');
  });

  it.each([400, 409, 200])('%i with "Resource not found" is not_found', (status) => {
    expect(classifyStatus(status, 'Resource not found')).toBe('not_found');
  });

  it.each(['Bad request', '', 'unauthorized', 'resource not found', ' Unauthorized'])('400 with message %j is invalid_response', (message) => {
    expect(classifyStatus(400, message)).toBe('invalid_response');
  });

  it('400 with no message is invalid_response', () => {
    expect(classifyStatus(400, undefined)).toBe('invalid_response');
    expect(classifyStatus(400, null)).toBe('invalid_response');
  });
});

describe('formatErrorLine', () => {
  it('gives the message, status and correlation ID', () => {
    const error = new GymApiError('not_found', 'academy 7 not found', { status: 404, correlationId: 'abc-123', id: 7 });
    expect(formatErrorLine(error)).toBe('gymctl: academy 7 not found (HTTP 404, correlation ID abc-123)\n');
  });

  it('leaves out an unknown correlation ID', () => {
    const error = new GymApiError('unavailable', 'server error', { status: 503 });
    expect(formatErrorLine(error)).toBe('gymctl: server error (HTTP 503)\n');
  });

  it('leaves out an unknown status', () => {
    const error = new GymApiError('invalid_response', 'bad body', { correlationId: 'c-1' });
    expect(formatErrorLine(error)).toBe('gymctl: bad body (correlation ID c-1)\n');
  });

  it('leaves out the parentheses when nothing is known', () => {
    expect(formatErrorLine(usageError('invalid id "x"'))).toBe('gymctl: invalid id "x"\n');
  });

  it('is exactly one line', () => {
    const error = new GymApiError('internal', 'first\nsecond\r\nthird', { status: 500, correlationId: 'x\ny' });
    const line = formatErrorLine(error);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
  });

  it('makes control characters in the message safe', () => {
    const error = new GymApiError('not_found', '\u001b[31mred\u001b]0;title\u0007\u009b2J\u007f', { status: 404, correlationId: 'id\u001b[2J' });
    const line = formatErrorLine(error);
    expect(line.slice(0, -1)).not.toMatch(RAW_CONTROL);
    expect(line).not.toContain('\u001b');
    expect(line).not.toContain('\u009b');
    expect(line).toContain('^[[31mred');
    expect(line).toContain('correlation ID id^[[2J');
  });
});

describe('formatErrorJson', () => {
  it('gives one JSON line with every field', () => {
    const error = new GymApiError('not_found', 'academy 7 not found', { status: 404, correlationId: 'abc-123', id: 7 });
    const line = formatErrorJson(error);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      error: { message: 'academy 7 not found', correlationId: 'abc-123', status: 404, kind: 'not_found', id: 7 },
    });
  });

  it('keeps the documented key order', () => {
    const error = new GymApiError('not_found', 'm', { status: 404, correlationId: 'c', id: 7 });
    expect(Object.keys(JSON.parse(formatErrorJson(error)).error)).toEqual(['message', 'correlationId', 'status', 'kind', 'id']);
  });

  it('uses null for what is unknown', () => {
    const line = formatErrorJson(usageError('invalid id "x"'));
    expect(line).toBe('{"error":{"message":"invalid id \\"x\\"","correlationId":null,"status":null,"kind":"usage","id":null}}\n');
  });

  it('makes control characters in the message safe while keeping them recoverable', () => {
    const message = 'bad \u001b[31m \u001b]8;;https://evil.example\u001b\\ \u009b2J \u0085 \u007f \u0000 end';
    const error = new GymApiError('invalid_response', message, { status: 400, correlationId: 'c\u009b1' });
    const line = formatErrorJson(error);
    expect(line.slice(0, -1)).not.toMatch(RAW_CONTROL);
    expect(line).not.toContain('\u001b');
    expect(line).not.toContain('\u009b');
    const parsed = JSON.parse(line);
    expect(parsed.error.message).toBe(message);
    expect(parsed.error.correlationId).toBe('c\u009b1');
  });

  it('keeps non-ASCII text as it is', () => {
    const line = formatErrorJson(new GymApiError('not_found', 'Académie 東京 🥋 not found', { status: 404 }));
    expect(line).toContain('Académie 東京 🥋 not found');
  });
});
