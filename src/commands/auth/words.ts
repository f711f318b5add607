/** What the auth commands say of a key: its name, scope and owner, and where a setting comes from. */
import type { Id } from '../../api/schemas.js';
import type { Setting } from '../../config/settings.js';
import type { Factory } from '../../factory.js';
import type { ApiKey } from '../../operations/index.js';
import { toFailure } from '../../failures.js';
import { sanitizeLine } from '../../output/sanitize.js';

export const describeSource = (setting: Setting<unknown>, configPath: string) => `from ${setting.source === 'config' ? configPath : (setting.origin ?? setting.source)}`;

/** `"Front desk" (id 101)`, or `id 101` for a key with no name. */
export const keyName = (key: ApiKey) => (key.name ? `"${sanitizeLine(key.name)}" (id ${key.id})` : `id ${key.id}`);

/** Academies shown by id, at most this many: a key may see thousands (`gymctl academies` lists them all). */
const SHOWN_IDS = 20;

/** `academies 1, 2, 3, 4`; past SHOWN_IDS, `academies 1, 2, …, 20 and 19,980 more`. */
export function academyList(ids: readonly Id[]): string {
  const more = ids.length - SHOWN_IDS;
  return ids.length === 0 ? 'no academies' : `academies ${ids.slice(0, SHOWN_IDS).join(', ')}${more > 0 ? ` and ${more.toLocaleString('en-US')} more` : ''}`;
}

export function ownerLine(key: ApiKey): string {
  const name = key.user?.name ? sanitizeLine(key.user.name) : 'an unnamed user';
  return key.user?.email ? `${name} <${sanitizeLine(key.user.email)}>` : name;
}

/** A key that was logged out or replaced is forgotten: the answers cached for it go too. */
export async function dropCachedAnswers(f: Pick<Factory, 'io' | 'env'>, key: string): Promise<void> {
  const { dropKeyEntries } = await import('../../cache/store.js');
  try {
    const removed = dropKeyEntries(f.env, key.trim());
    if (removed > 0) f.io.err(`Removed ${removed} cached answer${removed === 1 ? '' : 's'} of that key.\n`);
  } catch (error) {
    // The key is already saved or removed: a cache folder gymctl will not touch (another user's, say) is only a warning.
    f.io.err(`gymctl: warning: the cached answers of that key were not removed: ${toFailure(error).message}\n`);
  }
}
