/** `gymctl cache clear`: the definition; the handler (cache/run.ts) loads when it runs. */
import { defineCommand, defineGroup, type FactoryRef } from './shared/define.js';

export const newCmdCache = (f: FactoryRef) =>
  defineGroup({ name: 'cache', description: 'manage the answers --cache keeps', examples: [] }, [
    defineCommand({ name: 'clear', description: 'remove every cached answer', examples: ['gymctl cache clear'] }, async () => (await import('./cache/run.js')).runCacheClear(f())),
  ]);
