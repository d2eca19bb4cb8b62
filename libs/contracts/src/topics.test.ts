import { PersonalDataTopics, Topics } from './topics';

describe('PersonalDataTopics', () => {
  it('holds every topic but the catalog, the key revocations and the gateway usage, so that a new topic is personal by default', () => {
    expect([...PersonalDataTopics].sort()).toEqual(
      Object.values(Topics)
        .filter((topic) => topic !== Topics.Catalog && topic !== Topics.Auth && topic !== Topics.GatewayUsage)
        .sort(),
    );
    // The batch lane carries the same triggers as the email commands: addresses and user data.
    expect(PersonalDataTopics.has(Topics.EmailBulk)).toBe(true);
    expect(PersonalDataTopics.has(Topics.EmailCommands)).toBe(true);
  });
});
