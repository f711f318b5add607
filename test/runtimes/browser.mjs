// The browser bundle's entry: the library and a run of the scenario, for a context with web globals only.
import * as gymctl from 'gymctl';
import { scenario } from './scenario.mjs';

globalThis.gymctl = gymctl;
globalThis.run = async (urls) => JSON.stringify(await scenario(gymctl, urls));
