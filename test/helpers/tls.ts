/**
 * Certificates for TLS tests, made with Debian's openssl: a throwaway CA and
 * server certificates it signs, for the names a test asks for.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * True when `tool` runs here. A test that needs a missing tool says so by
 * name and is skipped, except under CI, where .ci/run installs it: there a
 * missing tool fails the run.
 */
export function hasTool(tool: string, args: string[] = ['--version']): boolean {
  const found = spawnSync(tool, args, { stdio: 'ignore' }).error === undefined;
  if (!found && process.env.CI === 'true') throw new Error(`${tool} is needed by these tests and is not installed (.ci/run installs it)`);
  if (!found) console.warn(`skipping: these tests need ${tool}, which is not installed`);
  return found;
}

export interface Pem {
  key: string;
  cert: string;
  /** The PEM file's path, for NODE_EXTRA_CA_CERTS. */
  file: string;
}

export interface Authority {
  ca: Pem;
  /** A certificate for `names` (DNS names or IP addresses), valid for `days` (0: already expired a second later). */
  issue(names: string[], days?: number): Pem;
  /** A certificate for `names` signed by an intermediate CA of this one, naming where the intermediate is published (AIA), as public CAs' are; the PEM holds the leaf alone. */
  issueViaIntermediate(names: string[]): Pem;
  remove(): void;
}

export function makeAuthority(): Authority {
  const dir = mkdtempSync(path.join(tmpdir(), 'gymctl-tls-'));
  const file = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=gymctl test CA');
  const pem = (name: string): Pem => ({ key: readFileSync(file(`${name}.key`), 'utf8'), cert: readFileSync(file(`${name}.pem`), 'utf8'), file: file(`${name}.pem`) });
  let serial = 0;
  return {
    ca: pem('ca'),
    issue(names, days = 2) {
      const name = `server${++serial}`;
      const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
      writeFileSync(file(`${name}.ext`), `subjectAltName=${san}\n`);
      openssl('req', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${names[0]}`);
      openssl(
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-out',
        file(`${name}.pem`),
        '-days',
        String(days),
        '-extfile',
        file(`${name}.ext`),
      );
      return pem(name);
    },
    issueViaIntermediate(names) {
      const name = `leaf${++serial}`;
      writeFileSync(file('inter.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
      openssl('req', ...ec, '-keyout', file('inter.key'), '-out', file('inter.csr'), '-subj', '/CN=gymctl test intermediate');
      openssl(
        'x509',
        '-req',
        '-in',
        file('inter.csr'),
        '-CA',
        file('ca.pem'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-out',
        file('inter.pem'),
        '-days',
        '2',
        '-extfile',
        file('inter.ext'),
      );
      const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
      writeFileSync(file(`${name}.ext`), `subjectAltName=${san}\nauthorityInfoAccess=caIssuers;URI:http://ca.example/inter.crt\n`);
      openssl('req', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${names[0]}`);
      openssl(
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('inter.pem'),
        '-CAkey',
        file('inter.key'),
        '-CAcreateserial',
        '-out',
        file(`${name}.pem`),
        '-days',
        '2',
        '-extfile',
        file(`${name}.ext`),
      );
      return pem(name);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
