#!/usr/bin/env node
// npm run test:conformance: the official MCP conformance suite (@modelcontextprotocol/conformance, which needs Node 22
// or later) against the built gymctl (`npm test` builds it first; this script builds nothing), serving the sandbox's
// demo data over Streamable HTTP: `gymctl mcp --sandbox --http 0`, with a config folder, cache folder and TMPDIR of
// its own, all in one temporary folder removed at the end, and GYMCTL_MCP_TOKEN set so that the token is known.
//
// The suite is installed here, at the version SUITE pins, into that temporary folder: it is no devDependency, since
// its dependencies need Node 22, and `npm ci` on Node 20 would warn of an unsupported engine.
//
// The suite's client sends no Authorization header, so it talks to a relay on loopback (here, node:http) that adds
// `Authorization: Bearer <token>` and forwards everything else as it came: the method, the path, the body, and the
// Host and Origin headers the client sent. So dns-rebinding-protection still tests gymctl's own check (a foreign
// Host and Origin refused with a 4xx, the relay's own loopback address accepted) and not the relay's.
//
// Every server scenario the suite lists is either run (SCENARIOS) or skipped with its reason (SKIPPED), both printed; a
// scenario the suite adds that is in neither fails the run, until it is placed. A scenario run must pass with no failure
// and no warning, but for the checks named beside it, which test a fixture tool gymctl does not have.
//
// Stops every process it started, on success, failure or Ctrl-C, and exits non-zero when a scenario fails.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNpm } from './npm.mjs';

/** The suite, at an exact version: a new one may add checks, and is taken on purpose. */
const SUITE = '@modelcontextprotocol/conformance@0.1.16';
/** The scenarios that apply to a server of read-only tools, each with the checks it may fail (and why). */
const SCENARIOS = {
  'server-initialize': [],
  ping: [],
  'tools-list': [],
  'logging-set-level': [],
  'server-sse-multiple-streams': [],
  'dns-rebinding-protection': [],
  // Its priming event, retry field and resumption are gymctl's own, and must pass; the answer it waits for is from the
  // suite's fixture tool test_reconnection, which gymctl does not have: that call's result is an error.
  'server-sse-polling': ['incoming-sse-event'],
};
const FIXTURE = (tools) => `calls ${tools}, a fixture tool of the suite's reference server, which gymctl does not have and will not fake`;
/** The scenarios that do not apply to gymctl, which serves read-only tools and nothing else, each with the reason. */
const SKIPPED = {
  // Some would pass all the same, and prove nothing: tools-call-simple-text only looks for text in the answer, which the
  // SDK's "Tool test_simple_text not found" error result has. gymctl's own tools are tested end to end in test/e2e/mcp*.test.ts.
  'tools-call-simple-text': FIXTURE('test_simple_text'),
  'tools-call-image': FIXTURE('test_image_content'),
  'tools-call-audio': FIXTURE('test_audio_content'),
  'tools-call-embedded-resource': FIXTURE('test_embedded_resource'),
  'tools-call-mixed-content': FIXTURE('test_multiple_content_types'),
  'tools-call-with-logging': FIXTURE('test_tool_with_logging'),
  'tools-call-error': FIXTURE('test_error_handling'),
  'tools-call-with-progress': FIXTURE('test_tool_with_progress'),
  'tools-call-sampling': `${FIXTURE('test_sampling')}; gymctl never asks the client to sample`,
  'tools-call-elicitation': `${FIXTURE('test_elicitation')}; gymctl never asks the user anything through the assistant`,
  'json-schema-2020-12': FIXTURE('json_schema_2020_12_tool'),
  'elicitation-sep1034-defaults': `${FIXTURE('test_elicitation_sep1034_defaults')}; gymctl never asks the user anything`,
  'elicitation-sep1330-enums': `${FIXTURE('test_elicitation_sep1330_enums')}; gymctl never asks the user anything`,
  'completion-complete': 'gymctl serves no prompts and no resources, so nothing to complete',
  ...Object.fromEntries(
    ['resources-list', 'resources-read-text', 'resources-read-binary', 'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe'].map((name) => [
      name,
      'gymctl serves no resources',
    ]),
  ),
  ...Object.fromEntries(
    ['prompts-list', 'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image'].map((name) => [name, 'gymctl serves no prompts']),
  ),
};
/** Ceilings that only stop a hang: no check here is about speed. */
const START_CEILING_MS = 60_000;
const SCENARIO_CEILING_MS = 120_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`test:conformance: the MCP conformance suite needs Node 22 or later (this is ${process.version})`);
  process.exit(1);
}
const scratch = mkdtempSync(path.join(tmpdir(), 'gymctl-conformance-'));
/** Every child started, so that each is stopped whatever happens. */
const children = new Set();
let relay;

function stopAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  relay?.closeAllConnections();
  relay?.close();
}

function start(command, args, env) {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return child;
}

/** gymctl's environment: nothing of the caller's gymctl settings, and every folder it writes in the scratch folder. */
function gymctlEnv(token) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(GYMCTL_|NO_COLOR$|FORCE_COLOR$|XDG_CONFIG_HOME$|XDG_CACHE_HOME$)/.test(key)) env[key] = value;
  }
  return { ...env, GYMCTL_CONFIG_DIR: path.join(scratch, 'config'), XDG_CACHE_HOME: path.join(scratch, 'cache'), TMPDIR: path.join(scratch, 'tmp'), GYMCTL_MCP_TOKEN: token };
}

/** Starts gymctl and resolves to its URL, from the line it prints when it listens. */
async function startGymctl(token) {
  const gymctl = start(process.execPath, [path.join(root, 'bin', 'gymctl.cjs'), 'mcp', '--sandbox', '--http', '0'], gymctlEnv(token));
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gymctl did not say where it listens:\n${stderr}`)), START_CEILING_MS);
    gymctl.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(chunk);
      const found = /http:\/\/127\.0\.0\.1:[0-9]+\/mcp/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(new URL(found[0]));
      }
    });
    void gymctl.exited.then(({ code, signal }) => reject(new Error(`gymctl ended (${code ?? signal}) before it listened:\n${stderr}`)));
  });
  return { gymctl, url, stderr: () => stderr };
}

/** A relay on loopback that adds the token and forwards everything else unchanged (Host and Origin included), streams as they come. */
async function startRelay(target, token) {
  relay = http.createServer((req, res) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${relay.address().port}/mcp`;
}

/** The server scenarios the suite lists (`conformance list --server`). */
function listedScenarios() {
  const listed = spawnSync(process.execPath, [conformance, 'list', '--server'], { encoding: 'utf8', timeout: START_CEILING_MS });
  if (listed.status !== 0) throw new Error(`the suite did not list its scenarios (${listed.error?.message ?? `exit ${listed.status}`}): ${listed.stderr}`);
  const names = [...listed.stdout.matchAll(/^\s*-\s+([a-z0-9-]+)/gm)].map((match) => match[1]);
  if (names.length === 0) throw new Error(`the suite listed no server scenario:\n${listed.stdout}`);
  return names;
}

/** Runs one scenario; its checks, from the results file the suite writes. */
async function runScenario(url, scenario) {
  const output = path.join(scratch, 'results', scenario);
  const env = { ...process.env, TMPDIR: path.join(scratch, 'tmp') };
  const run = start(process.execPath, [conformance, 'server', '--url', url, '--scenario', scenario, '--output-dir', output], env);
  run.stdout.pipe(process.stdout, { end: false });
  run.stderr.pipe(process.stderr, { end: false });
  let timer;
  const ceiling = new Promise((resolve) => {
    timer = setTimeout(() => {
      run.kill('SIGKILL');
      resolve({ code: null, signal: 'ceiling' });
    }, SCENARIO_CEILING_MS);
  });
  const { code, signal } = await Promise.race([run.exited, ceiling]);
  clearTimeout(timer);
  children.delete(run);
  // The suite writes the checks in a folder it names itself (`server-<scenario>-<time>`), the only one in `output`.
  const [folder] = code === null ? [] : readdirSync(output);
  const checks = folder ? JSON.parse(readFileSync(path.join(output, folder, 'checks.json'), 'utf8')) : [];
  return { code, signal, checks };
}

