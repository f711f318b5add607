// What each runtime runs against the loopback servers the test gives it (`urls`), with the gymctl it resolved: a report
// of plain values, compared with the one Node makes.
const failure = (error) => ({ name: error?.name, kind: error?.kind, reason: error?.reason, message: String(error?.message) });
const outcome = (promise) =>
  promise.then(
    (value) => ({ value }),
    (error) => ({ error: failure(error) }),
  );
const text = (value) => JSON.parse(JSON.stringify(value, (_, item) => (typeof item === 'bigint' ? `${item}n` : item)));

export async function scenario(gymctl, urls) {
  const key = 'demo_key_all_academies';
  const client = gymctl.createClient({ baseUrl: urls.sandbox, apiKey: key, retries: 0 });
  const report = {};
  report.me = text(await outcome(client.getMe()));
  report.academy = text(await outcome(client.getAcademy(1).then((academy) => ({ id: academy.id, name: academy.name }))));
  report.family = text(await outcome(client.listFamily(501).then((family) => family.map((member) => member.id))));
  report.notFound = await outcome(client.getAcademy(99));
  const refused = gymctl.createClient({ baseUrl: urls.sandbox, apiKey: 'not_a_key_0123456789', retries: 0 });
  report.unauthorized = await outcome(refused.getMe());
  const silent = gymctl.createClient({ baseUrl: urls.silent, apiKey: key, retries: 0 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('stopped by the caller')), 100);
  report.aborted = await outcome(silent.getMe(controller.signal));
  report.timeout = await outcome(silent.getMe({ timeoutMs: 150 }));
  const flaky = gymctl.createClient({ baseUrl: urls.flaky, apiKey: key, retries: 1, retryBaseDelayMs: 0 });
  report.retried = text(await outcome(flaky.getAcademy(2).then((academy) => academy.id)));
  report.withResponse = await outcome(
    client
      .getAcademy(1)
      .withResponse()
      .then(({ data, response }) => ({
        id: data.id,
        status: response.status,
        type: response.headers.get('content-type'),
        fetchResponse: typeof Response === 'function' && response instanceof Response,
      })),
  );
  const wide = gymctl.createClient({ baseUrl: urls.wide, apiKey: key, retries: 0 });
  report.wideId = text(await outcome(wide.getMe().then((me) => ({ id: me.id, type: typeof me.id }))));
  const exact = gymctl.createClient({ baseUrl: urls.wide, apiKey: key, retries: 0, ids: 'bigint' });
  report.wideIdExact = text(await outcome(exact.getMe().then((me) => ({ id: me.id, type: typeof me.id }))));
  await Promise.all([client, refused, silent, flaky, wide, exact].map((each) => each.close()));
  return report;
}
