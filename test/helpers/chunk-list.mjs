// Imported into gymctl by the start-up guard test (node --import): writes
// every module file of dist/ that gymctl imports, one a line, on file
// descriptor 3, so the test can name the chunks a run loaded. In-thread
// hooks where Node has them (22.15 and later), off-thread ones before.
import { writeSync } from 'node:fs';
import * as nodeModule from 'node:module';

const record = (url) => {
  if (url.includes('/dist/')) writeSync(3, `${url}\n`);
};
if (typeof nodeModule.registerHooks === 'function') {
  nodeModule.registerHooks({
    resolve(specifier, context, next) {
      const result = next(specifier, context);
      record(result.url);
      return result;
    },
  });
} else {
  const hooks = `import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.includes('/dist/')) writeSync(3, result.url + '\\n');
  return result;
}`;
  nodeModule.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
void record;
