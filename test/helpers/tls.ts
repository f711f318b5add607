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
  const subjectAltName = (names: readonly string[]) => `subjectAltName=${names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',')}`;
  /** A key and a certificate `name`.pem for `subject`, signed by the CA `issuer` (ca or inter), with the extensions given. */
  const sign = (name: string, subject: string, issuer: string, extensions: string, days = 2) => {
    writeFileSync(file(`${name}.ext`), `${extensions}\n`);
    openssl('req', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${subject}`);
    const ca = ['-CA', file(`${issuer}.pem`), '-CAkey', file(`${issuer}.key`), '-CAcreateserial'];
    openssl('x509', '-req', '-in', file(`${name}.csr`), ...ca, '-out', file(`${name}.pem`), '-days', String(days), '-extfile', file(`${name}.ext`));
    return pem(name);
  };
  return {
    ca: pem('ca'),
    issue(names, days = 2) {
      return sign(`server${++serial}`, names[0]!, 'ca', subjectAltName(names), days);
    },
    issueViaIntermediate(names) {
      sign('inter', 'gymctl test intermediate', 'ca', 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign');
      return sign(`leaf${++serial}`, names[0]!, 'inter', `${subjectAltName(names)}\nauthorityInfoAccess=caIssuers;URI:http://ca.example/inter.crt`);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
