import { call } from '@postbus/testing';
import { withGatewayAndProject, type TestClient, type TestGateway } from './helpers';

/** JSON bodies must be Unicode text: what is not is refused, never stored altered. */
describe('request bodies that are not valid Unicode text', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let projectId: string;

  withGatewayAndProject((started) => ({ gw, acme, projectId } = started));

  const routes = () => ({
    'create user': `/v1/projects/${projectId}/users`,
    trigger: `/v1/projects/${projectId}/emails/welcome/send`,
    'add sender domain': '/v1/sender-domains',
  });
  const bodies = {
    'create user': (text: string) => `{"email":"ann@example.com","fields":{"name":"${text}"}}`,
    trigger: (text: string) => `{"user":{"email":"ann@example.com"},"data":{"code":"${text}"}}`,
    'add sender domain': (text: string) => `{"domain":"${text}.example"}`,
  };
  const pointers = { 'create user': '/fields/name', trigger: '/data/code', 'add sender domain': '/domain' };
  const names = Object.keys(bodies) as Array<keyof typeof bodies>;

  const sendBytes = async (path: string, bytes: Buffer, contentType = 'application/json') => {
    const res = await fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: acme.auth, 'content-type': contentType },
      body: bytes,
    });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
  };

  it.each(names)('%s: a body with bytes that are not UTF-8 (0xC3 0x28 in a string) is a 400 problem naming their offset', async (name) => {
    const [before, after] = bodies[name]('\u0000').split('\u0000') as [string, string];
    const bytes = Buffer.concat([Buffer.from(before), Buffer.from([0x41, 0xc3, 0x28]), Buffer.from(after)]);
    const res = await sendBytes(routes()[name], bytes);
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      type: '/problems/malformed-request',
      status: 400,
      detail: expect.stringContaining(`offset ${Buffer.byteLength(before) + 1} (0xC3 0x28`),
    });
  });

  it.each(names)('%s: a string holding a lone surrogate (a \\udc00 escape) is a 400 naming the field by JSON pointer', async (name) => {
    const res = await call(gw.url, 'POST', routes()[name], {
      auth: acme.auth,
      raw: bodies[name]('a\\udc00b'),
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/validation-failed', status: 400 });
    expect(res.body.errors).toContainEqual({ pointer: pointers[name], message: expect.stringContaining('lone surrogate') });
  });

  it('a lone surrogate in a key names its member; every one in the body is named, in document order', async () => {
    const res = await call(gw.url, 'POST', routes().trigger, {
      auth: acme.auth,
      raw: '{"user":{"email":"ann@example.com","name":"\\ud800"},"data":{"a/\\ud83dx":1,"list":["ok","\\udfff"]}}',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { pointer: '/user/name', message: expect.stringContaining('lone surrogate') },
      { pointer: '/data/a~1\ud83dx', message: expect.stringMatching(/^is a key that .*lone surrogate/) },
      { pointer: '/data/list/1', message: expect.stringContaining('lone surrogate') },
    ]);
  });

  it('text that is valid Unicode passes as it was sent: accents, a surrogate pair escaped or not, a real U+FFFD', async () => {
    const name = 'Café \\ud83c\\udf89 🎉 \ufffd';
    const created = await sendBytes('/v1/projects', Buffer.from(`{"name":"${name}"}`));
    expect(created.status).toBe(201);
    expect(created.body['name']).toBe('Café 🎉 🎉 \ufffd');
    const user = await call(gw.url, 'POST', routes()['create user'], {
      auth: acme.auth,
      raw: bodies['create user']('Zoë \\ud83d\\ude00'),
      contentType: 'application/json',
    });
    expect(user.status).toBe(200);
  });

  it('a JSON body in another charset than UTF-8 is a 415', async () => {
    const res = await sendBytes('/v1/projects', Buffer.from('{"name":"Shop"}', 'utf16le'), 'application/json; charset=utf-16le');
    expect(res.status).toBe(415);
    expect(res.type).toMatch(/^application\/problem\+json/);
  });
});
