// Bun's and Deno's run: gymctl as the runtime resolves it, the servers' addresses as the argument, the report on stdout.
import * as gymctl from 'gymctl';
import { scenario } from './scenario.mjs';

const urls = JSON.parse(globalThis.process?.argv.at(-1) ?? globalThis.Deno.args.at(-1));
console.log(JSON.stringify(await scenario(gymctl, urls)));
