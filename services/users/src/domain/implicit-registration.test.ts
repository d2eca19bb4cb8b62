import type { EmailTriggerCommand } from '@postbus/contracts';
import { createFromTrigger, registersUser } from './implicit-registration';

describe('createFromTrigger', () => {
  it('turns the user of a trigger into a create with user_id and fields', () => {
    const create = createFromTrigger({
      messageId: 'msg_1',
      projectId: 'p1',
      emailId: 'e1',
      emailKey: 'welcome',
      templateId: 't1',
      templateVersion: 1,
      user: { email: 'ann@example.com', user_id: 'u1', name: 'Ann', plan: 'pro' },
      data: { code: 1 },
      acceptedAt: '2026-11-22T00:00:00.000Z',
    });
    expect(create).toEqual({ projectId: 'p1', email: 'ann@example.com', userId: 'u1', fields: { name: 'Ann', plan: 'pro' } });
  });
});

describe('registersUser', () => {
  const trigger: EmailTriggerCommand = {
    messageId: 'msg_1',
    projectId: 'p1',
    emailId: 'e1',
    emailKey: 'welcome',
    templateId: 't1',
    templateVersion: 1,
    user: { email: 'a@example.com' },
    data: {},
    acceptedAt: '2026-11-22T00:00:00.000Z',
  };

  it('is true for a real send and false for a test key’s (which leaves the client’s users as they are)', () => {
    expect(registersUser(trigger)).toBe(true);
    expect(registersUser({ ...trigger, test: true })).toBe(false);
  });

  it('is false for a content send that named no user, true for one that did', () => {
    const content = { subject: 'Hi', text: 'Hi', trackOpens: false, trackClicks: false };
    const { emailId: _e, emailKey: _k, templateId: _t, templateVersion: _v, ...base } = trigger;
    expect(registersUser({ ...base, content, unregistered: true })).toBe(false);
    expect(registersUser({ ...base, content })).toBe(true);
  });
});