// Ctrl-C or SIGTERM: the same clean-up as at the end.
for (const name of ['SIGINT', 'SIGTERM']) {
  process.once(name, () => {
    stopAll();
    rmSync(scratch, { recursive: true, force: true });
    process.exit(1);
  });
}

/** Installs SUITE into its own folder in the scratch folder, and gives the file its command runs. */
function installSuite() {
  const folder = path.join(scratch, 'suite');
  mkdirSync(folder);
  const args = ['install', '--prefix', folder, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', SUITE];
  const done = runNpm(args, { cwd: folder, stdio: ['ignore', 'inherit', 'inherit'] });
  if (done.status !== 0) throw new Error(`npm could not install ${SUITE} (${done.error?.message ?? `exit ${done.status ?? done.signal}`})`);
  return createRequire(path.join(folder, 'package.json')).resolve('@modelcontextprotocol/conformance/dist/index.js');
}

let failed = [];
let conformance;
try {
  mkdirSync(path.join(scratch, 'tmp'));
  conformance = installSuite();
  const listed = listedScenarios();
  const unplaced = listed.filter((name) => !(name in SCENARIOS) && !(name in SKIPPED));
  if (unplaced.length > 0) failed.push(`scenarios neither run nor skipped with a reason: ${unplaced.join(', ')} (add each to SCENARIOS or SKIPPED)`);
  for (const name of Object.keys(SCENARIOS)) if (!listed.includes(name)) failed.push(`the suite no longer has the scenario ${name}`);
  console.log(`Skipped, as they do not apply to a server of read-only tools:`);
  for (const [name, reason] of Object.entries(SKIPPED)) console.log(`  - ${name}: ${reason}`);
  const token = randomBytes(24).toString('base64url');
  const { gymctl, url, stderr } = await startGymctl(token);
  const relayUrl = await startRelay(url, token);
  for (const [scenario, allowed] of Object.entries(SCENARIOS)) {
    console.log(`\n=== ${scenario} ===`);
    const { code, signal, checks } = await runScenario(relayUrl, scenario);
    const bad = checks.filter((check) => (check.status === 'FAILURE' || check.status === 'WARNING') && !allowed.includes(check.id));
    // A scenario whose allowed checks fail exits non-zero: its other checks decide.
    if ((code !== 0 && allowed.length === 0) || code === null || bad.length > 0 || !checks.some((check) => check.status === 'SUCCESS')) {
      failed.push(`${scenario} (exit ${code ?? signal}${bad.length ? `; ${bad.map((check) => `${check.status} ${check.name}`).join(', ')}` : ''})`);
    }
  }
  if (gymctl.exitCode !== null) failed.push(`gymctl ended during the run (${gymctl.exitCode})`);
  gymctl.kill('SIGTERM');
  const { code } = await gymctl.exited;
  if (code !== 143) failed.push(`gymctl ended with ${code} on SIGTERM, not 143`);
  if (stderr().includes(token)) failed.push('gymctl wrote the token of GYMCTL_MCP_TOKEN on stderr');
} catch (error) {
  failed = [...failed, error instanceof Error ? error.message : String(error)];
} finally {
  stopAll();
  await Promise.all([...children].map((child) => child.exited));
  rmSync(scratch, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`\ntest:conformance: failed: ${failed.join('; ')}`);
  process.exit(1);
}
console.log(`\ntest:conformance: ${Object.keys(SCENARIOS).length} scenarios passed (${Object.keys(SCENARIOS).join(', ')}); ${Object.keys(SKIPPED).length} skipped, listed above`);
