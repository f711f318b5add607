/**
 * What the pre-scan of argv (argv.ts) needs of the flag table: the global
 * options that take a value, by every name they are given by, each mapped
 * to its long name (`-q` and `--jq` are both `--jq`).
 *
 * dist/boot.cjs does not load the table: its build (esbuild.config.mjs)
 * works this list out from this very module and puts the list alone in its
 * place.
 */
import { GLOBAL_FLAGS, longOf } from './flags.js';

export const VALUE_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(
  GLOBAL_FLAGS.filter((flag) => flag.flags.includes('<')).flatMap((flag) =>
    flag.flags
      .split(/[ ,]+/)
      .filter((word) => word.startsWith('-'))
      .map((name) => [name, longOf(flag)]),
  ),
);
