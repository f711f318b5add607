/**
 * Ids you can add to: by default every id the typed methods hand back is a number, in the types and at run time, and an
 * id a number cannot hold exactly fails rather than being rounded; `ids: 'bigint'` makes every id a bigint, exact.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { GymApiError } from '../../src/api/errors.js';
import type { Academy, ApiKey, FamilyMember } from '../../src/index.js';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { usage } from '../helpers/failures.js';
import { httpServer } from '../helpers/servers.js';

/** A server on 127.0.0.1 that answers every request with `body`, as written (a 64-bit id JSON.stringify could not write). */
const answering = (body: string) =>
  httpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });

const ME = '{"data":{"id":3,"name":"ci","academyIds":[1,9007199254740993],"user":{"id":4,"name":"Ana"}}}';
const ACADEMY = '{"data":{"id":1,"name":"Alfama","franchiseId":7,"rating":12345678901234567890}}';
const FAMILY = '{"data":[{"id":5,"academyId":1,"primaryFamilyMember":true},{"id":9223372036854775807,"academyId":1,"primaryFamilyMember":false}]}';

describe('by default', () => {
  it('every id is a number, and the answer goes through JSON.stringify, a large number the spec does not name too', async () => {
    const client = createClient({ baseUrl: await answering(ACADEMY), apiKey: DEMO_KEY });
    try {
      const academy = await client.getAcademy(1);
      expect(academy).toMatchObject({ id: 1, franchiseId: 7 });
      expect(typeof academy.id).toBe('number');
      expect(JSON.stringify(academy)).toBe('{"id":1,"name":"Alfama","franchiseId":7,"rating":12345678901234567000}');
      // Everyday code compiles (npm run typecheck): ids are numbers to add to and to format.
      expectTypeOf(academy.id + 1).toEqualTypeOf<number>();
      const n: number = academy.id;
      expect(n).toBe(1);
      expectTypeOf(academy).toEqualTypeOf<Academy>();
    } finally {
      await client.close();
    }
  });

  it('an id beyond 2^53−1 fails as invalid_response, naming where it is and the option that keeps it exact', async () => {
    const me = createClient({ baseUrl: await answering(ME), apiKey: DEMO_KEY });
    const family = createClient({ baseUrl: await answering(FAMILY), apiKey: DEMO_KEY });
    try {
      const error = (await me.getMe().catch((failure: unknown) => failure)) as GymApiError;
      expect(GymApiError.isInvalidResponse(error)).toBe(true);
      expect(error.message).toBe(
        "GET /me: the id 9007199254740993 (data.academyIds[1]) is beyond 2^53−1, which a number cannot hold exactly: createClient({ ids: 'bigint' }) keeps every id exact",
      );
      const other = (await family.listFamily(5).catch((failure: unknown) => failure)) as GymApiError;
      expect(other.kind).toBe('invalid_response');
      expect(other.message).toContain('the id 9223372036854775807 (data[1].id)');
      expect(other.id).toBe(5);
    } finally {
      await me.close();
      await family.close();
    }
  });
});

describe("with ids: 'bigint'", () => {
  it('every id is a bigint, in the types and at run time, and the largest are exact', async () => {
    const me = createClient({ baseUrl: await answering(ME), apiKey: DEMO_KEY, ids: 'bigint' });
    const family = createClient({ baseUrl: await answering(FAMILY), apiKey: DEMO_KEY, ids: 'bigint' });
    try {
      const key = await me.getMe();
      expect(key).toEqual({ id: 3n, name: 'ci', academyIds: [1n, 9007199254740993n], user: { id: 4n, name: 'Ana' } });
      expectTypeOf(key.id).toEqualTypeOf<bigint>();
      expectTypeOf(key.academyIds).toEqualTypeOf<bigint[]>();
      expectTypeOf(key.user).toEqualTypeOf<{ id: bigint; name?: string | null | undefined; email?: string | null | undefined } | null | undefined>();
      const members = await family.listFamily(5n);
      expect(members.map((member) => [member.id, member.academyId])).toEqual([
        [5n, 1n],
        [9223372036854775807n, 1n],
      ]);
      expectTypeOf(members[0]!.academyId).toEqualTypeOf<bigint>();
      // The default client's types are the named ones (types alone: nothing is called, so nothing is sent).
      const plain = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: DEMO_KEY });
      const numbers = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: DEMO_KEY, ids: 'number' });
      expectTypeOf<Awaited<ReturnType<typeof plain.getMe>>>().toEqualTypeOf<ApiKey>();
      expectTypeOf<Awaited<ReturnType<typeof numbers.listFamily>>>().toEqualTypeOf<FamilyMember[]>();
    } finally {
      await me.close();
      await family.close();
    }
  });

  it('withResponse() gives the same data; an ids option that is neither is a usage failure', async () => {
    const client = createClient({ baseUrl: await answering(ACADEMY), apiKey: DEMO_KEY, ids: 'bigint' });
    try {
      const { data } = await client.getAcademy(1).withResponse();
      expect({ id: data.id, franchiseId: data.franchiseId }).toEqual({ id: 1n, franchiseId: 7n });
    } finally {
      await client.close();
    }
    expect(usage(() => createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: DEMO_KEY, ids: 'string' as never })).message).toBe(
      `invalid ids "string": expected 'number' or 'bigint'`,
    );
  });
});
