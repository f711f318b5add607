/** Property-based tests: whatever the input, a documented outcome. */
import fc from 'fast-check';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { ERROR_KINDS, GymApiError, GymctlError } from '../../src/api/errors.js';
import { parseId } from '../../src/commands/shared/ids.js';
import { formatErrorJson, formatErrorLine } from '../../src/output/errors.js';

const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('parseId', () => {
  it('accepts exactly the plain decimal integers from 1 to 2^63-1, and refuses everything else with a usage error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^-?[0-9]{0,20}$/), fc.nat().map(String), fc.double().map(String)), (text) => {
        const valid = /^[1-9][0-9]*$/.test(text) && BigInt(text) <= 9223372036854775807n;
        let result: number | bigint | GymctlError;
        try {
          result = parseId(text);
        } catch (error) {
          result = error as GymctlError;
        }
        if (valid) expect(String(result)).toBe(text);
        else {
          expect(result).toBeInstanceOf(GymctlError);
          expect((result as GymctlError).kind).toBe('usage');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the transport against arbitrary responses', () => {
  const BASE = 'https://fuzz.test';
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  const statuses = fc.constantFrom(200, 200, 200, 201, 299, 301, 302, 400, 401, 403, 404, 409, 418, 429, 500, 502, 503, 504, 599);
  const bodies = fc.oneof(
    fc.string(),
    fc.json(),
    fc.anything().map((value) => JSON.stringify({ data: value }) ?? 'null'),
    fc.record({ message: fc.oneof(fc.constant('Unauthorized'), fc.constant('Resource not found'), fc.string()), correlationId: fc.string() }).map((b) => JSON.stringify(b)),
    fc.record({ id: fc.oneof(fc.integer(), fc.string(), fc.double()), name: fc.option(fc.string()), extra: fc.anything() }).map((data) => JSON.stringify({ data })),
  );
  const contentTypes = fc.constantFrom('application/json', 'text/html', 'text/plain', '');

  it('either returns valid data or throws a GymApiError of a documented kind, whose message is safe to print', async () => {
    await fc.assert(
      fc.asyncProperty(statuses, bodies, contentTypes, async (status, body, type) => {
        nock(BASE)
          .get('/academies/1')
          .reply(status, body, type ? { 'content-type': type } : {});
        const client = createClient({ baseUrl: BASE, apiKey: 'fuzz_key_123456', retries: 0, fetch: (url, init) => globalThis.fetch(url, init) });
        try {
          const academy = await client.getAcademy(1);
          expect(status).toBeGreaterThanOrEqual(200);
          expect(status).toBeLessThan(300);
          expect(typeof academy.id === 'bigint' || Number.isSafeInteger(academy.id)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(GymApiError);
          const failure = error as GymApiError;
          expect(ERROR_KINDS).toContain(failure.kind);
          expect(failure.kind).not.toBe('usage');
          expect(formatErrorLine(failure)).not.toMatch(RAW_CONTROL);
          expect(formatErrorLine(failure).trimEnd()).not.toContain('\n');
          expect(formatErrorJson(failure)).not.toMatch(RAW_CONTROL);
          expect(() => JSON.parse(formatErrorJson(failure))).not.toThrow();
        } finally {
          nock.cleanAll();
          await client.close();
        }
      }),
      { numRuns: 300 },
    );
  });
});
