/** The typed client, its methods made from the operations' declarations: `createClient({ baseUrl, apiKey }).getAcademy(1)`. */
import * as z from 'zod/mini';
import { type Data, type OperationDeclaration, pathOf, subjectOf } from '../operations/declare.js';
import { OPERATIONS, type Operations } from '../operations/index.js';
import { ApiPromise } from './api-promise.js';
import { usageError } from './errors.js';
import { isValidId } from './ids.js';
import { envelope, type Id } from './schemas.js';
import { Transport } from './transport/loop.js';
import type { ApiResponse, CallOptions, ClientOptions, Operation } from './transport/types.js';

export type { ClientOptions };

function checkId(id: unknown, what: string): void {
  if (!isValidId(id)) throw usageError(`invalid ${what} ${String(id)}: expected a positive integer (a number up to 2^53−1, or a bigint up to 2^63−1)`);
}

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

const responseSchemas = new WeakMap<OperationDeclaration, z.core.$ZodType>();

/** The whole body's schema, `{ data: … }`, built once per operation: a batch checks thousands of answers with it. */
function responseSchema(declaration: OperationDeclaration): z.core.$ZodType {
  let schema = responseSchemas.get(declaration);
  if (!schema) {
    schema = envelope(declaration.list ? z.array(declaration.schema()) : declaration.schema());
    responseSchemas.set(declaration, schema);
  }
  return schema;
}

/** A declared operation as the transport runs it: its path with the id, the whole body's schema, the subject of messages. */
export function operationFor<D extends OperationDeclaration>(declaration: D, id?: Id): Operation<Data<D>> {
  if (declaration.param) checkId(id, declaration.param.what);
  return {
    path: pathOf(declaration, id),
    schema: responseSchema(declaration) as z.core.$ZodType<{ data: Data<D> }>,
    subject: subjectOf(declaration, id),
    ...(declaration.param ? { id: id as Id } : {}),
  };
}

type Declared = Operations[number];
export type { CallOptions };

type Takes<D extends Declared> = D extends { param: object } ? [id: Id, options?: CallOptions] : [options?: CallOptions];

/** Each declared operation, as a request to run (`operations.academy(1)`), and any path under the base URL (`operations.raw`). */
export type OperationFactories = { [D in Declared as D['client']['operation']]: (...id: D extends { param: object } ? [id: Id] : []) => Operation<Data<D>> } & {
  /** Any path under the base URL, its successful body handed back as received. */
  raw(path: string): Operation<undefined>;
};

/**
 * The client's method of each declared operation: `getAcademy(1)`, its data validated, typed by the record's named type
 * (`Academy`); with `.withResponse()`, the answer's status, headers and correlation ID too.
 */
export type OperationMethods = { [D in Declared as D['client']['method']]: (...args: Takes<D>) => ApiPromise<Data<D>> };

export const operations = Object.fromEntries([
  ['raw', (path: string): Operation<undefined> => ({ path: checkApiPath(path), raw: true, subject: `GET ${shownPath(path)}` })],
  ...OPERATIONS.map((declaration) => [declaration.client.operation, (id?: Id) => operationFor(declaration, id)]),
]) as OperationFactories;

// The methods are made from the declarations, below the class: the interface gives them their types.
export interface GymClient extends OperationMethods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class GymClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** Runs an operation and returns the validated data with the raw JSON text and response facts. */
  request<T>(operation: Operation<T>, options?: CallOptions): Promise<ApiResponse<T>> {
    return this.#transport.get(operation, options);
  }

  /** Runs a declared operation and returns its validated data. */
  async ask<D extends OperationDeclaration>(declaration: D, id?: Id, options?: CallOptions): Promise<Data<D>> {
    return (await this.request(operationFor(declaration, id), options)).data;
  }

  /** Closes the connection pool. */
  close(): Promise<void> {
    return this.#transport.close();
  }
}

for (const declaration of OPERATIONS) {
  Object.defineProperty(GymClient.prototype, declaration.client.method, {
    value(this: GymClient, ...args: unknown[]) {
      const [id, options] = declaration.param ? args : [undefined, ...args];
      let answer: Promise<ApiResponse<unknown>>;
      try {
        answer = this.request(operationFor(declaration, id as Id | undefined), options as CallOptions | undefined);
      } catch (error) {
        // A bad id fails the call's promise, as it always has, rather than throwing.
        answer = Promise.reject(error);
      }
      return new ApiPromise(answer);
    },
    writable: true,
    configurable: true,
  });
}

export function createClient(options: ClientOptions): GymClient {
  return new GymClient(options);
}
