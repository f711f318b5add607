/** The typed client, its methods made from the operations' declarations: `createClient({ baseUrl, apiKey }).getAcademy(1)`. */
import * as z from 'zod/mini';
import { type Ask, type Data, type OperationDeclaration, pathOf, subjectOf } from '../operations/declare.js';
import type * as Read from '../operations/index.js';
import { OPERATIONS, type Operations } from '../operations/index.js';
import { ApiPromise } from './api-promise.js';
import { GymApiError, usageError } from './errors.js';
import { ID_MODES, type IdMode, type IdsAs, idsIn, isValidId } from './ids.js';
import type { Academy, ApiKey, FamilyMember, InMode } from './public.js';
import { envelope, type Id } from './schemas.js';
import { Transport } from './transport/loop.js';
import { isIntegerUnion } from './validation.js';
import type { ApiResponse, CallOptions, ClientOptions, Operation } from './transport/types.js';

export type { CallOptions, ClientOptions };

const shownPath = (path: string) => (path.length > 80 ? `${path.slice(0, 80)}…` : path);

/**
 * Checks a path for `gymctl api`, which must stay under the base URL: absolute, no host, fragment, space, backslash or
 * control character, and no `.`/`..` segment however disguised: encoded more than once (`%252e%252e`, for servers that
 * decode twice), with `;params` (Tomcat and Spring read `..;` as `..`), or fullwidth (NFKC). Non-ASCII is percent-encoded.
 */
