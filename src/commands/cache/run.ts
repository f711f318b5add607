/** `gymctl cache clear`: forgets every answer `--cache` kept. */
import { clearCache } from '../../cache/store.js';
import type { Factory } from '../../factory.js';

export async function runCacheClear(f: Pick<Factory, 'io' | 'env'>): Promise<void> {
  const { dir, removed } = clearCache(f.env);
  f.io.err(removed === 0 ? `The cache (${dir}) holds no answers.\n` : `Removed ${removed} cached answer${removed === 1 ? '' : 's'} from ${dir}.\n`);
}
