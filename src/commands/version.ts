/** `gymctl version`, as `gh version` prints it (`--version` prints the number alone, for scripts), then where the third-party notices are. */
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
      const { noticesPlace, runLicenses } = await import('./version/run.js');
      if (options.licenses) return runLicenses(f());
      // As the contract says: the version, then where the third-party notices are (gh prints its release page there).
      f().io.out(`gymctl version ${VERSION}\nThird-party licence notices: ${noticesPlace()}\n`);
    },
  );
