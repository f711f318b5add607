import type { ApiResponse, ResponseInfo, WithResponse } from './transport/types.js';

/**
 * A Promise of an operation's data that also has `withResponse()`:
 *
 * ```ts
 * const academy = await client.getAcademy(1);
 * const { data, response } = await client.getAcademy(1).withResponse();
 * response.status; response.headers.get('x-ratelimit-remaining'); response.correlationId;
 * ```
 *
 * One request either way. A test can make one: `new ApiPromise(Promise.resolve(apiResponse))`.
 */
export class ApiPromise<T> extends Promise<T> {
  /** What `then`, `catch` and `finally` make: plain Promises (an ApiPromise is made from an answer, not an executor). */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #answer: Promise<ApiResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(answer: Promise<ApiResponse<T>>) {
    // Settles at once, unused; then() reads the answer lazily (as openai-node's APIPromise), so a failure read only
    // through withResponse() is not also an unhandled rejection.
    super((resolve) => resolve(undefined as T));
    this.#answer = answer;
  }

  /** The data, as awaiting gives it, with the answer's HTTP status, headers and correlation ID. It fails as awaiting would. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer.then((answer) => ({ data: answer.data, response: responseInfo(answer) }));
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass, whose then() reads the data from the answer.
  override then<Fulfilled = T, Rejected = never>(
    onfulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null | undefined,
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null | undefined,
  ): Promise<Fulfilled | Rejected> {
    this.#data ??= this.#answer.then((answer) => answer.data);
    return this.#data.then(onfulfilled, onrejected);
  }
}

const responseInfo = (answer: ApiResponse<unknown>): ResponseInfo => ({
  status: answer.status,
  headers: answer.headers,
  correlationId: answer.correlationId,
  cached: answer.cached === true,
});