export function checkApiPath(path: string): string {
  const refuse = (why: string) => usageError(`invalid API path ${JSON.stringify(shownPath(path))}: ${why}`);
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
  const [pathPart] = path.split('?');
  for (const segment of pathPart!.split('/')) {
    // The segment as each decoding would read it: as written, then decoded again and again until nothing changes.
    const readings = [segment];
    for (let i = 0; i < 8 && readings.at(-1) !== readings.at(-2); i++) readings.push(decodeOnce(readings.at(-1)!));
    for (const reading of readings) {
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

/** The whole body's schema, `{ data: … }`, built once per operation: a batch checks thousands of answers with it. */
const responseSchemas = new WeakMap<OperationDeclaration, z.core.$ZodType>();
const responseSchema = (declaration: OperationDeclaration) =>
  responseSchemas.get(declaration) ?? responseSchemas.set(declaration, envelope(declaration.list ? z.array(declaration.schema()) : declaration.schema())).get(declaration)!;

/** A declared operation as the transport runs it: its path with the id, the whole body's schema, the subject of messages. */
export function operationFor<D extends OperationDeclaration>(declaration: D, id?: Id): Operation<Data<D>> {
  if (declaration.param && !isValidId(id))
    throw usageError(`invalid ${declaration.param.what} ${String(id)}: expected a positive integer (a number up to 2^53−1, or a bigint up to 2^63−1)`);
  return {
    path: pathOf(declaration, id),
    schema: responseSchema(declaration) as z.core.$ZodType<{ data: Data<D> }>,
    subject: subjectOf(declaration, id),
    ...(declaration.param ? { id: id as Id } : {}),
  };
}

type Declared = Operations[number];

type Takes<D extends Declared> = D extends { param: object } ? [id: Id, options?: CallOptions] : [options?: CallOptions];

/** Each declared operation, as a request to run (`operations.academy(1)`), and any path under the base URL (`operations.raw`). */
export type OperationFactories = { [D in Declared as D['client']['operation']]: (...id: D extends { param: object } ? [id: Id] : []) => Operation<Data<D>> } & {
  /** Any path under the base URL, its successful body handed back as received. */
  raw(path: string): Operation<undefined>;
};

/**
 * The client's method of each declared operation, as its declaration types it: `getAcademy(1)`, its data validated,
 * typed by the record's named type (`Academy`), as `GymClient` documents it.
 */
export type OperationMethods<M extends IdMode = IdMode> = { [D in Declared as D['client']['method']]: (...args: Takes<D>) => ApiPromise<IdsAs<Data<D>, M>> };

export const operations = Object.fromEntries([
  ['raw', (path: string): Operation<undefined> => ({ path: checkApiPath(path), raw: true, subject: `GET ${shownPath(path)}` })],
  ...OPERATIONS.map((declaration) => [declaration.client.operation, (id?: Id) => operationFor(declaration, id)]),
]) as OperationFactories;

/**
 * The client's methods, one per declared operation, each documented here (for an editor's hover and go-to-definition),
 * held to its declaration's `OperationMethods` type by test/unit/client-methods.test.ts; `GymClient` makes each at run
 * time from its declaration.
 */
export interface GymClient<M extends IdMode = 'number'> {
  /**
   * The calling API key (`GET /me`): its name, the academies it is scoped to (`academyIds`), and its owner.
   *
   * Fails with a `GymApiError`: `unauthorized` (the key is refused), `unavailable`, `invalid_response`, `aborted` or `usage`.
   *
   * @example
   * const me = await client.getMe();
   * console.log(me.name, me.academyIds);
   */
  getMe(options?: CallOptions): ApiPromise<InMode<ApiKey, Read.ApiKey, M>>;

  /**
   * One academy (`GET /academies/{academyId}`), by its id: a positive integer.
   *
   * Fails with a `GymApiError`: `not_found` (no academy has that id, or the key is not scoped to it), `unauthorized`,
   * `unavailable`, `invalid_response`, `aborted`, or `usage` (an id that is not a positive integer).
   *
   * @example
   * const academy = await client.getAcademy(1);
   * console.log(academy.name);
   * const { data, response } = await client.getAcademy(1).withResponse();
   */
  getAcademy(academyId: Id, options?: CallOptions): ApiPromise<InMode<Academy, Read.Academy, M>>;

  /**
   * The other members of a member's family (`GET /members/{memberId}/family`), by the member's id: a positive integer.
   *
   * Fails with a `GymApiError`: `not_found` (no member has that id, or it is outside the key's scope), `unauthorized`,
   * `unavailable`, `invalid_response`, `aborted`, or `usage` (an id that is not a positive integer).
   *
   * @example
   * for (const member of await client.listFamily(10)) console.log(member.firstName, member.lastName);
   */
  listFamily(memberId: Id, options?: CallOptions): ApiPromise<InMode<FamilyMember[], Read.FamilyMember[], M>>;
}

/** The client: a method per declared operation (documented above), each a request whose answer is validated and typed. */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above documents the methods made here.
export class GymClient<M extends IdMode = 'number'> {
  readonly #transport: Transport;
  readonly #ids: IdMode;
  /** The base URL as requests go to it, without its trailing slashes: `withResponse().response.url` is it and the path. */
  readonly #base: string;

  constructor(options: ClientOptions<M>) {
    this.#transport = new Transport(options);
    this.#ids = options.ids ?? 'number';
    if (!ID_MODES.includes(this.#ids)) throw usageError(`invalid ids ${JSON.stringify(String(this.#ids))}: expected 'number' or 'bigint'`);
    const base = new URL(options.baseUrl);
    // As the CLI refuses them: the requests would go out without them, silently.
    if (base.username || base.password || /[?#]/.test(String(options.baseUrl))) throw usageError('invalid base URL: it must not contain credentials, a query or a fragment');
    this.#base = base.origin + base.pathname.replace(/\/+$/, '');
  }

  /** A declared operation as an ApiPromise: its validated data, or (`asResponse()`) the body as received. */
  #call<D extends OperationDeclaration, T>(declaration: D, id: Id | undefined, options: CallOptions | undefined): ApiPromise<T> {
    let operation: Operation<Data<D>>;
    try {
      operation = operationFor(declaration, id);
    } catch (error) {
      // A bad id fails the call's promise, as it always has, rather than throwing.
      return new ApiPromise(Promise.reject(error));
    }
    const { path, subject } = operation;
    const raw = { ...operation, raw: true };
    const beyond = (big: bigint, where: string) =>
      new GymApiError(
        'invalid_response',
        `${subject}: the id ${big} (${where}) is beyond 2^53−1, which a number cannot hold exactly: createClient({ ids: 'bigint' }) keeps every id exact`,
        { id: operation.id },
      );
    const withIds = (answer: ApiResponse<Data<D>>) => ({
      ...answer,
      data: (idsIn({ data: answer.data }, operation.schema!, this.#ids, isIntegerUnion, beyond) as { data: Data<D> }).data,
    });
    return new ApiPromise((asResponse) => (asResponse ? this.request(raw, options) : this.request(operation, options).then(withIds)), this.#base + path) as never;
  }

  /** Runs an operation and returns the validated data with the raw JSON text and response facts. */
  request<T>(operation: Operation<T>, options?: CallOptions): Promise<ApiResponse<T>> {
    return this.#transport.get(operation, options);
  }

  /** @internal Runs a declared operation and returns its validated data: what a declaration's `values.load` asks with (the CLI's, not the library's). */
  readonly ask: Ask = async (declaration, id, signal) => (await this.request(operationFor(declaration, id), signal)).data;

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  static {
    // Each declared operation's method, from its declaration: a new one has its method before it is documented above.
    for (const declaration of OPERATIONS) {
      Object.defineProperty(GymClient.prototype, declaration.client.method, {
        value(this: GymClient, ...args: unknown[]) {
          const [id, options] = declaration.param ? args : [undefined, ...args];
          return this.#call(declaration, id as Id | undefined, options as CallOptions | undefined);
        },
        writable: true,
        configurable: true,
      });
    }
  }
}

/** The client. `createClient({ baseUrl, apiKey, ids: 'bigint' })` hands every id back as a bigint; by default each is a number. */
export function createClient<M extends IdMode = 'number'>(options: ClientOptions<M>): GymClient<M> {
  return new GymClient(options);
}
