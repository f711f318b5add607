/**
 * `gymctl version`: the version, as `gh version` prints it (`gymctl --version` prints the number alone, for scripts).
 * With --licenses, where the third-party notices are: the handler (version/run.ts) loads only then.
 */
import { VERSION } from '../version.js';
import { defineCommand, type FactoryRef } from './shared/define.js';

export const newCmdVersion = (f: FactoryRef) =>
  defineCommand(
    {
      name: 'version',
      description: 'print the version',
      options: [['--licenses', 'where the licence notices of the bundled third-party packages are, and how many']],
      examples: ['gymctl version', 'gymctl --version', 'gymctl version --licenses'],
    },
    async (options: { licenses?: boolean }) => {
      if (options.licenses) return (await import('./version/run.js')).runLicenses(f());
      f().io.out(`gymctl version ${VERSION}\n`);
    },
  );
