/** @postbus-system shared */
import { call } from '@postbus/testing';
import { createClientAndProject, sharedSystem, type DemoClient, type RunningSystem } from './system';

/**
 * Validating an unsaved template (issue 51 item 4): the editor's errors by field, line and column
 * while typing, its render with a user and data, and the variables it reads — nothing is saved.
 */
describe('POST /v1/projects/{projectId}/templates/validate', () => {
  let system: RunningSystem;
  let client: DemoClient;
  let other: DemoClient;

  beforeAll(async () => {
    system = await sharedSystem();
    [client, other] = await Promise.all([createClientAndProject(system), createClientAndProject(system)]);
  }, 120_000);

  const validate = (json: unknown, as = client, projectId = client.projectId) =>
    call(system.gatewayUrl, 'POST', `/v1/projects/${projectId}/templates/validate`, { auth: as.auth, json });

  it('when line 2 of the body breaks, then the error names html, line 2 and where on it, and nothing is rendered', async () => {
    const res = await validate({ subject: 'Hi {{user.name}}', html: '<p>Hello</p>\n<p>{{user.name}</p>\n<p>{{data.plan}}</p>' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: false,
      errors: [{ field: 'html', line: 2, column: expect.any(Number), message: expect.stringMatching(/^Expecting /) }],
      rendered: null,
      variables: ['user.name'],
    });
  });

  it('when the template is valid, then it is rendered with the user and data given and names what it reads', async () => {
    const res = await validate({
      subject: 'Your order {{data.order.id}}',
      html: '<p>Hi {{user.name}}</p><ul>{{#each data.items}}<li>{{name}} × {{qty}}</li>{{/each}}</ul>{{#if user.vip}}VIP{{/if}}',
      user: { name: 'Ann <3', vip: true },
      data: { order: { id: '4711' }, items: [{ name: 'Tea', qty: 2 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      valid: true,
      errors: [],
      rendered: {
        subject: 'Your order 4711',
        html: '<p>Hi Ann &lt;3</p><ul><li>Tea × 2</li></ul>VIP',
        text: expect.stringContaining('Hi Ann <3'),
      },
      variables: ['data.items', 'data.items.name', 'data.items.qty', 'data.order.id', 'user.name', 'user.vip'],
    });
  });

  it('when a render fails (a helper that is not allowed), then the error names the field and where it is called', async () => {
    const res = await validate({ html: '<p>ok</p>\n {{log user.name}}' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: false,
      errors: [{ field: 'html', line: 2, column: 2, message: expect.stringMatching(/log/) }],
      rendered: null,
    });
  });

  it('when the body has none of subject, html and text, then it is a 422 naming /subject; an unknown field is a 400', async () => {
    const none = await validate({ user: { name: 'Ann' } });
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual([{ pointer: '/subject', message: expect.any(String) }]);
    const later = await validate({ html: '<p>x</p>', layout_id: 'abc' });
    expect(later.status).toBe(400);
  });

  it("when another client's project is named, then it is a 404; another method on the path is a 405 naming POST", async () => {
    expect((await validate({ html: '<p>x</p>' }, other, other.projectId)).status).toBe(200);
    expect((await validate({ html: '<p>x</p>' }, other, client.projectId)).status).toBe(404);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const other = await call(system.gatewayUrl, method, `/v1/projects/${client.projectId}/templates/validate`, { auth: client.auth });
      expect(other.status).toBe(405);
      expect(other.headers.get('allow')).toBe('POST');
    }
  });
});
