/**
 * The one loopback rule, for every form a host can take: `localhost`, 127.0.0.0/8, `::1` with or without brackets, and IPv4-mapped
 * `::ffff:127.x.y.z` as the URL parser writes it. Plain http is allowed there, the sandbox listens there, and no proxy is used there,
 * since a request to it never leaves the machine.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = name.toLowerCase();
  if (lower === 'localhost' || lower === 'localhost.') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower)) return true;
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  // ::ffff:127.0.0.1, which URL writes as ::ffff:7f00:1.
  return /^::ffff:(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.test(lower);
}
