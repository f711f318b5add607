import type { ApiResponse, WithResponse } from './transport/types.js';

/** How a call is answered: validated data, or (`raw`) the body as received, for `asResponse()`. */
export type Answer<T> = (raw: boolean) => Promise<ApiResponse<T>>;

/**
 * A Promise of an operation's data that also has `withResponse()` and `asResponse()`, as openai-node's APIPromise (one
 * request either way). A test can make one: `new ApiPromise(Promise.resolve(apiResponse))`.
 */
export class ApiPromise<T> extends Promise<T> {
  /** What `then`, `catch` and `finally` make: plain Promises (an ApiPromise is made from an answer, not an executor). */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #ask: Answer<T>;
  readonly #url: string;
  #answer: Promise<ApiResponse<T>> | undefined;
  #raw: Promise<ApiResponse<T>> | undefined;
  #data: Promise<T> | undefined;

  /** `answer`: the answer, or how to ask for it (then the request starts at once, unless `asResponse()` is called first). */
  constructor(answer: Promise<ApiResponse<T>> | Answer<T>, url = '') {
    // Settles at once, unused; then() reads the answer lazily (as openai-node's APIPromise): a failure read only through withResponse() is not also an unhandled rejection.
    super((resolve) => resolve(undefined as T));
    this.#url = url;
    this.#ask = typeof answer === 'function' ? answer : () => answer;
    // After the caller's own line, which may ask for asResponse() instead.
    queueMicrotask(() => {
      if (!this.#raw) this.#answered();
    });
  }

  #answered(): Promise<ApiResponse<T>> {
    this.#answer ??= this.#ask(false);
    return this.#answer;
  }

  /**
   * The data, as awaiting gives it, with the answer as a fetch `Response` (`status`, `statusText`, `headers`, `url`; its
   * body already read into `data`), the correlation ID, and whether it came from the client's cache. It fails as awaiting would.
   */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answered().then((answer) => ({
      data: answer.data,
      response: responseOf(answer, this.#url, null),
      correlationId: answer.correlationId,
      cached: answer.cached === true,
    }));
  }

  /**
   * The answer as a fetch `Response`, its body not yet read nor checked against the schema (`await response.json()`).
   * A failure status still fails, with the GymApiError awaiting gives.
   */
  asResponse(): Promise<Response> {
    this.#raw ??= this.#ask(true);
    return this.#raw.then((answer) => responseOf(answer, this.#url, answer.rawBytes ?? answer.rawData));
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass, whose then() reads the data from the answer.
  override then<Fulfilled = T, Rejected = never>(
    onfulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null | undefined,
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null | undefined,
  ): Promise<Fulfilled | Rejected> {
    this.#data ??= this.#answered().then((answer) => answer.data);
    return this.#data.then(onfulfilled, onrejected);
  }
}

/** Statuses whose Response can hold no body. */
const NULL_BODY = new Set([204, 205, 304]);

/** The answer as a fetch Response: its status line, its headers as received, its URL, and `body`. */
function responseOf(answer: ApiResponse<unknown>, url: string, body: Uint8Array | string | null): Response {
  const headers = new Headers();
  // A header a Response cannot hold (a byte Headers refuses) is left out, never a failure of the call.
  for (const [name, value] of answer.head?.headers ?? []) {
    try {
      headers.append(name, value);
    } catch {}
  }
  const init = { status: answer.status, headers };
  const content = NULL_BODY.has(answer.status) ? null : (body as BodyInit | null);
  let response: Response;
  try {
    response = new Response(content, { ...init, statusText: answer.head?.statusText ?? '' });
  } catch {
    response = new Response(content, init);
  }
  Object.defineProperty(response, 'url', { value: url, enumerable: false });
  return response;
}
