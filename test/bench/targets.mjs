// What the bench holds each case to: docs/performance.md's table states them, and test/unit/docs.test.ts holds the two alike.
export const TARGETS = {
  /** `gymctl --version`, × `node -e 0`. */
  version: 1.2,
  /** `gymctl whoami --json`, × the one-call floor: on Node 20 (no compile cache), and after. */
  whoamiNode20: 1.4,
  whoami: 1.3,
  /** 20,000 ids as ndjson, × the batch floor. */
  batch: 1.3,
  /** Peak memory at 100,000 ids, in MB, and at most this times that at 50,000. */
  memoryMb: 128,
  memoryFlat: 1.1,
  /** A terminal table of 20,000 ids, × 10,000. */
  table: 2.2,
  /** The single executable: `--version` × its Node's `node -e 0`, `whoami --json` × its Node's one-call floor. */
  seaVersion: 1.3,
  seaWhoami: 1.1,
  /** gymctl's speed-up per id over `xargs -P 8 curl` (BENCH_CURL=1), at least. */
  curlSpeedup: 10,
};
