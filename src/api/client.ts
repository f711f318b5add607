/**
 * The typed client for the three operations of the API. Usable as a
 * library: `createClient({ baseUrl, apiKey }).getAcademy(1)`.
 */
import { GymApiError } from './errors.js';
import { isValidId } from './ids.js';
import {
  academyResponseSchema,
  familyResponseSchema,
  meResponseSchema,
  type Academy,
  type ApiKey,
  type FamilyMember,
} from './schemas.js';
import { Transport, apiPath, type ApiResponse, type Operation, type TransportOptions } from './transport.js';

export type ClientOptions = TransportOptions;

function checkId(id: number, what: string): number {
  if (!isValidId(id)) throw new GymApiError('usage', `invalid ${what} ${String(id)}: expected a positive safe integer`);
  return id;
}

/** The operations of spec §4, each with its path and response schema. */
export const operations = {
  me: (): Operation<ApiKey> => ({ path: '/me', schema: meResponseSchema, subject: 'GET /me' }),
  academy: (academyId: number): Operation<Academy> => ({
    path: apiPath`/academies/${checkId(academyId, 'academy id')}`,
    schema: academyResponseSchema,
    subject: `academy ${academyId}`,
    id: academyId,
  }),
  family: (memberId: number): Operation<FamilyMember[]> => ({
    path: apiPath`/members/${checkId(memberId, 'member id')}/family`,
    schema: familyResponseSchema,
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
  async getAcademy(academyId: number, signal?: AbortSignal): Promise<Academy> {
    return (await this.request(operations.academy(academyId), signal)).data;
  }

  /** The other members of a member's family (GET /members/{memberId}/family). */
  async listFamily(memberId: number, signal?: AbortSignal): Promise<FamilyMember[]> {
    return (await this.request(operations.family(memberId), signal)).data;
  }

  /** Runs an operation and returns the validated data with the raw JSON text and response facts. */
  request<T>(operation: Operation<T>, signal?: AbortSignal): Promise<ApiResponse<T>> {
    return this.#transport.get(operation, signal);
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

export function createClient(options: ClientOptions): GymClient {
  return new GymClient(options);
}
