import { ReturnPathTokens } from './return-path-tokens';

const secret = 'a-return-path-test-secret-of-at-least-32-chars';
const tokens = new ReturnPathTokens(secret);
const messageId = 'msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9';

describe('return-path tokens', () => {
  it('name their message and purpose, in a lowercase local part of at most 64 characters', () => {
    const bounce = tokens.localPart({ purpose: 'bounce', messageId });
    expect(bounce).toMatch(/^b\.0a1b2c3d4e5f60718293a4b5c6d7e8f9\.[a-z2-7]{20}$/);
    expect(bounce.length).toBeLessThanOrEqual(64);
    expect(tokens.verify(bounce)).toEqual({ purpose: 'bounce', messageId });
    expect(tokens.verify(tokens.localPart({ purpose: 'unsubscribe', messageId }))).toEqual({ purpose: 'unsubscribe', messageId });
  });

  it('survive a server that uppercases the local part', () => {
    expect(tokens.verify(tokens.localPart({ purpose: 'bounce', messageId }).toUpperCase())).toEqual({ purpose: 'bounce', messageId });
  });

  it('cannot be forged: another message, another purpose, another secret, or the bare id are refused', () => {
    const bounce = tokens.localPart({ purpose: 'bounce', messageId });
    const mac = bounce.split('.')[2]!;
    expect(tokens.verify(`b.1a1b2c3d4e5f60718293a4b5c6d7e8f9.${mac}`)).toBeNull();
    expect(tokens.verify(`u.0a1b2c3d4e5f60718293a4b5c6d7e8f9.${mac}`)).toBeNull();
    expect(new ReturnPathTokens(`${secret}-other`).verify(bounce)).toBeNull();
    expect(tokens.verify('b.0a1b2c3d4e5f60718293a4b5c6d7e8f9')).toBeNull();
    expect(tokens.verify(messageId)).toBeNull();
    expect(tokens.verify(`bounces+${messageId}`)).toBeNull();
  });

  it("name a copy's own mail by its position, which no token of the recipient or another copy can stand in for", () => {
    const third = tokens.localPart({ purpose: 'bounce', messageId, copy: 3 });
    expect(third).toMatch(/^b3\.0a1b2c3d4e5f60718293a4b5c6d7e8f9\.[a-z2-7]{20}$/);
    expect(tokens.localPart({ purpose: 'unsubscribe', messageId, copy: 99 }).length).toBeLessThanOrEqual(64);
    expect(tokens.verify(third)).toEqual({ purpose: 'bounce', messageId, copy: 3 });
    const [, hex, mac] = third.split('.') as [string, string, string];
    const recipientMac = tokens.localPart({ purpose: 'bounce', messageId }).split('.')[2]!;
    expect(tokens.verify(`b.${hex}.${mac}`)).toBeNull();
    expect(tokens.verify(`b4.${hex}.${mac}`)).toBeNull();
    expect(tokens.verify(`b3.${hex}.${recipientMac}`)).toBeNull();
    expect(tokens.verify(`b03.${hex}.${mac}`)).toBeNull();
    expect(() => tokens.localPart({ purpose: 'bounce', messageId, copy: 0 })).toThrow("not a copy's position");
    expect(() => tokens.localPart({ purpose: 'bounce', messageId, copy: 100 })).toThrow("not a copy's position");
  });

  it('refuse a short secret and what is not a message id', () => {
    expect(() => new ReturnPathTokens('short')).toThrow('at least 32 characters');
    expect(() => tokens.localPart({ purpose: 'bounce', messageId: 'msg_nothex' })).toThrow('not a message id');
  });
});
