// The batch floor: what `gymctl academy - --format ndjson` does, and no
// more. Ids from stdin, one keep-alive agent, 8 requests in flight, each
// body parsed and its `data` printed as one ndjson line, in input order.
// Usage: node floor-batch.cjs URL KEY < ids
const http = require('node:http');
const [url, key] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const ids = input.split(/\s+/).filter(Boolean);
  const results = new Array(ids.length);
  let next = 0;
  let printed = 0;
  const flush = () => {
    while (printed < ids.length && results[printed] !== undefined) {
      process.stdout.write(`${JSON.stringify(results[printed])}\n`);
      results[printed++] = null;
    }
    if (printed === ids.length) agent.destroy();
  };
  const start = () => {
    if (next >= ids.length) return;
    const index = next++;
    http.get(`${url}/academies/${ids[index]}`, { agent, headers: { 'x-api-key': key } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        results[index] = JSON.parse(body).data;
        flush();
        start();
      });
    });
  };
  for (let i = 0; i < 8; i++) start();
});
