// The one-call floor: the smallest CommonJS program that does what
// `gymctl whoami --json` does. GET /me with the key, collect the body,
// print its `data` with a 2-space indent. Usage: node floor-one.cjs URL KEY
const [url, key] = process.argv.slice(2);
require('node:http').get(`${url}/me`, { headers: { 'x-api-key': key } }, (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (body += chunk));
  response.on('end', () => process.stdout.write(`${JSON.stringify(JSON.parse(body).data, null, 2)}\n`));
});
