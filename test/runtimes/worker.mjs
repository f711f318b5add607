// workerd's run: a Worker that takes the servers' addresses as a POST body and answers the report.
import * as gymctl from 'gymctl';
import { scenario } from './scenario.mjs';

export default {
  async fetch(request) {
    return Response.json(await scenario(gymctl, await request.json()));
  },
};
