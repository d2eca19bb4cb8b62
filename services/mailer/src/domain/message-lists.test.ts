import { isPersonList, isProjectList, listNames, listOwner, personListsOf } from './message-lists';

describe('the test log (listOwner)', () => {
  it('is the project’s own for real messages and a separate one for test messages', () => {
    expect(listOwner('p1', undefined)).toBe('p1');
    expect(listOwner('p1', false)).toBe('p1');
    expect(listOwner('p1', true)).not.toBe('p1');
    expect(listNames.project(listOwner('p1', true))).not.toBe(listNames.project('p1'));
    expect(listNames.recipient(listOwner('p1', true), 'a@example.org')).not.toBe(listNames.recipient('p1', 'a@example.org'));
  });

  it('keeps its lists what retention takes them for: a project list, and person lists', () => {
    const owner = listOwner('p1', true);
    expect(isProjectList(listNames.project(owner))).toBe(true);
    expect(isProjectList(listNames.status(owner, 'bounced'))).toBe(false);
    expect(isPersonList(listNames.recipient(owner, 'a@example.org'))).toBe(true);
    expect(isPersonList(listNames.user(owner, 'u-1'))).toBe(true);
    expect(isPersonList(listNames.copy(owner, 'a@example.org'))).toBe(true);
    expect(isPersonList(listNames.emailKey(owner, 'welcome'))).toBe(false);
  });

  it('holds a test message’s person lists', () => {
    expect(personListsOf({ projectId: 'p1', email: 'a@example.org', userId: 'u-1', test: true })).toEqual([
      listNames.recipient(listOwner('p1', true), 'a@example.org'),
      listNames.user(listOwner('p1', true), 'u-1'),
    ]);
    expect(personListsOf({ projectId: 'p1', email: 'a@example.org', userId: null })).toEqual([listNames.recipient('p1', 'a@example.org')]);
  });

  it("lists a message under each address it was copied to, apart from the recipient's list, and keeps no address in the names", () => {
    const lists = personListsOf({ projectId: 'p1', email: 'a@example.org', userId: null, cc: ['c@example.org'], bcc: ['b@example.org'] });
    expect(lists).toEqual([
      listNames.recipient('p1', 'a@example.org'),
      listNames.copy('p1', 'c@example.org'),
      listNames.copy('p1', 'b@example.org'),
    ]);
    expect(listNames.copy('p1', 'c@example.org')).not.toBe(listNames.recipient('p1', 'c@example.org'));
    expect(lists.join(' ')).not.toContain('example.org');
  });
});
