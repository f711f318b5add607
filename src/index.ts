/** gymctl as a library: the typed client, its errors and the API's schemas and types. */
export { checkApiPath, createClient, GymClient, operations, type CallOptions, type ClientOptions } from './api/client.js';
export { GymApiError, GymctlError, ERROR_KINDS, type ErrorKind, type FailureReason } from './api/errors.js';
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } from './api/defaults.js';
export type { ApiResponse, DispatcherLike, Environment, FetchLike, Operation, RequestOptions, ResponseCache } from './api/transport/types.js';
export * from './api/public.js';
export { openApiDocument } from './api/openapi.js';
