/** Limits of one request, unless the caller sets others. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest timer Node can set (2^31−1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Retries of a failed request that is worth retrying (3 attempts in all). */
export const DEFAULT_RETRIES = 2;
export const MAX_RETRIES = 10;
export const DEFAULT_RETRY_BASE_DELAY_MS = 250;
/** The longest Retry-After that is waited for. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 20_000;

/** Visible ASCII: what an API key can be, as an HTTP header value. */
export const API_KEY_FORM = /^[\x21-\x7e]+$/;
