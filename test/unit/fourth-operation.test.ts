/**
 * A fourth operation, declared in a test alone (test/fixtures/widgets.ts)
 * and added to the list of declarations: every surface takes it, with no
 * other edit anywhere.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEMO_KEY } from '../../src/sandbox/demo-data.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { widgets } from '../fixtures/widgets.js';
import { walkSurfaces } from '../helpers/surfaces.js';

vi.mock('../../src/operations/index.js', async (original) => {
  const actual = await original<typeof import('../../src/operations/index.js')>();
  const { widgets: fourth } = await import('../fixtures/widgets.js');
  return { ...actual, OPERATIONS: [...actual.OPERATIONS, fourth] };
});

describe('a fourth operation, declared once', () => {
  it('is on every surface', async () => {
    await walkSurfaces(widgets, [1, 2]);
  });

  it('Tab offers its ids from where its declaration says (the key academies), and the sandbox answers it', async () => {
    const { gymctl } = await import('../helpers/harness.js');
    const answer = await gymctl(['widgets', '1', '--sandbox', '--format', 'csv']);
    expect(answer.stdout.split('\r\n').slice(0, 3)).toEqual([
      'widgetsOf,id,academyId,name,firstUsedAt',
      '1,71,1,Sprocket,2026-01-05T18:00:00Z',
      '1,72,1,Flange,2026-01-07T19:00:00Z',
    ]);
    // --jq runs on each record (a widget, with its widgetsOf), as it does for family.
    const all = await gymctl(['all-widgets', '--sandbox', '--jq', '.id']);
    expect(all.stdout.split('\n').filter(Boolean)).toEqual(['71', '72', '73']);
    const sandbox = await startSandbox();
    try {
      const tab = await gymctl(['__complete', '--', 'widgets', ''], { env: { GYMCTL_BASE_URL: sandbox.url, GYMCTL_API_KEY: DEMO_KEY } });
      expect(tab.stdout.split('\n').filter(Boolean)).toEqual(['1', '2', '3', '4', ':none']);
    } finally {
      await sandbox.close();
    }
  });
});
