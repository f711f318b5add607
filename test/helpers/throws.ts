/**
 * `toThrow` and `rejects.toThrow` fail when what was thrown is undefined or null: vitest lets
 * `expect(() => { throw undefined }).toThrow('a message')` pass (vitest-dev/vitest#7260), so a test that names the
 * message a user reads could not tell it from a throw of nothing, and a mutant that empties an error would survive.
 * A setup file of every vitest configuration: chai's `throws`, on which vitest's `toThrow` rests, is wrapped once more.
 */
import { chai } from 'vitest';

chai.use((api, utils) => {
  for (const name of ['throw', 'throws', 'Throw']) {
    utils.overwriteMethod(api.Assertion.prototype, name, (original: (...args: unknown[]) => unknown) => {
      return function (this: Chai.AssertionStatic, ...args: unknown[]) {
        if (utils.flag(this, 'negate')) return original.apply(this, args);
        const object: unknown = utils.flag(this, 'object');
        // What was thrown, when it was undefined or null.
        let nothing: { thrown: unknown } | undefined;
        const isNothing = (thrown: unknown) => (thrown === undefined || thrown === null ? { thrown } : undefined);
        if (utils.flag(this, 'promise') === 'rejects') nothing = isNothing(object);
        else if (typeof object === 'function') {
          utils.flag(this, 'object', function (this: unknown, ...call: unknown[]) {
            try {
              return (object as (...call: unknown[]) => unknown).apply(this, call);
            } catch (error) {
              nothing = isNothing(error);
              throw error;
            }
          });
        }
        const result = original.apply(this, args);
        if (nothing) throw new chai.AssertionError(`expected an error to be thrown, but ${String(nothing.thrown)} was`);
        return result;
      };
    });
  }
});
