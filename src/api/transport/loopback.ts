/** The one loopback rule (plain http allowed, no proxy): `localhost`, 127.0.0.0/8, `::1` bracketed or not, and `::ffff:127.x.y.z`. */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const lower = name.toLowerCase();
  if (lower === 'localhost' || lower === 'localhost.') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower)) return true;
  if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
  // ::ffff:127.0.0.1, which URL writes as ::ffff:7f00:1.
  return /^::ffff:(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.test(lower);
}
