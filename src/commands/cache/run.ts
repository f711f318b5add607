/** `gymctl cache clear`: forgets every answer `--cache` kept. */
import { clearCache } from '../cache/store.js';
import type { Context } from '../context.js';

export async function runCacheClear(ctx: Context): Promise<void> {
  const { dir, removed } = clearCache(ctx.env);
  ctx.io.err(removed === 0 ? `The cache (${dir}) holds no answers.\n` : `Removed ${removed} cached answer${removed === 1 ? '' : 's'} from ${dir}.\n`);
}
