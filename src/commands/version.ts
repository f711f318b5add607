/** `gymctl version`: the version, as `gh version` prints it (`gymctl --version` prints the number alone, for scripts). */
import { VERSION } from '../version.js';
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdVersion = (f: FactoryRef) =>
  defineCommand({ name: 'version', description: 'print the version', examples: ['gymctl version', 'gymctl --version'] }, async () => {
    f().io.out(`gymctl version ${VERSION}\n`);
  });
