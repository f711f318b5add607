/** Limits of one request, unless the caller sets others. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Visible ASCII: what an API key can be, as an HTTP header value. */
export const API_KEY_FORM = /^[\x21-\x7e]+$/;
