/**
 * The typed client for the three operations of the API. Usable as a
 * library: `createClient({ baseUrl, apiKey }).getAcademy(1)`.
 */
import { GymApiError } from './errors.js';
import { isValidId } from './ids.js';
import { schemas, type Academy, type ApiKey, type FamilyMember, type Id } from './schemas.js';
import { Transport } from './transport/loop.js';
import type { ApiResponse, Operation, TransportOptions } from './transport/types.js';

export type ClientOptions = TransportOptions;

function checkId(id: Id, what: string): Id {
  if (!isValidId(id)) throw new GymApiError('usage', `invalid ${what} ${String(id)}: expected a positive integer (a number up to 2^53−1, or a bigint up to 2^63−1)`);
  return id;
}

/** Builds a path with every parameter percent-encoded: apiPath`/academies/${id}`. */
function apiPath(strings: TemplateStringsArray, ...params: Array<string | number | bigint>): string {
  return strings.reduce((path, part, i) => path + part + (i < params.length ? encodeURIComponent(String(params[i])) : ''), '');
}

/** A path as messages show it: at most 80 characters. */
const shownPath = (path: string) => (path.length > 80 ? `${path.slice(0, 80)}…` : path);

/**
 * Checks a path for `gymctl api`: it must stay under the base URL, so it is
 * an absolute path with no scheme, host, fragment, backslash, space or
 * control character, and no `.` or `..` segment however it is disguised:
 * percent-encoded once or several times (`%252e%252e`, for servers that
 * decode twice), with `;params` (`..;`, which Tomcat and Spring read as
 * `..`), or in other forms of the same characters (fullwidth `．．`, which
 * NFKC makes `..`). A query is fine. Characters beyond ASCII are sent
 * percent-encoded, as a browser sends them.
 */
export function checkApiPath(path: string): string {
  const refuse = (why: string) => new GymApiError('usage', `invalid API path ${JSON.stringify(shownPath(path))}: ${why}`);
  if (!path.startsWith('/')) throw refuse('it must start with / (a path under the base URL, such as /me)');
  if (path.startsWith('//')) throw refuse('it must not name a host');
  if (/[\s\\\u0000-\u001f\u007f-\u009f]/.test(path)) throw refuse('it must not contain spaces, backslashes or control characters');
  if (path.includes('#')) throw refuse('it must not contain a fragment');
  const decodeOnce = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw refuse('it has a malformed percent-encoding');
    }
  };
  /** The segment as each decoding would read it: as written, then decoded again and again until nothing changes. */
  const readings = (segment: string) => {
    const seen = [segment];
    for (let current = segment, i = 0; i < 8; i++) {
      const next = decodeOnce(current);
      if (next === current) break;
      seen.push(next);
      current = next;
    }
    return seen;
  };
  const [pathPart] = path.split('?');
  for (const segment of pathPart!.split('/')) {
    for (const reading of readings(segment)) {
      const name = reading.split(';')[0]!.normalize('NFKC');
      if (name === '.' || name === '..') throw refuse('it must not contain . or .. segments, however they are encoded');
      if (/[/\\]/.test(reading)) throw refuse('it must not contain an encoded / or \\');
    }
  }
  try {
    return path.replace(/[^\u0000-\u007f]+/g, (run) => encodeURIComponent(run));
  } catch {
    throw refuse('it holds text that is not valid Unicode');
  }
}

/** The operations of spec §4, each with its path and response schema. */
export const operations = {
  /** Any path under the base URL, its successful body handed back as received. */
  raw: (path: string): Operation<undefined> => ({ path: checkApiPath(path), raw: true, subject: `GET ${shownPath(path)}` }),
  me: (): Operation<ApiKey> => ({ path: '/me', schema: schemas.meResponse(), subject: 'GET /me' }),
  academy: (academyId: Id): Operation<Academy> => ({
    path: apiPath`/academies/${checkId(academyId, 'academy id')}`,
    schema: schemas.academyResponse(),
    subject: `academy ${academyId}`,
    id: academyId,
  }),
  family: (memberId: Id): Operation<FamilyMember[]> => ({
    path: apiPath`/members/${checkId(memberId, 'member id')}/family`,
    schema: schemas.familyResponse(),
    subject: `member ${memberId}`,
    id: memberId,
  }),
};

export class GymClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** The calling key, the academies it is scoped to, and its owner (GET /me). */
  async getMe(signal?: AbortSignal): Promise<ApiKey> {
    return (await this.request(operations.me(), signal)).data;
  }

  /** One academy (GET /academies/{academyId}). */
  async getAcademy(academyId: Id, signal?: AbortSignal): Promise<Academy> {
    return (await this.request(operations.academy(academyId), signal)).data;
  }

  /** The other members of a member's family (GET /members/{memberId}/family). */
  async listFamily(memberId: Id, signal?: AbortSignal): Promise<FamilyMember[]> {
    return (await this.request(operations.family(memberId), signal)).data;
  }

  /** Runs an operation and returns the validated data with the raw JSON text and response facts. */
  request<T>(operation: Operation<T>, signal?: AbortSignal): Promise<ApiResponse<T>> {
    return this.#transport.get(operation, signal);
  }

  /** `request` with a callback (no promise per request, in the common case): for batches of thousands. */
  requestWith<T>(operation: Operation<T>, signal: AbortSignal | undefined, done: (error: unknown, response?: ApiResponse<T>) => void): void {
    this.#transport.getWith(operation, signal, done);
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

export function createClient(options: ClientOptions): GymClient {
  return new GymClient(options);
}
