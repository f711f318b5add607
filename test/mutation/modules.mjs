// The modules `npm run test:mutation` guards, each with the test files run against its mutants: the unit tests that
// import it and the in-process command tests that exercise it. stryker.config.mjs mutates every module named here,
// vitest.config.ts runs the test files of the modules being mutated, and scripts/mutation-gate.mjs fails
// the run when one of these modules is missing from Stryker's report, unscored, or under the bar.
// A module is a file path, never a pattern: a name that matches no file fails the run instead of being skipped.

/** @type {Record<string, string[]>} */
export const MODULES = {
  // Ids, typed or read from stdin (UTF-8, or UTF-16 by its byte-order mark).
  'src/api/ids.ts': ['test/unit/ids.test.ts', 'test/unit/client-ids.test.ts', 'test/unit/ids-in.test.ts'],
  'src/commands/shared/ids.ts': ['test/unit/ids.test.ts'],
  'src/terminal/decode.ts': ['test/unit/decode-input.test.ts'],
  // Where the key is sent: the loopback rule and the base URL.
  'src/api/transport/loopback.ts': ['test/unit/loopback.test.ts'],
  'src/api/base-url.ts': ['test/unit/base-url.test.ts'],
  // What the user's terminal and spreadsheets are handed.
  'src/output/sanitize.ts': ['test/unit/sanitize.test.ts'],
  'src/output/csv.ts': ['test/unit/csv.test.ts'],
  'src/output/tsv.ts': ['test/unit/tsv.test.ts'],
  'src/json/exact.ts': ['test/unit/exact-json.test.ts'],
  'src/api/transport/retry.ts': ['test/unit/retry.test.ts'],
  'src/cache/duration.ts': ['test/unit/duration.test.ts'],
  // The one path rule of the response cache, the config store and the code cache.
  'src/files/trusted-path.ts': ['test/unit/trusted-path.test.ts', 'test/unit/windows-safety.test.ts', 'test/unit/no-uid.test.ts'],
  // The key kept out of what a server echoes; the answer read and checked; the request loop.
  'src/api/transport/redact.ts': ['test/unit/redact.test.ts', 'test/unit/redact-forms.test.ts', 'test/unit/transport.test.ts', 'test/commands/api-include.test.ts'],
  'src/api/transport/response.ts': [
    'test/unit/response.test.ts',
    'test/unit/transport.test.ts',
    'test/unit/senders.test.ts',
    'test/unit/library.test.ts',
    'test/commands/servers.test.ts',
  ],
  'src/api/transport/loop.ts': [
    'test/unit/request-loop.test.ts',
    'test/unit/proxy-setup.test.ts',
    'test/unit/transport.test.ts',
    'test/unit/senders.test.ts',
    'test/unit/library.test.ts',
  ],
  // The config file and the settings read from it.
  'src/config/store.ts': [
    'test/unit/store.test.ts',
    'test/unit/store-safety.test.ts',
    'test/unit/conf-writes.test.ts',
    'test/unit/windows-safety.test.ts',
    'test/unit/config-store-modes.test.ts',
  ],
  'src/config/settings.ts': ['test/unit/settings.test.ts', 'test/unit/settings-guards.test.ts', 'test/commands/flags.test.ts'],
  // A batch of ids, and what a run exits with.
  'src/commands/shared/batch.ts': ['test/unit/batch.test.ts', 'test/unit/batch-skip.test.ts', 'test/commands/backpressure.test.ts', 'test/commands/refused-key.test.ts'],
  'src/run/settle.ts': ['test/commands/settle.test.ts'],
  // gymctl mcp: its tools and their failures, what fits in an answer, and the bound on requests in flight.
  'src/mcp/tools.ts': ['test/unit/mcp-shapes.test.ts', 'test/unit/mcp-tools.test.ts'],
  'src/mcp/failures.ts': ['test/unit/mcp-failures.test.ts', 'test/unit/mcp-shapes.test.ts'],
  'src/mcp/fit.ts': ['test/unit/mcp-fit.test.ts'],
  'src/mcp/gate.ts': ['test/unit/mcp-gate.test.ts', 'test/unit/mcp-fit.test.ts'],
  // The pre-scan of argv and where gymctl keeps its files.
  'src/argv.ts': ['test/unit/argv.test.ts', 'test/unit/argv-load.test.ts'],
  'src/files/folders.ts': ['test/unit/windows-folders.test.ts', 'test/unit/folders.test.ts'],
  // The response cache: its entries, their age, clearing it, and a key's answers dropped at logout.
  'src/cache/store.ts': ['test/commands/cache.test.ts', 'test/unit/cache-store.test.ts', 'test/unit/windows-safety.test.ts'],
  // The system keyring through its agent: how long it is waited for, Ctrl-C, and what its answers mean (the tests of the
  // built agent need dist/, which Stryker's sandbox leaves out).
  'src/keyring/client.ts': ['test/unit/keyring-client.test.ts', 'test/unit/keyring-agent-process.test.ts', 'test/unit/keyring-stores.test.ts'],
  // --jq: jq in its worker, its results a line each, its failures said plainly, and Ctrl-C.
  'src/output/jq.ts': ['test/unit/jq.test.ts', 'test/unit/jq-stop.test.ts', 'test/unit/jq-worker.test.ts', 'test/unit/jq-refusals.test.ts', 'test/commands/output-options.test.ts'],
  // The single executable's folder: made once, checked whole, the addon run from it checked, old builds removed.
  'src/sea/unpack.ts': ['test/unit/sea-unpack.test.ts', 'test/unit/sea-unpack-guards.test.ts'],
  // gymctl mcp --http: loopback only, the bearer token, Host and Origin; its sessions, the events kept for a stream resumed,
  // and a client's calls cancelled when it drops; the requests routed and refused, the port, and the server stopped.
  'src/commands/mcp/http-guards.ts': ['test/unit/mcp-http.test.ts', 'test/unit/mcp-http-refusals.test.ts', 'test/unit/mcp-http-serve.test.ts'],
  'src/commands/mcp/http-events.ts': ['test/unit/mcp-http-serve.test.ts'],
  'src/commands/mcp/http-sessions.ts': ['test/unit/mcp-http-serve.test.ts', 'test/unit/mcp-http-refusals.test.ts'],
  'src/commands/mcp/http.ts': ['test/unit/mcp-http-refusals.test.ts', 'test/unit/mcp-http-serve.test.ts'],
};

/**
 * Guarded modules whose tests are still being written: run, scored and judged as the others, and what would fail them
 * is printed, but it does not fail the run. A module leaves this list once it passes the gate; none joins it but when it
 * joins the list above.
 */
/** @type {string[]} */
export const PENDING = [];
