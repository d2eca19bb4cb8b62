import { bareAddress, readFieldBlocks, untyped } from './report-fields';

describe('readFieldBlocks', () => {
  it('reads the blocks of a delivery-status part: lower-cased names, continued lines, first of a repeated field', () => {
    const text = [
      'Reporting-MTA: dns; mx.example',
      'Arrival-Date: Thu, 26 Nov 2026',
      '',
      'Final-Recipient: rfc822; ann@example.com',
      'Action: failed',
      'Action: delivered',
      'Diagnostic-Code: smtp; 550 5.1.1 user',
      '  unknown',
      'not a field',
      '',
      '',
    ].join('\r\n');
    const blocks = readFieldBlocks(text);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]!.get('reporting-mta')).toBe('dns; mx.example');
    expect(blocks[1]!.get('action')).toBe('failed');
    expect(blocks[1]!.get('diagnostic-code')).toBe('smtp; 550 5.1.1 user unknown');
    expect([...blocks[1]!.keys()]).toEqual(['final-recipient', 'action', 'diagnostic-code']);
  });

  it('reads nothing from an empty part', () => {
    expect(readFieldBlocks('\n\n')).toEqual([]);
  });
});

describe('untyped and bareAddress', () => {
  it('drops the type of a typed field', () => {
    expect(untyped('rfc822; Ann@Example.com')).toBe('Ann@Example.com');
    expect(untyped('no type')).toBe('no type');
    expect(untyped('rfc822;  ')).toBeUndefined();
    expect(untyped(undefined)).toBeUndefined();
  });

  it('reads an address as reports write it, lower-cased', () => {
    expect(bareAddress('<Ann@Example.COM>')).toBe('ann@example.com');
    expect(bareAddress('ann@example.com')).toBe('ann@example.com');
    expect(bareAddress('Ann <ann@example.com>')).toBe('ann@example.com');
    expect(bareAddress('not an address')).toBeUndefined();
  });
});
