import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString, Timestamp } from '../common';

export const CreateSenderDomainRequest = Type.Object(
  {
    domain: Type.String({
      format: 'hostname',
      minLength: 3,
      // 253 less `<selector>._domainkey.` (20): the DKIM record's name must itself be a valid DNS name.
      maxLength: 233,
      // A name with at least one dot, stated as a pattern so that generators (schemathesis) find such names.
      pattern: '^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$',
      description: 'the domain mail is sent from, e.g. mail.example.com',
    }),
  },
  { additionalProperties: false },
);
export type CreateSenderDomainRequest = Static<typeof CreateSenderDomainRequest>;

export const SenderDomainIdParam = Type.Object({ senderDomainId: ObjectIdString });

const RecordPurpose = Type.Union([
  Type.Literal('spf'),
  Type.Literal('dkim'),
  Type.Literal('dmarc'),
  Type.Literal('tracking'),
  Type.Literal('ownership'),
  Type.Literal('return_path_mx'),
  Type.Literal('return_path_spf'),
]);

/** `postbus-verification=<token>` at `_postbus.<domain>`: required when another client added the domain first. */
const OwnershipRecord = Type.Object({
  purpose: Type.Literal('ownership'),
  type: Type.Literal('TXT'),
  name: Type.String(),
  value: Type.String(),
  required: Type.Boolean(),
});

export const SenderDomain = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
  dkim_selector: Type.String(),
  records: Type.Array(
    Type.Object({
      purpose: RecordPurpose,
      type: Type.Union([Type.Literal('TXT'), Type.Literal('MX')]),
      name: Type.String(),
      value: Type.String({ description: 'an MX value is "<preference> <host>"' }),
      required: Type.Boolean(),
    }),
    {
      description:
        'publish these in DNS, then call verify; the return-path MX and SPF (pb-bounces.<domain>) are not required to send, but without them bounces and complaints go unread',
    },
  ),
  verification: Nullable(
    Type.Object({
      checked_at: Timestamp,
      records: Type.Array(
        Type.Object({
          purpose: RecordPurpose,
          type: Type.Union([Type.Literal('TXT'), Type.Literal('CNAME'), Type.Literal('MX')]),
          name: Type.String(),
          expected: Type.String(),
          found: Type.Array(Type.String()),
          ok: Type.Boolean(),
          required: Type.Boolean(),
          detail: Type.String(),
        }),
      ),
    }),
  ),
  verified_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type SenderDomain = Static<typeof SenderDomain>;

export const SenderDomainList = Type.Object({ data: Type.Array(SenderDomain) });

export const CreateTrackingDomainRequest = Type.Object(
  { domain: CreateSenderDomainRequest.properties.domain },
  { additionalProperties: false },
);
export type CreateTrackingDomainRequest = Static<typeof CreateTrackingDomainRequest>;

export const TrackingDomainIdParam = Type.Object({ trackingDomainId: ObjectIdString });

export const TrackingDomain = Type.Object({
  id: Type.String(),
  domain: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('failed')]),
  records: Type.Array(
    Type.Union([
      Type.Object({
        purpose: Type.Literal('tracking'),
        type: Type.Literal('CNAME'),
        name: Type.String(),
        value: Type.String(),
        required: Type.Boolean(),
      }),
      OwnershipRecord,
    ]),
    { description: 'publish the CNAME (and the ownership TXT when required), then call verify' },
  ),
  verification: SenderDomain.properties.verification,
  verified_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type TrackingDomain = Static<typeof TrackingDomain>;

export const TrackingDomainList = Type.Object({ data: Type.Array(TrackingDomain) });
