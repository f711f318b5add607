/** gymctl as a library: the typed client, its errors and the API's schemas and types. */
export { checkApiPath, createClient, GymClient, operations, type CallOptions, type ClientOptions, type OperationFactories, type OperationMethods } from './api/client.js';
export { ApiPromise } from './api/api-promise.js';
export { GymApiError, GymctlError, ERROR_KINDS, type ErrorKind, type FailureReason, type ResponseHead, type ResponseHeaders } from './api/errors.js';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './api/defaults.js';
export type {
  ApiResponse,
  DispatcherLike,
  Environment,
  FetchLike,
  Operation,
  RequestOptions,
  ResponseCache,
  WithResponse,
} from './api/transport/types.js';
export * from './api/public.js';
export { openApiDocument } from './api/openapi.js';
